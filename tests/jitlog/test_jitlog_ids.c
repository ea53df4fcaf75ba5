// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The on-attach table's index from id to entry, against a plain array:
 * ids put mostly in order, some late (a thread that took its id before
 * another put first), replaced, deleted at random; and what it holds on
 * to: a page only while one of its ids lives, and slots only from the
 * oldest live id to the newest.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "jitlog_internal.h"

#include "check_run.h"

#define NR_IDS 200000

/* The pages the index holds, the spare not counted. */
static size_t pages_held(const struct opjit_jl_ids *x)
{
	size_t s, n = 0;

	for (s = x->lo; s < x->hi; s++)
		n += x->slot[s] != NULL;
	return n;
}

static void check_all(const struct opjit_jl_ids *x, const size_t *model,
		      uint64_t nr)
{
	uint64_t id;
	size_t off;

	for (id = 0; id < nr; id++) {
		bool live = opjit_jl_ids_get(x, id, &off);

		ck_assert_msg(live == (model[id] != 0), "id %lu live %d",
			      (unsigned long)id, live);
		if (live)
			ck_assert_uint_eq(off, model[id] - 1);
	}
}

START_TEST(agrees_with_an_array)
{
	struct opjit_jl_ids x = { 0 };
	size_t *model = calloc(NR_IDS, sizeof(*model)), off;
	uint64_t id, late = UINT64_MAX;

	ck_assert_ptr_nonnull(model);
	srand(7);
	for (id = 1; id < NR_IDS; id++) {
		uint64_t put = id, victim = (uint64_t)rand() % id;

		/* one id in 64 is put only after the next one */
		if (id % 64 == 5 && late == UINT64_MAX) {
			late = id;
			continue;
		}
		if (late != UINT64_MAX && id != late + 1) {
			ck_assert_int_eq(opjit_jl_ids_put(&x, late, late * 8),
					 0);
			model[late] = late * 8 + 1;
			late = UINT64_MAX;
		}
		ck_assert_int_eq(opjit_jl_ids_put(&x, put, put * 8), 0);
		model[put] = put * 8 + 1;
		/* most code dies: three deletions in four steps */
		if (rand() % 4) {
			bool was = model[victim] != 0;

			ck_assert_int_eq(opjit_jl_ids_del(&x, victim, &off),
					 was);
			if (was)
				ck_assert_uint_eq(off, model[victim] - 1);
			model[victim] = 0;
		}
		/* a move keeps the id and changes the offset */
		if (id % 7 == 0 && model[id / 2]) {
			ck_assert_int_eq(opjit_jl_ids_put(&x, id / 2, 3), 0);
			model[id / 2] = 4;
		}
		if (id % 20000 == 0)
			check_all(&x, model, NR_IDS);
	}
	check_all(&x, model, NR_IDS);
	/* an id never handed out is not live, nor is one far past them */
	ck_assert(!opjit_jl_ids_get(&x, NR_IDS + 5, &off));
	ck_assert(!opjit_jl_ids_del(&x, UINT64_MAX, &off));
	for (id = 0; id < NR_IDS; id++)
		if (model[id])
			ck_assert(opjit_jl_ids_del(&x, id, &off));
	ck_assert_uint_eq(pages_held(&x), 0);
	ck_assert_uint_eq(x.lo, x.hi);
	opjit_jl_ids_free(&x);
	free(model);
}
END_TEST

/* Code that lives for ever beside code that comes and goes: two pages
 * held, whatever the churn. */
START_TEST(churn_holds_two_pages)
{
	struct opjit_jl_ids x = { 0 };
	size_t off;
	uint64_t id;

	ck_assert_int_eq(opjit_jl_ids_put(&x, 1, 100), 0);
	for (id = 2; id < 1000000; id++) {
		ck_assert_int_eq(opjit_jl_ids_put(&x, id, 200), 0);
		ck_assert(opjit_jl_ids_del(&x, id, &off));
		ck_assert_uint_eq(off, 200);
	}
	ck_assert_uint_le(pages_held(&x), 2);
	ck_assert(opjit_jl_ids_get(&x, 1, &off));
	ck_assert_uint_eq(off, 100);
	/* with the old one gone, the slots before the newest go too */
	ck_assert(opjit_jl_ids_del(&x, 1, &off));
	ck_assert_uint_eq(x.lo, x.hi);
	ck_assert_int_eq(opjit_jl_ids_put(&x, 5000000, 9), 0);
	ck_assert_uint_eq(x.hi - x.lo, 1);
	ck_assert(opjit_jl_ids_get(&x, 5000000, &off));
	ck_assert_uint_eq(off, 9);
	opjit_jl_ids_free(&x);
}
END_TEST

/* An id below every page held, put late: the array grows downwards. */
START_TEST(a_late_id_below_the_pages)
{
	struct opjit_jl_ids x = { 0 };
	size_t off;

	ck_assert_int_eq(opjit_jl_ids_put(&x, 100000, 1), 0);
	ck_assert_int_eq(opjit_jl_ids_put(&x, 10, 2), 0);
	ck_assert_int_eq(opjit_jl_ids_put(&x, 50000, 3), 0);
	ck_assert(opjit_jl_ids_get(&x, 100000, &off) && off == 1);
	ck_assert(opjit_jl_ids_get(&x, 10, &off) && off == 2);
	ck_assert(opjit_jl_ids_get(&x, 50000, &off) && off == 3);
	ck_assert(!opjit_jl_ids_get(&x, 11, &off));
	ck_assert_uint_eq(pages_held(&x), 3);
	opjit_jl_ids_free(&x);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jitlog_ids");
	TCase *tc = tcase_create("index");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, agrees_with_an_array);
	tcase_add_test(tc, churn_holds_two_pages);
	tcase_add_test(tc, a_late_id_below_the_pages);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
