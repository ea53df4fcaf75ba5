// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon_handlers.h"
#include "options.h"
#include "spec.h"
#include "timerange.h"

int options_parse_threshold(const char *s, double *out, char *err,
			    size_t errlen)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end != s && *end == '%')
		end++;
	/* strtod takes "nan", "inf" and hex: refuse what is not a percentage */
	if (end == s || *end || errno || !isfinite(v) || v < 0 || v > 100 ||
	    strpbrk(s, "xXnNiI")) {
		snprintf(
			err, errlen,
			"invalid --threshold '%s': expected a percentage between 0 and 100",
			s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* The length of the item at P: up to the next comma, or with NESTED up
 * to the next comma outside brackets, so that a C++ symbol's arguments
 * ("f(int, long)", "g<int, char>()") stay one item.  The brackets of
 * an operator's name ("operator<", "operator->") are not brackets. */
static size_t item_len(const char *p, bool nested)
{
	size_t i, depth = 0;

	if (!nested)
		return strcspn(p, ",");
	for (i = 0; p[i]; i++) {
		if (i >= 8 && !strncmp(p + i - 8, "operator", 8)) {
			i += strspn(p + i, "<>=-");
			if (!p[i])
				break;
		}
		if (p[i] == ',' && !depth)
			break;
		if (strchr("(<[", p[i]))
			depth++;
		else if (depth && strchr(")>]", p[i]))
			depth--;
	}
	return i;
}

/* Calls FN for each item of the comma list S (with NESTED, of symbols:
 * item_len()); stops at the first non-zero return.  An empty item is
 * skipped, or with STRICT refused with -EINVAL: in a list of keywords
 * it is a typing mistake. */
static int list_each(const char *s, bool strict, bool nested,
		     int (*fn)(const char *item, size_t len, void *arg),
		     void *arg)
{
	const char *p = s;
	int rc;

	for (;;) {
		size_t len = item_len(p, nested);

		if (len) {
			rc = fn(p, len, arg);
			if (rc)
				return rc;
		} else if (strict) {
			return -EINVAL;
		}
		p += len;
		if (!*p)
			return 0;
		p++;
	}
}

static int merge_item(const char *item, size_t len, void *arg)
{
	static const struct {
		const char *name;
		unsigned bits;
	} names[] = {
		{ "lib", MERGE_LIB },	{ "library", MERGE_LIB },
		{ "tgid", MERGE_TGID }, { "tid", MERGE_TGID },
		{ "cpu", MERGE_CPU },	{ "all", MERGE_ALL },
	};
	unsigned *out = arg;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i].name) == len &&
		    !strncmp(names[i].name, item, len)) {
			*out |= names[i].bits;
			return 0;
		}
	}
	return -EINVAL;
}

int options_parse_merge(const char *s, unsigned *out, char *err, size_t errlen)
{
	unsigned bits = 0;

	if (!*s || list_each(s, true, false, merge_item, &bits) || !bits) {
		snprintf(
			err, errlen,
			"invalid --merge '%s': expected a comma list of lib, tid, tgid, cpu, all",
			s);
		return -EINVAL;
	}
	*out |= bits;
	return 0;
}

static int sort_item(const char *item, size_t len, void *arg)
{
	static const struct {
		const char *name;
		enum opreport_sort key;
	} names[] = {
		{ "sample", SORT_SAMPLE }, { "image", SORT_IMAGE },
		{ "app-name", SORT_APP },  { "symbol", SORT_SYMBOL },
		{ "debug", SORT_DEBUG },   { "vma", SORT_VMA },
	};
	struct opreport_opts *o = arg;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i].name) != len ||
		    strncmp(names[i].name, item, len))
			continue;
		if (o->nr_sort == sizeof(o->sort) / sizeof(o->sort[0]))
			return -E2BIG;
		o->sort[o->nr_sort++] = names[i].key;
		return 0;
	}
	return -EINVAL;
}

