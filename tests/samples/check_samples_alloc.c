// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The recorder calls ops_writer_hist_add and ops_writer_anon for every
 * sample, and with call graphs ops_writer_stack with ops_writer_stack_add
 * or ops_writer_anon_stack: in the steady state (keys, stacks and
 * processes already seen) they must not allocate.  Linked with -Wl,--wrap=malloc,calloc,realloc, so
 * every allocation made by the library is counted here.
 */
#include <check.h>
#include <stdlib.h>

#include "helpers.h"

#include "check_run.h"
#include "wrap_alloc.h"

static unsigned long allocations;
static size_t largest; /* the largest block asked for */

static void note(size_t n)
{
	allocations++;
	if (n > largest)
		largest = n;
}

void *__wrap_malloc(size_t n)
{
	note(n);
	return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
	note(n * m);
	return __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
	note(n);
	return __real_realloc(p, n);
}

#define KEYS 20000
#define PROCS 50

/* One interval of recording: every key counted, samples for every
 * process, with the same shape each time.  Returns the number of calls
 * that failed (Check's own assertions allocate, so none are used here). */
static int one_interval(struct ops_writer *w, uint32_t ctx,
			const uint32_t *procs, uint64_t *t)
{
	uint32_t k, p;
	int bad = 0;

	for (k = 0; k < KEYS; k++)
		bad += ops_writer_hist_add(w, ctx, k * 4, 1) != 0;
	/* call graphs: 64 stacks of 20 frames, native and JIT */
	for (k = 0; k < 20000; k++) {
		struct ops_frame f[20];
		struct ops_stack st = { f, 20, 2, 0 };
		uint32_t i, id;

		for (i = 0; i < 20; i++)
			f[i] = (struct ops_frame){ OPS_FRAME_IMAGE, 0,
						   0x1000 + i * 64 + k % 64 };
		if (k % 2)
			f[5] = (struct ops_frame){
				OPS_FRAME_ANON, 0, 0x7f0000000000ull + k % 64
			};
		bad += ops_writer_stack(w, &st, &id) != 0;
		if (k % 2)
			bad += ops_writer_anon_stack(w, procs[k % PROCS], *t,
						     id, 1000 + k % 3) != 0;
		else
			bad += ops_writer_stack_add(w, ctx, id, 1) != 0;
	}
	for (k = 0; k < 2000; k++)
		for (p = 0; p < PROCS; p++) {
			*t += 250000;
			bad += ops_writer_anon(w, procs[p], *t,
					       0x7f0000000000ull +
						       (k * 7919u) % 65536,
					       1000 + p + k % 3) != 0;
		}
	return bad;
}

START_TEST(test_steady_state)
{
	struct ops_session_info info = info_example();
	struct ops_image img = { .path = "/usr/bin/x" };
	struct ops_context c = { 0 };
	uint32_t procs[PROCS], id, ctx, p;
	struct ops_writer *w;
	unsigned long before, during;
	uint64_t t = 1;
	int round, bad;

	info.callgraph_depth = 127;
	ck_assert_int_eq(ops_writer_open(&w, sdir, &info), 0);
	ck_assert_int_eq(ops_writer_image(w, &img, &id), 0);
	c.app = c.image = id;
	ck_assert_int_eq(ops_writer_context(w, &c, &ctx), 0);
	for (p = 0; p < PROCS; p++) {
		struct ops_process proc = { .tgid = 1000 + p, .comm = "x" };

		ck_assert_int_eq(ops_writer_process(w, &proc, &procs[p]), 0);
	}
	/* warm up: tables and buffers reach their size */
	for (round = 0; round < 2; round++) {
		ck_assert_int_eq(one_interval(w, ctx, procs, &t), 0);
		ck_assert_int_eq(ops_writer_flush(w), 0);
	}
	before = allocations;
	bad = one_interval(w, ctx, procs, &t);
	during = allocations - before;
	ck_assert_int_eq(bad, 0);
	ck_assert_uint_eq(during, 0);
	/* the counter does see the library's allocations */
	for (p = 0; p < 100000; p++)
		if (ops_writer_hist_add(w, ctx, (1ull << 40) + p, 1))
			break;
	ck_assert_uint_eq(p, 100000);
	ck_assert_uint_gt(allocations - before, 0);
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
}
END_TEST

/* A reader holds no anon.samples whole: opening a session and counting
 * a process's samples take memory for a block, not for the file; only
 * decoding a process takes memory for its samples. */
START_TEST(test_reader_holds_a_block)
{
	struct ops_session_info info = info_example();
	struct ops_process proc = { .tgid = 1000, .comm = "x" };
	const struct ops_anon_sample *a;
	struct ops_session *s;
	struct ops_writer *w;
	struct warns wr = { 0 };
	uint32_t id, i;
	size_t n, size;

	ck_assert_int_eq(ops_writer_open(&w, sdir, &info), 0);
	ck_assert_int_eq(ops_writer_process(w, &proc, &id), 0);
	for (i = 0; i < 2000000; i++) {
		ck_assert_int_eq(ops_writer_anon(w, id, 1000 + i * 250000ull,
						 0x7f0000000000ull +
							 (i * 7919u) % 999983,
						 1000),
				 0);
		if (i % 100000 == 99999)
			ck_assert_int_eq(ops_writer_flush(w), 0);
	}
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
	size = file_size(anon);
	ck_assert_uint_gt(size, 8u << 20);

	largest = 0;
	s = session_must_open(sdir, &wr);
	ck_assert_int_eq(ops_session_anon_count(s, id, &n), 0);
	ck_assert_uint_eq(n, 2000000);
	ck_assert_uint_lt(largest, size / 4);
	ck_assert_int_eq(ops_session_anon(s, id, &a, &n), 0);
	ck_assert_uint_eq(n, 2000000);
	ck_assert_uint_eq(a[1999999].time_ns, 1000 + 1999999 * 250000ull);
	ck_assert_uint_ge(largest, n * sizeof(*a));
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("samples_alloc");
	TCase *tc = tcase_create("steady_state");

	tcase_add_checked_fixture(tc, session_setup, session_teardown);
	tcase_add_test(tc, test_steady_state);
	suite_add_tcase(s, tc);
	tc = tcase_create("reader_holds_a_block");
	tcase_add_checked_fixture(tc, session_setup, session_teardown);
	tcase_add_test(tc, test_reader_holds_a_block);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
