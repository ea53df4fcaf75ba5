// SPDX-License-Identifier: GPL-3.0-or-later
/* Every perf map dialect real runtimes write, and the overlap rule. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfmap.h"

#include "check_run.h"

static struct perfmap m;
static struct perfmap_seg *segs;
static size_t nsegs;

static void setup(void)
{
	memset(&m, 0, sizeof(m));
	segs = NULL;
	nsegs = 0;
}

static void teardown(void)
{
	perfmap_free(&m);
	free(segs);
}

static void parse(const char *text)
{
	ck_assert_int_eq(perfmap_parse(&m, text, strlen(text)), 0);
}

static void index_map(void)
{
	ck_assert_int_eq(perfmap_index(&m, &segs, &nsegs), 0);
}

/* Name at ADDR after indexing, or NULL. */
static const char *name_at(uint64_t addr)
{
	size_t i = perfmap_lookup(segs, nsegs, addr);

	return i == SIZE_MAX ? NULL : perfmap_name(&m, segs[i].entry);
}

static void assert_entry(size_t i, uint64_t start, uint64_t size,
			 const char *name)
{
	ck_assert_uint_lt(i, m.n);
	ck_assert_uint_eq(m.e[i].start, start);
	ck_assert_uint_eq(m.e[i].size, size);
	ck_assert_str_eq(perfmap_name(&m, i), name);
}

START_TEST(bare_lower_hex)
{
	parse("7f00aa001000 40 LazyCompile:*fib /tmp/fib.js:3\n");
	ck_assert_uint_eq(m.n, 1);
	assert_entry(0, 0x7f00aa001000ULL, 0x40,
		     "LazyCompile:*fib /tmp/fib.js:3");
	ck_assert_uint_eq(m.bad_lines, 0);
}
END_TEST

START_TEST(prefixed_hex_jcmd)
{
	parse("0x00007f3c2d000100 0x0000000000000080 "
	      "java.lang.String::hashCode()I\n");
	ck_assert_uint_eq(m.n, 1);
	assert_entry(0, 0x7f3c2d000100ULL, 0x80,
		     "java.lang.String::hashCode()I");
}
END_TEST

START_TEST(upper_hex_dotnet)
{
	parse("00007F8E2C1A3B40 000000000000004D "
	      "[OptimizedTier1] System.Int32::Parse(string)\n");
	ck_assert_uint_eq(m.n, 1);
	assert_entry(0, 0x7F8E2C1A3B40ULL, 0x4D,
		     "[OptimizedTier1] System.Int32::Parse(string)");
}
END_TEST

START_TEST(upper_prefix_and_mixed_case)
{
	parse("0X1aB 0Xc Mixed\n");
	ck_assert_uint_eq(m.n, 1);
	assert_entry(0, 0x1ab, 0xc, "Mixed");
}
END_TEST

START_TEST(names_with_spaces_and_tabs)
{
	parse("1000\t20\tJS:*fib  two  spaces\n2000 10  leading gap\n");
	ck_assert_uint_eq(m.n, 2);
	assert_entry(0, 0x1000, 0x20, "JS:*fib  two  spaces");
	/* separators before the name are not part of it */
	assert_entry(1, 0x2000, 0x10, "leading gap");
}
END_TEST

START_TEST(crlf_line_ends)
{
	parse("1000 20 first\r\n2000 20 second\r\n");
	ck_assert_uint_eq(m.n, 2);
	assert_entry(0, 0x1000, 0x20, "first");
	assert_entry(1, 0x2000, 0x20, "second");
	ck_assert_uint_eq(m.bad_lines + m.blank_lines, 0);
}
END_TEST

START_TEST(last_line_without_newline)
{
	parse("1000 20 first\n2000 20 last");
	ck_assert_uint_eq(m.n, 2);
	assert_entry(1, 0x2000, 0x20, "last");
}
END_TEST

START_TEST(blank_and_garbage_counted)
{
	parse("\n1000 20 good\n   \r\nnot a map line\n2000 zz bad size\n"
	      "3000 30\n4000 40 good too\n\n");
	ck_assert_uint_eq(m.n, 2);
	assert_entry(0, 0x1000, 0x20, "good");
	assert_entry(1, 0x4000, 0x40, "good too");
	ck_assert_uint_eq(m.blank_lines, 3);
	ck_assert_uint_eq(m.bad_lines, 3);
	ck_assert_uint_eq(m.first_bad, 4);
}
END_TEST