int options_parse_sort(const char *s, struct opreport_opts *o, char *err,
		       size_t errlen)
{
	size_t saved = o->nr_sort;

	o->nr_sort = 0;
	if (!*s || list_each(s, true, false, sort_item, o)) {
		o->nr_sort = saved;
		snprintf(
			err, errlen,
			"invalid --sort '%s': expected a comma list of sample, image, app-name, symbol, debug, vma",
			s);
		return -EINVAL;
	}
	return 0;
}

int options_parse_format(const char *s, enum opreport_format *out, char *err,
			 size_t errlen)
{
	if (!strcmp(s, "text"))
		*out = OUT_TEXT;
	else if (!strcmp(s, "csv"))
		*out = OUT_CSV;
	else if (!strcmp(s, "json"))
		*out = OUT_JSON;
	else if (!strcmp(s, "folded"))
		*out = OUT_FOLDED;
	else if (!strcmp(s, "pprof"))
		*out = OUT_PPROF;
	else if (!strcmp(s, "html"))
		*out = OUT_HTML;
	else if (!strcmp(s, "timeline-csv"))
		*out = OUT_TIMELINE_CSV;
	else if (!strcmp(s, "timeline-json"))
		*out = OUT_TIMELINE_JSON;
	else {
		snprintf(
			err, errlen,
			"invalid --format '%s': expected text, csv, json, folded, pprof, html, timeline-csv or timeline-json",
			s);
		return -EINVAL;
	}
	return 0;
}

int options_parse_demangle(const char *s, enum opreport_demangle *out,
			   char *err, size_t errlen)
{
	if (!strcmp(s, "none"))
		*out = DEMANGLE_NONE;
	else if (!strcmp(s, "normal"))
		*out = DEMANGLE_NORMAL;
	else if (!strcmp(s, "smart"))
		*out = DEMANGLE_SMART;
	else {
		snprintf(
			err, errlen,
			"invalid --demangle '%s': expected none, normal or smart",
			s);
		return -EINVAL;
	}
	return 0;
}

int options_parse_folded_marks(const char *s, enum opreport_folded_marks *out,
			       char *err, size_t errlen)
{
	if (!strcmp(s, "flamegraph"))
		*out = FOLDED_MARKS_FLAMEGRAPH;
	else if (!strcmp(s, "none"))
		*out = FOLDED_MARKS_NONE;
	else {
		snprintf(
			err, errlen,
			"invalid --folded-annotations '%s': expected flamegraph or none",
			s);
		return -EINVAL;
	}
	return 0;
}

struct list_ctx {
	char ***list;
	size_t *nr;
};

static int list_item(const char *item, size_t len, void *arg)
{
	struct list_ctx *c = arg;
	char **grown;
	char *copy;

	copy = strndup(item, len);
	if (!copy)
		return -ENOMEM;
	grown = realloc(*c->list, (*c->nr + 2) * sizeof(*grown));
	if (!grown) {
		free(copy);
		return -ENOMEM;
	}
	grown[(*c->nr)++] = copy;
	grown[*c->nr] = NULL;
	*c->list = grown;
	return 0;
}

int options_list_append(char ***list, size_t *nr, const char *s)
{
	struct list_ctx c = { list, nr };

	return *s ? list_each(s, false, false, list_item, &c) : 0;
}

int options_symbol_list_append(char ***list, size_t *nr, const char *s)
{
	struct list_ctx c = { list, nr };

	return *s ? list_each(s, false, true, list_item, &c) : 0;
}

void options_list_free(char **list)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; list[i]; i++)
		free(list[i]);
	free(list);
}

int options_check_handler_name(const char *s, char *err, size_t errlen)
{
	/* the loader owns the rule, so the two can never disagree */
	return anon_handler_name_check(s, err, errlen);
}

/* The command line: one popt table, as oprofiled has; the options it
 * shares with opannotate are options_loop()'s. */
enum {
	OPT_SORT = OPT_COMMON_END,
	OPT_MERGE,
	OPT_DEMANGLE,
	OPT_FORMAT,
	OPT_LIST_HANDLERS,
	OPT_OUTPUT_FILE,
	OPT_HANDLER_TIMEOUT,
	OPT_DIFF,
	OPT_FOLDED_MARKS,
	OPT_EVENT,
	OPT_SEPARATE,
};

