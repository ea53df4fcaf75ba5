// SPDX-License-Identifier: GPL-3.0-or-later
/* oputil/u64map.h against a plain array that knows the answers: random
 * puts, gets and deletes over a small key space, so that probe chains
 * collide, wrap around the end and close over deleted slots. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include <oputil/u64map.h>

#include "check_run.h"

#define KEYS 3000

START_TEST(matches_a_plain_array)
{
	static uint64_t truth[KEYS + 1];
	static bool present[KEYS + 1];
	struct oputil_u64map m = { 0 };
	/* v is read only where a key is present, which gcc cannot see */
	uint64_t state = 88172645463325252ull, v = 0;
	size_t nr = 0;

	for (int step = 0; step < 400000; step++) {
		uint64_t key, r;
		int rc;

		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		r = state;
		key = 1 + (r >> 8) % KEYS;
		switch (r % 3) {
		case 0:
			rc = oputil_u64map_put(&m, key, r, &v);
			ck_assert_int_eq(rc, present[key]);
			if (present[key])
				ck_assert_uint_eq(v, truth[key]);
			else
				nr++;
			truth[key] = r;
			present[key] = true;
			break;
		case 1:
			ck_assert_int_eq(oputil_u64map_del(&m, key, &v),
					 present[key]);
			if (present[key]) {
				ck_assert_uint_eq(v, truth[key]);
				nr--;
			}
			present[key] = false;
			break;
		default:
			ck_assert_int_eq(oputil_u64map_get(&m, key, &v),
					 present[key]);
			if (present[key])
				ck_assert_uint_eq(v, truth[key]);
		}
		ck_assert_uint_eq(m.nr, nr);
	}
	for (uint64_t k = 1; k <= KEYS; k++)
		ck_assert_int_eq(oputil_u64map_get(&m, k, NULL), present[k]);
	ck_assert_int_eq(oputil_u64map_put(&m, 0, 1, NULL), -EINVAL);
	ck_assert(!oputil_u64map_get(&m, 0, NULL));
	oputil_u64map_free(&m);
	ck_assert(!oputil_u64map_get(&m, 1, NULL));
	ck_assert(!oputil_u64map_del(&m, 1, NULL));
}
END_TEST

/* A cleared map is empty and keeps its memory, for the next batch. */
START_TEST(clear_keeps_the_memory)
{
	struct oputil_u64map m = { 0 };
	uint64_t v;
	size_t cap;

	oputil_u64map_clear(&m);
	for (uint64_t k = 1; k <= 1000; k++)
		ck_assert_int_eq(oputil_u64map_put(&m, k, k * 3, NULL), 0);
	cap = m.cap;
	oputil_u64map_clear(&m);
	ck_assert_uint_eq(m.nr, 0);
	ck_assert_uint_eq(m.cap, cap);
	for (uint64_t k = 1; k <= 1000; k++)
		ck_assert(!oputil_u64map_get(&m, k, NULL));
	for (uint64_t k = 1; k <= 1000; k++)
		ck_assert_int_eq(oputil_u64map_put(&m, k + 5000, k, NULL), 0);
	ck_assert_uint_eq(m.cap, cap);
	ck_assert(oputil_u64map_get(&m, 5001, &v));
	ck_assert_uint_eq(v, 1);
	oputil_u64map_free(&m);
}
END_TEST

/* A value set in place is the value a get finds; the key is added only
 * once. */
START_TEST(ref_sets_in_place)
{
	struct oputil_u64map m = { 0 };
	uint64_t *p, v;
	bool added;

	ck_assert_ptr_null(oputil_u64map_ref(&m, 0, &added));
	ck_assert(!added);
	for (uint64_t k = 1; k <= 1000; k++) {
		p = oputil_u64map_ref(&m, k, &added);
		ck_assert_ptr_nonnull(p);
		ck_assert(added);
		ck_assert_uint_eq(*p, 0);
		*p = k * 7;
	}
	for (uint64_t k = 1; k <= 1000; k++) {
		p = oputil_u64map_ref(&m, k, &added);
		ck_assert(!added);
		ck_assert_uint_eq(*p, k * 7);
		*p += 1;
		ck_assert(oputil_u64map_get(&m, k, &v));
		ck_assert_uint_eq(v, k * 7 + 1);
	}
	ck_assert_uint_eq(m.nr, 1000);
	oputil_u64map_free(&m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("u64map");
	TCase *tc = tcase_create("core");
	TCase *clear = tcase_create("clear");
	TCase *ref = tcase_create("ref");

	tcase_add_test(tc, matches_a_plain_array);
	tcase_add_test(clear, clear_keeps_the_memory);
	tcase_add_test(ref, ref_sets_in_place);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, clear);
	suite_add_tcase(s, ref);
	return opjit_check_run(s);
}
