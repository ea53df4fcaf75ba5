// SPDX-License-Identifier: GPL-3.0-or-later
#include "diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "strpool.h"

struct diff_entry {
	const char *key;   /* interned in the profile's pool */
	const char *image; /* row_image(), interned there too */
	const struct report_row *row;
	enum diff_side side;
};

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s && s[1] ? s + 1 : path ? path : "?";
}

/* The image as both sides can agree on it: JIT code and anonymous
 * buckets are labelled per process, which changes from run to run. */
static const char *row_image(const struct report *r,
			     const struct report_row *row,
			     struct strpool *pool)
{
	switch (row->kind) {
	case ROW_JIT:
		return strpool_printf(pool, "jit:%s (%s)",
				      row->handler ? row->handler : "?",
				      base_name(row->app));
	case ROW_ANON:
		return strpool_printf(pool, "anon (%s)", base_name(row->app));
	default:
		return strpool_intern(pool, report_image_name(r, row->image));
	}
}

static const char *row_symbol(const struct report *r,
			      const struct report_row *row)
{
	if (!r->want_syms)
		return NULL;
	return row->sym ? row->sym->name : "(no symbols)";
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct diff_entry *a = pa, *b = pb;

	if (a->key != b->key)
		return (uintptr_t)a->key < (uintptr_t)b->key ? -1 : 1;
	return (int)a->side - (int)b->side;
}

/* Largest change first; then the profile's larger count; then names,
 * so that the order never depends on the sort's whims. */
static int change_cmp(const void *pa, const void *pb)
{
	const struct diff_row *a = pa, *b = pb;
	double ca = fabs(a->change), cb = fabs(b->change);
	int c;

	if (ca != cb)
		return ca > cb ? -1 : 1;
	if (a->count[DIFF_PROFILE] != b->count[DIFF_PROFILE])
		return a->count[DIFF_PROFILE] > b->count[DIFF_PROFILE] ? -1
								       : 1;
	c = strcmp(a->image, b->image);
	if (c || !a->symbol || !b->symbol)
		return c;
	return strcmp(a->symbol, b->symbol);
}

static int add_side(struct diff_entry *e, size_t *n, const struct report *r,
		    enum diff_side side, struct strpool *pool)
{
	size_t i;

	for (i = 0; i < r->nr_rows; i++) {
		const struct report_row *row = &r->rows[i];
		const char *image = row_image(r, row, pool);
		const char *sym = row_symbol(r, row);
		const char *key;

		if (!image)
			return -ENOMEM;
		key = strpool_printf(pool, "%d\x1f%s\x1f%s", (int)row->kind,
				     image, sym ? sym : "");
		if (!key)
			return -ENOMEM;
		e[(*n)++] = (struct diff_entry){ key, image, row, side };
	}
	return 0;
}

int diff_build(struct diff *d, const struct report *base,
	       const struct report *profile)
{
	const struct report *side[2] = { base, profile };
	struct strpool *pool = profile->pool;
	struct diff_entry *e;
	size_t n = 0, i, j;
	double min = profile->opts->threshold;
	int ret = -ENOMEM;

	memset(d, 0, sizeof(*d));
	d->side[0] = base;
	d->side[1] = profile;
	e = calloc(base->nr_rows + profile->nr_rows + 1, sizeof(*e));
	d->rows =
		calloc(base->nr_rows + profile->nr_rows + 1, sizeof(*d->rows));
	if (!e || !d->rows || add_side(e, &n, base, DIFF_BASE, pool) ||
	    add_side(e, &n, profile, DIFF_PROFILE, pool))
		goto out;
	qsort(e, n, sizeof(*e), entry_cmp);
	for (i = 0; i < n; i = j) {
		struct diff_row *row = &d->rows[d->nr_rows];
		const char *sym = row_symbol(side[e[i].side], e[i].row);
		int s;

		memset(row, 0, sizeof(*row));
		row->kind = e[i].row->kind;
		row->image = e[i].image;
		row->symbol = sym ? strpool_intern(pool, sym) : NULL;
		if (sym && !row->symbol)
			goto out;
		/* one key can have several rows a side (processes, CPUs) */
		for (j = i; j < n && e[j].key == e[i].key; j++)
			row->count[e[j].side] += e[j].row->count;
		for (s = 0; s < 2; s++)
			row->percent[s] =
				report_percent(side[s], row->count[s], 0);
		row->change = row->percent[1] - row->percent[0];
		if (min > 0 && row->percent[0] < min && row->percent[1] < min)
			continue;
		d->nr_rows++;
	}
	qsort(d->rows, d->nr_rows, sizeof(*d->rows), change_cmp);
	if (profile->opts->reverse_sort)
		for (i = 0; i < d->nr_rows / 2; i++) {
			struct diff_row t = d->rows[i];

			d->rows[i] = d->rows[d->nr_rows - 1 - i];
			d->rows[d->nr_rows - 1 - i] = t;
		}
	ret = 0;
out:
	free(e);
	if (ret)
		diff_free(d);
	return ret;
}

void diff_free(struct diff *d)
{
	free(d->rows);
	d->rows = NULL;
	d->nr_rows = 0;
}

const char *diff_status(const struct diff_row *row)
{
	if (!row->count[DIFF_BASE])
		return "new";
	if (!row->count[DIFF_PROFILE])
		return "gone";
	return NULL;
}