/* The options opannotate shares (options_loop()), one table for both. */
const struct poptOption options_common_table[] = {
	{ "session-dir", 0, POPT_ARG_STRING, NULL, OPT_SESSION_DIR,
	  "the session (default ./oprofile_data)", "DIR" },
	/* perf report's spellings; its input is a file, a session a
	 * directory */
	{ "input", 0, POPT_ARG_STRING, NULL, OPT_SESSION_DIR,
	  "the same as --session-dir", "DIR" },
	{ "threshold", 't', POPT_ARG_STRING, NULL, OPT_THRESHOLD,
	  "leave out rows under PERCENT of the samples", "PERCENT" },
	{ "percent-limit", 0, POPT_ARG_STRING, NULL, OPT_THRESHOLD,
	  "the same as --threshold", "PERCENT" },
	{ "include-symbols", 'i', POPT_ARG_STRING, NULL, OPT_INCLUDE,
	  "only these symbols", "NAMES" },
	{ "exclude-symbols", 'e', POPT_ARG_STRING, NULL, OPT_EXCLUDE,
	  "leave out these symbols", "NAMES" },
	{ "image-path", 'p', POPT_ARG_STRING, NULL, OPT_IMAGE_PATH,
	  "also look for images in these directories", "DIRS" },
	{ "debug-dir", 0, POPT_ARG_STRING, NULL, OPT_DEBUG_DIR,
	  "root of separate debug files (default /usr/lib/debug)", "DIR" },
	{ "time", 0, POPT_ARG_STRING, NULL, OPT_TIME,
	  "only samples of this time: START,END in seconds from the "
	  "session's start (either may be left out) or P%-Q% of its length",
	  "START,END" },
	{ "anon-handler", 0, POPT_ARG_STRING, NULL, OPT_ANON_HANDLER,
	  "name anonymous samples (JIT code) with these handlers, in claim "
	  "order (repeatable); auto: every installed handler, each process "
	  "claimed by the one its files call for",
	  "NAMES" },
	{ "handler-path", 0, POPT_ARG_STRING, NULL, OPT_HANDLER_PATH,
	  "look for handlers in DIR first", "DIR" },
	{ "handler-isolation", 0, POPT_ARG_STRING, NULL, OPT_ISOLATION,
	  "process (default): each handler in a sandboxed helper process; "
	  "none: inside the command, for debugging a handler",
	  "MODE" },
	{ "version", 'v', POPT_ARG_NONE, NULL, OPT_VERSION,
	  "show the version and exit", NULL },
	POPT_TABLEEND
};

static int flag_children, flag_callgraph, flag_symbols, flag_debug,
	flag_details, flag_address, flag_reverse, flag_exclude_dep,
	flag_no_header, flag_long, flag_global, flag_anon, flag_force,
	flag_no_unwind;
static char *opt_output_file, *opt_diff, *opt_side_dir[2];
static struct options_given given;

