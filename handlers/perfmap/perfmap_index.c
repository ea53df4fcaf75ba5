// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Overlapping map entries.  Runtimes reuse code addresses, and perf picks
 * one of the overlapping names arbitrarily.  Here the entry written later
 * names the addresses it covers and an earlier entry keeps the addresses
 * only it covers: a perf map carries no time, so the file order is the
 * only evidence of which code came last (see README.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/search.h>

#include "perfmap.h"

struct sweep {
	const struct perfmap_entry *e;
	uint32_t *heap; /* max-heap of entry indices: later wins */
	size_t nheap;
	struct perfmap_seg *seg;
	size_t nseg, capseg;
};

static void heap_push(struct sweep *w, uint32_t v)
{
	size_t i = w->nheap++;

	while (i > 0 && w->heap[(i - 1) / 2] < v) {
		w->heap[i] = w->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	w->heap[i] = v;
}

static void heap_pop(struct sweep *w)
{
	uint32_t v = w->heap[--w->nheap];
	size_t i = 0, n = w->nheap;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && w->heap[c + 1] > w->heap[c])
			c++;
		if (w->heap[c] <= v)
			break;
		w->heap[i] = w->heap[c];
		i = c;
	}
	if (n)
		w->heap[i] = v;
}

static int seg_emit(struct sweep *w, uint64_t start, uint64_t end,
		    uint32_t entry)
{
	struct perfmap_seg *last = w->nseg ? &w->seg[w->nseg - 1] : NULL;

	/* both parts of one entry: the sum stays within its size */
	if (last && last->entry == entry && perfmap_seg_end(last) == start) {
		last->len += (uint32_t)(end - start);
		return 0;
	}
	if (oputil_grow(&w->seg, &w->capseg, w->nseg + 1, sizeof(*w->seg)))
		return -ENOMEM;
	w->seg[w->nseg].start = start;
	w->seg[w->nseg].len = (uint32_t)(end - start);
	w->seg[w->nseg].entry = entry;
	w->nseg++;
	return 0;
}

static int by_start(const void *a, const void *b, void *arg)
{
	const struct perfmap_entry *e = arg;
	const struct perfmap_entry *x = &e[*(const uint32_t *)a];
	const struct perfmap_entry *y = &e[*(const uint32_t *)b];

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

static uint64_t entry_end(const struct sweep *w, uint32_t i)
{
	return w->e[i].start + w->e[i].size;
}

/*
 * Sweep the entries in address order with the covering entries in a
 * heap.  Between two consecutive boundaries the owner is the latest
 * covering entry, and it can only change where an entry starts or where
 * the owner itself ends.
 */
static int sweep_run(struct sweep *w, const uint32_t *order, size_t n)
{
	size_t i = 0;
	uint64_t cur = 0;
	int rc;

	while (i < n || w->nheap) {
		uint32_t top;
		uint64_t next;

		if (!w->nheap)
			cur = w->e[order[i]].start;
		while (i < n && w->e[order[i]].start <= cur)
			heap_push(w, order[i++]);
		while (w->nheap && entry_end(w, w->heap[0]) <= cur)
			heap_pop(w);
		if (!w->nheap)
			continue;
		top = w->heap[0];
		next = entry_end(w, top);
		if (i < n && w->e[order[i]].start < next)
			next = w->e[order[i]].start;
		rc = seg_emit(w, cur, next, top);
		if (rc < 0)
			return rc;
		cur = next;
	}
	return 0;
}

int perfmap_index(const struct perfmap *m, struct perfmap_seg **segs,
		  size_t *nsegs)
{
	struct sweep w = { .e = m->e };
	uint32_t *order = NULL;
	size_t i, n = 0;
	int rc = -ENOMEM;

	*segs = NULL;
	*nsegs = 0;
	order = malloc((m->n ? m->n : 1) * sizeof(*order));
	w.heap = malloc((m->n ? m->n : 1) * sizeof(*w.heap));
	if (!order || !w.heap)
		goto out;
	/* An empty entry names nothing. */
	for (i = 0; i < m->n; i++)
		if (m->e[i].size)
			order[n++] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), by_start, (void *)m->e);
	rc = sweep_run(&w, order, n);
	if (rc < 0)
		goto out;
	if (w.nseg && w.nseg < w.capseg) {
		struct perfmap_seg *fit =
			realloc(w.seg, w.nseg * sizeof(*fit));

		if (fit)
			w.seg = fit;
	}
	*segs = w.seg;
	*nsegs = w.nseg;
	w.seg = NULL;
