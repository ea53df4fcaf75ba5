// SPDX-License-Identifier: GPL-3.0-or-later
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opjit/samples.h>

#include "diag.h"

#define DEFAULT_FREQUENCY 4000
#define DEFAULT_ARCHIVE_MIB 64
/* the kernel's own default, kernel.perf_event_max_stack */
#define DEFAULT_CALLGRAPH_DEPTH 127
/* --callgraph=dwarf's, as perf record's */
#define DEFAULT_DWARF_COPY 8192
/* the kernel's limit on PERF_SAMPLE_STACK_USER, rounded to 8 */
#define MAX_STACK_COPY 65528

static char *opt_pid, *opt_duration, *opt_separate, *opt_session_dir;
static char *opt_frequency, *opt_period, *opt_event, *opt_archive_max;
static char *opt_callgraph_depth, *opt_callgraph_mode;
static int opt_system, opt_no_kernel, opt_no_archive, opt_callgraph;
static int opt_no_ksymcache;

enum {
	OPT_PID = 1,
	OPT_DURATION,
	OPT_SEPARATE,
	OPT_SESSION_DIR,
	OPT_FREQUENCY,
	OPT_PERIOD,
	OPT_EVENT,
	OPT_ARCHIVE_MAX,
	OPT_CALLGRAPH_DEPTH,
	OPT_CALLGRAPH_MODE,
	OPT_VERSION,
	OPT_LIST_EVENTS,
};

/* The kernel refuses a sample_period with bit 63 set. */
#define PERIOD_MAX ((1ull << 63) - 1)

/* String options come back through poptGetOptArg so that one given
 * twice replaces, and frees, the first. */
static char **options_slot(int val)
{
	switch (val) {
	case OPT_PID:
		return &opt_pid;
	case OPT_DURATION:
		return &opt_duration;
	case OPT_SEPARATE:
		return &opt_separate;
	case OPT_SESSION_DIR:
		return &opt_session_dir;
	case OPT_FREQUENCY:
		return &opt_frequency;
	case OPT_PERIOD:
		return &opt_period;
	case OPT_EVENT:
		return &opt_event;
	case OPT_ARCHIVE_MAX:
		return &opt_archive_max;
	case OPT_CALLGRAPH_DEPTH:
		return &opt_callgraph_depth;
	case OPT_CALLGRAPH_MODE:
		return &opt_callgraph_mode;
	}
	return NULL;
}

static const struct poptOption options_table[] = {
	{ "pid", 'p', POPT_ARG_STRING, NULL, OPT_PID,
	  "profile all threads of the running process PID", "PID" },
	{ "system-wide", 'a', POPT_ARG_NONE, &opt_system, 0,
	  "profile all CPUs (needs root or CAP_PERFMON)", NULL },
	/* perf record's spellings of -a, -F and -c */
	{ "all-cpus", 0, POPT_ARG_NONE, &opt_system, 0,
	  "the same as --system-wide", NULL },
	{ "duration", 'd', POPT_ARG_STRING, NULL, OPT_DURATION,
	  "stop after SECONDS", "SECONDS" },
	{ "separate", 's', POPT_ARG_STRING, NULL, OPT_SEPARATE,
	  "keep histograms per process, thread and/or CPU (comma list)",
	  "process,thread,cpu,all,none" },
	{ "session-dir", 0, POPT_ARG_STRING, NULL, OPT_SESSION_DIR,
	  "write the session to DIR (default ./oprofile_data)", "DIR" },
	/* perf record's spelling; the session is a directory, not a file */
	{ "output", 'o', POPT_ARG_STRING, NULL, OPT_SESSION_DIR,
	  "the same as --session-dir", "DIR" },
	{ "frequency", 'F', POPT_ARG_STRING, NULL, OPT_FREQUENCY,
	  "sample HZ times a second per CPU (default 4000)", "HZ" },
	{ "freq", 0, POPT_ARG_STRING, NULL, OPT_FREQUENCY,
	  "the same as --frequency", "HZ" },
	{ "period", 'c', POPT_ARG_STRING, NULL, OPT_PERIOD,
	  "sample once every N events instead", "N" },
	{ "count", 0, POPT_ARG_STRING, NULL, OPT_PERIOD,
	  "the same as --period", "N" },
	{ "event", 'e', POPT_ARG_STRING, NULL, OPT_EVENT,
	  "the event to sample (default cpu-clock; 'list' lists them); "
	  "repeated or a comma list records several in one session",
	  "NAME" },
	{ "list-events", 0, POPT_ARG_NONE, NULL, OPT_LIST_EVENTS,
	  "list the events this machine can sample and exit", NULL },
	{ "no-kernel", 0, POPT_ARG_NONE, &opt_no_kernel, 0,
	  "do not record kernel samples", NULL },
	{ "no-kallsyms-cache", 0, POPT_ARG_NONE, &opt_no_ksymcache, 0,
	  "read /proc/kallsyms at every start, not the copy of this boot's "
	  "kept in ~/.cache/opjit",
	  NULL },
	{ "no-archive-maps", 0, POPT_ARG_NONE, &opt_no_archive, 0,
	  "do not copy JIT map files into the session", NULL },
	{ "archive-max", 0, POPT_ARG_STRING, NULL, OPT_ARCHIVE_MAX,
	  "copy no JIT map file larger than MIB (default 64)", "MIB" },
	{ "callgraph", 'g', POPT_ARG_NONE, &opt_callgraph, 0,
	  "record a call chain with each sample (frame pointers; "
	  "--callgraph=fp the same; --callgraph=dwarf[,BYTES] also keeps "
	  "registers and 8192 or BYTES of user stack, from which opreport "
	  "unwinds code without frame pointers, names a JVM's "
	  "interpreted frames and PyPy loops' JIT callers)",
	  NULL },
	/* --callgraph=MODE and --call-graph[=]MODE are rewritten to this */
	{ "callgraph-mode", 0, POPT_ARG_STRING | POPT_ARGFLAG_DOC_HIDDEN, NULL,
	  OPT_CALLGRAPH_MODE, NULL, NULL },
	{ "callgraph-depth", 0, POPT_ARG_STRING, NULL, OPT_CALLGRAPH_DEPTH,
	  "record at most N frames a sample (default 127); implies -g", "N" },
	{ "version", 'v', POPT_ARG_NONE, NULL, OPT_VERSION,
	  "show the version and exit", NULL },
	POPT_AUTOHELP POPT_TABLEEND
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
	diag("invalid %s '%s': %s", opt, val, why);
	return -EINVAL;
}

