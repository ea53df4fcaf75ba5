// SPDX-License-Identifier: GPL-3.0-or-later
#include "options.h"

#include <errno.h>
#include <math.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opjit/samples.h>

#define DEFAULT_FREQUENCY 4000
#define DEFAULT_ARCHIVE_MIB 64
/* the kernel's own default, kernel.perf_event_max_stack */
#define DEFAULT_CALLGRAPH_DEPTH 127

static char *opt_pid, *opt_duration, *opt_separate, *opt_session_dir;
static char *opt_frequency, *opt_period, *opt_event, *opt_archive_max;
static char *opt_callgraph_depth;
static int opt_system, opt_no_kernel, opt_no_archive, opt_callgraph;

enum {
	OPT_PID = 1, OPT_DURATION, OPT_SEPARATE, OPT_SESSION_DIR,
	OPT_FREQUENCY, OPT_PERIOD, OPT_EVENT, OPT_ARCHIVE_MAX,
	OPT_CALLGRAPH_DEPTH,
};

/* String options come back through poptGetOptArg so that one given
 * twice replaces, and frees, the first. */
static char **options_slot(int val)
{
	switch (val) {
	case OPT_PID: return &opt_pid;
	case OPT_DURATION: return &opt_duration;
	case OPT_SEPARATE: return &opt_separate;
	case OPT_SESSION_DIR: return &opt_session_dir;
	case OPT_FREQUENCY: return &opt_frequency;
	case OPT_PERIOD: return &opt_period;
	case OPT_EVENT: return &opt_event;
	case OPT_ARCHIVE_MAX: return &opt_archive_max;
	case OPT_CALLGRAPH_DEPTH: return &opt_callgraph_depth;
	}
	return NULL;
}

static const struct poptOption options_table[] = {
	{ "pid", 'p', POPT_ARG_STRING, NULL, OPT_PID,
	  "profile all threads of the running process PID", "PID" },
	{ "system-wide", 'a', POPT_ARG_NONE, &opt_system, 0,
	  "profile all CPUs (needs root or CAP_PERFMON)", NULL },
	{ "duration", 'd', POPT_ARG_STRING, NULL, OPT_DURATION,
	  "stop after SECONDS", "SECONDS" },
	{ "separate", 's', POPT_ARG_STRING, NULL, OPT_SEPARATE,
	  "keep histograms per process and/or per CPU (comma list)",
	  "process,cpu,none" },
	{ "session-dir", 0, POPT_ARG_STRING, NULL, OPT_SESSION_DIR,
	  "write the session to DIR (default ./oprofile_data)", "DIR" },
	{ "frequency", 'F', POPT_ARG_STRING, NULL, OPT_FREQUENCY,
	  "sample HZ times a second per CPU (default 4000)", "HZ" },
	{ "period", 'c', POPT_ARG_STRING, NULL, OPT_PERIOD,
	  "sample once every N events instead", "N" },
	{ "event", 'e', POPT_ARG_STRING, NULL, OPT_EVENT,
	  "the event to sample (default cpu-clock)", "NAME" },
	{ "no-kernel", 0, POPT_ARG_NONE, &opt_no_kernel, 0,
	  "do not record kernel samples", NULL },
	{ "no-archive-maps", 0, POPT_ARG_NONE, &opt_no_archive, 0,
	  "do not copy JIT map files into the session", NULL },
	{ "archive-max", 0, POPT_ARG_STRING, NULL, OPT_ARCHIVE_MAX,
	  "copy no JIT map file larger than MIB (default 64)", "MIB" },
	{ "callgraph", 'g', POPT_ARG_NONE, &opt_callgraph, 0,
	  "record a call chain with each sample (frame pointers)", NULL },
	{ "callgraph-depth", 0, POPT_ARG_STRING, NULL, OPT_CALLGRAPH_DEPTH,
	  "record at most N frames a sample (default 127); implies -g",
	  "N" },
	POPT_AUTOHELP
	POPT_TABLEEND
};

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

static int bad_value(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "oprofiled: invalid %s '%s': %s\n", opt, val, why);
	return -EINVAL;
}

static int parse_separate(struct options *o, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	o->separate = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "process"))
			o->separate |= OPS_SEPARATE_PROCESS;
		else if (!strcmp(tok, "cpu"))
			o->separate |= OPS_SEPARATE_CPU;
		else if (!strcmp(tok, "all"))
			o->separate |= OPS_SEPARATE_PROCESS |
				       OPS_SEPARATE_CPU;
		else if (strcmp(tok, "none")) {
			err = bad_value("--separate", arg,
					"expected process, cpu, all or none");
			break;
		}
	}
	free(copy);
	return err;
}

static int options_join(struct options *o, int argc, const char **argv)
{
	size_t len = 1;
	char *p;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	o->command_line = malloc(len);
	if (!o->command_line)
		return -ENOMEM;
	p = o->command_line;
	*p = '\0';
	for (int i = 0; i < argc; i++)
		p += sprintf(p, "%s%s", i ? " " : "", argv[i]);
	return 0;
}