out:
	free(w.seg);
	free(w.heap);
	free(order);
	return rc;
}

/* Cut SEGS into pages for T: every PERFMAP_PAGE ranges, and wherever a
 * range starts 4 GiB or more past its page's first. */
static int pack_pages(const struct perfmap_seg *segs, size_t nsegs,
		      struct perfmap_table *t)
{
	size_t i, n = 0, capb = 0, capf = 0, want = nsegs / PERFMAP_PAGE + 1;

	if (oputil_grow(&t->base, &capb, want, sizeof(*t->base)) ||
	    oputil_grow(&t->first, &capf, want, sizeof(*t->first)))
		return -ENOMEM;
	for (i = 0; i < nsegs; i++) {
		if (n && i - t->first[n - 1] < PERFMAP_PAGE &&
		    segs[i].start - t->base[n - 1] <= UINT32_MAX) {
			t->off[i] = (uint32_t)(segs[i].start - t->base[n - 1]);
			continue;
		}
		if (oputil_grow(&t->base, &capb, n + 1, sizeof(*t->base)) ||
		    oputil_grow(&t->first, &capf, n + 1, sizeof(*t->first)))
			return -ENOMEM;
		t->base[n] = segs[i].start;
		t->first[n++] = (uint32_t)i;
		t->off[i] = 0;
	}
	t->npages = n;
	return 0;
}

int perfmap_pack(struct perfmap *m, struct perfmap_seg *segs, size_t nsegs,
		 struct perfmap_table *t)
{
	/* per entry: its ranges, then its index in split + 1 (0: whole) */
	uint32_t *of = calloc(m->n ? m->n : 1, sizeof(*of));
	size_t i, nsplit = 0, k = nsegs ? nsegs : 1;

	memset(t, 0, sizeof(*t));
	if (!of || nsegs > UINT32_MAX)
		goto fail;
	for (i = 0; i < nsegs; i++)
		of[segs[i].entry]++;
	for (i = 0; i < m->n; i++)
		of[i] = of[i] > 1 ? (uint32_t)++nsplit : 0;
	for (i = 0; i < nsegs; i++) {
		const struct perfmap_entry *e = &m->e[segs[i].entry];

		/* a single range short of its entry: the rest is overlaid */
		if (!of[segs[i].entry] &&
		    (segs[i].start != e->start || segs[i].len != e->size))
			of[segs[i].entry] = (uint32_t)++nsplit;
	}
	t->split = malloc((nsplit ? nsplit : 1) * sizeof(*t->split));
	t->off = malloc(k * sizeof(*t->off));
	t->len = malloc(k * sizeof(*t->len));
	t->entry = malloc(k * sizeof(*t->entry));
	if (!t->split || !t->off || !t->len || !t->entry ||
	    pack_pages(segs, nsegs, t))
		goto fail;
	for (i = 0; i < m->n; i++)
		if (of[i])
			t->split[of[i] - 1] = m->e[i];
	for (i = 0; i < nsegs; i++) {
		uint32_t e = segs[i].entry;

		t->len[i] = segs[i].len;
		t->entry[i] = of[e] ? of[e] - 1 : PERFMAP_WHOLE | m->e[e].name;
	}
	free(of);
	free(segs);
	t->nsegs = nsegs;
	t->nsplit = nsplit;
	t->names = m->names.buf;
	m->names.buf = NULL;
	perfmap_free(m);
	return 0;
fail:
	free(of);
	free(segs);
	perfmap_free(m);
	perfmap_table_free(t);
	return -ENOMEM;
}

