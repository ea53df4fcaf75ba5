/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The text layout's columns.  OProfile's order, headings and least widths
 * stay; a column grows to its widest cell, so that a long image name (a
 * JIT label, an anonymous range) no longer pushes the columns after it
 * out of line.  The last column runs free.  Lines from table_text() are
 * printed as they are, in their place among the rows.
 *
 * Given a width limit (a terminal's), the widest shrinkable columns give
 * up space first, their cells cut in the middle with "...", and then the
 * last column is cut at the end.
 */
#ifndef OPREPORT_TABLE_H
#define OPREPORT_TABLE_H

#include <stdbool.h>
#include <stdio.h>

struct table_col {
	int width;   /* the least width, the separating space included */
	bool shrink; /* may be cut to fit a limit */
};

struct table;

/* A table of NR columns, the last one free, or NULL out of memory (not
 * reported). */
struct table *table_new(const struct table_col *cols, unsigned nr);
void table_free(struct table *t);

/* A row: INDENT, then NR cells (copied). 0 or -ENOMEM (not reported). */
int table_row(struct table *t, const char *indent, const char *const *cells);
/* A line outside the columns, printed as it is. 0 or -ENOMEM (not
 * reported). */
int table_text(struct table *t, const char *line);

/* S in at most W characters: whole, or cut with "..." in the middle
 * (MIDDLE) or at the end.  What the table does to a cell. */
void table_put_fitted(FILE *f, const char *s, int w, bool middle);

/* The least a name keeps when a line is cut to a limit. */
#define TABLE_NAME_MIN 24

/* Every row and line to F, each line within LIMIT characters where the
 * shrinkable columns allow (0: no limit); F's error flag says whether
 * they were written. */
void table_print(const struct table *t, FILE *f, int limit);

#endif
