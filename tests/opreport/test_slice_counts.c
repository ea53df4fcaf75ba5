// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * opreport/slice_counts.c against the model it replaced: every count
 * sorted by (kind, ctx, key, slice), equal ones added, found by binary
 * search.  The counts come from a stub of the session (any order, a
 * slice named by several blocks, keys of every kind, a time window),
 * and the graph is a stub that logs each callgraph_add_counted() call;
 * the two must make the same calls in the same order, add after add.
 * slice_counts.c is compiled in alone, so that the stubs are the only
 * session and graph it knows.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slice_counts.h"
#include "check_run.h"

/* The session: its counts and its window. */
static struct ops_time_count *tc;
static size_t ntc;
static bool windowed;
static uint64_t win_from, win_to;

const struct ops_time_count *
ops_session_time_counts(const struct ops_session *s, size_t *n)
{
	(void)s;
	*n = ntc;
	return tc;
}

/* as the session says it (samples/slice_reader.c, ops_slice_in) */
bool ops_session_slice_in_window(const struct ops_session *s,
				 const struct ops_time_count *t)
{
	uint64_t mid = t->start_ns + t->len_ns / 2;

	(void)s;
	return !windowed || (mid >= win_from && mid < win_to);
}

/* The graph: a log of the calls, one per side. */
struct call {
	uint32_t id, slice;
	uint64_t count;
};

struct log {
	struct call *v;
	size_t n, cap;
};

static struct log logs[2];
static struct log *cur;

int callgraph_add_counted(struct callgraph *cg, const struct cg_raw_ctx *ctx,
			  uint32_t id, uint32_t slice, uint64_t count)
{
	(void)cg;
	(void)ctx;
	if (cur->n == cur->cap) {
		cur->cap = cur->cap ? 2 * cur->cap : 256;
		cur->v = realloc(cur->v, cur->cap * sizeof(*cur->v));
		ck_assert_ptr_nonnull(cur->v);
	}
	cur->v[cur->n++] = (struct call){ id, slice, count };
	return 0;
}

/* The model: the code slice_counts.c had before it kept a hash of its
 * keys (fd8d3c4's). */
struct ref_count {
	struct slice_key k;
	uint32_t slice;
	uint64_t left;
};

static struct ref_count *ref;
static size_t nref;

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

static int ref_key_cmp(const struct slice_key *a, const struct slice_key *b)
{
	return CMP(a->kind, b->kind) ?: CMP(a->ctx, b->ctx)
					       ?: CMP(a->key, b->key);
}

static int ref_count_cmp(const void *pa, const void *pb)
{
	const struct ref_count *a = pa, *b = pb;

	return ref_key_cmp(&a->k, &b->k) ?: CMP(a->slice, b->slice);
}

static void ref_build(void)
{
	size_t i, nu = 0;

	ref = malloc((ntc ? ntc : 1) * sizeof(*ref));
	ck_assert_ptr_nonnull(ref);
	nref = 0;
	for (i = 0; i < ntc; i++) {
		uint64_t slice = tc[i].start_ns / OPS_SLICE_NS;

		if (!ops_session_slice_in_window(NULL, &tc[i]) || !tc[i].count)
			continue;
		ref[nref++] = (struct ref_count){
			{ tc[i].kind, tc[i].ctx, tc[i].key },
			slice < CG_NO_SLICE ? (uint32_t)slice
					    : CG_NO_SLICE - 1,
			tc[i].count
		};
	}
	qsort(ref, nref, sizeof(*ref), ref_count_cmp);
	for (i = 0; i < nref; i++) {
		if (nu && !ref_count_cmp(&ref[nu - 1], &ref[i]))
			ref[nu - 1].left += ref[i].left;
		else
			ref[nu++] = ref[i];
	}
	nref = nu;
}

static size_t ref_first_of(const struct slice_key *k)
{
	size_t i = 0;

	while (i < nref && ref_key_cmp(&ref[i].k, k) < 0)
		i++;
	return i;
}

static void ref_take(const struct slice_key *k, uint32_t slice, uint64_t n)
{
	size_t i;

	for (i = ref_first_of(k); i < nref && !ref_key_cmp(&ref[i].k, k); i++)
		if (ref[i].slice == slice) {
			ref[i].left -= n < ref[i].left ? n : ref[i].left;
			return;
		}
}

static void ref_add(uint32_t id, const struct slice_key *k,
		    const struct slice_key *also, uint64_t count)
{
	size_t i;

	for (i = ref_first_of(k);
	     i < nref && !ref_key_cmp(&ref[i].k, k) && count; i++) {
		uint64_t n = ref[i].left < count ? ref[i].left : count;

		if (!n)
			continue;
		ref[i].left -= n;
		count -= n;
		if (also)
			ref_take(also, ref[i].slice, n);
		callgraph_add_counted(NULL, NULL, id, ref[i].slice, n);
	}
	callgraph_add_counted(NULL, NULL, id, CG_NO_SLICE, count);
}

/* A small deterministic generator: the same cases on every run. */
static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)((rng >> 33) % n);
}

static void rnd_key(struct slice_key *k)
{
	static const uint32_t kinds[] = { OPS_TIME_COUNTS, OPS_TIME_COPIES,
					  OPS_TIME_STACKS };

	k->kind = kinds[rnd(3)];
	k->ctx = k->kind == OPS_TIME_COPIES ? 0 : rnd(3);
	k->key = rnd(12);
}