static const struct poptOption options_table[] = {
	{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)options_common_table, 0,
	  "Session, selection and handlers:", NULL },
	{ "symbols", 'l', POPT_ARG_NONE, &flag_symbols, 0,
	  "list the symbols: samples, %, image name, symbol name", NULL },
	{ "callgraph", 'c', POPT_ARG_NONE, &flag_callgraph, 0,
	  "show the callers and callees of each symbol (a session recorded "
	  "with oprofiled -g)",
	  NULL },
	{ "no-unwind", 0, POPT_ARG_NONE, &flag_no_unwind, 0,
	  "call graphs from frame pointers alone: leave the recorded "
	  "stack copies (--callgraph=dwarf) unused",
	  NULL },
	{ "children", 0, POPT_ARG_NONE, &flag_children, 0,
	  "with -l, the samples on whose call chains each symbol is, beside "
	  "its own (a session recorded with oprofiled -g)",
	  NULL },
	{ "debug-info", 'g', POPT_ARG_NONE, &flag_debug, 0,
	  "show the source file and line of each symbol", NULL },
	{ "details", 'd', POPT_ARG_NONE, &flag_details, 0,
	  "show per-instruction rows under each symbol", NULL },
	{ "show-address", 'w', POPT_ARG_NONE, &flag_address, 0,
	  "show the address of each symbol", NULL },
	{ "sort", 's', POPT_ARG_STRING, NULL, OPT_SORT,
	  "sort by sample, image, app-name, symbol, debug, vma", "KEYS" },
	{ "reverse-sort", 'r', POPT_ARG_NONE, &flag_reverse, 0,
	  "reverse the sort order", NULL },
	{ "merge", 'm', POPT_ARG_STRING, NULL, OPT_MERGE,
	  "merge separated profiles: lib, tid, tgid, cpu, all", "KEYS" },
	{ "separate", 0, POPT_ARG_STRING, NULL, OPT_SEPARATE,
	  "thread: split JIT rows (and timeline rows) by thread, with a tid "
	  "column (none: do not)",
	  "thread|none" },
	{ "exclude-dependent", 'x', POPT_ARG_NONE, &flag_exclude_dep, 0,
	  "leave out libraries, the kernel and JIT code of applications",
	  NULL },
	{ "demangle", 'D', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, NULL,
	  OPT_DEMANGLE, "demangle C++ names: none, normal, smart (default)",
	  "MODE" },
	{ "no-header", 'n', POPT_ARG_NONE, &flag_no_header, 0,
	  "leave out the header lines", NULL },
	{ "long-filenames", 'f', POPT_ARG_NONE, &flag_long, 0,
	  "show full paths of images and source files; never cut names",
	  NULL },
	{ "global-percent", '%', POPT_ARG_NONE, &flag_global, 0,
	  "percentages of the whole session, not of the selection", NULL },
	{ "output-file", 'o', POPT_ARG_STRING, NULL, OPT_OUTPUT_FILE,
	  "write the report to FILE, a new file", "FILE" },
	{ "force", 0, POPT_ARG_NONE, &flag_force, 0,
	  "let -o replace an existing FILE", NULL },
	{ "diff", 0, POPT_ARG_STRING, NULL, OPT_DIFF,
	  "a differential profile: the session against the baseline "
	  "session DIR (or give \"{ session:A } { session:B }\")",
	  "DIR" },
	{ "format", 0, POPT_ARG_STRING, NULL, OPT_FORMAT,
	  "text (default), csv, json, folded (flame graphs), pprof "
	  "(needs -o), html (an interactive flame graph page; with --diff "
	  "coloured by change), "
	  "timeline-csv or timeline-json (samples per 100 ms and process)",
	  "FORMAT" },
	{ "event", 0, POPT_ARG_STRING, NULL, OPT_EVENT,
	  "what the report counts: cpu (default), alloc (a JVM's allocated "
	  "bytes, from the javamap agent's alloc=), lock (time a JVM's "
	  "threads waited on monitors, from its lock=), or, in a session "
	  "of several events, the one to report (default cpu-clock)",
	  "cpu|alloc|lock|EVENT" },
	{ "folded-annotations", 0, POPT_ARG_STRING, NULL, OPT_FOLDED_MARKS,
	  "folded frames marked as flamegraph.pl colours them (flamegraph, "
	  "the default: _[k], _[j], _[i]) or plain, for speedscope (none)",
	  "MODE" },
	{ "anon-samples", 0, POPT_ARG_NONE, &flag_anon, 0,
	  "show anonymous samples, one bucket per process and range", NULL },
	{ "list-handlers", 0, POPT_ARG_NONE, NULL, OPT_LIST_HANDLERS,
	  "list the handlers found and exit", NULL },
	{ "handler-timeout", 0, POPT_ARG_STRING, NULL, OPT_HANDLER_TIMEOUT,
	  "give up on a handler call after SECONDS (default 30)", "SECONDS" },
	POPT_AUTOHELP POPT_TABLEEND
};