void perfmap_table_free(struct perfmap_table *t)
{
	free(t->off);
	free(t->len);
	free(t->entry);
	free(t->base);
	free(t->first);
	free(t->split);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

/* The first index in [LO, HI) whose value in V is above X, V sorted:
 * galloping from LO, so that a value just past LO is found in a step or
 * two, as ascending addresses mostly are. */
static size_t gallop_u32(const uint32_t *v, size_t lo, size_t hi, uint64_t x)
{
	size_t end = lo, step = 1;

	while (end < hi && v[end] <= x) {
		lo = end + 1;
		end = step < hi - end ? end + step : hi;
		step *= 2;
	}
	return oputil_partition(lo, end, k, v[k] <= x);
}

size_t perfmap_table_lookup(const struct perfmap_table *t, uint64_t addr,
			    struct perfmap_cursor *cur, uint64_t *start,
			    uint64_t *end)
{
	size_t lo = cur->page < t->npages ? cur->page : t->npages, hi = lo;
	size_t step = 1, p, first, last, i;
	uint64_t rel;

	/* every page before LO starts at or below ADDR */
	if (lo && t->base[lo - 1] > addr)
		lo = hi = 0;
	while (hi < t->npages && t->base[hi] <= addr) {
		lo = hi + 1;
		hi = step < t->npages - hi ? hi + step : t->npages;
		step *= 2;
	}
	/* the first page that starts after ADDR is in [LO, HI] */
	p = oputil_partition(lo, hi, k, t->base[k] <= addr);
	if (!p)
		return SIZE_MAX;
	p--;
	first = t->first[p];
	last = p + 1 < t->npages ? t->first[p + 1] : t->nsegs;
	rel = addr - t->base[p];
	/* from the range the last search found, when ADDR is not below it */
	if (p == cur->page && cur->seg >= first && cur->seg < last &&
	    t->off[cur->seg] <= rel)
		first = cur->seg;
	cur->page = p;
	/* the page's last range at or before ADDR; its first is at 0 */
	i = gallop_u32(t->off, first, last, rel) - 1;
	cur->seg = i;
	if (rel - t->off[i] >= t->len[i])
		return SIZE_MAX;
	*start = t->base[p] + t->off[i];
	*end = *start + t->len[i];
	return i;
}

size_t perfmap_lookup(const struct perfmap_seg *segs, size_t nsegs,
		      uint64_t addr)
{
	/* First range that starts after ADDR; the one before may hold it. */
	size_t lo = oputil_partition(0, nsegs, k, segs[k].start <= addr);

	if (lo == 0 || addr >= perfmap_seg_end(&segs[lo - 1]))
		return SIZE_MAX;
	return lo - 1;
}

size_t perfmap_lookup_next(const struct perfmap_seg *segs, size_t nsegs,
			   uint64_t addr, size_t *pos)
{
	size_t lo = *pos <= nsegs ? *pos : nsegs, hi = lo, step = 1;

	/* every range before LO starts at or below ADDR */
	if (lo && segs[lo - 1].start > addr)
		lo = hi = 0;
	while (hi < nsegs && segs[hi].start <= addr) {
		lo = hi + 1;
		hi = step < nsegs - hi ? hi + step : nsegs;
		step *= 2;
	}
	/* the first range that starts after ADDR is in [LO, HI] */
	lo = oputil_partition(lo, hi, k, segs[k].start <= addr);
	*pos = lo;
	if (lo == 0 || addr >= perfmap_seg_end(&segs[lo - 1]))
		return SIZE_MAX;
	return lo - 1;
}
