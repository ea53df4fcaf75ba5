// SPDX-License-Identifier: GPL-3.0-or-later
/* The pypy handler's reader: both texts of FORMAT.md, lookup by address
 * and time, bridges tied to their loops, and what is not ours. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <opjit/anon_handler.h>

#include "pypy.h"

#include "check_run.h"

static struct pypy_map m;

static void setup(void)
{
	memset(&m, 0, sizeof(m));
}

static void teardown(void)
{
	pypy_free(&m);
}

static int parse(const char *text)
{
	int rc = pypy_parse(&m, text, strlen(text));

	if (rc == 1)
		ck_assert_int_eq(pypy_index(&m), 0);
	return rc;
}

static const struct pypy_code *at(uint64_t addr, uint64_t t, uint32_t *why)
{
	size_t i = pypy_lookup(&m, addr, t, why);

	return i == SIZE_MAX ? NULL : &m.code[i];
}

static const char module_map[] =
	"opjit-pypy 1 pid=42 start_ns=1000\n"
	"2000000000 loop 1 7f0000001000 256 2 9 collatz /tmp/my dir/pp.py\n"
	"2100000000 bridge 7f00aa0000e0 7f0000002000 64 1\n"
	"2200000000 loop 2 7f0000003000 64 0 0 rsre\n"
	/* loop 3 reuses loop 1's memory, later */
	"5000000000 loop 3 7f0000001000 128 12 16 other /tmp/pp.py\n";

START_TEST(module_map_reads)
{
	const struct pypy_code *c;
	uint32_t why = 0;

	ck_assert_int_eq(parse(module_map), 1);
	ck_assert_int_eq(m.format, PYPY_MODULE_MAP);
	ck_assert_uint_eq(m.pid, 42);
	ck_assert_uint_eq(m.start_ns, 1000);
	ck_assert_uint_eq(m.n, 4);
	ck_assert_uint_eq(m.bad_lines, 0);
	ck_assert(!m.torn);
	c = at(0x7f0000001010, 3000000000ull, &why);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->loop_no, 1);
	ck_assert_str_eq(pypy_str(&m, c->func), "collatz");
	ck_assert_str_eq(pypy_str(&m, c->where), "/tmp/my dir/pp.py:2-9");
	c = at(0x7f0000002010, 3000000000ull, &why);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->kind, PYPY_BRIDGE);
	ck_assert_uint_eq(c->guard, 0x7f00aa0000e0);
	ck_assert_uint_eq(c->loop_no, 1);
	c = at(0x7f0000003000, 3000000000ull, &why);
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(pypy_str(&m, c->func), "rsre");
	ck_assert_str_eq(pypy_str(&m, c->where), "");
}
END_TEST

/* The same address names the code that lived there at the sample's
 * time; before any code was there, "before load"; outside, "no entry". */
START_TEST(module_map_by_time)
{
	uint32_t why = 0;

	ck_assert_int_eq(parse(module_map), 1);
	ck_assert_uint_eq(at(0x7f0000001010, 4000000000ull, &why)->loop_no, 1);
	ck_assert_uint_eq(at(0x7f0000001010, 6000000000ull, &why)->loop_no, 3);
	/* past loop 3's 128 bytes, loop 1 is the last loaded there */
	ck_assert_uint_eq(at(0x7f0000001090, 6000000000ull, &why)->loop_no, 1);
	/* within the slack before its record: named */
	ck_assert_uint_eq(at(0x7f0000001010, 1995000000ull, &why)->loop_no, 1);
	ck_assert_ptr_null(at(0x7f0000001010, 1000000000ull, &why));
	ck_assert_uint_eq(why, OPJIT_UNRESOLVED_BEFORE_LOAD);
	ck_assert_ptr_null(at(0x7f0000009000, 6000000000ull, &why));
	ck_assert_uint_eq(why, OPJIT_UNRESOLVED_NO_ENTRY);
	ck_assert_uint_eq(m.code[pypy_loop(&m, 3)].start, 0x7f0000001000);
	ck_assert_uint_eq(pypy_loop(&m, 9), SIZE_MAX);
}
END_TEST

/* Bad lines are counted with the first one's number; a torn last line
 * is dropped; a blank line is nothing. */
