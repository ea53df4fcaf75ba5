// SPDX-License-Identifier: GPL-3.0-or-later
/* The javamap parser against maps built byte by byte (jm_build.c). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jm_build.h"
#include "jm_format.h"
#include "jm_parse.h"

#include "check_run.h"

static const uint32_t foo_lines[] = { 0, 10, 5, 11, 9, 12 };

/* header, method foo (id 7), its code at 0x1000, a stub, an unload */
static void build_small(struct jmb *b)
{
	static const uint32_t offs[] = { 0, 16 };
	static const uint16_t nf[] = { 1, 1 };
	static const struct jmb_frame fr[] = { { 7, 0 }, { 7, 9 } };

	jmb_init(b, 4242, JM_HDR_INLINE);
	jmb_method(b, 100, 7, "a.B.foo(int)", "a/B.java", foo_lines, 3);
	jmb_code_load(b, 110, 0, 7, 0x1000, 64, offs, nf, fr, 2);
	jmb_dynamic(b, 120, 0, 0x9000, 256, "Interpreter");
	jmb_code_unload(b, 200, 7, 0x1000);
}

START_TEST(test_header)
{
	struct jmb b;
	struct jm_map m;

	build_small(&b);
	ck_assert_int_eq(jm_parse(b.buf, b.len, &m), 0);
	ck_assert_uint_eq(m.major, 1);
	ck_assert_uint_eq(m.pid, 4242);
	ck_assert_uint_eq(m.flags, JM_HDR_INLINE);
	ck_assert_uint_eq(m.start_ns, 1000);
	ck_assert_str_eq(m.damage, "");
	ck_assert_uint_eq(m.nr_records, 4);
	ck_assert_uint_eq(m.valid_len, b.len);
	jm_map_free(&m);
	jmb_free(&b);
}
END_TEST

START_TEST(test_not_javamap)
{
	static const char text[] = "7f0000001000 40 perf-map-symbol\n";
	struct jm_map m;

	ck_assert_int_eq(jm_parse(text, sizeof(text) - 1, &m), -EINVAL);
	ck_assert_str_eq(m.error, "not a javamap file");
	jm_map_free(&m);
	ck_assert_int_eq(jm_parse("OPJITJMP", 8, &m), -EINVAL);
	ck_assert_str_eq(m.error, "header cut short");
	jm_map_free(&m);
	ck_assert_int_eq(jm_is_javamap("OPJITJM", 7), 0);
}
END_TEST

START_TEST(test_other_major)
{
	struct jmb b;
	struct jm_map m;

	build_small(&b);
	b.buf[8] = 3;
	ck_assert_int_eq(jm_parse(b.buf, b.len, &m), -EPROTONOSUPPORT);
	ck_assert_str_eq(m.error,
			 "javamap version 3.0, this reader knows 1.x and 2.x");
	jm_map_free(&m);
	jmb_free(&b);
}
END_TEST

START_TEST(test_records)
{
	struct jmb b;
	struct jm_map m;
	const struct jm_code *co;

	build_small(&b);
	ck_assert_int_eq(jm_parse(b.buf, b.len, &m), 0);
	ck_assert_uint_eq(m.nr_methods, 1);
	ck_assert_str_eq(m.methods[0].name, "a.B.foo(int)");
	ck_assert_str_eq(m.methods[0].file, "a/B.java");
	ck_assert_uint_eq(m.methods[0].nr_lines, 3);
	ck_assert_uint_eq(m.methods[0].lines[2].bci, 9);
	ck_assert_uint_eq(m.methods[0].lines[2].line, 12);
	ck_assert_uint_eq(m.nr_codes, 2);
	/* sorted by address: the method's code, then the stub */
	co = &m.codes[0];
	ck_assert_uint_eq(co->kind, JM_CODE_COMPILED);
	ck_assert_uint_eq(co->addr, 0x1000);
	ck_assert_uint_eq(co->size, 64);
	ck_assert_uint_eq(co->t_load, 110);
	ck_assert_uint_eq(co->t_unload, 200);
	ck_assert_uint_eq(co->nr_pcs, 2);
	ck_assert_uint_eq(m.pcs[co->pc + 1].off, 16);
	ck_assert_int_eq(m.frames[m.pcs[co->pc + 1].frame].bci, 9);
	co = &m.codes[1];
	ck_assert_uint_eq(co->kind, JM_CODE_DYNAMIC);
	ck_assert_str_eq(co->name, "Interpreter");
	ck_assert_uint_eq(co->t_unload, JM_NEVER);
	jm_map_free(&m);
	jmb_free(&b);
}
END_TEST

