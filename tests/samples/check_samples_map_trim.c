// SPDX-License-Identifier: GPL-3.0-or-later
/* samples/map_trim.c: the trim that searches each line's start from the
 * last line's answer and finds NULs once for the whole map keeps exactly
 * the lines the first trim kept (map_trim_ref.c: every line parsed whole,
 * a binary search of every address for each), on a map of every kind of
 * line, on maps shaped as node writes them, and on random ones. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "map_trim_ref.h"

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The trim's output for TEXT and ADDRS (N, sorted here) in *GOT, after
 * checking that the reference's is the same bytes. */
static void both(const char *text, size_t len, uint64_t *addrs, size_t n,
		 struct ops_buf *got)
{
	struct ops_buf ref = { 0 };

	qsort(addrs, n, sizeof(*addrs), u64_cmp);
	ck_assert_int_eq(ops_perfmap_trim(text, len, addrs, n, got), 0);
	ck_assert_int_eq(perfmap_trim_ref(text, len, addrs, n, &ref), 0);
	ck_assert_uint_eq(got->len, ref.len);
	ck_assert(!got->len || !memcmp(got->data, ref.data, got->len));
	ops_buf_free(&ref);
}

/* Every kind of line once, the entries going back and forth, with the
 * lines kept written out: the reference could be wrong the same way. */
START_TEST(every_kind_of_line)
{
	static const char map[] = "9000 10 first, kept as the map's mark\n"
				  "2000 10 hit\n"
				  "2010 10 just past the hit\n"
				  "# not an entry\n"
				  "1500 10 behind the last, hit\n"
				  "1400 10 behind again, no hit\n"
				  "3000 0 size 0 is a byte, hit\n"
				  "3001 0 no hit\n"
				  "5000 10 \t \n"
				  "6000 10 nul\0in the name\n"
				  "6000 10 same start, no nul, no hit\n"
				  "  0x7000\t10 0x and blanks, hit\r\n"
				  "7FF0 10 upper case, no hit\n"
				  "8000 100000000 too big, kept\n"
				  "10000000000000000 10 too long, kept\n"
				  "fffffffffffffff0 10 past the end, kept\n"
				  "fffffffffffffff0 f to the end, no hit\n"
				  "ffffffffffffffff 0 wraps, no hit\n"
				  "20000 10 last, no newline, hit";
	static const char want[] = "9000 10 first, kept as the map's mark\n"
				   "2000 10 hit\n"
				   "# not an entry\n"
				   "1500 10 behind the last, hit\n"
				   "3000 0 size 0 is a byte, hit\n"
				   "5000 10 \t \n"
				   "6000 10 nul\0in the name\n"
				   "  0x7000\t10 0x and blanks, hit\r\n"
				   "8000 100000000 too big, kept\n"
				   "10000000000000000 10 too long, kept\n"
				   "fffffffffffffff0 10 past the end, kept\n"
				   "20000 10 last, no newline, hit";
	uint64_t addrs[] = { 0x7005, 0x2005, 0x1505, 0x3000, 0x20000 };
	struct ops_buf got = { 0 };

	both(map, sizeof(map) - 1, addrs, 5, &got);
	ck_assert_uint_eq(got.len, sizeof(want) - 1);
	ck_assert(!memcmp(got.data, want, got.len));
	ops_buf_free(&got);
}
END_TEST

/* A map as node writes one: runs of entries in address order, now and
 * then a jump back (another code space) or far ahead, a few entries
 * written again at the same start; the samples in a share of the
 * entries, from their first byte to their last, and between them. */
static void node_shaped(unsigned seed, size_t lines, unsigned hit_pct)
{
	size_t cap = lines * 64, len = 0, n = 0, i;
	char *map = malloc(cap);
	uint64_t *addrs = malloc(lines * 3 * sizeof(*addrs));
	uint64_t at = 0x1a5761900000ull, back = 0x18c4000;
	struct ops_buf got = { 0 };

	ck_assert(map && addrs);
	srand(seed);
	for (i = 0; i < lines; i++) {
		uint64_t start, size = (uint64_t)(rand() % 0x200);
		unsigned r = (unsigned)rand() % 100;

		if (r < 3) { /* the builtins' space, below */
			start = back;
			back += size + 0x40;
		} else {
			if (r < 4) /* far ahead */
				at += (uint64_t)rand() << 8;
			if (r >= 6 || !i) /* else again at the same start */
				at += size + (uint64_t)(rand() % 0x40);
			start = at;
		}
		len += (size_t)snprintf(map + len, cap - len,
					"%llx %llx JS:*f%zu :%zu:%u\n",
					(unsigned long long)start,
					(unsigned long long)size, i, i, r);
		if ((unsigned)rand() % 100 < hit_pct) {
			addrs[n++] = start;
			addrs[n++] = start + (size ? size - 1 : 0);
		}
		if (rand() % 4 == 0) /* between entries, or in one */
			addrs[n++] = start + size + (uint64_t)(rand() % 0x40);
	}
	both(map, len, addrs, n, &got);
	/* not everything nor nothing, or the case proves little */
	ck_assert_uint_gt(got.len, 0);
	ck_assert_uint_lt(got.len, len);
	ops_buf_free(&got);
	free(addrs);
	free(map);
}

START_TEST(node_shaped_maps)
{
	unsigned seed;

	for (seed = 1; seed <= 20; seed++) {
		node_shaped(seed, 5000, 2);
		node_shaped(seed, 5000, 30);
	}
}
END_TEST

/* Random lines from a few pieces (digits, blanks, 0x, NULs, CRs, long
 * numbers) and random addresses near the numbers they hold. */
START_TEST(random_maps)
{
	static const char *const pieces[] = {
		"1",   "f",   "A",	"0x",
		" ",   "\t",  "name",	"\0",
		"\r",  "\n",  "\n",	"\n",
		"ff ", "10 ", "0",	"ffffffffffffffff",
		"\v",  "#",   "30 20 ", "  2f 1 x\n",
	};
	const size_t np = sizeof(pieces) / sizeof(pieces[0]);
	unsigned seed;

	for (seed = 1; seed <= 2000; seed++) {
		char map[512];
		uint64_t addrs[40];
		size_t len = 0, n = (size_t)(seed % 40), i;
		struct ops_buf got = { 0 };

		srand(seed);
		while (len < sizeof(map) - 20) {
			const char *p = pieces[(size_t)rand() % np];
			size_t l = *p ? strlen(p) : 1;

			memcpy(map + len, p, l);
			len += l;
		}
		for (i = 0; i < n; i++)
			addrs[i] = (uint64_t)(rand() % 0x40) +
				   (rand() % 8 == 0 ? UINT64_MAX - 0x40 : 0);
		both(map, len, addrs, n, &got);
		ops_buf_free(&got);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("map_trim");
	TCase *tc = tcase_create("map_trim");

	tcase_add_test(tc, every_kind_of_line);
	tcase_add_test(tc, node_shaped_maps);
	tcase_add_test(tc, random_maps);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
