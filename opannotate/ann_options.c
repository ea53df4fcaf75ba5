// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * opannotate's command line.  The session, specification, symbol and
 * handler options are opreport's, with opreport's value parsers, so that
 * the two commands select the same samples from the same words.
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

enum {
	OPT_THRESHOLD = 1,
	OPT_INCLUDE,
	OPT_EXCLUDE,
	OPT_CONTEXT,
	OPT_FORMAT,
	OPT_SESSION_DIR,
	OPT_IMAGE_PATH,
	OPT_DEBUG_DIR,
	OPT_ANON_HANDLER,
	OPT_HANDLER_PATH,
	OPT_ISOLATION,
	OPT_TIME,
	OPT_VERSION,
};

static int flag_assembly, flag_source;
static char *opt_session_dir, *opt_debug_dir, *opt_handler_path, *opt_side_dir;

static const struct poptOption ann_options_table[] = {
	{ "assembly", 'a', POPT_ARG_NONE, &flag_assembly, 0,
	  "each symbol's disassembly with its samples per instruction, "
	  "source lines interleaved where known",
	  NULL },
	{ "source", 's', POPT_ARG_NONE, &flag_source, 0,
	  "each source file with its samples per line", NULL },
	{ "threshold", 't', POPT_ARG_STRING, NULL, OPT_THRESHOLD,
	  "leave out symbols under PERCENT of the samples", "PERCENT" },
	{ "include-symbols", 'i', POPT_ARG_STRING, NULL, OPT_INCLUDE,
	  "annotate only these symbols", "NAMES" },
	{ "exclude-symbols", 'e', POPT_ARG_STRING, NULL, OPT_EXCLUDE,
	  "leave out these symbols", "NAMES" },
	{ "context", 'C', POPT_ARG_STRING, NULL, OPT_CONTEXT,
	  "show only N lines or instructions around those with samples", "N" },
	{ "format", 0, POPT_ARG_STRING, NULL, OPT_FORMAT,
	  "text (default) or json", "FORMAT" },
	{ "session-dir", 0, POPT_ARG_STRING, NULL, OPT_SESSION_DIR,
	  "the session (default ./oprofile_data)", "DIR" },
	{ "image-path", 'p', POPT_ARG_STRING, NULL, OPT_IMAGE_PATH,
	  "also look for images in these directories", "DIRS" },
	{ "debug-dir", 0, POPT_ARG_STRING, NULL, OPT_DEBUG_DIR,
	  "root of separate debug files (default /usr/lib/debug)", "DIR" },
	{ "anon-handler", 0, POPT_ARG_STRING, NULL, OPT_ANON_HANDLER,
	  "annotate JIT code named by these handlers, in claim order "
	  "(auto: every installed handler)",
	  "NAMES" },
	{ "handler-path", 0, POPT_ARG_STRING, NULL, OPT_HANDLER_PATH,
	  "look for handlers in DIR first", "DIR" },
	{ "handler-isolation", 0, POPT_ARG_STRING, NULL, OPT_ISOLATION,
	  "process (default) or none, as opreport's", "MODE" },
	{ "time", 0, POPT_ARG_STRING, NULL, OPT_TIME,
	  "only the samples from START to END seconds into the session, "
	  "or from P% to Q% of it, as opreport's",
	  "START,END|P%-Q%" },
	{ "version", 'v', POPT_ARG_NONE, NULL, OPT_VERSION,
	  "show the version and exit", NULL },
	POPT_AUTOHELP POPT_TABLEEND
};

