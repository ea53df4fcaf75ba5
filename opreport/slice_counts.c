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

/* Whether K's run is at its copy id (a session's copy ids are below
 * its number of copies, and those below 2^32) */
static bool key_is_copy(const struct slice_key *k)
{
	return k->kind == OPS_TIME_COPIES && !k->ctx && k->key < UINT32_MAX;
}

/* K's run, or NULL when K has no counts. */
static struct slice_run *run_of(const struct slice_counts *t,
				const struct slice_key *k)
{
	uint32_t i;

	if (key_is_copy(k))
		return k->key < t->nr_copy ? &t->copy[k->key] : NULL;
	i = oputil_idxset_find(&t->set, key_hash(k), NULL, j,
			       key_eq(&t->g[j].k, k));
	return i == OPUTIL_IDXSET_NONE ? NULL : &t->g[i].r;
}

/* K's run, added empty when new; NULL out of memory.  A copy's runs are
 * made before. */
static struct slice_run *run_add(struct slice_counts *t,
				 const struct slice_key *k)
{
	struct oputil_idxset_pos pos;
	uint32_t i;

	if (key_is_copy(k))
		return &t->copy[k->key];
	i = oputil_idxset_find(&t->set, key_hash(k), &pos, j,
			       key_eq(&t->g[j].k, k));
	if (i != OPUTIL_IDXSET_NONE)
		return &t->g[i].r;
	if (oputil_grow(&t->g, &t->cap_g, t->ng + 1, sizeof(*t->g)) ||
	    oputil_idxset_put(&t->set, &pos, (uint32_t)t->ng) < 0)
		return NULL;
	t->g[t->ng] = (struct slice_group){ *k, { 0, 0 } };
	return &t->g[t->ng++].r;
}

static int slice_cmp(const void *pa, const void *pb)
{
	const struct slice_count *a = pa, *b = pb;

	return (a->slice > b->slice) - (a->slice < b->slice);
}

/* Run R's counts in the order of their slices, several blocks' counts of
 * one slice added, moved down to T->v + *AT. */
static void run_merge(struct slice_counts *t, struct slice_run *r, size_t *at)
{
	struct slice_count *run = t->v + r->first;
	size_t i, first = *at;

	for (i = 1; i < r->n && run[i - 1].slice < run[i].slice; i++)
		;
	/* the session's slices come in time order: sorting is for a
	 * session whose blocks do not */
	if (i < r->n)
		qsort(run, r->n, sizeof(*run), slice_cmp);
	for (i = 0; i < r->n; i++) {
		if (*at > first && t->v[*at - 1].slice == run[i].slice)
			t->v[*at - 1].left += run[i].left;
		else
			t->v[(*at)++] = run[i];
	}
	r->first = (uint32_t)first;
	r->n = (uint32_t)(*at - first);
}

/* Each run's place in v, its count of counts made 0 to be filled. */
static void runs_place(struct slice_run *r, size_t n, size_t *at)
{
	size_t i;

	for (i = 0; i < n; i++) {
		r[i].first = (uint32_t)*at;
		*at += r[i].n;
		r[i].n = 0;
	}
}

int slice_counts_build(struct slice_counts *t, struct ops_session *s)
{
	const struct ops_time_count *tc;
	size_t n, i, at = 0;

	*t = (struct slice_counts){ 0 };
	tc = ops_session_time_counts(s, &n);
	if (n >= UINT32_MAX)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (key_is_copy(&(struct slice_key){ tc[i].kind, tc[i].ctx,
						     tc[i].key }) &&
		    tc[i].key >= t->nr_copy)
			t->nr_copy = tc[i].key + 1;
	if (t->nr_copy && !(t->copy = calloc(t->nr_copy, sizeof(*t->copy))))
		goto nomem;
	/* each key's count of counts first, then its counts in one run */
	for (i = 0; i < n; i++) {
		struct slice_run *r;

		if (!ops_session_slice_in_window(s, &tc[i]) || !tc[i].count)
			continue;
		r = run_add(t, &(struct slice_key){ tc[i].kind, tc[i].ctx,
						    tc[i].key });
		if (!r)
			goto nomem;
		r->n++;
		t->n++;
	}
	t->v = malloc((t->n ? t->n : 1) * sizeof(*t->v));
	if (!t->v)
		goto nomem;
	runs_place(t->copy, t->nr_copy, &at);
	for (i = 0; i < t->ng; i++)
		runs_place(&t->g[i].r, 1, &at);
	for (i = 0; i < n; i++) {
		uint64_t slice = tc[i].start_ns / OPS_SLICE_NS;
		struct slice_run *r;

		if (!ops_session_slice_in_window(s, &tc[i]) || !tc[i].count)
			continue;
		r = run_of(t, &(struct slice_key){ tc[i].kind, tc[i].ctx,
						   tc[i].key });
		t->v[r->first + r->n++] =
			(struct slice_count){ slice < CG_NO_SLICE
						      ? (uint32_t)slice
						      : CG_NO_SLICE - 1,
					      tc[i].count };
	}
	at = 0;
	for (i = 0; i < t->nr_copy; i++)
		run_merge(t, &t->copy[i], &at);
	for (i = 0; i < t->ng; i++)
		run_merge(t, &t->g[i].r, &at);
	t->n = at;
	return 0;
nomem:
	slice_counts_free(t);
	return -ENOMEM;
}

void slice_counts_free(struct slice_counts *t)
{
	free(t->v);
	free(t->copy);
	free(t->g);
	oputil_idxset_free(&t->set);
	*t = (struct slice_counts){ 0 };
}

/* Up to N samples of K in SLICE taken. */
static void take(struct slice_counts *t, const struct slice_key *k,
		 uint32_t slice, uint64_t n)
{
	const struct slice_run *r = run_of(t, k);
	struct slice_count *run, *c;
	size_t i;

	if (!r)
		return;
	run = t->v + r->first;
	i = oputil_partition(0, r->n, m, run[m].slice < slice);
	if (i == r->n || run[i].slice != slice)
		return;
	c = &run[i];
	c->left -= n < c->left ? n : c->left;
}

int slice_counts_add(struct slice_counts *t, struct callgraph *cg,
		     const struct cg_raw_ctx *ctx, uint32_t id,
		     const struct slice_key *k, const struct slice_key *also,
		     uint64_t count)
{
	const struct slice_run *r = run_of(t, k);
	size_t i, end = r ? (size_t)r->first + r->n : 0;
	int ret = 0;

	for (i = r ? r->first : 0; i < end && count && !ret; i++) {
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
