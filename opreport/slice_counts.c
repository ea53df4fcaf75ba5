// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdlib.h>

#include <opjit/samples.h>
#include <oputil/grow.h>
#include <oputil/hash.h>
#include <oputil/search.h>

#include "slice_counts.h"

static uint64_t key_hash(const struct slice_key *k)
{
	return oputil_hash_word64(
		oputil_hash_word(oputil_hash_word(OPUTIL_HASH_SEED, k->kind),
				 k->ctx),
		k->key);
}

static bool key_eq(const struct slice_key *a, const struct slice_key *b)
{
	return a->kind == b->kind && a->ctx == b->ctx && a->key == b->key;
}

/* K's group, or NULL. */
static struct slice_group *group_of(const struct slice_counts *t,
				    const struct slice_key *k)
{
	uint32_t i = oputil_idxset_find(&t->set, key_hash(k), NULL, j,
					key_eq(&t->g[j].k, k));

	return i == OPUTIL_IDXSET_NONE ? NULL : &t->g[i];
}

/* The index of K's group, added empty when new; -ENOMEM. */
static int64_t group_add(struct slice_counts *t, const struct slice_key *k)
{
	struct oputil_idxset_pos pos;
	uint32_t i = oputil_idxset_find(&t->set, key_hash(k), &pos, j,
					key_eq(&t->g[j].k, k));

	if (i != OPUTIL_IDXSET_NONE)
		return i;
	if (oputil_grow(&t->g, &t->cap_g, t->ng + 1, sizeof(*t->g)) ||
	    oputil_idxset_put(&t->set, &pos, (uint32_t)t->ng) < 0)
		return -ENOMEM;
	t->g[t->ng] = (struct slice_group){ *k, 0, 0 };
	return (int64_t)t->ng++;
}

static int slice_cmp(const void *pa, const void *pb)
{
	const struct slice_count *a = pa, *b = pb;

	return (a->slice > b->slice) - (a->slice < b->slice);
}

/* Group G's counts in the order of their slices, several blocks' counts
 * of one slice added, moved down to T->v + *AT. */
static void group_merge(struct slice_counts *t, struct slice_group *g,
			size_t *at)
{
	struct slice_count *run = t->v + g->first;
	size_t i, first = *at;

	for (i = 1; i < g->n && run[i - 1].slice < run[i].slice; i++)
		;
	/* the session's slices come in time order: sorting is for a
	 * session whose blocks do not */
	if (i < g->n)
		qsort(run, g->n, sizeof(*run), slice_cmp);
	for (i = 0; i < g->n; i++) {
		if (*at > first && t->v[*at - 1].slice == run[i].slice)
			t->v[*at - 1].left += run[i].left;
		else
			t->v[(*at)++] = run[i];
	}
	g->first = (uint32_t)first;
	g->n = (uint32_t)(*at - first);
}

int slice_counts_build(struct slice_counts *t, struct ops_session *s)
{
	const struct ops_time_count *tc;
	uint32_t *of = NULL; /* each count's group, or NONE */
	size_t n, i, at = 0;
	int64_t g;

	*t = (struct slice_counts){ 0 };
	tc = ops_session_time_counts(s, &n);
	if (!n)
		return 0;
	if (n >= UINT32_MAX || !(of = malloc(n * sizeof(*of))))
		return -ENOMEM;
	/* each key's count of counts first, then its counts in one run */
	for (i = 0; i < n; i++) {
		of[i] = OPUTIL_IDXSET_NONE;
		if (!ops_session_slice_in_window(s, &tc[i]) || !tc[i].count)
			continue;
		g = group_add(t, &(struct slice_key){ tc[i].kind, tc[i].ctx,
						      tc[i].key });
		if (g < 0)
			goto nomem;
		of[i] = (uint32_t)g;
		t->g[g].n++;
		t->n++;
	}
	t->v = malloc((t->n ? t->n : 1) * sizeof(*t->v));
	if (!t->v)
		goto nomem;
	for (i = 0; i < t->ng; i++) {
		t->g[i].first = (uint32_t)at;
		at += t->g[i].n;
		t->g[i].n = 0;
	}
	for (i = 0; i < n; i++) {
		struct slice_group *e;
		uint64_t slice = tc[i].start_ns / OPS_SLICE_NS;

		if (of[i] == OPUTIL_IDXSET_NONE)
			continue;
		e = &t->g[of[i]];
		t->v[e->first + e->n++] = (struct slice_count){
			slice < CG_NO_SLICE ? (uint32_t)slice
					    : CG_NO_SLICE - 1,
			tc[i].count
		};
	}
	free(of);
	at = 0;
	for (i = 0; i < t->ng; i++)
		group_merge(t, &t->g[i], &at);
	t->n = at;
	return 0;
nomem:
	free(of);
	slice_counts_free(t);
	return -ENOMEM;
}

void slice_counts_free(struct slice_counts *t)
{
	free(t->v);
	free(t->g);
	oputil_idxset_free(&t->set);
	*t = (struct slice_counts){ 0 };
}

/* Up to N samples of K in SLICE taken. */
static void take(struct slice_counts *t, const struct slice_key *k,
		 uint32_t slice, uint64_t n)
{
	const struct slice_group *g = group_of(t, k);
	struct slice_count *run, *c;
	size_t i;

	if (!g)
		return;
	run = t->v + g->first;
	i = oputil_partition(0, g->n, m, run[m].slice < slice);
	if (i == g->n || run[i].slice != slice)
		return;
	c = &run[i];
	c->left -= n < c->left ? n : c->left;
}

int slice_counts_add(struct slice_counts *t, struct callgraph *cg,
		     const struct cg_raw_ctx *ctx, uint32_t id,
		     const struct slice_key *k, const struct slice_key *also,
		     uint64_t count)
{
	const struct slice_group *g = group_of(t, k);
	size_t i, end = g ? (size_t)g->first + g->n : 0;
	int ret = 0;

	for (i = g ? g->first : 0; i < end && count && !ret; i++) {
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