/* A string that keeps its value: one given twice replaces, and frees,
 * the first.  ARG is the caller's. */
static int options_keep(char **slot, const char *arg)
{
	char *copy = strdup(arg);

	if (!copy)
		return -ENOMEM;
	free(*slot);
	*slot = copy;
	return 0;
}

/* One of the shared options that takes a value; ARG is the caller's.
 * 1 if RC is none of them. */
static int options_common_value(struct opreport_opts *o,
				struct options_given *g, int rc,
				const char *arg, char *err, size_t errlen)
{
	size_t i;
	int ret;

	switch (rc) {
	case OPT_THRESHOLD:
		return options_parse_threshold(arg, &o->threshold, err,
					       errlen);
	case OPT_INCLUDE:
		return options_symbol_list_append(&o->include_symbols,
						  &o->nr_include_symbols, arg);
	case OPT_EXCLUDE:
		return options_symbol_list_append(&o->exclude_symbols,
						  &o->nr_exclude_symbols, arg);
	case OPT_IMAGE_PATH:
		return options_list_append(&o->image_path, &o->nr_image_path,
					   arg);
	case OPT_TIME:
		return timerange_parse(arg, &o->time, err, errlen);
	case OPT_ISOLATION:
		if (strcmp(arg, "process") && strcmp(arg, "none")) {
			snprintf(err, errlen,
				 "invalid --handler-isolation "
				 "'%s': expected process or none",
				 arg);
			return -EINVAL;
		}
		o->isolation.none = !strcmp(arg, "none");
		return 0;
	case OPT_ANON_HANDLER:
		i = o->nr_anon_handlers;
		ret = options_list_append(&o->anon_handlers,
					  &o->nr_anon_handlers, arg);
		for (; !ret && i < o->nr_anon_handlers; i++)
			ret = options_check_handler_name(o->anon_handlers[i],
							 err, errlen);
		if (!ret && o->nr_anon_handlers == 0)
			ret = options_check_handler_name(arg, err, errlen);
		o->anon_samples = true;
		return ret;
	case OPT_SESSION_DIR:
		return options_keep(&g->session_dir, arg);
	case OPT_DEBUG_DIR:
		return options_keep(&g->debug_dir, arg);
	case OPT_HANDLER_PATH:
		return options_keep(&g->handler_path, arg);
	}
	return 1;
}

/* What popt refused, in the words git uses. */
static void options_bad(poptContext pc, int rc, const char *name)
{
	const char *opt = poptBadOption(pc, POPT_BADOPTION_NOALIAS);

	if (rc == POPT_ERROR_BADOPT)
		fprintf(stderr, "%s: unknown option '%s'\n", name, opt);
	else if (rc == POPT_ERROR_NOARG)
		fprintf(stderr, "%s: option '%s' needs a value\n", name, opt);
	else
		fprintf(stderr, "%s: invalid option '%s': %s\n", name, opt,
			poptStrerror(rc));
}

int options_loop(poptContext pc, struct opreport_opts *o,
		 struct options_given *g, const struct options_prog *p)
{
	char err[512];
	int rc;

	while ((rc = poptGetNextOpt(pc)) > 0) {
		int opt = rc;
		char *arg;

		if (opt == OPT_VERSION) {
			printf("%s (opjit) %s\n", p->name, PROJECT_VERSION);
			return 1;
		}
		/* NULL for an option without a value */
		arg = poptGetOptArg(pc);
		rc = arg ? options_common_value(o, g, opt, arg, err,
						sizeof(err))
			 : 1;
		if (rc == 1)
			rc = p->value(p->ctx, opt, arg, err, sizeof(err));
		free(arg);
		if (rc == -ENOMEM)
			snprintf(err, sizeof(err), "out of memory");
		if (rc) {
			fprintf(stderr, "%s: %s\n", p->name, err);
			return -1;
		}
	}
	if (rc < -1) {
		options_bad(pc, rc, p->name);
		return -1;
	}
	return 0;
}

