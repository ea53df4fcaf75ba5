// SPDX-License-Identifier: GPL-3.0-or-later
/* oputil/bump.h: aligned, disjoint blocks that keep what was written in
 * them until the one free. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include <oputil/bump.h>

#include "check_run.h"

START_TEST(blocks_are_aligned_and_disjoint)
{
	struct oputil_bump b = OPUTIL_BUMP_INIT(4096);
	unsigned char *p[3000];
	size_t size[3000], i, j;

	for (i = 0; i < 3000; i++) {
		/* mostly small, now and then larger than a chunk */
		size[i] = i % 97 == 0 ? 5000 + i : i % 61;
		p[i] = oputil_bump_alloc(&b, size[i]);
		ck_assert_ptr_nonnull(p[i]);
		ck_assert_uint_eq((uintptr_t)p[i] % _Alignof(max_align_t), 0);
		memset(p[i], (int)(i & 0xff), size[i]);
	}
	for (i = 0; i < 3000; i++)
		for (j = 0; j < size[i]; j++)
			ck_assert_uint_eq(p[i][j], i & 0xff);
	oputil_bump_free(&b);
	ck_assert_ptr_null(b.head);
	/* usable again after the free */
	p[0] = oputil_bump_alloc(&b, 10);
	ck_assert_ptr_nonnull(p[0]);
	oputil_bump_free(&b);
}
END_TEST

/* A block larger than a chunk does not end the chunk being filled: the
 * small ones after it come from the same chunk as those before. */
START_TEST(a_big_block_leaves_the_chunk_being_filled)
{
	struct oputil_bump b = OPUTIL_BUMP_INIT(4096);
	char *a = oputil_bump_alloc(&b, 16);
	char *big = oputil_bump_alloc(&b, 100000);
	char *c = oputil_bump_alloc(&b, 16);

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(big);
	ck_assert_ptr_eq(c, a + 16);
	ck_assert_ptr_null(oputil_bump_alloc(&b, SIZE_MAX - 8));
	oputil_bump_free(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bump");
	TCase *tc = tcase_create("bump");

	tcase_add_test(tc, blocks_are_aligned_and_disjoint);
	tcase_add_test(tc, a_big_block_leaves_the_chunk_being_filled);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
