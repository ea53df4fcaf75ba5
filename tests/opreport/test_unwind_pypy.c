// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * PyPy's JIT frames read from a stack copy: a synthetic stack laid out
 * as PyPy 7.3.11's x86-64 JIT lays it out (a frame of 23 words under
 * its return address, vmprof's record of it at word 19: the previous
 * record, the frame's own sp, tag 3), and the copies that must give
 * nothing more: a record that names another sp or has another tag, a
 * caller cut by the copy's end, no frame at sp at all.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "unwind_pypy.h"
#include "check_run.h"

#define SP 0x7f0000001000ull
#define WORDS 128

static uint64_t stack[WORDS];

static uint64_t at(unsigned w)
{
	return SP + 8ull * w;
}

/* a JIT frame at word W, returning to RET, its record after PREV */
static void frame(unsigned w, uint64_t ret, uint64_t prev)
{
	stack[w + 19] = prev;
	stack[w + 20] = at(w);
	stack[w + 21] = 3;
	stack[w + 23] = ret;
}

/* hot's loop (the leaf, at word PUSHED) called from left's loop, called
 * from the interpreter, whose frame above holds no record */
static void layout(struct unwind_jvm_copy *c, unsigned pushed)
{
	memset(stack, 0, sizeof(stack));
	frame(pushed, 0xa0001, at(pushed + 24 + 19));
	frame(pushed + 24, 0xc0002, 0x5550000);
	stack[pushed + 48 + 20] = at(pushed + 48); /* no tag: not a frame */
	c->sp = SP;
	c->bp = 0x5560000; /* the JIT's heap frame */
	c->bytes = (const uint8_t *)stack;
	c->size = sizeof(stack);
}

START_TEST(finds_the_jit_callers)
{
	struct unwind_jvm_copy c;
	uint64_t ret[8];

	layout(&c, 0);
	ck_assert_uint_eq(unwind_pypy_frames(&c, ret, 8), 2);
	ck_assert_uint_eq(ret[0], 0xa0001);
	/* a few words pushed under the frame */
	layout(&c, 3);
	ck_assert_uint_eq(unwind_pypy_frames(&c, ret, 8), 2);
	ck_assert_uint_eq(ret[0], 0xa0001);
	/* room for the leaf alone */
	ck_assert_uint_eq(unwind_pypy_frames(&c, ret, 1), 1);
	ck_assert_uint_eq(unwind_pypy_frames(&c, ret, 0), 0);
}
END_TEST

START_TEST(a_record_must_name_its_frame)
{
	struct unwind_jvm_copy c;
	uint64_t ret[8];

	layout(&c, 0);
	stack[21] = 1; /* the interpreter's tag */
	ck_assert_uint_eq(unwind_pypy_frames(&c, ret, 8), 0);
	layout(&c, 0);
	stack[24 + 20] = at(25); /* left's record names another sp */
	ck_assert_uint_eq(unwind_pypy_frames(&c, ret, 8), 1);
	/* pushed further than the JIT pushes */
	layout(&c, UNWIND_PYPY_SLACK_WORDS);
	ck_assert_uint_eq(unwind_pypy_frames(&c, ret, 8), 0);
}
END_TEST

START_TEST(stays_inside_the_copy)
{
	struct unwind_jvm_copy c;
	uint64_t ret[8];

	layout(&c, 0);
	c.size = 8 * (24 + 22); /* left's tag in, its return address out */
	ck_assert_uint_eq(unwind_pypy_frames(&c, ret, 8), 2);
	c.size = 8 * (24 + 21) + 7; /* left's tag cut by one byte */
	ck_assert_uint_eq(unwind_pypy_frames(&c, ret, 8), 1);
	c.size = 8 * 21 + 7; /* the leaf's */
	ck_assert_uint_eq(unwind_pypy_frames(&c, ret, 8), 0);
	c.bytes = NULL;
	c.size = 0;
	ck_assert_uint_eq(unwind_pypy_frames(&c, ret, 8), 0);
	/* a copy at the top of memory: the caller's frame would wrap */
	layout(&c, 0);
	c.sp = UINT64_MAX - 8 * 40 + 1;
	stack[20] = c.sp;
	stack[24 + 20] = c.sp + 8 * 24;
	ck_assert_uint_eq(unwind_pypy_frames(&c, ret, 8), 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("unwind_pypy");
	TCase *t = tcase_create("walk");

	tcase_add_test(t, finds_the_jit_callers);
	tcase_add_test(t, a_record_must_name_its_frame);
	tcase_add_test(t, stays_inside_the_copy);
	suite_add_tcase(s, t);
	return opjit_check_run(s);
}
