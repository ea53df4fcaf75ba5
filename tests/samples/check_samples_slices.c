// SPDX-License-Identifier: GPL-3.0-or-later
/* Time slices (FORMAT.md, TIME_SLICES): every count lands in the slice
 * of the time the recorder gave, back to an earlier slice for a sample
 * read late, through flushes and the compaction, and
 * a window gives the counts of its slices and the anonymous samples of
 * its times. */
#define _GNU_SOURCE
#include <check.h>
#include <stdlib.h>

#include "helpers.h"

#include "check_run.h"

#define MS 1000000ull

static uint64_t count_of(struct ops_session *s, uint64_t offset)
{
	const struct ops_hist_entry *e;
	uint64_t sum = 0;
	size_t n, i;

	e = ops_session_hist(s, &n);
	for (i = 0; i < n; i++)
		if (e[i].offset == offset)
			sum += e[i].count;
	return sum;
}

/* Counts in slices 0, 1 and 2, a flush inside slice 2, a sample read
 * late, a count before the clock started; then the compaction (close). */
static void write_session(uint64_t *start)
{
	struct ops_session_info info = info_example();
	struct ops_image img = { .path = "/bin/x" };
	struct ops_context c = { .cpu = -1 };
	struct ops_process p = { .tgid = 9, .nspid = 9, .comm = "x" };
	struct ops_writer *w = NULL;
	uint64_t end, t0 = info.start_ns;
	uint32_t ii, ci, pi;

	*start = t0;
	ck_assert_int_eq(ops_writer_open(&w, sdir, &info), 0);
	ck_assert_int_eq(ops_writer_image(w, &img, &ii), 0);
	c.app = c.image = ii;
	ck_assert_int_eq(ops_writer_context(w, &c, &ci), 0);
	ck_assert_int_eq(ops_writer_process(w, &p, &pi), 0);
	/* before the clock: no time */
	ck_assert_int_eq(ops_writer_hist_add(w, ci, 0x99, 4), 0);
	ck_assert_int_eq(ops_writer_time(w, t0 + 50 * MS, &end), 0);
	ck_assert_uint_eq(end, t0 + OPS_SLICE_NS);
	ck_assert_int_eq(ops_writer_hist_add(w, ci, 0x10, 3), 0);
	ck_assert_int_eq(ops_writer_anon(w, pi, t0 + 60 * MS, 0x7000, 9), 0);
	ck_assert_int_eq(ops_writer_time(w, t0 + 150 * MS, &end), 0);
	ck_assert_uint_eq(end, t0 + 2 * OPS_SLICE_NS);
	ck_assert_int_eq(ops_writer_hist_add(w, ci, 0x10, 2), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, ci, 0x20, 1), 0);
	/* read late: back in its own slice, named by a second block */
	ck_assert_int_eq(ops_writer_time(w, t0 + 40 * MS, &end), 0);
	ck_assert_uint_eq(end, t0 + OPS_SLICE_NS);
	ck_assert_int_eq(ops_writer_hist_add(w, ci, 0x20, 1), 0);
	ck_assert_int_eq(ops_writer_anon(w, pi, t0 + 160 * MS, 0x7000, 9), 0);
	ck_assert_int_eq(ops_writer_time(w, t0 + 250 * MS, &end), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, ci, 0x20, 1), 0);
	ck_assert_int_eq(ops_writer_flush(w), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, ci, 0x20, 3), 0);
	ck_assert_int_eq(ops_writer_anon(w, pi, t0 + 260 * MS, 0x7000, 9), 0);
	ck_assert_int_eq(ops_writer_close(w, t0 + 300 * MS), 0);
}

START_TEST(test_slices)
{
	const struct ops_time_count *tc;
	uint64_t start, sum[3] = { 0 };
	const struct ops_anon_sample *smp;
	struct ops_session *s;
	struct warns wr = { 0 };
	size_t n, i;

	write_session(&start);
	s = session_must_open(sdir, &wr);
	ck_assert_int_eq(wr.n, 0);
	tc = ops_session_time_counts(s, &n);
	for (i = 0; i < n; i++) {
		ck_assert_uint_eq(tc[i].kind, OPS_TIME_COUNTS);
		ck_assert_uint_eq(tc[i].len_ns, OPS_SLICE_NS);
		ck_assert_uint_lt(tc[i].start_ns / OPS_SLICE_NS, 3);
		sum[tc[i].start_ns / OPS_SLICE_NS] += tc[i].count;
	}
	ck_assert_uint_eq(sum[0], 4);
	ck_assert_uint_eq(sum[1], 3);
	ck_assert_uint_eq(sum[2], 4);
	ck_assert_uint_eq(ops_session_untimed(s), 4);
	ck_assert_uint_eq(count_of(s, 0x99), 4);
	ops_session_close(s);

	/* slice 1 alone, by its middle */
	s = session_must_open(sdir, &wr);
	ck_assert_int_eq(ops_session_set_window(s, 100 * MS, 200 * MS), 0);
	ck_assert_uint_eq(count_of(s, 0x10), 2);
	ck_assert_uint_eq(count_of(s, 0x20), 1);
	ck_assert_uint_eq(count_of(s, 0x99), 0);
	ck_assert_int_eq(ops_session_anon(s, 0, &smp, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(smp[0].time_ns, start + 160 * MS);
	ops_session_close(s);

	/* a window past the middle of slice 0 and into slice 2 */
	s = session_must_open(sdir, &wr);
	ck_assert_int_eq(ops_session_set_window(s, 55 * MS, 251 * MS), 0);
	ck_assert_uint_eq(count_of(s, 0x10), 2);
	ck_assert_uint_eq(count_of(s, 0x20), 5);
	ck_assert_int_eq(ops_session_anon(s, 0, &smp, &n), 0);
	ck_assert_uint_eq(n, 2);
	ops_session_close(s);
	ck_assert_int_eq(wr.n, 0);
}
END_TEST

static Suite *slices_suite(void)
{
	Suite *s = suite_create("samples_slices");
	TCase *tc = tcase_create("slices");

	tcase_add_checked_fixture(tc, session_setup, session_teardown);
	tcase_add_test(tc, test_slices);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return opjit_check_run(slices_suite());
}
