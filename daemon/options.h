/* SPDX-License-Identifier: GPL-3.0-or-later */
/* oprofiled's command line. */
#ifndef OPROFILED_OPTIONS_H
#define OPROFILED_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "evname.h"

enum options_mode {
	MODE_COMMAND,
	MODE_PID,
	MODE_SYSTEM,
};

/* events in one session: perf's groups stop near here too */
#define OPTIONS_MAX_EVENTS 8

struct options {
	enum options_mode mode;
	pid_t pid;
	char **command;	   /* NULL-terminated, MODE_COMMAND only */
	double duration;   /* seconds, 0 for none */
	uint32_t separate; /* OPS_SEPARATE_* */
	const char *session_dir;
	uint64_t frequency; /* Hz, 0 when a period is given */
	uint64_t period;
	const struct evname *event; /* events[0] */
	/* -e's, in the order given: event i of the session (a context's
	 * event index) */
	const struct evname *events[OPTIONS_MAX_EVENTS];
	unsigned nr_events;
	char *event_list; /* their names, comma separated (session.meta) */
	bool no_kernel;
	bool archive_maps;
	bool kallsyms_cache; /* --no-kallsyms-cache turns it off */
	uint64_t archive_max_bytes;
	uint32_t callgraph_depth; /* frames per sample, 0: no call graph */
	uint32_t stack_copy;	  /* user stack bytes per sample, 0: none */
	char *command_line;	  /* oprofiled's own, for the session */
	void *popt;		  /* owns the strings above */
	const char **argv;	  /* the arguments popt parsed */
	char *mode_arg[2];	  /* rewritten --callgraph=MODE words */
	unsigned nr_mode_args;
};

/* Parse ARGV; prints one line and returns -EINVAL on bad input, or 1
 * when the run is over (--version printed).  --help and --usage print
 * and exit here, as popt does. */
int options_parse(struct options *o, int argc, const char **argv);
void options_free(struct options *o);

#endif
