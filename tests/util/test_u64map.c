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
	uint64_t state = 88172645463325252ull, v;
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

int main(void)
{
	Suite *s = suite_create("u64map");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, matches_a_plain_array);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
