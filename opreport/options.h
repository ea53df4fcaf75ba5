/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * opreport's command line: the popt table and the parsers of option
 * values.  Each value parser returns 0, or -EINVAL with one line in
 * ERR that names the value and the problem (not reported: no
 * "opreport: " prefix, no newline); options_parse() prints it.
 */
#ifndef OPREPORT_OPTIONS_H
#define OPREPORT_OPTIONS_H

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
void options_list_free(char **list);

/* A handler name as the loader accepts it (anon_handler_name_check()):
 * 0, or -EINVAL with ERR as above. */
int options_check_handler_name(const char *s, char *err, size_t errlen);

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
