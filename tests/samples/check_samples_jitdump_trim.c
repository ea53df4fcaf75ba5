// SPDX-License-Identifier: GPL-3.0-or-later
/* samples/jitdump_trim.c: which records of a jitdump the session keeps,
 * on dumps built here record by record, in both byte orders. */
#include <byteswap.h>
#include <check.h>
#include <errno.h>
#include <string.h>

#include "check_run.h"
#include "map_trim_internal.h"

struct dump {
	uint8_t buf[4096];
	size_t len;
	bool swap;
	size_t at[32]; /* where each record starts */
	size_t nr;
};

static void put32(struct dump *d, uint32_t v)
{
	if (d->swap)
		v = bswap_32(v);
	memcpy(d->buf + d->len, &v, 4);
	d->len += 4;
}

static void put64(struct dump *d, uint64_t v)
{
	if (d->swap)
		v = bswap_64(v);
	memcpy(d->buf + d->len, &v, 8);
	d->len += 8;
}

static void header(struct dump *d, bool swap, uint32_t version)
{
	memset(d, 0, sizeof(*d));
	d->swap = swap;
	put32(d, 0x4A695444u);
	put32(d, version);
	put32(d, version == 2 ? 8 : 40); /* Mono: a pointer's size */
	put32(d, 62);
	put32(d, 0);
	put32(d, 42);
	put64(d, 1);
	put64(d, 0);
}

static void rec(struct dump *d, uint32_t id, uint32_t total, uint64_t t)
{
	d->at[d->nr++] = d->len;
	put32(d, id);
	put32(d, total);
	put64(d, t);
}

/* a load of NAME at ADDR, SIZE bytes, with 4 bytes of code */
static void load(struct dump *d, uint64_t addr, uint64_t size, uint64_t index,
		 const char *name)
{
	size_t n = strlen(name) + 1;

	rec(d, 0, (uint32_t)(16 + 40 + n + 4), 10 * d->nr);
	put32(d, 42);
	put32(d, 42);
	put64(d, addr);
	put64(d, addr);
	put64(d, size);
	put64(d, index);
	memcpy(d->buf + d->len, name, n);
	d->len += n;
	put32(d, 0xc3c3c3c3);
}

static void move(struct dump *d, uint64_t from, uint64_t to, uint64_t size,
		 uint64_t index)
{
	rec(d, 1, 16 + 48, 10 * d->nr);
	put32(d, 42);
	put32(d, 42);
	put64(d, to);
	put64(d, from);
	put64(d, to);
	put64(d, size);
	put64(d, index);
}

/* a line table with no entries for the load of ADDR */
static void debug_info(struct dump *d, uint64_t addr)
{
	rec(d, 2, 16 + 16, 10 * d->nr);
	put64(d, addr);
	put64(d, 0);
}

static void other(struct dump *d, uint32_t id)
{
	rec(d, id, 16 + 8, 10 * d->nr);
	put64(d, 0);
}

/* The trim of D at ADDRS must be the header and the records WANT (-1
 * ended), whole and in order. */
static void expect(const struct dump *d, const uint64_t *addrs, size_t n,
		   const int *want)
{
	struct ops_buf out = { 0 };
	uint8_t exp[4096];
	size_t len = 40;

	memcpy(exp, d->buf, 40);
	for (; *want >= 0; want++) {
		size_t i = (size_t)*want;
		size_t end = i + 1 < d->nr ? d->at[i + 1] : d->len;

		memcpy(exp + len, d->buf + d->at[i], end - d->at[i]);
		len += end - d->at[i];
	}
	ck_assert_int_eq(ops_jitdump_trim(d->buf, d->len, addrs, n, &out), 0);
	ck_assert_uint_eq(out.len, len);
	ck_assert(!memcmp(out.data, exp, len));
	ops_buf_free(&out);
}

/* Records 0..7: debug(A) load A, load B, debug(C) unwind load C, move A
 * away to D, close.  A sample at D keeps A's load, its table and the
 * move; B and C (with its tables) go; close stays. */
static void three_loads(struct dump *d, bool swap, uint32_t version)
{
	header(d, swap, version);
	debug_info(d, 0x1000);
	load(d, 0x1000, 0x100, 1, "a");
	load(d, 0x2000, 0x100, 2, "b");
	debug_info(d, 0x3000);
	other(d, 4);
	load(d, 0x3000, 0x100, 3, "c");
	move(d, 0x1000, 0x4000, 0x100, 1);
	other(d, 3);
}

