/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * opreport's command line: the popt table and the parsers of option
 * values.  Each value parser returns 0, or -EINVAL with one line in
 * ERR that names the value and the problem (not reported: no
 * "opreport: " prefix, no newline); options_parse() prints it.
 */
#ifndef OPREPORT_OPTIONS_H
#define OPREPORT_OPTIONS_H

#include <popt.h>
#include <stddef.h>

#include "opreport.h"

int options_parse_threshold(const char *s, double *out, char *err,
			    size_t errlen);
int options_parse_merge(const char *s, unsigned *out, char *err,
			size_t errlen);
int options_parse_sort(const char *s, struct opreport_opts *o, char *err,
		       size_t errlen);
int options_parse_format(const char *s, enum opreport_format *out, char *err,
			 size_t errlen);
int options_parse_folded_marks(const char *s, enum opreport_folded_marks *out,
			       char *err, size_t errlen);
int options_parse_demangle(const char *s, enum opreport_demangle *out,
			   char *err, size_t errlen);

/* Append the items of the comma list S to the NULL-terminated *LIST;
 * empty items are skipped.  0 or -ENOMEM (not reported).  (Lists of
 * keywords, --sort and --merge, refuse empty items instead.) */
int options_list_append(char ***list, size_t *nr, const char *s);
/* The same for a list of symbols, whose commas inside brackets are a
 * C++ symbol's own: "f(int, long),g" is two items. */
int options_symbol_list_append(char ***list, size_t *nr, const char *s);
void options_list_free(char **list);

/* A handler name as the loader accepts it (anon_handler_name_check()):
 * 0, or -EINVAL with ERR as above. */
int options_check_handler_name(const char *s, char *err, size_t errlen);

/*
 * The options opreport and opannotate share, with one owner here: the
 * session, the symbol selection, --time and the handler options.  Each
 * program's popt table gives them these values; its own options take
 * values from OPT_COMMON_END on.
 */
enum options_common {
	OPT_THRESHOLD = 1,
	OPT_INCLUDE,
	OPT_EXCLUDE,
	OPT_IMAGE_PATH,
	OPT_TIME,
	OPT_ANON_HANDLER,
	OPT_ISOLATION,
	OPT_SESSION_DIR,
	OPT_DEBUG_DIR,
	OPT_HANDLER_PATH,
	OPT_VERSION,
	OPT_COMMON_END
};

/* Their popt table, which each program's table includes. */
extern const struct poptOption options_common_table[];

/* The strings of the shared options that were given (NULL if not),
 * each given twice replaced and freed; the caller's until
 * options_common_free(). */
struct options_given {
	char *session_dir, *debug_dir, *handler_path;
};
/* Free G and what the shared options and the profile specification put
 * in O (its lists and spec). */
void options_common_free(struct opreport_opts *o, struct options_given *g);

/* A program's side of the loop: its name for messages and --version,
 * and one of its own options (0, or -EINVAL with ERR, or -ENOMEM). */
struct options_prog {
	const char *name;
	int (*value)(void *ctx, int rc, const char *arg, char *err,
		     size_t errlen);
	void *ctx;
};

/* popt's option loop over PC for P, the shared options into O and G.
 * 0 to go on, 1 when --version was printed, -1 for a bad option or out
 * of memory (reported: one line). */
int options_loop(poptContext pc, struct opreport_opts *o,
		 struct options_given *g, const struct options_prog *p);

/*
 * Parse ARGV into O.  Returns 0 to go on, 1 when the run is over
 * (--version printed), or -1 for a bad option or out of memory
 * (reported: one line, printed here).
 * --help and --usage print and exit here, as popt does.  O owns its
 * strings until options_free().
 */
int options_parse(struct opreport_opts *o, int argc, const char **argv);
void options_free(struct opreport_opts *o);

#endif
