// SPDX-License-Identifier: GPL-3.0-or-later
/* The mapping table: lookup, multi-segment images, non-zero pgoff, and
 * mmap's replace-what-overlaps rule. */
#include <check.h>
#include <stdlib.h>

#include "maptab.h"

#include "check_run.h"

static struct maptab t;

static void setup(void)
{
	t = (struct maptab){ 0 };
}

static void teardown(void)
{
	maptab_free(&t);
}

START_TEST(test_find_in_sorted_table)
{
	/* inserted out of order: the table keeps them sorted */
	ck_assert_int_eq(maptab_insert(&t, 0x3000, 0x4000, 0, 3), 0);
	ck_assert_int_eq(maptab_insert(&t, 0x1000, 0x2000, 0, 1), 0);
	ck_assert_int_eq(maptab_insert(&t, 0x5000, 0x6000, 0, 5), 0);
	ck_assert_uint_eq(t.n, 3);
	ck_assert_ptr_null(maptab_find(&t, 0xfff));
	ck_assert_uint_eq(maptab_find(&t, 0x1000)->image, 1);
	ck_assert_uint_eq(maptab_find(&t, 0x1fff)->image, 1);
	ck_assert_ptr_null(maptab_find(&t, 0x2000));
	ck_assert_ptr_null(maptab_find(&t, 0x4800));
	ck_assert_uint_eq(maptab_find(&t, 0x3abc)->image, 3);
	ck_assert_uint_eq(maptab_find(&t, 0x5fff)->image, 5);
	ck_assert_ptr_null(maptab_find(&t, 0x6000));
}
END_TEST

START_TEST(test_multi_segment_offsets)
{
	/* a library's text at file offset 0x1000 and a second executable
	 * segment further on, as ld.so maps them */
	struct maptab_entry *e;

	ck_assert_int_eq(maptab_insert(&t, 0x7f0000001000, 0x7f0000005000,
				       0x1000, 7),
			 0);
	ck_assert_int_eq(maptab_insert(&t, 0x7f0000009000, 0x7f000000a000,
				       0x8000, 7),
			 0);
	e = maptab_find(&t, 0x7f0000001234);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(maptab_offset(e, 0x7f0000001234), 0x1234);
	e = maptab_find(&t, 0x7f0000009010);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(maptab_offset(e, 0x7f0000009010), 0x8010);
	ck_assert_ptr_null(maptab_find(&t, 0x7f0000006000));
}
END_TEST

START_TEST(test_overlap_splits_and_adjusts_pgoff)
{
	struct maptab_entry *e;

	ck_assert_int_eq(maptab_insert(&t, 0x10000, 0x20000, 0x400000, 1), 0);
	/* a JIT maps over the middle */
	ck_assert_int_eq(maptab_insert(&t, 0x14000, 0x16000, 0, MAPTAB_ANON),
			 0);
	ck_assert_uint_eq(t.n, 3);
	e = maptab_find(&t, 0x13fff);
	ck_assert_uint_eq(e->image, 1);
	ck_assert_uint_eq(e->end, 0x14000);
	ck_assert_uint_eq(maptab_offset(e, 0x13fff), 0x403fff);
	ck_assert_uint_eq(maptab_find(&t, 0x14000)->image, MAPTAB_ANON);
	e = maptab_find(&t, 0x16000);
	ck_assert_uint_eq(e->image, 1);
	ck_assert_uint_eq(e->start, 0x16000);
	/* the right part keeps mapping the same file bytes */
	ck_assert_uint_eq(maptab_offset(e, 0x16010), 0x406010);
}
END_TEST

START_TEST(test_overlap_replaces_several)
{
	ck_assert_int_eq(maptab_insert(&t, 0x1000, 0x2000, 0, 1), 0);
	ck_assert_int_eq(maptab_insert(&t, 0x2000, 0x3000, 0, 2), 0);
	ck_assert_int_eq(maptab_insert(&t, 0x3000, 0x4000, 0, 3), 0);
	ck_assert_int_eq(maptab_insert(&t, 0x1800, 0x3800, 0x100, 9), 0);
	ck_assert_uint_eq(t.n, 3);
	ck_assert_uint_eq(maptab_find(&t, 0x17ff)->image, 1);
	ck_assert_uint_eq(maptab_find(&t, 0x1800)->image, 9);
	ck_assert_uint_eq(maptab_find(&t, 0x2800)->image, 9);
	ck_assert_uint_eq(maptab_offset(maptab_find(&t, 0x2800), 0x2800),
			  0x1100);
	ck_assert_uint_eq(maptab_find(&t, 0x3800)->image, 3);
	/* an identical mapping again replaces, never duplicates */
	ck_assert_int_eq(maptab_insert(&t, 0x1800, 0x3800, 0x100, 9), 0);
	ck_assert_uint_eq(t.n, 3);
}
END_TEST

