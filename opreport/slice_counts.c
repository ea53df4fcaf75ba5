// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdlib.h>

#include <opjit/samples.h>
#include <oputil/grow.h>
#include <oputil/search.h>

#include "slice_counts.h"

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

static int key_cmp(const struct slice_key *a, const struct slice_key *b)
{
	return CMP(a->kind, b->kind) ?: CMP(a->ctx, b->ctx)
					       ?: CMP(a->key, b->key);
}

static int count_cmp(const void *pa, const void *pb)
{
	const struct slice_count *a = pa, *b = pb;

	return key_cmp(&a->k, &b->k) ?: CMP(a->slice, b->slice);
}

int slice_counts_build(struct slice_counts *t, struct ops_session *s)
{
	const struct ops_time_count *tc;
	size_t n, i, cap = 0, nu = 0;

	t->v = NULL;
	t->n = 0;
	tc = ops_session_time_counts(s, &n);
	for (i = 0; i < n; i++) {
		uint64_t slice = tc[i].start_ns / OPS_SLICE_NS;

		if (!ops_session_slice_in_window(s, &tc[i]) || !tc[i].count)
			continue;
		if (oputil_grow(&t->v, &cap, t->n + 1, sizeof(*t->v)))
			return -ENOMEM;
		t->v[t->n++] = (struct slice_count){
			{ tc[i].kind, tc[i].ctx, tc[i].key },
			slice < CG_NO_SLICE ? (uint32_t)slice
					    : CG_NO_SLICE - 1,
			tc[i].count
		};
	}
	/* several blocks may name one slice: their counts add */
	if (t->n) /* qsort's array may not be NULL, even empty */
		qsort(t->v, t->n, sizeof(*t->v), count_cmp);
	for (i = 0; i < t->n; i++) {
		if (nu && !count_cmp(&t->v[nu - 1], &t->v[i]))
			t->v[nu - 1].left += t->v[i].left;
		else
			t->v[nu++] = t->v[i];
	}
	t->n = nu;
	return 0;
}

void slice_counts_free(struct slice_counts *t)
{
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

/* The first of K's slices, or t->n. */
static size_t first_of(const struct slice_counts *t, const struct slice_key *k)
{
	return oputil_partition(0, t->n, m, key_cmp(&t->v[m].k, k) < 0);
}

/* Up to N samples of K in SLICE taken. */
static void take(struct slice_counts *t, const struct slice_key *k,
		 uint32_t slice, uint64_t n)
{
	size_t i = first_of(t, k);

	for (; i < t->n && !key_cmp(&t->v[i].k, k); i++)
		if (t->v[i].slice == slice) {
			t->v[i].left -= n < t->v[i].left ? n : t->v[i].left;
			return;
		}
}

int slice_counts_add(struct slice_counts *t, struct callgraph *cg,
		     const struct cg_raw_ctx *ctx, uint32_t id,
		     const struct slice_key *k, const struct slice_key *also,
		     uint64_t count)
{
	size_t i = first_of(t, k);
	int ret = 0;

	for (; i < t->n && !key_cmp(&t->v[i].k, k) && count && !ret; i++) {
		struct slice_count *c = &t->v[i];
		uint64_t n = c->left < count ? c->left : count;

		if (!n)
			continue;
		c->left -= n;
		count -= n;
		if (also)
			take(t, also, c->slice, n);
		ret = callgraph_add_counted(cg, ctx, id, c->slice, n);
	}
	return ret ?: callgraph_add_counted(cg, ctx, id, CG_NO_SLICE, count);
}
