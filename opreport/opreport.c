// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * opreport: OProfile's report over an opjit session.  This file is the
 * command: options, then session -> profile -> report -> output.
 */
#include <errno.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon_handlers.h"
#include "callgraph.h"
#include "options.h"
#include "out.h"
#include "profile.h"
#include "report.h"
#include "spec.h"

enum {
	OPT_THRESHOLD = 1,
	OPT_SORT,
	OPT_MERGE,
	OPT_INCLUDE,
	OPT_EXCLUDE,
	OPT_DEMANGLE,
	OPT_IMAGE_PATH,
	OPT_FORMAT,
	OPT_ANON_HANDLER,
	OPT_LIST_HANDLERS,
	OPT_VERSION,
	OPT_ISOLATION,
	OPT_HANDLER_TIMEOUT,
};

static int flag_callgraph, flag_symbols, flag_debug, flag_details, flag_address,
	flag_reverse, flag_exclude_dep, flag_no_header, flag_long,
	flag_global, flag_anon;

static const struct poptOption options[] = {
	{ "symbols", 'l', POPT_ARG_NONE, &flag_symbols, 0,
	  "list the symbols: samples, %, image name, symbol name", NULL },
	{ "callgraph", 'c', POPT_ARG_NONE, &flag_callgraph, 0,
	  "show the callers and callees of each symbol (a session recorded "
	  "with oprofiled -g)", NULL },
	{ "debug-info", 'g', POPT_ARG_NONE, &flag_debug, 0,
	  "show the source file and line of each symbol", NULL },
	{ "details", 'd', POPT_ARG_NONE, &flag_details, 0,
	  "show per-instruction rows under each symbol", NULL },
	{ "show-address", 'w', POPT_ARG_NONE, &flag_address, 0,
	  "show the address of each symbol", NULL },
	{ "threshold", 't', POPT_ARG_STRING, NULL, OPT_THRESHOLD,
	  "leave out rows under PERCENT of the samples", "PERCENT" },
	{ "sort", 's', POPT_ARG_STRING, NULL, OPT_SORT,
	  "sort by sample, image, app-name, symbol, debug, vma", "KEYS" },
	{ "reverse-sort", 'r', POPT_ARG_NONE, &flag_reverse, 0,
	  "reverse the sort order", NULL },
	{ "merge", 'm', POPT_ARG_STRING, NULL, OPT_MERGE,
	  "merge separated profiles: lib, tid, tgid, cpu, all", "KEYS" },
	{ "exclude-dependent", 'x', POPT_ARG_NONE, &flag_exclude_dep, 0,
	  "leave out libraries, the kernel and JIT code of applications",
	  NULL },
	{ "include-symbols", 'i', POPT_ARG_STRING, NULL, OPT_INCLUDE,
	  "show only these symbols", "NAMES" },
	{ "exclude-symbols", 'e', POPT_ARG_STRING, NULL, OPT_EXCLUDE,
	  "leave out these symbols", "NAMES" },
	{ "demangle", 'D', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, NULL,
	  OPT_DEMANGLE, "demangle C++ names: none, normal, smart (default)",
	  "MODE" },
	{ "no-header", 'n', POPT_ARG_NONE, &flag_no_header, 0,
	  "leave out the header lines", NULL },
	{ "long-filenames", 'f', POPT_ARG_NONE, &flag_long, 0,
	  "show full paths of images and source files", NULL },
	{ "global-percent", '%', POPT_ARG_NONE, &flag_global, 0,
	  "percentages of the whole session, not of the selection", NULL },
	{ "output-file", 'o', POPT_ARG_STRING, NULL, 'o',
	  "write the report to FILE", "FILE" },
	{ "session-dir", 0, POPT_ARG_STRING, NULL, 'S',
	  "the session (default ./oprofile_data)", "DIR" },
	{ "image-path", 'p', POPT_ARG_STRING, NULL, OPT_IMAGE_PATH,
	  "also look for images in these directories", "DIRS" },
	{ "debug-dir", 0, POPT_ARG_STRING, NULL, 'G',
	  "root of separate debug files (default /usr/lib/debug)", "DIR" },
	{ "format", 0, POPT_ARG_STRING, NULL, OPT_FORMAT,
	  "text (default), csv, json, folded (flame graphs) or pprof "
	  "(needs -o)", "FORMAT" },
	{ "anon-samples", 0, POPT_ARG_NONE, &flag_anon, 0,
	  "show anonymous samples, one bucket per process and range", NULL },
	{ "anon-handler", 0, POPT_ARG_STRING, NULL, OPT_ANON_HANDLER,
	  "name anonymous samples with these handlers, in claim order "
	  "(repeatable; implies --anon-samples)", "NAMES" },
	{ "handler-path", 0, POPT_ARG_STRING, NULL, 'H',
	  "look for handlers in DIR first", "DIR" },
	{ "list-handlers", 0, POPT_ARG_NONE, NULL, OPT_LIST_HANDLERS,
	  "list the handlers found and exit", NULL },
	{ "handler-isolation", 0, POPT_ARG_STRING, NULL, OPT_ISOLATION,
	  "process (default): each handler in a sandboxed helper process; "
	  "none: inside opreport, for debugging a handler", "MODE" },
	{ "handler-timeout", 0, POPT_ARG_STRING, NULL, OPT_HANDLER_TIMEOUT,
	  "give up on a handler call after SECONDS (default 30)",
	  "SECONDS" },
	{ "version", 'v', POPT_ARG_NONE, NULL, OPT_VERSION,
	  "show the version and exit", NULL },
	POPT_AUTOHELP POPT_TABLEEND
};