void options_common_free(struct opreport_opts *o, struct options_given *g)
{
	free(g->session_dir);
	free(g->debug_dir);
	free(g->handler_path);
	memset(g, 0, sizeof(*g));
	options_list_free(o->include_symbols);
	options_list_free(o->exclude_symbols);
	options_list_free(o->image_path);
	options_list_free(o->anon_handlers);
	profile_spec_free(o->spec);
	o->include_symbols = o->exclude_symbols = o->image_path = NULL;
	o->anon_handlers = NULL;
	o->spec = NULL;
}

/* One of opreport's own options; ARG (NULL for an option without a
 * value) is the caller's. */
/* The names oprofiled -e takes (its --list-events): a session of
 * several events reports one of them. */
static const char *options_recorded_event(const char *name)
{
	static const char *const names[] = {
		"cpu-clock",
		"task-clock",
		"page-faults",
		"faults",
		"context-switches",
		"cs",
		"cpu-migrations",
		"migrations",
		"minor-faults",
		"major-faults",
		"alignment-faults",
		"emulation-faults",
		"cycles",
		"cpu-cycles",
		"instructions",
		"cache-references",
		"cache-misses",
		"branches",
		"branch-instructions",
		"branch-misses",
		"bus-cycles",
		"stalled-cycles-frontend",
		"stalled-cycles-backend",
		"ref-cycles",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(names[i], name))
			return names[i];
	return NULL;
}

static int options_value(void *ctx, int rc, const char *arg, char *err,
			 size_t errlen)
{
	struct opreport_opts *o = ctx;
	int ret = 0;

	switch (rc) {
	case OPT_LIST_HANDLERS:
		o->list_handlers = true;
		return 0;
	case OPT_OUTPUT_FILE:
		return options_keep(&opt_output_file, arg);
	case OPT_DIFF:
		return options_keep(&opt_diff, arg);
	case OPT_HANDLER_TIMEOUT: {
		char *end;
		double sec;

		errno = 0;
		sec = strtod(arg, &end);
		if (errno || end == arg || *end || !(sec > 0) || sec > 86400) {
			snprintf(err, errlen,
				 "invalid --handler-timeout '%s': "
				 "expected seconds, more than 0 and at most "
				 "86400",
				 arg);
			return -EINVAL;
		}
		o->isolation.timeout_ms =
			sec * 1000 < 1 ? 1 : (unsigned)(sec * 1000);
		return 0;
	}
	case OPT_SORT:
		return options_parse_sort(arg, o, err, errlen);
	case OPT_MERGE:
		return options_parse_merge(arg, &o->merge, err, errlen);
	case OPT_SEPARATE:
		/* processes and CPUs are separated when recording
		 * (oprofiled --separate); threads only here, from the
		 * thread each JIT sample carries */
		if (strcmp(arg, "thread") && strcmp(arg, "none")) {
			snprintf(err, errlen,
				 "invalid --separate '%s': expected thread or "
				 "none (processes and CPUs are separated when "
				 "recording: oprofiled --separate)",
				 arg);
			return -EINVAL;
		}
		o->separate_thread = !strcmp(arg, "thread");
		return 0;
	case OPT_DEMANGLE:
		o->demangle = DEMANGLE_SMART;
		if (arg)
			ret = options_parse_demangle(arg, &o->demangle, err,
						     errlen);
		return ret;
	case OPT_FORMAT:
		return options_parse_format(arg, &o->format, err, errlen);
	case OPT_EVENT:
		if (!strcmp(arg, "cpu"))
			o->event = OPREPORT_EVENT_CPU;
		else if (!strcmp(arg, "alloc"))
			o->event = OPREPORT_EVENT_ALLOC;
		else if (!strcmp(arg, "lock"))
			o->event = OPREPORT_EVENT_LOCK;
		else if (options_recorded_event(arg))
			o->session_event = options_recorded_event(arg);
		else {
			snprintf(
				err, errlen,
				"invalid --event '%s': expected cpu, alloc or "
				"lock",
				arg);
			return -EINVAL;
		}
		return 0;
	case OPT_FOLDED_MARKS:
		return options_parse_folded_marks(arg, &o->folded_marks, err,
						  errlen);
	}
	return 0;
}