/* --separate's values: the parser and its error line both read this
 * table, so the line lists exactly what is accepted. */
static const struct {
	const char *name;
	uint32_t bits;
} separate_names[] = {
	{ "process", OPS_SEPARATE_PROCESS },
	{ "thread", OPS_SEPARATE_PROCESS | OPS_SEPARATE_THREAD },
	{ "cpu", OPS_SEPARATE_CPU },
	{ "all", OPS_SEPARATE_PROCESS | OPS_SEPARATE_CPU },
	{ "none", 0 },
};
#define NR_SEPARATE (sizeof(separate_names) / sizeof(separate_names[0]))

static int separate_refuse(const char *arg, bool empty_item)
{
	char why[128] = "expected ";
	size_t i;

	if (empty_item)
		return bad_value("--separate", arg, "empty item in the list");
	for (i = 0; i < NR_SEPARATE; i++)
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%s",
			 separate_names[i].name,
			 i + 2 < NR_SEPARATE   ? ", "
			 : i + 1 < NR_SEPARATE ? " or "
					       : "");
	return bad_value("--separate", arg, why);
}

/* A comma list of separate_names; an empty item is a mistake, not a
 * no-op. */
static int parse_separate(struct options *o, const char *arg)
{
	const char *p = arg;
	uint32_t bits = 0;

	for (;;) {
		size_t len = strcspn(p, ","), i;

		for (i = 0; i < NR_SEPARATE; i++)
			if (strlen(separate_names[i].name) == len &&
			    !strncmp(separate_names[i].name, p, len))
				break;
		if (i == NR_SEPARATE)
			return separate_refuse(arg, !len && *arg);
		bits |= separate_names[i].bits;
		p += len;
		if (!*p)
			break;
		p++;
	}
	o->separate = bits;
	return 0;
}