struct run {
	struct opreport_opts o;
	bool list_handlers;
	struct anon_isolation isolation;
	char *strings[8]; /* option values popt handed over */
	size_t nr_strings;
	size_t nr_include, nr_exclude, nr_image_path;
};

static const char *keep(struct run *run, char *s)
{
	if (run->nr_strings < sizeof(run->strings) / sizeof(run->strings[0]))
		run->strings[run->nr_strings++] = s;
	else
		free(s); /* keeps only the last of many repeats */
	return s;
}

static int option(struct run *run, int rc, char *arg, char *err,
		  size_t errlen)
{
	struct opreport_opts *o = &run->o;
	int ret = 0;

	switch (rc) {
	case OPT_THRESHOLD:
		ret = options_parse_threshold(arg, &o->threshold, err, errlen);
		break;
	case OPT_SORT:
		ret = options_parse_sort(arg, o, err, errlen);
		break;
	case OPT_MERGE:
		ret = options_parse_merge(arg, &o->merge, err, errlen);
		break;
	case OPT_INCLUDE:
		ret = options_list_append(&o->include_symbols,
					  &run->nr_include, arg);
		break;
	case OPT_EXCLUDE:
		ret = options_list_append(&o->exclude_symbols,
					  &run->nr_exclude, arg);
		break;
	case OPT_DEMANGLE:
		o->demangle = DEMANGLE_SMART;
		if (arg)
			ret = options_parse_demangle(arg, &o->demangle, err,
						     errlen);
		break;
	case OPT_IMAGE_PATH:
		ret = options_list_append(&o->image_path, &run->nr_image_path,
					  arg);
		break;
	case OPT_FORMAT:
		ret = options_parse_format(arg, &o->format, err, errlen);
		break;
	case OPT_ANON_HANDLER: {
		size_t i = o->nr_anon_handlers;

		ret = options_list_append(&o->anon_handlers,
					  &o->nr_anon_handlers, arg);
		for (; !ret && i < o->nr_anon_handlers; i++)
			ret = options_check_handler_name(o->anon_handlers[i],
							 err, errlen);
		if (!ret && o->nr_anon_handlers == 0)
			ret = options_check_handler_name(arg, err, errlen);
		o->anon_samples = true;
		break;
	}
	case OPT_LIST_HANDLERS:
		run->list_handlers = true;
		break;
	case OPT_ISOLATION:
		if (!strcmp(arg, "process") || !strcmp(arg, "none")) {
			run->isolation.none = !strcmp(arg, "none");
		} else {
			snprintf(err, errlen, "bad handler isolation '%s': "
				 "expected process or none", arg);
			ret = -EINVAL;
		}
		break;
	case OPT_HANDLER_TIMEOUT: {
		char *end;
		double sec;

		errno = 0;
		sec = strtod(arg, &end);
		if (errno || end == arg || *end || !(sec > 0) ||
		    sec > 86400) {
			snprintf(err, errlen, "bad handler timeout '%s': "
				 "expected seconds, more than 0 and at most "
				 "86400", arg);
			ret = -EINVAL;
		} else {
			run->isolation.timeout_ms = sec * 1000 < 1 ? 1 :
				(unsigned)(sec * 1000);
		}
		break;
	}
	case 'o':
		o->output_file = keep(run, arg);
		return 0;
	case 'S':
		o->session_dir = keep(run, arg);
		return 0;
	case 'G':
		o->debug_dir = keep(run, arg);
		return 0;
	case 'H':
		o->handler_path = keep(run, arg);
		return 0;
	}
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(arg);
	return ret;
}

static void run_free(struct run *run)
{
	size_t i;

	for (i = 0; i < run->nr_strings; i++)
		free(run->strings[i]);
	options_list_free(run->o.include_symbols);
	options_list_free(run->o.exclude_symbols);
	options_list_free(run->o.image_path);
	options_list_free(run->o.anon_handlers);
	profile_spec_free(run->o.spec);
}

/* 0 to go on, 1 when the run is over (--help, --version), -1 on error
 * (reported). */