static void options_reset(struct opreport_opts *o)
{
	memset(o, 0, sizeof(*o));
	flag_callgraph = flag_symbols = flag_debug = flag_details = 0;
	flag_children = 0;
	flag_address = 0;
	flag_reverse = flag_exclude_dep = flag_no_header = flag_long = 0;
	flag_global = flag_anon = flag_force = flag_no_unwind = 0;
	o->session_dir = "./oprofile_data";
	o->demangle = DEMANGLE_SMART;
	o->isolation.timeout_ms = ANON_HANDLER_TIMEOUT_MS;
}

/*
 * The words after the options: a profile specification, or OProfile's
 * differential form "{ WORDS } { WORDS }", the baseline first, where
 * WORDS may name a side's session:DIR and an empty side is the same as
 * the other.
 */
static int options_specs(struct opreport_opts *o, poptContext pc, char *err,
			 size_t errlen)
{
	struct profile_spec *side[2] = { NULL, NULL };
	const char *word;
	int n = -1, open = 0, outside = 0, rc;

	while ((word = poptGetArg(pc))) {
		if (!strcmp(word, "{") || !strcmp(word, "{}")) {
			if (open || n == 1 || outside) {
				snprintf(
					err, errlen,
					"bad differential profile: expected \"{ ... } { ... }\"");
				return -EINVAL;
			}
			n++;
			open = strcmp(word, "{}") != 0;
			if (!n) {
				o->base_spec = profile_spec_new();
				if (!o->base_spec)
					return -ENOMEM;
			}
			side[0] = o->base_spec;
			side[1] = o->spec;
			continue;
		}
		if (!strcmp(word, "}")) {
			if (!open) {
				snprintf(
					err, errlen,
					"bad differential profile: '}' without '{'");
				return -EINVAL;
			}
			open = 0;
			continue;
		}
		if (n >= 0 && !open) {
			snprintf(
				err, errlen,
				"bad differential profile: '%s' outside \"{ }\"",
				word);
			return -EINVAL;
		}
		if (n >= 0 && !strncmp(word, "session:", 8)) {
			if (!word[8]) {
				snprintf(
					err, errlen,
					"bad profile specification '%s': empty value",
					word);
				return -EINVAL;
			}
			free(opt_side_dir[n]);
			opt_side_dir[n] = strdup(word + 8);
			if (!opt_side_dir[n])
				return -ENOMEM;
			continue;
		}
		outside += n < 0;
		rc = profile_spec_parse(n >= 0 ? side[n] : o->spec, word, err,
					errlen);
		if (rc)
			return rc;
	}
	if (n >= 0 && (open || n != 1)) {
		snprintf(
			err, errlen,
			"bad differential profile: expected \"{ ... } { ... }\"");
		return -EINVAL;
	}
	/* a side with no image: or tgid: words takes the other's */
	if (n == 1 && profile_spec_is_empty(o->base_spec))
		return profile_spec_copy(o->base_spec, o->spec);
	if (n == 1 && profile_spec_is_empty(o->spec))
		return profile_spec_copy(o->spec, o->base_spec);
	return 0;
}