/* What popt refused, in the words git uses. */
static void options_bad(poptContext pc, int rc)
{
	const char *opt = poptBadOption(pc, POPT_BADOPTION_NOALIAS);

	if (rc == POPT_ERROR_BADOPT)
		diag("unknown option '%s'", opt);
	else if (rc == POPT_ERROR_NOARG)
		diag("option '%s' needs a value", opt);
	else
		diag("invalid option '%s': %s", opt, poptStrerror(rc));
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

/* --callgraph=MODE into O; nonzero after its one error line */
static int callgraph_mode(struct options *o, const char *m)
{
	uint64_t v;

	if (!strcmp(m, "fp")) {
		o->stack_copy = 0;
		return 0;
	}
	if (!strcmp(m, "dwarf")) {
		o->stack_copy = DEFAULT_DWARF_COPY;
		return 0;
	}
	if (strncmp(m, "dwarf,", 6))
		return bad_value("--callgraph", m,
				 "not fp, dwarf or dwarf,BYTES");
	if (parse_u64(m + 6, &v) || v < 8 || v > MAX_STACK_COPY)
		return bad_value("--callgraph", m,
				 "BYTES is not a number from 8 to 65528");
	o->stack_copy = (uint32_t)(v & ~7ull);
	return 0;
}

/* LIST: the -e values joined by commas, each a name as perf spells
 * it; the session records them all, the first the default of a report. */
static int options_events(struct options *o, char *list)
{
	char *save = NULL, *name;
	size_t n = strlen(list);

	if (!n || list[0] == ',' || list[n - 1] == ',' || strstr(list, ",,")) {
		diag("empty event name in '%s'", list);
		return -EINVAL;
	}
	o->nr_events = 0;
	o->event_list = list;
	for (name = strtok_r(list, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		const struct evname *ev = evname_find(name);

		if (!strcmp(name, "list")) {
			diag("-e list lists the events; it is not one");
			return -EINVAL;
		}
		if (!ev) {
			diag("unknown event '%s' (oprofiled --list-events "
			     "lists them)",
			     name);
			return -EINVAL;
		}
		for (unsigned i = 0; i < o->nr_events; i++)
			if (o->events[i]->type == ev->type &&
			    o->events[i]->config == ev->config) {
				diag("event '%s' given twice (%s)", name,
				     o->events[i]->name);
				return -EINVAL;
			}
		if (o->nr_events == OPTIONS_MAX_EVENTS) {
			diag("more than %d events in one session",
			     OPTIONS_MAX_EVENTS);
			return -EINVAL;
		}
		o->events[o->nr_events++] = ev;
	}
	o->event = o->events[0];
	/* strtok_r cut the list: make it a list again, with the names */
	o->event_list[0] = '\0';
	for (unsigned i = 0; i < o->nr_events; i++) {
		if (i)
			strcat(o->event_list, ",");
		strcat(o->event_list, o->events[i]->name);
	}
	return 0;
}

static int options_check(struct options *o)
{
	uint64_t v;
	int modes = !!o->command + !!opt_pid + !!opt_system;

	/* a bad value is named first: it is what the user just typed */
	if (opt_pid) {
		if (parse_u64(opt_pid, &v) || v == 0 || v > INT32_MAX)
			return bad_value("--pid", opt_pid, "not a process id");
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
		diag("--frequency and --period exclude "
		     "each other");
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
		if (v > PERIOD_MAX)
			return bad_value("--period", opt_period,
					 "larger than 2^63-1");
		o->period = v;
		o->frequency = 0;
	}
	if (opt_event && !strcmp(opt_event, "list")) {
		evname_list(stdout);
		return 1;
	}
	if (opt_event) {
		int err = options_events(o, opt_event);

		if (err)
			return err;
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
			return bad_value(
				"--callgraph-depth", opt_callgraph_depth,
				"not a number of frames from 1 to 1023");
		o->callgraph_depth = (uint32_t)v;
	} else if (opt_callgraph || opt_callgraph_mode) {
		o->callgraph_depth = DEFAULT_CALLGRAPH_DEPTH;
	}
	if (opt_callgraph_mode && callgraph_mode(o, opt_callgraph_mode))
		return -EINVAL;
	o->no_kernel = opt_no_kernel;
	o->archive_maps = !opt_no_archive;
	o->kallsyms_cache = !opt_no_ksymcache;
	if (modes == 0) {
		diag("nothing to profile: give a "
		     "COMMAND, --pid or --system-wide");
		return -EINVAL;
	}
	if (modes > 1) {
		diag("a COMMAND, --pid and "
		     "--system-wide exclude each other");
		return -EINVAL;
	}
	o->mode = o->command ? MODE_COMMAND : opt_pid ? MODE_PID : MODE_SYSTEM;
	return 0;
}

static bool callgraph_mode_word(const char *s)
{
	return !strcmp(s, "fp") || !strcmp(s, "dwarf") ||
	       !strncmp(s, "dwarf,", 6);
}

/* Options whose value is the next word. */
static bool takes_word(const char *s)
{
	static const char *const opts[] = {
		"-p",
		"--pid",
		"-d",
		"--duration",
		"-s",
		"--separate",
		"--session-dir",
		"-o",
		"--output",
		"-F",
		"--frequency",
		"--freq",
		"-c",
		"--period",
		"--count",
		"-e",
		"--event",
		"--archive-max",
		"--callgraph-depth",
	};

	for (size_t i = 0; i < sizeof(opts) / sizeof(*opts); i++)
		if (!strcmp(s, opts[i]))
			return true;
	return false;
}

/* popt has no option that is a flag alone and takes a value after '='
 * too: --callgraph=MODE and perf's --call-graph[=]MODE become
 * --callgraph-mode=MODE, and a bare --call-graph becomes -g, in a copy
 * of ARGV up to the command. */
static int callgraph_rewrite(struct options *o, int *argc, const char ***argv)
{
	const char **v = calloc((size_t)*argc + 1, sizeof(*v));
	int i, n = 0;

	if (!v)
		return -ENOMEM;
	o->argv = v;
	for (i = 0; i < *argc; i++) {
		const char *a = (*argv)[i], *eq = strchr(a, '=');
		bool option = i > 0 && a[0] == '-';

		if (i > 0 && !option && !takes_word((*argv)[i - 1])) {
			while (i < *argc)
				v[n++] = (*argv)[i++];
			break;
		}
		if (!strcmp(a, "--")) {
			while (i < *argc)
				v[n++] = (*argv)[i++];
			break;
		}
		if (option && eq &&
		    (!strncmp(a, "--callgraph=", 12) ||
		     !strncmp(a, "--call-graph=", 13))) {
			char *m = malloc(strlen(eq) + 17);

			if (o->nr_mode_args == 2) {
				free(m);
				return bad_value("--callgraph", eq + 1,
						 "given more than twice");
			}
			if (!m)
				return -ENOMEM;
			sprintf(m, "--callgraph-mode%s", eq);
			o->mode_arg[o->nr_mode_args++] = m;
			v[n++] = m;
		} else if (option && !strcmp(a, "--call-graph") &&
			   i + 1 < *argc &&
			   callgraph_mode_word((*argv)[i + 1])) {
			v[n++] = "--callgraph-mode";
			v[n++] = (*argv)[++i];
		} else if (option && !strcmp(a, "--call-graph")) {
			v[n++] = "-g";
		} else {
			v[n++] = a;
		}
	}
	*argc = n;
	*argv = v;
	return 0;
}

int options_parse(struct options *o, int argc, const char **argv)
{
	poptContext pc;
	const char **rest;
	int rc, err = -EINVAL;

	memset(o, 0, sizeof(*o));
	opt_system = opt_no_kernel = opt_no_archive = opt_callgraph = 0;
	opt_no_ksymcache = 0;
	o->session_dir = "./oprofile_data";
	o->frequency = DEFAULT_FREQUENCY;
	o->event = evname_find("cpu-clock");
	o->events[0] = o->event;
	o->nr_events = 1;
	o->event_list = (char *)o->event->name;
	o->archive_max_bytes = (uint64_t)DEFAULT_ARCHIVE_MIB << 20;
	if (options_join(o, argc, argv))
		return -ENOMEM;
	err = callgraph_rewrite(o, &argc, &argv);
	if (err)
		return err;
	/* POSIXMEHARDER: the first word that is not an option starts the
	 * command, so its own options are left alone even without "--" */
	pc = poptGetContext("oprofiled", argc, argv, options_table,
			    POPT_CONTEXT_POSIXMEHARDER);
	o->popt = pc;
	poptSetOtherOptionHelp(pc, "[OPTION...] [--] COMMAND [ARGS...]");
	while ((rc = poptGetNextOpt(pc)) >= 0 && rc != OPT_VERSION &&
	       rc != OPT_LIST_EVENTS) {
		char **slot = options_slot(rc);

		/* -e a -e b is -e a,b, as perf takes it */
		if (rc == OPT_EVENT && opt_event) {
			char *more = poptGetOptArg(pc), *both = NULL;

			if (!more ||
			    asprintf(&both, "%s,%s", opt_event, more) < 0) {
				free(more);
				return -ENOMEM;
			}
			free(more);
			free(opt_event);
			opt_event = both;
			continue;
		}
		if (slot) {
			free(*slot);
			*slot = poptGetOptArg(pc);
		}
	}
	if (rc == OPT_VERSION) {
		printf("oprofiled (opjit) %s\n", PROJECT_VERSION);
		return 1;
	}
	if (rc == OPT_LIST_EVENTS) {
		evname_list(stdout);
		return 1;
	}
	if (rc < -1) {
		options_bad(pc, rc);
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
	char **strs[] = {
		&opt_pid,	    &opt_duration,    &opt_separate,
		&opt_session_dir,   &opt_frequency,   &opt_period,
		&opt_event,	    &opt_archive_max, &opt_callgraph_depth,
		&opt_callgraph_mode
	};

	if (o->popt)
		poptFreeContext(o->popt);
	for (size_t i = 0; i < sizeof(strs) / sizeof(*strs); i++) {
		free(*strs[i]);
		*strs[i] = NULL;
	}
	free(o->command_line);
	free(o->argv);
	free(o->mode_arg[0]);
	free(o->mode_arg[1]);
	o->argv = NULL;
	o->mode_arg[0] = o->mode_arg[1] = NULL;
	o->popt = NULL;
	o->command_line = NULL;
}
