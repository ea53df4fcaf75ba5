// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * --event=alloc|lock with --diff or "{ } { }": the stacks of both
 * sessions matched by their text, each with its share of its side's
 * weight, largest change first as in the CPU differential report; as
 * text, CSV, JSON (schema opjit-events-diff) or the two-count folded
 * lines of a differential flame graph.  pprof writes each side whole
 * (events_report).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"

static int row_ptr_by_stack(const void *a, const void *b)
{
	return strcmp((*(const struct ev_row *const *)a)->stack,
		      (*(const struct ev_row *const *)b)->stack);
}

static int diff_row_by_change(const void *pa, const void *pb)
{
	const struct ev_diff_row *a = pa, *b = pb;
	double ca = fabs(a->change), cb = fabs(b->change);

	if (ca != cb)
		return ca > cb ? -1 : 1;
	if (a->weight[1] != b->weight[1])
		return a->weight[1] > b->weight[1] ? -1 : 1;
	return strcmp(a->stack, b->stack);
}

/* ROWS[0..N) of one side, sorted by stack, into *OUT. */
static int by_stack(const struct ev_row *rows, size_t n,
		    const struct ev_row ***out)
{
	const struct ev_row **p = calloc(n ? n : 1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		p[i] = &rows[i];
	qsort(p, n, sizeof(*p), row_ptr_by_stack);
	*out = p;
	return 0;
}

static double share(uint64_t weight, uint64_t total)
{
	return 100.0 * (double)weight / (double)(total ? total : 1);
}

int ev_diff_build(struct ev_diff *d, const struct ev_row *rows[2],
		  const size_t nr[2])
{
	const struct ev_row **s[2] = { NULL, NULL };
	size_t i = 0, j = 0;
	int ret;

	d->rows = NULL;
	d->nr = 0;
	for (int k = 0; k < 2; k++) {
		d->weight[k] = d->count[k] = 0;
		for (size_t r = 0; r < nr[k]; r++) {
			d->weight[k] += rows[k][r].weight;
			d->count[k] += rows[k][r].count;
		}
	}
	ret = by_stack(rows[0], nr[0], &s[0]);
	if (!ret)
		ret = by_stack(rows[1], nr[1], &s[1]);
	if (!ret) {
		d->rows = calloc(nr[0] + nr[1] + 1, sizeof(*d->rows));
		if (!d->rows)
			ret = -ENOMEM;
	}
	while (!ret && (i < nr[0] || j < nr[1])) {
		int c = i == nr[0]   ? 1
			: j == nr[1] ? -1
				     : strcmp(s[0][i]->stack, s[1][j]->stack);
		struct ev_diff_row *row = &d->rows[d->nr++];

		row->stack = c <= 0 ? s[0][i]->stack : s[1][j]->stack;
		if (c <= 0) {
			row->weight[0] = s[0][i]->weight;
			row->count[0] = s[0][i++]->count;
		}
		if (c >= 0) {
			row->weight[1] = s[1][j]->weight;
			row->count[1] = s[1][j++]->count;
		}
		for (int k = 0; k < 2; k++)
			row->percent[k] = share(row->weight[k], d->weight[k]);
		row->change = row->percent[1] - row->percent[0];
	}
	free(s[0]);
	free(s[1]);
	if (ret) {
		free(d->rows);
		d->rows = NULL;
		d->nr = 0;
		return ret;
	}
	qsort(d->rows, d->nr, sizeof(*d->rows), diff_row_by_change);
	if (d->o->reverse_sort)
		for (size_t a = 0, b = d->nr; a + 1 < b; a++, b--) {
			struct ev_diff_row t = d->rows[a];

			d->rows[a] = d->rows[b - 1];
			d->rows[b - 1] = t;
		}
	return 0;
}

void ev_diff_free(struct ev_diff *d)
{
	free(d->rows);
	d->rows = NULL;
	d->nr = 0;
}

const char *ev_diff_status(const struct ev_diff_row *row)
{
	return !row->count[0] ? "new" : !row->count[1] ? "gone" : "both";
}

static void diff_text(FILE *f, const struct ev_diff *d, bool alloc)
{
	if (!d->o->no_header)
		fprintf(f,
			"%s: baseline %" PRIu64 ", profile %" PRIu64 "\n"
			"%-16s %-9s %-16s %-9s %-9s stack\n",
			alloc ? "Allocated bytes" : "Waited ns", d->weight[0],
			d->weight[1], "baseline", "%", "profile", "%",
			"change");
	for (size_t i = 0; i < d->nr; i++) {
		const struct ev_diff_row *r = &d->rows[i];

		if (r->percent[0] < d->o->threshold &&
		    r->percent[1] < d->o->threshold)
			continue;
		fprintf(f,
			"%-16" PRIu64 " %-9.4f %-16" PRIu64
			" %-9.4f %+-9.4f %s\n",
			r->weight[0], r->percent[0], r->weight[1],
			r->percent[1], r->change, r->stack);
	}
}

static void diff_csv(FILE *f, const struct ev_diff *d, bool alloc)
{
	const char *w = alloc ? "bytes" : "wait_ns";

	fprintf(f, "base %s,base %%,%s,%%,change,status,stack\n", w, w);
	for (size_t i = 0; i < d->nr; i++) {
		const struct ev_diff_row *r = &d->rows[i];

		fprintf(f, "%" PRIu64 ",%.4f,%" PRIu64 ",%.4f,%.4f,%s,",
			r->weight[0], r->percent[0], r->weight[1],
			r->percent[1], r->change, ev_diff_status(r));
		events_csv_str(f, r->stack);
		fputc('\n', f);
	}
}

int events_diff_write(FILE *f, const void *arg)
{
	const struct ev_diff *d = arg;
	bool alloc = d->o->event == OPREPORT_EVENT_ALLOC;

	switch (d->o->format) {
	case OUT_JSON:
		return events_json_diff(f, d, alloc);
	case OUT_CSV:
		diff_csv(f, d, alloc);
		break;
	case OUT_FOLDED:
		/* difffolded.pl's lines: "stack BASE PROFILE" */
		for (size_t i = 0; i < d->nr; i++)
			fprintf(f, "%s %" PRIu64 " %" PRIu64 "\n",
				d->rows[i].stack, d->rows[i].weight[0],
				d->rows[i].weight[1]);
		break;
	default:
		diff_text(f, d, alloc);
		break;
	}
	return ferror(f) ? -EIO : 0;
}
