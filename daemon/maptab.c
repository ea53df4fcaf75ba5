// SPDX-License-Identifier: GPL-3.0-or-later
#include "maptab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <oputil/search.h>

/* Not oputil_grow(): a process holds a table, and most need fewer than
 * the 64 entries it starts with. */
static int maptab_reserve(struct maptab *t, size_t need)
{
	struct maptab_entry *v;
	size_t cap;

	if (need <= t->cap)
		return 0;
	cap = t->cap ? t->cap * 2 : 16;
	while (cap < need)
		cap *= 2;
	v = realloc(t->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	t->v = v;
	t->cap = cap;
	return 0;
}

/* Every change of any table takes the next generation, never one a
 * table had: a table freed and made again (proc_reset, a new process at
 * the same address) must not look unchanged to whoever placed an
 * address in it before (recorder_stack.c reuses those places). */
static uint64_t maptab_last_gen;

static void maptab_changed(struct maptab *t)
{
	t->gen = ++maptab_last_gen;
}

/* Index of the first entry that ends after ADDR. */
static size_t maptab_first_after(const struct maptab *t, uint64_t addr)
{
	return oputil_partition(0, t->n, i, t->v[i].end <= addr);
}

int maptab_insert(struct maptab *t, uint64_t start, uint64_t end,
		  uint64_t pgoff, uint32_t image)
{
	struct maptab_entry left, right,
		mid = {
			.start = start,
			.end = end,
			.pgoff = pgoff,
			.image = image,
			.ctx = MAPTAB_NO_CTX,
			.ctx_cpu = -1,
		};
	size_t lo, hi, nr_new = 1;
	int has_left = 0, has_right = 0, err;

	if (start >= end)
		return -EINVAL;
	err = maptab_reserve(t, t->n + 2);
	if (err)
		return err;
	lo = maptab_first_after(t, start);
	hi = lo;
	while (hi < t->n && t->v[hi].start < end)
		hi++;
	if (lo < hi && t->v[lo].start < start) {
		left = t->v[lo];
		left.end = start;
		left.seen = 0;
		has_left = 1;
	}
	if (lo < hi && t->v[hi - 1].end > end) {
		right = t->v[hi - 1];
		right.pgoff += end - right.start;
		right.start = end;
		right.seen = 0;
		has_right = 1;
	}
	nr_new += has_left + has_right;
	memmove(t->v + lo + nr_new, t->v + hi, (t->n - hi) * sizeof(*t->v));
	t->n = t->n - (hi - lo) + nr_new;
	maptab_changed(t);
	if (has_left)
		t->v[lo++] = left;
	t->v[lo++] = mid;
	if (has_right)
		t->v[lo] = right;
	return 0;
}

int maptab_remove(struct maptab *t, uint64_t start, uint64_t end)
{
	size_t i;
	int err = maptab_insert(t, start, end, 0, MAPTAB_ANON);

	if (err)
		return err;
	i = maptab_first_after(t, start);
	memmove(t->v + i, t->v + i + 1, (t->n - i - 1) * sizeof(*t->v));
	t->n--;
	maptab_changed(t);
	return 0;
}

struct maptab_entry *maptab_find(struct maptab *t, uint64_t addr)
{
	size_t i = t->hot;

	/* entries are disjoint: whichever holds ADDR is the answer, so an
	 * index left stale by an insertion or removal costs a search at
	 * worst */
	if (i < t->n && addr - t->v[i].start < t->v[i].end - t->v[i].start)
		return &t->v[i];
	i = maptab_first_after(t, addr);
	if (i < t->n && t->v[i].start <= addr) {
		t->hot = i;
		return &t->v[i];
	}
	return NULL;
}

int maptab_copy(struct maptab *dst, const struct maptab *src)
{
	int err;

	dst->n = 0;
	err = maptab_reserve(dst, src->n);
	if (err)
		return err;
	if (src->n)
		memcpy(dst->v, src->v, src->n * sizeof(*src->v));
	dst->n = src->n;
	maptab_changed(dst);
	return 0;
}

/* Contexts name the process when histograms are separated per process,
 * so a table copied into a child must not reuse its parent's. */
void maptab_forget_contexts(struct maptab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		t->v[i].ctx = MAPTAB_NO_CTX;
		t->v[i].seen = 0;
	}
	/* a range not seen is given to the writer at its next sample */
	maptab_changed(t);
}

void maptab_clear(struct maptab *t)
{
	t->n = 0;
	maptab_changed(t);
}

void maptab_free(struct maptab *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}