START_TEST(test_empty_range_refused)
{
	ck_assert_int_eq(maptab_insert(&t, 0x2000, 0x2000, 0, 1), -22);
	ck_assert_int_eq(maptab_insert(&t, 0x3000, 0x2000, 0, 1), -22);
	ck_assert_uint_eq(t.n, 0);
}
END_TEST

START_TEST(test_copy_and_clear)
{
	struct maptab c = { 0 };

	for (int i = 0; i < 100; i++)
		ck_assert_int_eq(maptab_insert(&t, 0x1000 * (i + 1),
					       0x1000 * (i + 1) + 0x800, 0,
					       (uint32_t)i),
				 0);
	t.v[5].ctx = 42;
	ck_assert_int_eq(maptab_copy(&c, &t), 0);
	maptab_forget_contexts(&c);
	ck_assert_uint_eq(c.n, 100);
	ck_assert_uint_eq(maptab_find(&c, 0x6400)->image, 5);
	ck_assert_uint_eq(maptab_find(&c, 0x6400)->ctx, MAPTAB_NO_CTX);
	ck_assert_uint_eq(maptab_find(&t, 0x6400)->ctx, 42);
	maptab_clear(&c);
	ck_assert_ptr_null(maptab_find(&c, 0x6400));
	maptab_free(&c);
}
END_TEST

/* A mapping of data over code: whatever it covered is forgotten, the
 * rest of a split entry stays. */
START_TEST(test_remove_punches_a_hole)
{
	ck_assert_int_eq(maptab_insert(&t, 0x1000, 0x5000, 0, 7), 0);
	ck_assert_int_eq(maptab_insert(&t, 0x8000, 0x9000, 0, 8), 0);
	ck_assert_int_eq(maptab_remove(&t, 0x2000, 0x3000), 0);
	ck_assert_ptr_nonnull(maptab_find(&t, 0x1fff));
	ck_assert_ptr_null(maptab_find(&t, 0x2000));
	ck_assert_ptr_null(maptab_find(&t, 0x2fff));
	ck_assert_uint_eq(maptab_find(&t, 0x3000)->pgoff, 0x2000);
	ck_assert_int_eq(maptab_remove(&t, 0x6000, 0x7000), 0);
	ck_assert_uint_eq(t.n, 3);
	ck_assert_uint_eq(maptab_find(&t, 0x8000)->image, 8);
}
END_TEST

/* The entry found last is tried first: an insertion or removal that
 * moves the entries, or shrinks the table below it, never makes a find
 * answer with the wrong entry. */
START_TEST(test_last_found_goes_stale)
{
	ck_assert_int_eq(maptab_insert(&t, 0x5000, 0x6000, 0, 5), 0);
	ck_assert_int_eq(maptab_insert(&t, 0x7000, 0x8000, 0, 7), 0);
	ck_assert_uint_eq(maptab_find(&t, 0x7100)->image, 7);
	/* entries shift right: index 1 now holds the mapping at 0x5000 */
	ck_assert_int_eq(maptab_insert(&t, 0x1000, 0x2000, 0, 1), 0);
	ck_assert_uint_eq(maptab_find(&t, 0x7100)->image, 7);
	ck_assert_uint_eq(maptab_find(&t, 0x7200)->image, 7);
	ck_assert_ptr_null(maptab_find(&t, 0x6800));
	ck_assert_uint_eq(maptab_find(&t, 0x7200)->image, 7);
	/* shrink the table below the index found last */
	ck_assert_int_eq(maptab_remove(&t, 0x5000, 0x8000), 0);
	ck_assert_uint_eq(t.n, 1);
	ck_assert_ptr_null(maptab_find(&t, 0x7200));
	ck_assert_uint_eq(maptab_find(&t, 0x1800)->image, 1);
	/* a mapping over the one found last replaces it */
	ck_assert_int_eq(maptab_insert(&t, 0x1000, 0x2000, 0x40, 9), 0);
	ck_assert_uint_eq(maptab_find(&t, 0x1800)->image, 9);
	maptab_clear(&t);
	ck_assert_ptr_null(maptab_find(&t, 0x1800));
}
END_TEST

static Suite *maptab_suite(void)
{
	Suite *s = suite_create("maptab");
	TCase *tc = tcase_create("lookup");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_find_in_sorted_table);
	tcase_add_test(tc, test_multi_segment_offsets);
	tcase_add_test(tc, test_overlap_splits_and_adjusts_pgoff);
	tcase_add_test(tc, test_overlap_replaces_several);
	tcase_add_test(tc, test_empty_range_refused);
	tcase_add_test(tc, test_copy_and_clear);
	tcase_add_test(tc, test_remove_punches_a_hole);
	tcase_add_test(tc, test_last_found_goes_stale);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return opjit_check_run(maptab_suite());
}
