// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * opannotate's command line.  The session, symbol, --time and handler
 * options are opreport's, parsed by opreport's option loop
 * (options_loop()), so that the two commands select the same samples
 * from the same words; this file adds what to annotate and how.
 */
#include <errno.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "options.h"
#include "spec.h"
#include "timerange.h"

/* opannotate's own options, after those it shares with opreport
 * (options_loop()) */
enum {
	OPT_CONTEXT = OPT_COMMON_END,
	OPT_FORMAT,
};

static int flag_assembly, flag_source;
static char *opt_side_dir;
static struct options_given given;

static const struct poptOption ann_options_table[] = {
	{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)options_common_table, 0,
	  "Session, selection and handlers:", NULL },
	{ "assembly", 'a', POPT_ARG_NONE, &flag_assembly, 0,
	  "each symbol's disassembly with its samples per instruction, "
	  "source lines interleaved where known",
	  NULL },
	{ "source", 's', POPT_ARG_NONE, &flag_source, 0,
	  "each source file with its samples per line", NULL },
	{ "context", 'C', POPT_ARG_STRING, NULL, OPT_CONTEXT,
	  "show only N lines or instructions around those with samples", "N" },
	{ "format", 0, POPT_ARG_STRING, NULL, OPT_FORMAT,
	  "text (default) or json", "FORMAT" },
	POPT_AUTOHELP POPT_TABLEEND
};

/* One of opannotate's own options; ARG is the caller's. */
static int ann_options_value(void *ctx, int rc, const char *arg, char *err,
			     size_t errlen)
{
	struct annotate_opts *o = ctx;
	char *end;
	long v;

	switch (rc) {
	case OPT_CONTEXT:
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || *end || v < 0 || v > 100000) {
			snprintf(
				err, errlen,
				"invalid --context '%s': expected lines, 0 to 100000",
				arg);
			return -EINVAL;
		}
		o->context = (int)v;
		return 0;
	case OPT_FORMAT:
		if (strcmp(arg, "text") && strcmp(arg, "json")) {
			snprintf(
				err, errlen,
				"invalid --format '%s': expected text or json",
				arg);
			return -EINVAL;
		}
		o->json = !strcmp(arg, "json");
		return 0;
	}
	return 0;
}

/* The words after the options: a profile specification, bare or as one
 * "{ WORDS }" group (the form opreport takes), where session:DIR names
 * the session.  A differential profile has no annotation. */
static int ann_options_specs(struct annotate_opts *o, poptContext pc,
			     char *err, size_t errlen)
{
	const char *word;
	int groups = 0, open = 0;

	while ((word = poptGetArg(pc))) {
		if (!strcmp(word, "{")) {
			if (open || ++groups > 1) {
				snprintf(
					err, errlen,
					"one profile is annotated: give one \"{ ... }\" group, or none");
				return -EINVAL;
			}
			open = 1;
			continue;
		}
		if (!strcmp(word, "}")) {
			if (!open) {
				snprintf(
					err, errlen,
					"bad profile specification: '}' without '{'");
				return -EINVAL;
			}
			open = 0;
			continue;
		}
		if (!strncmp(word, "session:", 8)) {
			if (!word[8]) {
				snprintf(
					err, errlen,
					"bad profile specification '%s': empty value",
					word);
				return -EINVAL;
			}
			free(opt_side_dir);
			opt_side_dir = strdup(word + 8);
			if (!opt_side_dir)
				return -ENOMEM;
			continue;
		}
		if (profile_spec_parse(o->rep.spec, word, err, errlen))
			return -EINVAL;
	}
	if (open) {
		snprintf(err, errlen,
			 "bad profile specification: '{' without '}'");
		return -EINVAL;
	}
	return 0;
}

int ann_options_parse(struct annotate_opts *o, int argc, const char **argv)
{
	const struct options_prog prog = { "opannotate", ann_options_value,
					   o };
	struct opreport_opts *rep = &o->rep;
	poptContext pc;
	char err[512];
	int rc, ret = -1;

	memset(o, 0, sizeof(*o));
	flag_assembly = flag_source = 0;
	o->context = -1;
	rep->session_dir = "./oprofile_data";
	rep->demangle = DEMANGLE_SMART;
	rep->isolation.timeout_ms = ANON_HANDLER_TIMEOUT_MS;
	/* one row per symbol with its addresses and their lines; processes
	 * and CPUs folded, since code is annotated once */
	rep->symbols = rep->details = rep->debug_info = true;
	rep->merge = MERGE_ALL;
	rep->jit_objects = true;
	rep->no_symbol_lines = true;
	rep->long_filenames = true;
	rep->spec = profile_spec_new();
	if (!rep->spec) {
		fprintf(stderr, "opannotate: out of memory\n");
		return -1;
	}
	pc = poptGetContext("opannotate", argc, argv, ann_options_table, 0);
	poptSetOtherOptionHelp(pc,
			       "[OPTION...] [image:PATTERN,...] [tgid:N,...]");
	ret = options_loop(pc, rep, &given, &prog);
	if (ret)
		goto out;
	ret = -1;
	rc = ann_options_specs(o, pc, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "opannotate: %s\n",
			rc == -ENOMEM ? "out of memory" : err);
		goto out;
	}
	if (given.session_dir && opt_side_dir &&
	    strcmp(given.session_dir, opt_side_dir)) {
		fprintf(stderr,
			"opannotate: --session-dir and session: name two sessions: give one\n");
		goto out;
	}
	if (given.session_dir)
		rep->session_dir = given.session_dir;
	else if (opt_side_dir)
		rep->session_dir = opt_side_dir;
	if (given.debug_dir)
		rep->debug_dir = given.debug_dir;
	if (given.handler_path)
		rep->handler_path = given.handler_path;
	o->assembly = flag_assembly;
	o->source = flag_source;
	if (!o->assembly && !o->source) {
		fprintf(stderr,
			"opannotate: say what to annotate: --assembly, --source, or both\n");
		goto out;
	}
	ret = 0;
out:
	poptFreeContext(pc);
	return ret;
}

void ann_options_free(struct annotate_opts *o)
{
	free(opt_side_dir);
	opt_side_dir = NULL;
	options_common_free(&o->rep, &given);
	memset(o, 0, sizeof(*o));
}
