// SPDX-License-Identifier: GPL-3.0-or-later
/* oputil/radix.h against a stable insertion sort: keys that differ in
 * one byte, in several, in the top one, in none; entries that tie keep
 * their order. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/radix.h>

#include "check_run.h"

struct ent {
	uint32_t hi, lo;
	uint32_t seq; /* the order it came in */
};

static uint64_t ent_key(const struct ent *e)
{
	return (uint64_t)e->hi << 32 | e->lo;
}

static void insertion_sort(struct ent *v, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct ent e = v[i];

		for (j = i; j > 0 && ent_key(&v[j - 1]) > ent_key(&e); j--)
			v[j] = v[j - 1];
		v[j] = e;
	}
}

START_TEST(matches_a_stable_sort)
{
	/* which bits of the key vary: none, one byte, two apart, the top
	 * byte, all */
	static const uint64_t masks[] = { 0, 0xff, 0xff00ff0000ull,
					  0xff00000000000000ull, ~0ull };
	uint64_t state = 88172645463325252ull;
	size_t m, n, i;

	for (m = 0; m < sizeof(masks) / sizeof(masks[0]); m++)
		for (n = 0; n <= 600; n += n < 10 ? 1 : 97) {
			struct ent *v = malloc((n + 1) * sizeof(*v));
			struct ent *want = malloc((n + 1) * sizeof(*want));
			struct ent *tmp = malloc((n + 1) * sizeof(*tmp));
			const struct ent *got;

			ck_assert(v && want && tmp);
			for (i = 0; i < n; i++) {
				uint64_t k;

				state ^= state << 13;
				state ^= state >> 7;
				state ^= state << 17;
				/* few distinct keys: ties */
				k = (0x0123456789abcdefull ^
				     (state % 7) * 0x9e3779b97f4a7c15ull) &
				    masks[m];
				v[i] = (struct ent){ (uint32_t)(k >> 32),
						     (uint32_t)k,
						     (uint32_t)i };
			}
			memcpy(want, v, n * sizeof(*v));
			insertion_sort(want, n);
			got = oputil_radix_sort(v, tmp, n, e, ent_key(e));
			ck_assert(got == v || got == tmp);
			for (i = 0; i < n; i++)
				ck_assert_msg(
					got[i].hi == want[i].hi &&
						got[i].lo == want[i].lo &&
						got[i].seq == want[i].seq,
					"mask %zu, n %zu, at %zu", m, n, i);
			free(v);
			free(want);
			free(tmp);
		}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("radix");
	TCase *tc = tcase_create("radix");

	tcase_add_test(tc, matches_a_stable_sort);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