START_TEST(code_that_moved_to_a_sample_is_kept_with_its_load)
{
	static struct dump d;
	const uint64_t at[] = { 0x4010 };

	three_loads(&d, _i, _i ? 2 : 1);
	expect(&d, at, 1, (const int[]){ 0, 1, 6, 7, -1 });
}
END_TEST

START_TEST(a_load_keeps_its_tables_and_no_other)
{
	static struct dump d;
	const uint64_t at[] = { 0x2000, 0x30ff };

	three_loads(&d, false, 1);
	expect(&d, at, 2, (const int[]){ 2, 3, 4, 5, 7, -1 });
}
END_TEST

START_TEST(no_samples_keep_the_header_and_the_close)
{
	static struct dump d;

	three_loads(&d, false, 1);
	expect(&d, NULL, 0, (const int[]){ 7, -1 });
}
END_TEST

/* A line table is the next load's of its address only: one replaced by
 * another table before that load goes with the replacement's fate. */
START_TEST(a_replaced_line_table_goes)
{
	static struct dump d;
	const uint64_t at[] = { 0x1000 };

	header(&d, false, 1);
	debug_info(&d, 0x1000);
	debug_info(&d, 0x1000);
	load(&d, 0x1000, 0x10, 1, "a");
	expect(&d, at, 1, (const int[]){ 1, 2, -1 });
}
END_TEST

/* Size 0 holds one byte; code to the end of the address space holds
 * what is above it. */
START_TEST(edges_of_a_range)
{
	static struct dump d;
	const uint64_t at[] = { 0x5000, UINT64_MAX - 1 };

	header(&d, false, 1);
	load(&d, 0x5000, 0, 1, "zero");
	load(&d, 0x5001, 0, 2, "next");
	load(&d, UINT64_MAX - 0xf, 0x10, UINT64_MAX, "top");
	expect(&d, at, 2, (const int[]){ 0, 2, -1 });
}
END_TEST

/* A record cut off at the end, or whose size leads nowhere, stays with
 * all after it, as the reader must see it to say so. */
START_TEST(a_damaged_tail_is_kept_as_it_is)
{
	static struct dump d;
	struct ops_buf out = { 0 };
	const uint64_t at[] = { 0x2000 };
	size_t cut;

	three_loads(&d, false, 1);
	cut = d.at[7] + 4;
	d.len = cut; /* the close record cut */
	ck_assert_int_eq(ops_jitdump_trim(d.buf, d.len, at, 1, &out), 0);
	/* header, b's load, then the 4 bytes of the cut record */
	ck_assert_uint_eq(out.len, 40 + (d.at[3] - d.at[2]) + 4);
	ck_assert(!memcmp(out.data + out.len - 4, d.buf + d.at[7], 4));
	ops_buf_free(&out);

	three_loads(&d, false, 1);
	memset(d.buf + d.at[3] + 4, 0, 4); /* size 0 */
	ck_assert_int_eq(ops_jitdump_trim(d.buf, d.len, at, 1, &out), 0);
	ck_assert_uint_eq(out.len, 40 + (d.at[3] - d.at[2]) + d.len - d.at[3]);
	ops_buf_free(&out);
}
END_TEST

START_TEST(not_a_jitdump_is_refused)
{
	struct ops_buf out = { 0 };
	uint8_t text[64] = "7f0000001000 10 not a dump\n";

	ck_assert_int_eq(ops_jitdump_trim(text, sizeof(text), NULL, 0, &out),
			 -EINVAL);
	ck_assert_int_eq(ops_jitdump_trim(text, 8, NULL, 0, &out), -EINVAL);
	ck_assert_uint_eq(out.len, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jitdump_trim");
	TCase *tc = tcase_create("jitdump_trim");

	/* 0: native byte order, version 1; 1: swapped, Mono's version 2 */
	tcase_add_loop_test(
		tc, code_that_moved_to_a_sample_is_kept_with_its_load, 0, 2);
	tcase_add_test(tc, a_load_keeps_its_tables_and_no_other);
	tcase_add_test(tc, no_samples_keep_the_header_and_the_close);
	tcase_add_test(tc, a_replaced_line_table_goes);
	tcase_add_test(tc, edges_of_a_range);
	tcase_add_test(tc, a_damaged_tail_is_kept_as_it_is);
	tcase_add_test(tc, not_a_jitdump_is_refused);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