/* Cut the map at every length: the parser keeps exactly the whole
 * records before the cut and says so only when a record was torn. */
START_TEST(test_torn_everywhere)
{
	struct jmb b;
	size_t bounds[8], nb = 0;

	jmb_init(&b, 1, 0);
	bounds[nb++] = b.len;
	jmb_method(&b, 100, 7, "a.B.foo(int)", "a/B.java", foo_lines, 3);
	bounds[nb++] = b.len;
	jmb_dynamic(&b, 120, 0, 0x9000, 256, "Interpreter");
	bounds[nb++] = b.len;
	jmb_code_unload(&b, 200, 7, 0x1000);
	bounds[nb++] = b.len;
	for (size_t cut = 32; cut <= b.len; cut++) {
		struct jm_map m;
		size_t whole = 0;
		int at_boundary = 0;

		for (size_t i = 0; i < nb; i++) {
			if (bounds[i] <= cut)
				whole = i;
			if (bounds[i] == cut)
				at_boundary = 1;
		}
		ck_assert_int_eq(jm_parse(b.buf, cut, &m), 0);
		ck_assert_uint_eq(m.nr_records, whole);
		ck_assert_uint_eq(m.valid_len, bounds[whole]);
		ck_assert_int_eq(m.damage[0] == '\0', at_boundary);
		jm_map_free(&m);
	}
	jmb_free(&b);
}
END_TEST

START_TEST(test_torn_message)
{
	struct jmb b;
	struct jm_map m;

	char want[128];

	build_small(&b);
	/* the last record, the unload, is 32 bytes long */
	snprintf(want, sizeof(want),
		 "record at offset %zu runs 5 bytes past the end", b.len - 32);
	ck_assert_int_eq(jm_parse(b.buf, b.len - 5, &m), 0);
	ck_assert_uint_eq(m.nr_records, 3);
	ck_assert_str_eq(m.damage, want);
	jm_map_free(&m);
	jmb_free(&b);
}
END_TEST

/* A record whose inner counts overrun its own length is corrupt even
 * though the file goes on: the map stops there. */
START_TEST(test_inner_overrun)
{
	struct jmb b;
	struct jm_map m;
	char want[128];
	size_t at;

	jmb_init(&b, 1, 0);
	jmb_dynamic(&b, 120, 0, 0x9000, 256, "Interpreter");
	at = b.len;
	jmb_method(&b, 100, 7, "a.B.foo(int)", NULL, foo_lines, 3);
	/* claim 1000 line entries in a record that holds 3 */
	b.buf[at + 16 + 16] = 0xe8;
	b.buf[at + 16 + 17] = 0x03;
	jmb_dynamic(&b, 130, 0, 0xa000, 16, "stub");
	ck_assert_int_eq(jm_parse(b.buf, b.len, &m), 0);
	ck_assert_uint_eq(m.nr_records, 1);
	ck_assert_uint_eq(m.nr_methods, 0);
	ck_assert_uint_eq(m.valid_len, at);
	snprintf(want, sizeof(want),
		 "record at offset %zu (kind 1) is "
		 "malformed",
		 at);
	ck_assert_str_eq(m.damage, want);
	jm_map_free(&m);
	jmb_free(&b);
}
END_TEST

START_TEST(test_bad_length)
{
	struct jmb b;
	struct jm_map m;

	jmb_init(&b, 1, 0);
	jmb_begin(&b, 9, 0, 1);
	jmb_end(&b);
	b.buf[32 + 4] = 3;
	ck_assert_int_eq(jm_parse(b.buf, b.len, &m), 0);
	ck_assert_uint_eq(m.nr_records, 0);
	ck_assert_str_eq(m.damage, "record at offset 32 has impossible "
				   "length 3");
	jm_map_free(&m);
	jmb_free(&b);
}
END_TEST

/* How the format grows: unknown kinds are skipped, known kinds may carry
 * more payload than this reader knows, and the header may be longer. */
START_TEST(test_growth)
{
	struct jmb b;
	struct jm_map m;

	jmb_init(&b, 1, 0);
	/* header_size 40: eight bytes this reader does not know */
	b.buf[12] = 40;
	jmb_u64(&b, 0xdeadbeef);
	jmb_begin(&b, 77, 0, 5);
	jmb_u64(&b, 1);
	jmb_u64(&b, 2);
	jmb_end(&b);
	jmb_begin(&b, 4, 0, 6);
	jmb_u64(&b, 0x5000);
	jmb_u32(&b, 32);
	jmb_u32(&b, 4);
	jmb_bytes(&b, "stub", 4);
	jmb_u32(&b, 0x12345678); /* a field from a later minor version */
	jmb_end(&b);
	ck_assert_int_eq(jm_parse(b.buf, b.len, &m), 0);
	ck_assert_str_eq(m.damage, "");
	ck_assert_uint_eq(m.nr_unknown, 1);
	ck_assert_uint_eq(m.nr_records, 2);
	ck_assert_uint_eq(m.nr_codes, 1);
	ck_assert_str_eq(m.codes[0].name, "stub");
	ck_assert_uint_eq(m.codes[0].addr, 0x5000);
	jm_map_free(&m);
	jmb_free(&b);
}
END_TEST