/* Counts of up to 40 keys in up to 30 slices: in time order, as a
 * recorder writes them (block after block), or in any order; a slice
 * now and then named twice (two flushes within it); a few counts of 0;
 * a slice past CG_NO_SLICE. */
static void make_session(bool in_order)
{
	size_t nkeys = 1 + rnd(40), i, cap = 1024;
	struct slice_key keys[40];

	tc = malloc(cap * sizeof(*tc));
	ck_assert_ptr_nonnull(tc);
	ntc = 0;
	for (i = 0; i < nkeys; i++)
		rnd_key(&keys[i]);
	for (uint32_t slice = 0; slice < 30; slice++)
		for (i = 0; i < nkeys && ntc < cap - 1; i++) {
			const struct slice_key *k = &keys[i];
			int times = rnd(4) ? 1 : rnd(3);

			while (times-- > 0 && ntc < cap - 1) {
				uint64_t start = slice * OPS_SLICE_NS;

				if (slice == 29 && !rnd(8))
					start = ((uint64_t)CG_NO_SLICE + 3) *
						OPS_SLICE_NS;
				tc[ntc++] = (struct ops_time_count){
					start,	OPS_SLICE_NS,
					k->key, rnd(6) ? 1 + rnd(9) : 0,
					k->ctx, k->kind
				};
			}
		}
	if (!in_order)
		for (i = ntc; i > 1; i--) {
			size_t j = rnd((uint32_t)i);
			struct ops_time_count t = tc[i - 1];

			tc[i - 1] = tc[j];
			tc[j] = t;
		}
	windowed = !rnd(4);
	win_from = rnd(10) * OPS_SLICE_NS;
	win_to = win_from + (1 + rnd(20)) * OPS_SLICE_NS;
}

static void check_logs(uint64_t seed, size_t op)
{
	size_t i;

	ck_assert_msg(logs[0].n == logs[1].n,
		      "seed %llu, add %zu: %zu calls, the model %zu",
		      (unsigned long long)seed, op, logs[1].n, logs[0].n);
	for (i = 0; i < logs[0].n; i++)
		ck_assert_msg(
			logs[0].v[i].id == logs[1].v[i].id &&
				logs[0].v[i].slice == logs[1].v[i].slice &&
				logs[0].v[i].count == logs[1].v[i].count,
			"seed %llu, add %zu, call %zu: (%u, %u, %llu), the model (%u, %u, %llu)",
			(unsigned long long)seed, op, i, logs[1].v[i].id,
			logs[1].v[i].slice,
			(unsigned long long)logs[1].v[i].count,
			logs[0].v[i].id, logs[0].v[i].slice,
			(unsigned long long)logs[0].v[i].count);
}

/* Adds as profile.c makes them (a stack copy's with its frame-pointer
 * stack's key as ALSO, a stack's and a flat count's without), keys the
 * session may not have among them, taken from a slice at a time; each
 * add makes the model's calls. */
START_TEST(same_calls_as_sorted_model)
{
	uint64_t seed;

	for (seed = 1; seed <= 400; seed++) {
		struct slice_counts t;
		size_t op;

		rng = seed;
		make_session(seed % 2);
		ref_build();
		ck_assert_int_eq(slice_counts_build(&t, NULL), 0);
		for (op = 0; op < 200; op++) {
			struct slice_key k, a;
			bool also = rnd(2);
			uint64_t count = rnd(16);
			uint32_t id = rnd(1000);

			rnd_key(&k);
			rnd_key(&a);
			logs[0].n = logs[1].n = 0;
			cur = &logs[0];
			ref_add(id, &k, also ? &a : NULL, count);
			cur = &logs[1];
			ck_assert_int_eq(slice_counts_add(&t, NULL, NULL, id,
							  &k, also ? &a : NULL,
							  count),
					 0);
			check_logs(seed, op);
		}
		slice_counts_free(&t);
		free(ref);
		free(tc);
	}
	free(logs[0].v);
	free(logs[1].v);
	/* the next case may run in this process (CK_FORK=no) */
	logs[0] = logs[1] = (struct log){ 0 };
}
END_TEST

/* A session with no counts: every add goes to no slice. */
START_TEST(empty_session)
{
	struct slice_counts t;
	struct slice_key k = { OPS_TIME_COPIES, 0, 3 };

	tc = NULL;
	ntc = 0;
	windowed = false;
	ck_assert_int_eq(slice_counts_build(&t, NULL), 0);
	logs[1].n = 0;
	cur = &logs[1];
	ck_assert_int_eq(slice_counts_add(&t, NULL, NULL, 7, &k, &k, 5), 0);
	ck_assert_uint_eq(logs[1].n, 1);
	ck_assert_uint_eq(logs[1].v[0].slice, CG_NO_SLICE);
	ck_assert_uint_eq(logs[1].v[0].count, 5);
	slice_counts_free(&t);
	free(logs[1].v);
	logs[1] = (struct log){ 0 };
}
END_TEST

static Suite *slice_counts_suite(void)
{
	Suite *s = suite_create("slice_counts");
	TCase *tc_model = tcase_create("model");
	TCase *tc_empty = tcase_create("empty");

	tcase_add_test(tc_model, same_calls_as_sorted_model);
	tcase_add_test(tc_empty, empty_session);
	suite_add_tcase(s, tc_model);
	suite_add_tcase(s, tc_empty);
	return s;
}

int main(void)
{
	return opjit_check_run(slice_counts_suite());
}