START_TEST(overflow_is_bad)
{
	parse("fffffffffffffff0 20 wraps\n"
	      "11112222333344445 1 seventeen digits\n"
	      "ffffffffffffffe0 1f ends below the top\n");
	ck_assert_uint_eq(m.n, 1);
	assert_entry(0, 0xffffffffffffffe0ULL, 0x1f, "ends below the top");
	ck_assert_uint_eq(m.bad_lines, 2);
	ck_assert_uint_eq(m.first_bad, 1);
}
END_TEST

START_TEST(size_of_4gib_is_bad)
{
	parse("1000 100000000 four gigabytes\n2000 ffffffff just under\n");
	ck_assert_uint_eq(m.n, 1);
	assert_entry(0, 0x2000, 0xffffffffULL, "just under");
	ck_assert_uint_eq(m.bad_lines, 1);
}
END_TEST

START_TEST(nul_in_name_is_bad)
{
	static const char text[] = "1000 20 a\0b\n2000 20 ok\n";

	ck_assert_int_eq(perfmap_parse(&m, text, sizeof(text) - 1), 0);
	ck_assert_uint_eq(m.n, 1);
	assert_entry(0, 0x2000, 0x20, "ok");
	ck_assert_uint_eq(m.bad_lines, 1);
}
END_TEST

START_TEST(names_stored_once)
{
	parse("1000 10 same\n2000 10 same\n3000 10 other\n4000 10 same\n");
	ck_assert_uint_eq(m.n, 4);
	ck_assert_uint_eq(m.e[0].name, m.e[1].name);
	ck_assert_uint_eq(m.e[0].name, m.e[3].name);
	ck_assert_uint_ne(m.e[0].name, m.e[2].name);
	ck_assert_uint_eq(oputil_idxset_count(&m.names.first), 2);
	ck_assert_uint_eq(m.names.len, sizeof("same") + sizeof("other"));
}
END_TEST

START_TEST(looks_like)
{
	static const char jv[] = "# opjit javamap 1\n1000 10 x\n";

	ck_assert(perfmap_looks_like("\n\r\n1000 10 x\n", 12));
	ck_assert(!perfmap_looks_like(jv, sizeof(jv) - 1));
	ck_assert(!perfmap_looks_like("", 0));
	ck_assert(!perfmap_looks_like("\n \n", 3));
}
END_TEST

START_TEST(lookup_bounds)
{
	parse("2000 10 b\n1000 10 a\n");
	index_map();
	ck_assert_uint_eq(nsegs, 2);
	ck_assert_ptr_null(name_at(0xfff));
	ck_assert_str_eq(name_at(0x1000), "a");
	ck_assert_str_eq(name_at(0x100f), "a");
	ck_assert_ptr_null(name_at(0x1010));
	ck_assert_str_eq(name_at(0x2000), "b");
	ck_assert_ptr_null(name_at(0x2010));
}
END_TEST

START_TEST(later_entry_wins_inside)
{
	/* old covers [0x1000,0x1100); new reuses [0x1040,0x1080) */
	parse("1000 100 old\n1040 40 new\n");
	index_map();
	ck_assert_str_eq(name_at(0x1000), "old");
	ck_assert_str_eq(name_at(0x103f), "old");
	ck_assert_str_eq(name_at(0x1040), "new");
	ck_assert_str_eq(name_at(0x107f), "new");
	ck_assert_str_eq(name_at(0x1080), "old");
	ck_assert_str_eq(name_at(0x10ff), "old");
	ck_assert_ptr_null(name_at(0x1100));
	ck_assert_uint_eq(nsegs, 3);
}
END_TEST

START_TEST(earlier_small_entry_is_hidden)
{
	/* the later, bigger entry covers every address of the earlier one */
	parse("1040 40 old\n1000 100 new\n");
	index_map();
	ck_assert_str_eq(name_at(0x1000), "new");
	ck_assert_str_eq(name_at(0x1050), "new");
	ck_assert_str_eq(name_at(0x10ff), "new");
	ck_assert_uint_eq(nsegs, 1);
}
END_TEST

START_TEST(partial_overlaps_chain)
{
	parse("1000 100 a\n1080 100 b\n1100 100 c\n10c0 20 d\n");
	index_map();
	ck_assert_str_eq(name_at(0x107f), "a");
	ck_assert_str_eq(name_at(0x1080), "b");
	ck_assert_str_eq(name_at(0x10bf), "b");
	ck_assert_str_eq(name_at(0x10c0), "d");
	ck_assert_str_eq(name_at(0x10df), "d");
	ck_assert_str_eq(name_at(0x10e0), "b");
	ck_assert_str_eq(name_at(0x10ff), "b");
	ck_assert_str_eq(name_at(0x1100), "c");
	ck_assert_str_eq(name_at(0x11ff), "c");
	ck_assert_ptr_null(name_at(0x1200));
}
END_TEST