/* Reused memory: each unload closes the code that was live at the
 * address when it came, not a later occupant. */
START_TEST(test_unload_matching)
{
	struct jmb b;
	struct jm_map m;

	jmb_init(&b, 1, 0);
	jmb_code_load(&b, 10, 0, 1, 0x1000, 64, NULL, NULL, NULL, 0);
	jmb_code_unload(&b, 20, 1, 0x1000);
	jmb_code_load(&b, 30, 0, 2, 0x1000, 32, NULL, NULL, NULL, 0);
	jmb_code_load(&b, 40, 0, 1, 0x1000, 64, NULL, NULL, NULL, 0);
	jmb_code_unload(&b, 50, 2, 0x1000);
	jmb_code_unload(&b, 60, 3, 0x2000);
	ck_assert_int_eq(jm_parse(b.buf, b.len, &m), 0);
	ck_assert_uint_eq(m.nr_codes, 3);
	ck_assert_uint_eq(m.codes[0].t_load, 10);
	ck_assert_uint_eq(m.codes[0].t_unload, 20);
	ck_assert_uint_eq(m.codes[1].t_load, 30);
	ck_assert_uint_eq(m.codes[1].t_unload, 50);
	ck_assert_uint_eq(m.codes[2].t_load, 40);
	ck_assert_uint_eq(m.codes[2].t_unload, JM_NEVER);
	ck_assert_uint_eq(m.nr_unmatched, 1);
	jm_map_free(&m);
	jmb_free(&b);
}
END_TEST

/* GenerateEvents repeats what the agent already saw: the replay is
 * dropped and the original load time kept. */
START_TEST(test_replay_dups)
{
	struct jmb b;
	struct jm_map m;

	jmb_init(&b, 1, 0);
	jmb_dynamic(&b, 5, 0, 0x9000, 256, "Interpreter");
	jmb_dynamic(&b, 9, JM_REC_REPLAYED, 0x9000, 256, "Interpreter");
	jmb_dynamic(&b, 9, JM_REC_REPLAYED, 0xa000, 16, "new_stub");
	ck_assert_int_eq(jm_parse(b.buf, b.len, &m), 0);
	ck_assert_uint_eq(m.nr_codes, 2);
	ck_assert_uint_eq(m.nr_dups, 1);
	ck_assert_uint_eq(m.codes[0].t_load, 5);
	ck_assert_uint_eq(m.codes[1].flags, JM_REC_REPLAYED);
	jm_map_free(&m);
	jmb_free(&b);
}
END_TEST

START_TEST(test_nul_in_name)
{
	struct jmb b;
	struct jm_map m;

	jmb_init(&b, 1, 0);
	jmb_dynamic(&b, 5, 0, 0x9000, 8, "ab");
	b.buf[b.len - 2] = '\0';
	ck_assert_int_eq(jm_parse(b.buf, b.len, &m), 0);
	ck_assert_str_eq(m.codes[0].name, "?b");
	jm_map_free(&m);
	jmb_free(&b);
}
END_TEST

static Suite *jm_parse_suite(void)
{
	Suite *s = suite_create("jm_parse");
	TCase *tc;

	tc = tcase_create("header");
	tcase_add_test(tc, test_header);
	tcase_add_test(tc, test_not_javamap);
	tcase_add_test(tc, test_other_major);
	suite_add_tcase(s, tc);
	tc = tcase_create("records");
	tcase_add_test(tc, test_records);
	tcase_add_test(tc, test_nul_in_name);
	suite_add_tcase(s, tc);
	tc = tcase_create("damage");
	tcase_add_test(tc, test_torn_everywhere);
	tcase_add_test(tc, test_torn_message);
	tcase_add_test(tc, test_inner_overrun);
	tcase_add_test(tc, test_bad_length);
	suite_add_tcase(s, tc);
	tc = tcase_create("growth");
	tcase_add_test(tc, test_growth);
	suite_add_tcase(s, tc);
	tc = tcase_create("lifetimes");
	tcase_add_test(tc, test_unload_matching);
	tcase_add_test(tc, test_replay_dups);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return opjit_check_run(jm_parse_suite());
}