static int parse_args(struct run *run, int argc, const char **argv)
{
	poptContext pc = poptGetContext("opreport", argc, argv, options, 0);
	const char *word;
	char err[512];
	int rc, ret = -1;

	poptSetOtherOptionHelp(pc, "[OPTION...] [image:PATTERN,...] [tgid:N,...]");
	run->o.session_dir = "./oprofile_data";
	run->isolation.timeout_ms = ANON_HANDLER_TIMEOUT_MS;
	run->o.demangle = DEMANGLE_SMART;
	run->o.spec = profile_spec_new();
	if (!run->o.spec)
		goto nomem;
	while ((rc = poptGetNextOpt(pc)) > 0) {
		if (rc == OPT_VERSION) {
			printf("opreport (opjit) %s\n", PROJECT_VERSION);
			ret = 1;
			goto out;
		}
		if (option(run, rc, poptGetOptArg(pc), err, sizeof(err))) {
			fprintf(stderr, "opreport: %s\n", err);
			goto out;
		}
	}
	if (rc < -1) {
		fprintf(stderr, "opreport: %s: %s (see opreport --help)\n",
			poptBadOption(pc, POPT_BADOPTION_NOALIAS),
			poptStrerror(rc));
		goto out;
	}
	while ((word = poptGetArg(pc))) {
		rc = profile_spec_parse(run->o.spec, word, err, sizeof(err));
		if (rc == -ENOMEM)
			goto nomem;
		if (rc) {
			fprintf(stderr, "opreport: %s\n", err);
			goto out;
		}
	}
	run->o.callgraph = flag_callgraph;
	run->o.symbols = flag_symbols;
	run->o.debug_info = flag_debug;
	run->o.details = flag_details;
	run->o.show_address = flag_address;
	run->o.reverse_sort = flag_reverse;
	run->o.exclude_dependent = flag_exclude_dep;
	run->o.no_header = flag_no_header;
	run->o.long_filenames = flag_long;
	run->o.global_percent = flag_global;
	run->o.anon_samples |= flag_anon;
	if (run->o.format == OUT_PPROF && !run->o.output_file) {
		fprintf(stderr, "opreport: --format=pprof writes a compressed binary file: give it with -o FILE\n");
		goto out;
	}
	ret = 0;
	goto out;
nomem:
	fprintf(stderr, "opreport: out of memory\n");
out:
	poptFreeContext(pc);
	return ret;
}

static void session_warn(void *arg, const char *msg)
{
	out_warnf("%s", msg);
}

static int report_print(const struct opreport_opts *o,
			const struct report *r)
{
	FILE *f = stdout;
	int ret;

	if (o->output_file) {
		const char *why;

		f = out_file_open(o->output_file, &why);
		if (!f) {
			fprintf(stderr, "opreport: cannot write %s: %s\n",
				o->output_file, why);
			return -EPERM;
		}
	}
	ret = o->format == OUT_JSON   ? out_json(f, r) :
	      o->format == OUT_CSV    ? out_csv(f, r) :
	      o->format == OUT_FOLDED ? out_folded(f, r) :
	      o->format == OUT_PPROF  ? out_pprof(f, r) :
	      r->cg                   ? out_callgraph(f, r) :
					out_text(f, r);
	if (f != stdout && fclose(f))
		ret = -EIO;
	if (ret)
		fprintf(stderr, "opreport: cannot write %s: %s\n",
			o->output_file ? o->output_file : "the report",
			strerror(-ret));
	return ret;
}

static int run_report(const struct opreport_opts *o)
{
	struct anon_handlers *handlers = NULL;
	struct ops_session *s = NULL;
	struct profile *prof = NULL;
	struct report r;
	char err[512] = "";
	int ret;

	ret = report_init(&r, o);
	if (ret) {
		fprintf(stderr, "opreport: out of memory\n");
		return ret;
	}
	ret = ops_session_open(&s, o->session_dir, session_warn, NULL, err,
			       sizeof(err));
	if (ret) {
		if (err[0])
			fprintf(stderr, "opreport: %s\n", err);
		else
			fprintf(stderr, "opreport: cannot open session %s: %s\n",
				o->session_dir, strerror(-ret));
		goto out;
	}
	if (o->nr_anon_handlers) {
		ret = anon_handlers_load(&handlers,
					 (const char *const *)o->anon_handlers,
					 o->nr_anon_handlers, o->handler_path);
		if (ret)
			goto out;
	}
	if (o->callgraph && !callgraph_session_has_stacks(s)) {
		/* OProfile prints nothing but this; saying it on stderr and
		 * failing lets a script tell it from an empty graph */
		fprintf(stderr, "opreport: session %s has no call graph: record with oprofiled -g\n",
			o->session_dir);
		ret = -ENOENT;
		goto out;
	}
	r.has_stacks = callgraph_session_has_stacks(s);
	ret = profile_build(&prof, &r, s, handlers);
	if (ret)
		goto out;
	ret = report_finish(&r);
	if (ret) {
		fprintf(stderr, "opreport: out of memory\n");
		goto out;
	}
	ret = report_print(o, &r);
out:
	report_release(&r);
	profile_free(prof);
	if (handlers)
		anon_handlers_free(handlers);
	if (s)
		ops_session_close(s);
	return ret;
}

int main(int argc, char **argv)
{
	struct run run = { 0 };
	int ret;

	ret = parse_args(&run, argc, (const char **)argv);
	if (ret) {
		run_free(&run);
		return ret > 0 ? 0 : 1;
	}
	anon_handlers_isolate(&run.isolation);
	if (run.list_handlers)
		ret = anon_handlers_list(stdout, run.o.handler_path);
	else
		ret = run_report(&run.o);
	run_free(&run);
	return ret ? 1 : 0;
}