START_TEST(same_range_rewritten)
{
	parse("1000 40 first\n1000 40 second\n1000 40 third\n");
	index_map();
	ck_assert_uint_eq(nsegs, 1);
	ck_assert_str_eq(name_at(0x1000), "third");
	ck_assert_str_eq(name_at(0x103f), "third");
}
END_TEST

START_TEST(zero_size_names_nothing)
{
	parse("1000 0 empty\n1000 10 real\n");
	index_map();
	ck_assert_uint_eq(m.n, 2);
	ck_assert_str_eq(name_at(0x1000), "real");
	ck_assert_uint_eq(nsegs, 1);
}
END_TEST

START_TEST(segments_sorted_disjoint)
{
	size_t i;

	parse("5000 300 a\n5100 10 b\n4000 2000 c\n5150 500 d\n7000 1 e\n");
	index_map();
	for (i = 0; i < nsegs; i++) {
		ck_assert_uint_lt(segs[i].start, perfmap_seg_end(&segs[i]));
		if (i)
			ck_assert_uint_le(perfmap_seg_end(&segs[i - 1]),
					  segs[i].start);
	}
	ck_assert_str_eq(name_at(0x4000), "c");
	ck_assert_str_eq(name_at(0x5100), "c");
	ck_assert_str_eq(name_at(0x5150), "d");
	ck_assert_str_eq(name_at(0x564f), "d");
	ck_assert_str_eq(name_at(0x5650), "c");
	ck_assert_str_eq(name_at(0x7000), "e");
}
END_TEST

/* Ascending addresses through the galloping search give what the plain
 * search gives, over ranges, gaps, both ends and far jumps; a lower
 * address starts over. */
START_TEST(lookup_next_as_lookup)
{
	char text[64 * 40];
	size_t len = 0, i, pos = 0;
	uint64_t a;

	for (i = 0; i < 64; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"%zx %x f%zu\n", 0x1000 + i * 0x100,
					i % 3 ? 0x80 : 0x100, i);
	parse(text);
	index_map();
	for (a = 0xf00; a < 0x1000 + 64 * 0x100 + 0x100; a += 0x10)
		ck_assert_uint_eq(perfmap_lookup_next(segs, nsegs, a, &pos),
				  perfmap_lookup(segs, nsegs, a));
	for (a = 0x1000; a < 0x5000; a += 0x7ff)
		ck_assert_uint_eq(perfmap_lookup_next(segs, nsegs, a, &pos),
				  perfmap_lookup(segs, nsegs, a));
}
END_TEST

/* Packed, a whole entry is its range; one cut by a later entry keeps its
 * own start and size, and one key for all of its ranges. */
START_TEST(packed_table)
{
	struct perfmap_table t;
	struct perfmap_entry e;
	size_t key_a1, key_a2, key_b, key_c;
	size_t ia1, ia2, ib, ic;

	parse("1000 100 a\n1040 20 b\n2000 10 c\n");
	index_map();
	ck_assert_uint_eq(nsegs, 4);
	ia1 = perfmap_lookup(segs, nsegs, 0x1000);
	ib = perfmap_lookup(segs, nsegs, 0x1040);
	ia2 = perfmap_lookup(segs, nsegs, 0x1060);
	ic = perfmap_lookup(segs, nsegs, 0x2000);
	ck_assert_int_eq(perfmap_pack(&m, segs, nsegs, &t), 0);
	segs = NULL;
	ck_assert_uint_eq(m.n, 0);
	ck_assert_uint_eq(t.nsegs, 4);
	ck_assert_uint_eq(t.nsplit, 1); /* a */
	e = perfmap_table_entry(&t, ia1, perfmap_table_start(&t, ia1),
				&key_a1);
	ck_assert_uint_eq(e.start, 0x1000);
	ck_assert_uint_eq(e.size, 0x100);
	ck_assert_str_eq(t.names + e.name, "a");
	e = perfmap_table_entry(&t, ia2, perfmap_table_start(&t, ia2),
				&key_a2);
	ck_assert_uint_eq(e.start, 0x1000);
	ck_assert_uint_eq(key_a1, key_a2);
	e = perfmap_table_entry(&t, ib, perfmap_table_start(&t, ib), &key_b);
	ck_assert_uint_eq(e.start, 0x1040);
	ck_assert_uint_eq(e.size, 0x20);
	ck_assert_str_eq(t.names + e.name, "b");
	e = perfmap_table_entry(&t, ic, perfmap_table_start(&t, ic), &key_c);
	ck_assert_uint_eq(e.start, 0x2000);
	ck_assert_str_eq(t.names + e.name, "c");
	ck_assert_uint_ne(key_b, key_a1);
	ck_assert_uint_ne(key_c, key_a1);
	ck_assert_uint_ne(key_c, key_b);
	ck_assert_uint_lt(key_a1, t.nsegs + t.nsplit);
	perfmap_table_free(&t);
}
END_TEST

