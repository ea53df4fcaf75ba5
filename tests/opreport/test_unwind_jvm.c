// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The interpreted frames' method values read from a stack copy: a
 * synthetic stack laid out as OpenJDK 17 lays it out on x86-64 (checked
 * with gdb on a running JVM: a compiled leaf's saved rbp leads to the
 * interpreter frame of its caller, whose Method* is 24 bytes below), and
 * the copies that must give nothing: a chain that disagrees, a link
 * that goes down or out of the copy, a copy cut short.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "unwind_jvm.h"
#include "check_run.h"

#define SP 0x7f0000001000ull
#define WORDS 64

static uint64_t stack[WORDS];

static uint64_t at(unsigned w)
{
	return SP + 8ull * w;
}

/* leaf (compiled, fp at word 2) called from left (interpreted, fp at
 * word 10, Method* 0x1111), called from main (interpreted, fp at word 20,
 * Method* 0x2222), called from a frame whose link ends the chain */
static void layout(struct unwind_jvm_copy *c, uint64_t *chain)
{
	memset(stack, 0, sizeof(stack));
	stack[2] = at(10);  /* leaf's saved fp: left's */
	stack[3] = 0xa0001; /* return into the interpreter, in left */
	stack[10 - 3] = 0x1111;
	stack[10] = at(20);
	stack[11] = 0xa0002; /* return into the interpreter, in main */
	stack[20 - 3] = 0x2222;
	stack[20] = at(30);
	stack[21] = 0xc0003;
	c->sp = SP;
	c->bp = at(2);
	c->bytes = (const uint8_t *)stack;
	c->size = sizeof(stack);
	chain[0] = 0xb0000; /* the leaf's pc */
	chain[1] = 0xa0001;
	chain[2] = 0xa0002;
	chain[3] = 0xc0003;
}

START_TEST(names_interpreted_callers)
{
	struct unwind_jvm_copy c;
	uint64_t chain[4], v[4];

	layout(&c, chain);
	ck_assert_uint_eq(unwind_jvm_values(&c, chain, 4, v), 2);
	ck_assert_uint_eq(v[0], 0); /* bp - 24 is below the copy */
	ck_assert_uint_eq(v[1], 0x1111);
	ck_assert_uint_eq(v[2], 0x2222);
	ck_assert_uint_eq(v[3], 0); /* word 27: zero */
}
END_TEST

START_TEST(stops_where_the_chain_disagrees)
{
	struct unwind_jvm_copy c;
	uint64_t chain[4], v[4];

	layout(&c, chain);
	chain[2] = 0xdead; /* the kernel saw another return address */
	ck_assert_uint_eq(unwind_jvm_values(&c, chain, 4, v), 1);
	ck_assert_uint_eq(v[1], 0x1111);
	ck_assert_uint_eq(v[2], 0);
	ck_assert_uint_eq(v[3], 0);
}
END_TEST

START_TEST(stops_at_a_link_that_goes_down)
{
	struct unwind_jvm_copy c;
	uint64_t chain[4], v[4];

	layout(&c, chain);
	stack[10] = at(10); /* a loop */
	ck_assert_uint_eq(unwind_jvm_values(&c, chain, 4, v), 1);
	ck_assert_uint_eq(v[2], 0);
	layout(&c, chain);
	stack[10] = at(4); /* below the frame */
	ck_assert_uint_eq(unwind_jvm_values(&c, chain, 4, v), 1);
	ck_assert_uint_eq(v[2], 0);
}
END_TEST

START_TEST(stays_inside_the_copy)
{
	struct unwind_jvm_copy c;
	uint64_t chain[4], v[4];

	layout(&c, chain);
	c.size = 8 * 19; /* main's Method* at word 17 in, its link out */
	ck_assert_uint_eq(unwind_jvm_values(&c, chain, 4, v), 2);
	ck_assert_uint_eq(v[2], 0x2222);
	ck_assert_uint_eq(v[3], 0);
	c.size = 8 * 17 + 7; /* main's Method* cut by one byte */
	ck_assert_uint_eq(unwind_jvm_values(&c, chain, 4, v), 1);
	ck_assert_uint_eq(v[2], 0);
	layout(&c, chain);
	stack[10] = UINT64_MAX - 7; /* a link to the top of memory */
	ck_assert_uint_eq(unwind_jvm_values(&c, chain, 4, v), 1);
	c.bytes = NULL;
	c.size = 0;
	ck_assert_uint_eq(unwind_jvm_values(&c, chain, 4, v), 0);
	c.bp = 8; /* a frame pointer below the method's offset */
	ck_assert_uint_eq(unwind_jvm_values(&c, chain, 1, v), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("unwind_jvm");
	TCase *t = tcase_create("walk");

	tcase_add_test(t, names_interpreted_callers);
	tcase_add_test(t, stops_where_the_chain_disagrees);
	tcase_add_test(t, stops_at_a_link_that_goes_down);
	tcase_add_test(t, stays_inside_the_copy);
	suite_add_tcase(s, t);
	return opjit_check_run(s);
}