static int ann_options_value(struct annotate_opts *o, int rc, const char *arg,
			     char *err, size_t errlen)
{
	struct opreport_opts *rep = &o->rep;
	char *end;
	long v;
	size_t i;
	int ret;

	switch (rc) {
	case OPT_THRESHOLD:
		return options_parse_threshold(arg, &rep->threshold, err,
					       errlen);
	case OPT_INCLUDE:
		return options_list_append(&rep->include_symbols,
					   &rep->nr_include_symbols, arg);
	case OPT_EXCLUDE:
		return options_list_append(&rep->exclude_symbols,
					   &rep->nr_exclude_symbols, arg);
	case OPT_IMAGE_PATH:
		return options_list_append(&rep->image_path,
					   &rep->nr_image_path, arg);
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
	case OPT_ISOLATION:
		if (strcmp(arg, "process") && strcmp(arg, "none")) {
			snprintf(
				err, errlen,
				"invalid --handler-isolation '%s': expected process or none",
				arg);
			return -EINVAL;
		}
		rep->isolation.none = !strcmp(arg, "none");
		return 0;
	case OPT_TIME:
		return timerange_parse(arg, &rep->time, err, errlen);
	case OPT_ANON_HANDLER:
		i = rep->nr_anon_handlers;
		ret = options_list_append(&rep->anon_handlers,
					  &rep->nr_anon_handlers, arg);
		for (; !ret && i < rep->nr_anon_handlers; i++)
			ret = options_check_handler_name(rep->anon_handlers[i],
							 err, errlen);
		if (!ret && !rep->nr_anon_handlers)
			ret = options_check_handler_name(arg, err, errlen);
		rep->anon_samples = true;
		return ret;
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

static char **ann_options_slot(int val)
{
	switch (val) {
	case OPT_SESSION_DIR:
		return &opt_session_dir;
	case OPT_DEBUG_DIR:
		return &opt_debug_dir;
	case OPT_HANDLER_PATH:
		return &opt_handler_path;
	}
	return NULL;
}

int ann_options_parse(struct annotate_opts *o, int argc, const char **argv)
{
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
	rep->long_filenames = true;
	rep->spec = profile_spec_new();
	if (!rep->spec) {
		fprintf(stderr, "opannotate: out of memory\n");
		return -1;
	}
	pc = poptGetContext("opannotate", argc, argv, ann_options_table, 0);
	poptSetOtherOptionHelp(pc,
			       "[OPTION...] [image:PATTERN,...] [tgid:N,...]");
	while ((rc = poptGetNextOpt(pc)) > 0) {
		char **slot = ann_options_slot(rc);
		char *arg;

		if (rc == OPT_VERSION) {
			printf("opannotate (opjit) %s\n", PROJECT_VERSION);
			ret = 1;
			goto out;
		}
		arg = poptGetOptArg(pc);
		if (slot) {
			free(*slot);
			*slot = arg;
			continue;
		}
		rc = ann_options_value(o, rc, arg, err, sizeof(err));
		free(arg);
		if (rc == -ENOMEM)
			snprintf(err, sizeof(err), "out of memory");
		if (rc) {
			fprintf(stderr, "opannotate: %s\n", err);
			goto out;
		}
	}
	if (rc < -1) {
		fprintf(stderr, "opannotate: %s '%s'\n",
			rc == POPT_ERROR_BADOPT	 ? "unknown option"
			: rc == POPT_ERROR_NOARG ? "a value is missing after"
						 : poptStrerror(rc),
			poptBadOption(pc, POPT_BADOPTION_NOALIAS));
		goto out;
	}
	rc = ann_options_specs(o, pc, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "opannotate: %s\n",
			rc == -ENOMEM ? "out of memory" : err);
		goto out;
	}
	if (opt_session_dir && opt_side_dir &&
	    strcmp(opt_session_dir, opt_side_dir)) {
		fprintf(stderr,
			"opannotate: --session-dir and session: name two sessions: give one\n");
		goto out;
	}
	if (opt_session_dir)
		rep->session_dir = opt_session_dir;
	else if (opt_side_dir)
		rep->session_dir = opt_side_dir;
	if (opt_debug_dir)
		rep->debug_dir = opt_debug_dir;
	if (opt_handler_path)
		rep->handler_path = opt_handler_path;
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
	char **strs[] = { &opt_session_dir, &opt_debug_dir, &opt_handler_path,
			  &opt_side_dir };

	for (size_t i = 0; i < sizeof(strs) / sizeof(*strs); i++) {
		free(*strs[i]);
		*strs[i] = NULL;
	}
	options_list_free(o->rep.include_symbols);
	options_list_free(o->rep.exclude_symbols);
	options_list_free(o->rep.image_path);
	options_list_free(o->rep.anon_handlers);
	profile_spec_free(o->rep.spec);
	memset(o, 0, sizeof(*o));
}
