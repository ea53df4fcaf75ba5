// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Cells are kept until the whole table is known, because a column's
 * width is its widest cell's.  Widths count characters, not bytes: a
 * UTF-8 continuation byte takes no column.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "table.h"

#define TABLE_MAX_COLS 8
/* what the last column keeps before the others are cut to fit */
#define LAST_MIN TABLE_NAME_MIN
#define ELLIPSIS "..."

struct table_line {
	size_t first; /* its indent, then its cells, in strings[] */
	bool verbatim;
};

struct table {
	unsigned nr;
	struct table_col cols[TABLE_MAX_COLS];
	char *buf;
	size_t len, cap;
	size_t *strings; /* offsets into buf */
	size_t nr_strings, cap_strings;
	struct table_line *lines;
	size_t nr_lines, cap_lines;
};

static int add_string(struct table *t, const char *s)
{
	size_t n = strlen(s) + 1;

	if (oputil_grow(&t->buf, &t->cap, t->len + n, 1) ||
	    oputil_grow(&t->strings, &t->cap_strings, t->nr_strings + 1,
			sizeof(*t->strings)))
		return -ENOMEM;
	memcpy(t->buf + t->len, s, n);
	t->strings[t->nr_strings++] = t->len;
	t->len += n;
	return 0;
}

static int add_line(struct table *t, bool verbatim)
{
	if (oputil_grow(&t->lines, &t->cap_lines, t->nr_lines + 1,
			sizeof(*t->lines)))
		return -ENOMEM;
	t->lines[t->nr_lines++] =
		(struct table_line){ t->nr_strings, verbatim };
	return 0;
}

struct table *table_new(const struct table_col *cols, unsigned nr)
{
	struct table *t;

	if (!nr || nr > TABLE_MAX_COLS)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->nr = nr;
	memcpy(t->cols, cols, nr * sizeof(*cols));
	return t;
}

void table_free(struct table *t)
{
	if (!t)
		return;
	free(t->buf);
	free(t->strings);
	free(t->lines);
	free(t);
}

int table_row(struct table *t, const char *indent, const char *const *cells)
{
	unsigned i;
	int err = add_line(t, false);

	if (!err)
		err = add_string(t, indent ? indent : "");
	for (i = 0; i < t->nr && !err; i++)
		err = add_string(t, cells[i] ? cells[i] : "");
	return err;
}

int table_text(struct table *t, const char *line)
{
	int err = add_line(t, true);

	return err ? err : add_string(t, line);
}

static const char *cell(const struct table *t, const struct table_line *l,
			unsigned i)
{
	return t->buf + t->strings[l->first + i];
}

static bool continuation(char c)
{
	return ((unsigned char)c & 0xc0) == 0x80;
}

static int text_width(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += !continuation(*s);
	return n;
}

/* The bytes of the first N characters of S. */
static size_t head_bytes(const char *s, int n)
{
	size_t i = 0;

	for (; s[i]; i++)
		if (!continuation(s[i]) && n-- == 0)
			break;
	return i;
}

void table_put_fitted(FILE *f, const char *s, int w, bool middle)
{
	int len = text_width(s), keep = w - (int)strlen(ELLIPSIS), head;

	if (len <= w) {
		fputs(s, f);
		return;
	}
	if (keep < 2) {
		fwrite(s, 1, head_bytes(s, w > 0 ? w : 0), f);
		return;
	}
	head = middle ? keep / 2 : keep;
	fwrite(s, 1, head_bytes(s, head), f);
	fputs(ELLIPSIS, f);
	if (middle)
		fputs(s + head_bytes(s, len - (keep - head)), f);
}

/* Give up the space the last column needs from the widest shrinkable
 * columns, one character at a time, down to their least widths. */
static void fit(const struct table *t, int *width, int fixed, int last,
		int limit)
{
	int excess = fixed + (last < LAST_MIN ? last : LAST_MIN) - limit;
	unsigned i;

	while (excess-- > 0) {
		int widest = -1;

		for (i = 0; i + 1 < t->nr; i++)
			if (t->cols[i].shrink && width[i] > t->cols[i].width &&
			    (widest < 0 || width[i] > width[widest]))
				widest = (int)i;
		if (widest < 0)
			return;
		width[widest]--;
	}
}

void table_print(const struct table *t, FILE *f, int limit)
{
	int width[TABLE_MAX_COLS], indent = 0, last = 0, fixed = 0;
	const struct table_line *l;
	unsigned i;

	for (i = 0; i + 1 < t->nr; i++)
		width[i] = t->cols[i].width;
	for (l = t->lines; l < t->lines + t->nr_lines; l++) {
		int w;

		if (l->verbatim)
			continue;
		w = text_width(cell(t, l, 0));
		indent = w > indent ? w : indent;
		for (i = 0; i + 1 < t->nr; i++) {
			w = text_width(cell(t, l, i + 1)) + 1;
			width[i] = w > width[i] ? w : width[i];
		}
		w = text_width(cell(t, l, t->nr));
		last = w > last ? w : last;
	}
	if (limit > 0) {
		fixed = indent;
		for (i = 0; i + 1 < t->nr; i++)
			fixed += width[i];
		fit(t, width, fixed, last, limit);
	}
	for (l = t->lines; l < t->lines + t->nr_lines; l++) {
		int used;

		if (l->verbatim) {
			fprintf(f, "%s\n", cell(t, l, 0));
			continue;
		}
		fputs(cell(t, l, 0), f);
		used = text_width(cell(t, l, 0));
		for (i = 0; i + 1 < t->nr; i++) {
			const char *s = cell(t, l, i + 1);
			int w = text_width(s);

			if (w >= width[i]) {
				table_put_fitted(f, s, width[i] - 1, true);
				w = width[i] - 1;
			} else {
				fputs(s, f);
			}
			fprintf(f, "%*s", width[i] - w, "");
			used += width[i];
		}
		/* the name is what the row is for: it keeps a few
		 * characters even where the columns before it cannot
		 * give up enough */
		if (limit > 0)
			table_put_fitted(f, cell(t, l, t->nr),
					 limit - used > LAST_MIN ? limit - used
								 : LAST_MIN,
					 false);
		else
			fputs(cell(t, l, t->nr), f);
		fputc('\n', f);
	}
}
