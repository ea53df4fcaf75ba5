/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The output formats.  text is OProfile's layout; csv and json carry the
 * same rows for scripts (json's schema is opreport/JSON.md).  Each
 * returns 0, -EIO when the stream failed, or -ENOMEM (not reported: the
 * command names the file it was writing).
 */
#ifndef OPREPORT_OUT_H
#define OPREPORT_OUT_H

#include <stdio.h>

#include <oputil/idxset.h>

#include "report.h"

int out_text(FILE *f, const struct report *r);
int out_csv(FILE *f, const struct report *r);
int out_json(FILE *f, const struct report *r);
/* -c: OProfile's call-graph layout. */
int out_callgraph(FILE *f, const struct report *r);
/* -l --children: the functions of the call graph with their cumulative
 * samples beside their own. */
int out_children(FILE *f, const struct report *r);
/* One line per unique stack, "root;...;leaf COUNT" (flamegraph.pl). */
int out_folded(FILE *f, const struct report *r);
/* The folded lines, one per distinct stack, sorted by text.  0 or
 * -ENOMEM (not reported). */
struct out_folded_line {
	char *text;
	uint64_t count;
};
int out_folded_lines(const struct report *r, struct out_folded_line **lines,
		     size_t *n);
void out_folded_lines_free(struct out_folded_line *lines, size_t n);
/* gzip-compressed profile.proto; F must be a file, not a terminal. */
int out_pprof(FILE *f, const struct report *r);
/* A self-contained page with an interactive flame graph of the call
 * graph model (out_html.c). */
int out_html(FILE *f, const struct report *r);
/* The differential page: R's flame graph coloured by each frame's change
 * of share against BASE (both finished reports, BASE may be NULL). */
int out_html_diff(FILE *f, const struct report *base, const struct report *r);
/* The page around a data block written between the two (the format of
 * out_html.c's comment), for --event's weighted stacks too; S escaped as
 * a JSON string that no name can end the block with. */
void out_html_page_start(FILE *f);
int out_html_page_end(FILE *f);
void out_html_str(FILE *f, const char *s);

/* The strings of a page, each once, as its "strings" array: add returns
 * S's index, adding it when new (S is kept, not copied), -1 out of
 * memory. */
struct out_html_strtab {
	const char **v;
	size_t n, cap;
	struct oputil_idxset set;
};
long out_html_strtab_add(struct out_html_strtab *t, const char *s);
void out_html_strtab_free(struct out_html_strtab *t);
/* The header lines of the text formats. */
void out_text_header(FILE *f, const struct report *r);
/* The note of hidden anonymous samples, when there are some. */
void out_text_hidden(FILE *f, const struct report *r);

/*
 * The -o file PATH, made for writing without following a link (nor
 * another user's link on the way to it).  An existing file is refused
 * unless FORCE, and then replaced by renaming a temporary file over it
 * at out_file_close(OK); a FIFO with a reader or a character device is
 * written as it is.  0 with F open, or a negative errno with WHY saying
 * why (not reported: the command names the file).  out_file_close
 * returns 0 or a negative errno (the close or the rename failed).
 */
struct out_file {
	FILE *f;
	int dfd;
	char *leaf, *tmp;
	char why[320];
};
int out_file_open(struct out_file *of, const char *path, bool force);
int out_file_close(struct out_file *of, bool ok);

/* Shared by the formats. */
const char *out_event_desc(const char *event);
const char *out_kind_name(enum row_kind kind);
/* "file:line" text of a location, or NULL when unknown. */
const char *out_file_name(const struct report *r, const char *file);
/* S as a JSON string (null for NULL), and as one CSV field followed by
 * a comma or, when LAST, the end of the line. */
void out_json_str(FILE *f, const char *s);
void out_csv_field(FILE *f, const struct report *r, const char *s, bool last);

/* A differential profile (diff.h) in the format OPTS ask for, to F; the
 * pprof format is written by out_pprof() once a side. */
struct diff;
int out_diff(FILE *f, const struct diff *d);

/* Per process, how many anonymous samples were named and why the rest
 * were not: a block after the text report, and the words for a status. */
void out_naming_text(FILE *f, const struct report *r);
/* The naming of one process on one line, without its newline:
 * "tgid 42 (node): 5000 samples, 4880 named by perfmap, 120 unnamed:
 * 100 no entry, 20 before load". */
void out_naming_line(FILE *f, const struct report *r,
		     const struct report_naming *nm);
const char *out_naming_status(enum naming_status s);
/* Why none of a process's anonymous samples were named ("" when
 * claimed): "map refused: FILE: RULE", ... */
const char *out_naming_why(const struct report *r,
			   const struct report_naming *nm);

/* The note that anonymous samples are not shown, into BUF: how many,
 * and OUT_ANON_OPTION, the option that names them.  The text layouts
 * print it before their table, pprof and json keep it in the file, and
 * the command says it on stderr whatever the format. */
#define OUT_ANON_OPTION "--anon-handler=auto"
void out_anon_hidden_note(char *buf, size_t len, const struct report *r);
/* The width F's lines keep within: a terminal's, unless -f asked for
 * whole names; 0 for no limit. */
int out_line_limit(FILE *f, const struct report *r);
/* UTC date of the session's start, "YYYY-MM-DD HH:MM:SS UTC". */
void out_date(const struct report *r, char *buf, size_t len);

/* The report's escape (oputil/escape.h) on S: S itself when nothing needs
 * escaping, else an escaped copy in POOL ("(out of memory)" when there
 * is no room).  out_warnf says "warning: MESSAGE" through diag(),
 * escaped the same way. */
struct strpool;
const char *out_safe(struct strpool *pool, const char *s);
void out_warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