static int options_check(struct options *o)
{
	uint64_t v;
	int modes = !!o->command + !!opt_pid + !!opt_system;

	if (modes == 0) {
		fprintf(stderr, "oprofiled: nothing to profile: give a "
			"COMMAND, --pid or --system-wide\n");
		return -EINVAL;
	}
	if (modes > 1) {
		fprintf(stderr, "oprofiled: a COMMAND, --pid and "
			"--system-wide exclude each other\n");
		return -EINVAL;
	}
	o->mode = o->command ? MODE_COMMAND :
		  opt_pid ? MODE_PID : MODE_SYSTEM;
	if (opt_pid) {
		if (parse_u64(opt_pid, &v) || v == 0 || v > INT32_MAX)
			return bad_value("--pid", opt_pid,
					 "not a process id");
		o->pid = (pid_t)v;
	}
	if (opt_duration) {
		char *end;

		errno = 0;
		o->duration = strtod(opt_duration, &end);
		if (errno || *end || end == opt_duration ||
		    !isfinite(o->duration) || o->duration <= 0 ||
		    o->duration > 1e9)
			return bad_value("--duration", opt_duration,
					 "not a positive number of seconds");
	}
	if (opt_separate && parse_separate(o, opt_separate))
		return -EINVAL;
	if (opt_frequency && opt_period) {
		fprintf(stderr, "oprofiled: --frequency and --period exclude "
			"each other\n");
		return -EINVAL;
	}
	if (opt_frequency) {
		if (parse_u64(opt_frequency, &v) || v == 0)
			return bad_value("--frequency", opt_frequency,
					 "not a positive integer");
		o->frequency = v;
	}
	if (opt_period) {
		if (parse_u64(opt_period, &v) || v == 0)
			return bad_value("--period", opt_period,
					 "not a positive integer");
		o->period = v;
		o->frequency = 0;
	}
	if (opt_event) {
		o->event = evname_find(opt_event);
		if (!o->event) {
			fprintf(stderr, "oprofiled: unknown event '%s'\n",
				opt_event);
			return -EINVAL;
		}
	}
	if (opt_archive_max) {
		if (parse_u64(opt_archive_max, &v) || v > (1ull << 40))
			return bad_value("--archive-max", opt_archive_max,
					 "not a size in MiB");
		o->archive_max_bytes = v << 20;
	}
	if (opt_session_dir) {
		if (!*opt_session_dir)
			return bad_value("--session-dir", opt_session_dir,
					 "empty path");
		o->session_dir = opt_session_dir;
	}
	if (opt_callgraph_depth) {
		if (parse_u64(opt_callgraph_depth, &v) || v == 0 ||
		    v >= OPS_STACK_MAX_FRAMES)
			return bad_value("--callgraph-depth",
					 opt_callgraph_depth,
					 "not a number of frames from 1 to 1023");
		o->callgraph_depth = (uint32_t)v;
	} else if (opt_callgraph) {
		o->callgraph_depth = DEFAULT_CALLGRAPH_DEPTH;
	}
	o->no_kernel = opt_no_kernel;
	o->archive_maps = !opt_no_archive;
	return 0;
}

int options_parse(struct options *o, int argc, const char **argv)
{
	poptContext pc;
	const char **rest;
	int rc, err = -EINVAL;

	memset(o, 0, sizeof(*o));
	opt_system = opt_no_kernel = opt_no_archive = opt_callgraph = 0;
	o->session_dir = "./oprofile_data";
	o->frequency = DEFAULT_FREQUENCY;
	o->event = evname_find("cpu-clock");
	o->archive_max_bytes = (uint64_t)DEFAULT_ARCHIVE_MIB << 20;
	if (options_join(o, argc, argv))
		return -ENOMEM;
	/* POSIXMEHARDER: the first word that is not an option starts the
	 * command, so its own options are left alone even without "--" */
	pc = poptGetContext("oprofiled", argc, argv, options_table,
			    POPT_CONTEXT_POSIXMEHARDER);
	o->popt = pc;
	poptSetOtherOptionHelp(pc, "[OPTION...] [--] COMMAND [ARGS...]");
	while ((rc = poptGetNextOpt(pc)) >= 0) {
		char **slot = options_slot(rc);

		if (slot) {
			free(*slot);
			*slot = poptGetOptArg(pc);
		}
	}
	if (rc < -1) {
		fprintf(stderr, "oprofiled: %s: %s\n", poptStrerror(rc),
			poptBadOption(pc, POPT_BADOPTION_NOALIAS));
		return -EINVAL;
	}
	rest = poptGetArgs(pc);
	if (rest && rest[0])
		o->command = (char **)rest;
	err = options_check(o);
	return err;
}

void options_free(struct options *o)
{
	char **strs[] = { &opt_pid, &opt_duration, &opt_separate,
			  &opt_session_dir, &opt_frequency, &opt_period,
			  &opt_event, &opt_archive_max,
			  &opt_callgraph_depth };

	if (o->popt)
		poptFreeContext(o->popt);
	for (size_t i = 0; i < sizeof(strs) / sizeof(*strs); i++) {
		free(*strs[i]);
		*strs[i] = NULL;
	}
	free(o->command_line);
	o->popt = NULL;
	o->command_line = NULL;
}