int options_parse(struct opreport_opts *o, int argc, const char **argv)
{
	const struct options_prog prog = { "opreport", options_value, o };
	poptContext pc;
	char err[512];
	int rc, ret = -1;

	options_reset(o);
	o->spec = profile_spec_new();
	if (!o->spec) {
		fprintf(stderr, "opreport: out of memory\n");
		return -1;
	}
	pc = poptGetContext("opreport", argc, argv, options_table, 0);
	poptSetOtherOptionHelp(
		pc,
		"[OPTION...] [image:PATTERN,...] [tgid:N,...] [tid:N,...]");
	ret = options_loop(pc, o, &given, &prog);
	if (ret)
		goto out;
	ret = -1;
	rc = options_specs(o, pc, err, sizeof(err));
	if (rc == -ENOMEM)
		snprintf(err, sizeof(err), "out of memory");
	if (rc) {
		fprintf(stderr, "opreport: %s\n", err);
		goto out;
	}
	if (opt_output_file)
		o->output_file = opt_output_file;
	if (given.session_dir)
		o->session_dir = given.session_dir;
	if (given.debug_dir)
		o->debug_dir = given.debug_dir;
	if (given.handler_path)
		o->handler_path = given.handler_path;
	if (opt_diff && o->base_spec) {
		fprintf(stderr,
			"opreport: --diff and \"{ } { }\" are two ways to say the same: give one\n");
		goto out;
	}
	if (opt_diff) {
		o->base_dir = opt_diff;
		o->base_spec = profile_spec_new();
		if (!o->base_spec ||
		    profile_spec_copy(o->base_spec, o->spec)) {
			fprintf(stderr, "opreport: out of memory\n");
			goto out;
		}
	} else if (o->base_spec) {
		/* "{}" or no session: word: the same as the other side */
		o->base_dir = opt_side_dir[0]	? opt_side_dir[0]
			      : opt_side_dir[1] ? opt_side_dir[1]
						: o->session_dir;
		if (opt_side_dir[1])
			o->session_dir = opt_side_dir[1];
		else if (opt_side_dir[0] && !given.session_dir)
			o->session_dir = opt_side_dir[0];
	}
	o->callgraph = flag_callgraph;
	o->children = flag_children;
	o->symbols = flag_symbols;
	o->debug_info = flag_debug;
	o->details = flag_details;
	o->show_address = flag_address;
	o->reverse_sort = flag_reverse;
	o->exclude_dependent = flag_exclude_dep;
	o->no_header = flag_no_header;
	o->long_filenames = flag_long;
	o->global_percent = flag_global;
	o->force = flag_force;
	o->no_unwind = flag_no_unwind;
	o->anon_samples |= flag_anon;
	if (o->base_dir && (o->callgraph || o->details)) {
		fprintf(stderr,
			"opreport: a differential profile compares symbols: -c and -d do not apply\n");
		goto out;
	}
	if (o->children && (o->callgraph || o->details || o->base_dir ||
			    o->format != OUT_TEXT)) {
		fprintf(stderr,
			"opreport: --children is a column of the -l text report: -c, -d, a differential profile and --format do not apply (json's call graph nodes carry it as total)\n");
		goto out;
	}
	if (o->children)
		o->symbols = true;
	if (o->separate_thread &&
	    (o->base_dir || o->callgraph || o->children ||
	     o->event != OPREPORT_EVENT_CPU ||
	     (o->format != OUT_TEXT && o->format != OUT_CSV &&
	      o->format != OUT_JSON && o->format != OUT_TIMELINE_CSV &&
	      o->format != OUT_TIMELINE_JSON))) {
		fprintf(stderr,
			"opreport: --separate=thread splits the rows of the summary, -l (text, csv, json) and the timelines (timeline-csv, timeline-json): -c, --children, a differential profile, --event and the other formats do not apply (tid:N selects one thread's stacks)\n");
		goto out;
	}
	if (o->separate_thread && (o->merge & MERGE_TGID)) {
		fprintf(stderr,
			"opreport: --separate=thread and --merge=tid (or tgid, all) say opposite things: give one\n");
		goto out;
	}
	if (o->format == OUT_PPROF && !o->output_file) {
		fprintf(stderr,
			"opreport: --format=pprof writes a compressed binary file: give it with -o FILE\n");
		goto out;
	}
	ret = 0;
out:
	poptFreeContext(pc);
	return ret;
}

void options_free(struct opreport_opts *o)
{
	char **strs[] = { &opt_output_file, &opt_diff, &opt_side_dir[0],
			  &opt_side_dir[1] };

	for (size_t i = 0; i < sizeof(strs) / sizeof(*strs); i++) {
		free(*strs[i]);
		*strs[i] = NULL;
	}
	options_common_free(o, &given);
	profile_spec_free(o->base_spec);
	memset(o, 0, sizeof(*o));
}