/* The packed table's pages: 64 ranges at most, and a new page where
 * code lies 4 GiB or more past a page's first range (a runtime's
 * builtins far below its JIT code); it finds every address where the
 * ranges do, forwards with its page hint and afresh. */
START_TEST(packed_table_pages)
{
	char *text = malloc(300 * 64), *p = text;
	struct perfmap_seg *copy;
	struct perfmap_table t;
	size_t i, n;
	struct perfmap_cursor page = { 0, 0 }, fresh;
	uint64_t start, end, a;

	ck_assert_ptr_nonnull(text);
	for (i = 0; i < 300; i++) {
		/* 100 builtins, then code 100 GiB up, a gap every other */
		uint64_t at = i < 100 ? 0x18c4000 + i * 0x400
				      : 0x1a8486150000ull + i * 0x100;

		p += sprintf(p, "%llx %x fn_%zu\n", (unsigned long long)at,
			     i % 2 ? 0x80 : 0x100, i);
	}
	parse(text);
	free(text);
	index_map();
	n = nsegs;
	copy = malloc(n * sizeof(*copy));
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, segs, n * sizeof(*copy));
	ck_assert_int_eq(perfmap_pack(&m, segs, nsegs, &t), 0);
	segs = NULL;
	/* 100 builtins: 64 + 36; 200 more: 64 + 64 + 64 + 8 */
	ck_assert_uint_eq(t.npages, 6);
	ck_assert_uint_eq(t.first[2], 100);
	for (i = 0; i < n; i++) {
		uint64_t probe[4] = { copy[i].start - 1, copy[i].start,
				      perfmap_seg_end(&copy[i]) - 1,
				      perfmap_seg_end(&copy[i]) };
		size_t k;

		for (k = 0; k < 4; k++) {
			size_t want = perfmap_lookup(copy, n, probe[k]);

			a = probe[k];
			fresh = (struct perfmap_cursor){ 0, 0 };
			ck_assert_uint_eq(perfmap_table_lookup(&t, a, &fresh,
							       &start, &end),
					  want);
			ck_assert_uint_eq(perfmap_table_lookup(&t, a, &page,
							       &start, &end),
					  want);
			if (want != SIZE_MAX) {
				ck_assert_uint_eq(start, copy[want].start);
				ck_assert_uint_eq(
					end, perfmap_seg_end(&copy[want]));
			}
		}
	}
	/* going back starts over */
	ck_assert_uint_eq(
		perfmap_table_lookup(&t, 0x18c4000, &page, &start, &end), 0);
	free(copy);
	perfmap_table_free(&t);
}
END_TEST

static Suite *perfmap_suite(void)
{
	Suite *s = suite_create("perfmap_parse");
	TCase *d = tcase_create("dialects");
	TCase *o = tcase_create("overlaps");

	tcase_add_checked_fixture(d, setup, teardown);
	tcase_add_checked_fixture(o, setup, teardown);
	tcase_add_test(d, bare_lower_hex);
	tcase_add_test(d, prefixed_hex_jcmd);
	tcase_add_test(d, upper_hex_dotnet);
	tcase_add_test(d, upper_prefix_and_mixed_case);
	tcase_add_test(d, names_with_spaces_and_tabs);
	tcase_add_test(d, crlf_line_ends);
	tcase_add_test(d, last_line_without_newline);
	tcase_add_test(d, blank_and_garbage_counted);
	tcase_add_test(d, overflow_is_bad);
	tcase_add_test(d, size_of_4gib_is_bad);
	tcase_add_test(d, nul_in_name_is_bad);
	tcase_add_test(d, names_stored_once);
	tcase_add_test(d, looks_like);
	tcase_add_test(o, lookup_bounds);
	tcase_add_test(o, lookup_next_as_lookup);
	tcase_add_test(o, later_entry_wins_inside);
	tcase_add_test(o, earlier_small_entry_is_hidden);
	tcase_add_test(o, partial_overlaps_chain);
	tcase_add_test(o, same_range_rewritten);
	tcase_add_test(o, zero_size_names_nothing);
	tcase_add_test(o, segments_sorted_disjoint);
	tcase_add_test(o, packed_table);
	tcase_add_test(o, packed_table_pages);
	suite_add_tcase(s, d);
	suite_add_tcase(s, o);
	return s;
}

int main(void)
{
	return opjit_check_run(perfmap_suite());
}