START_TEST(module_map_damage)
{
	ck_assert_int_eq(parse("opjit-pypy 1 pid=42 start_ns=1000\n"
			       "2000 loop 1 7f0000001000 256 2 9 f /a.py\n"
			       "garbage\n"
			       "\n"
			       "2000 loop 2 zz 256 2 9 f /a.py\n"
			       "2000 loop 3 7f0000001000 0 2 9 f /a.py\n"
			       "2000 bridge 1 ffffffffffffffff 2 1\n"
			       "3000 loop 4 7f00000020"),
			 1);
	ck_assert_uint_eq(m.n, 1);
	ck_assert_uint_eq(m.bad_lines, 4);
	ck_assert_uint_eq(m.first_bad, 3);
	ck_assert(m.torn);
}
END_TEST

/* Neither text: left to other handlers; another version is not ours. */
START_TEST(not_ours)
{
	ck_assert_int_eq(parse("7f0000001000 100 JS:*fib\n"), 0);
	pypy_free(&m);
	ck_assert_int_eq(parse("OPJITJMP\x01"), 0);
	pypy_free(&m);
	ck_assert_int_eq(parse("opjit-pypy 2 pid=1 start_ns=1\n"), 0);
	pypy_free(&m);
	ck_assert_int_eq(parse(""), 0);
}
END_TEST

static const char pypy_log[] =
	"[1a] {jit-backend-addr\n"
	"Loop 1 (collatz;/tmp/pp.py:2-4~#4 LOAD_FAST) has address 0x7f0000001a5b to 0x7f0000001b90 (bootstrap 0x7f00000019d0)\n"
	"       gc table: 0x7f0000001950\n"
	"       function: 0x7f00000019d0\n"
	"            end: 0x7f0000001d47\n"
	"[1b] jit-backend-addr}\n"
	"[1c] {jit-log-opt-loop\n"
	"# Loop 1 (collatz;/tmp/pp.py:2-4~#4 LOAD_FAST) : loop with 87 ops\n"
	"[p0, p1]\n"
	"+352: guard_value(i5, 2, descr=<Guard0x7f00aa000100>) [p0]\n"
	"+371: guard_true(i6, descr=<Guard0x7f00aa000200>) [p0]\n"
	"[1d] jit-log-opt-loop}\n"
	"[1e] {jit-backend-addr\n"
	"bridge out of Guard 0x7f00aa000200 has address 0x7f0000002000 to 0x7f0000002100\n"
	"[1f] jit-backend-addr}\n"
	"[20] {jit-log-opt-bridge\n"
	"# bridge out of Guard 0x7f00aa000200 with 40 ops\n"
	"+10: guard_false(i7, descr=<Guard0x7f00aa000300>) [p0]\n"
	"[21] jit-log-opt-bridge}\n"
	"[22] {jit-backend-addr\n"
	"bridge out of Guard 0x7f00aa000300 has address 0x7f0000003000 to 0x7f0000003040\n"
	"bridge out of Guard 0x7f00aa000999 has address 0x7f0000004000 to 0x7f0000004040\n"
	"something else entirely\n"
	"[23] jit-backend-addr}\n"
	"[24] {gc-minor\n"
	"Loop 99 (x;y) has address 0x1 to 0x2\n"
	"[25] gc-minor}\n";

/* A loop spans its function entry to its end; a bridge of a bridge
 * belongs to the first loop; a guard nobody listed: no loop; lines of
 * other sections are not read; log code has no time. */
START_TEST(log_reads)
{
	const struct pypy_code *c;
	uint32_t why = 0;

	ck_assert_int_eq(parse(pypy_log), 1);
	ck_assert_int_eq(m.format, PYPY_LOG);
	ck_assert_uint_eq(m.n, 4);
	ck_assert_uint_eq(m.bad_lines, 1);
	ck_assert_uint_eq(m.first_bad, 23);
	c = at(0x7f00000019d0, 1, &why);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->loop_no, 1);
	ck_assert_uint_eq(c->start + c->size, 0x7f0000001d47);
	ck_assert_str_eq(pypy_str(&m, c->func), "collatz");
	ck_assert_str_eq(pypy_str(&m, c->where), "/tmp/pp.py:2-4");
	ck_assert_uint_eq(at(0x7f0000002010, 1, &why)->loop_no, 1);
	ck_assert_uint_eq(at(0x7f0000003010, 1, &why)->loop_no, 1);
	ck_assert_uint_eq(at(0x7f0000004010, 1, &why)->loop_no, 0);
	ck_assert_ptr_null(at(0x1, 1, &why));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pypy");
	TCase *tc = tcase_create("reader");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, module_map_reads);
	tcase_add_test(tc, module_map_by_time);
	tcase_add_test(tc, module_map_damage);
	tcase_add_test(tc, not_ours);
	tcase_add_test(tc, log_reads);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
