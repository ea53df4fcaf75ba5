// SPDX-License-Identifier: GPL-3.0-or-later
/* Sessions of several events (FORMAT.md, CONTEXT_EVENTS): each context
 * keeps its event through flushes and the compaction, a session of one
 * event has no such block, a context past the list is refused, and
 * ops_session_select_event keeps one event's counts and name. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#include "check_run.h"

static char *tmp, *sdir;

static void setup(void)
{
	tmp = tmp_make();
	sdir = tmp_path(tmp, "session");
}

static void teardown(void)
{
	free(sdir);
	tmp_remove(tmp);
}

/* Event 0 and 1 contexts of one image, 3 and 5 samples; CTX their ids. */
static void write_events(const char *events, uint32_t ctx[2], bool close)
{
	struct ops_session_info info = info_example();
	struct ops_image img = { .path = "/usr/bin/app" };
	struct ops_context c = { .cpu = -1 };
	struct ops_writer *w = NULL;

	info.event = events;
	ck_assert_int_eq(ops_writer_open(&w, sdir, &info), 0);
	ck_assert_int_eq(ops_writer_image(w, &img, &c.image), 0);
	c.app = c.image;
	ck_assert_int_eq(ops_writer_context(w, &c, &ctx[0]), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, ctx[0], 0x100, 3), 0);
	ck_assert_int_eq(ops_writer_flush(w), 0);
	c.event = 1;
	if (!strchr(events, ',')) {
		ck_assert_int_eq(ops_writer_context(w, &c, &ctx[1]), -EINVAL);
		ops_writer_free(w);
		return;
	}
	ck_assert_int_eq(ops_writer_context(w, &c, &ctx[1]), 0);
	ck_assert_uint_ne(ctx[1], ctx[0]);
	ck_assert_int_eq(ops_writer_hist_add(w, ctx[1], 0x100, 5), 0);
	ck_assert_int_eq(ops_writer_flush(w), 0);
	if (close)
		ck_assert_int_eq(ops_writer_close(w, 1), 0);
	else
		ops_writer_free(w);
}

static uint64_t total(struct ops_session *s)
{
	size_t n;
	const struct ops_hist_entry *e = ops_session_hist(s, &n);
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += e[i].count;
	return sum;
}

START_TEST(test_roundtrip)
{
	struct warns wr = { 0 };
	struct ops_session *s;
	uint32_t ctx[2];
	char name[32];

	for (int pass = 0; pass < 2; pass++) {
		write_events("cpu-clock,page-faults", ctx, pass == 1);
		s = session_must_open(sdir, &wr);
		ck_assert_uint_eq(ops_session_nr_events(s), 2);
		ck_assert_int_eq(
			ops_session_event_name(s, 1, name, sizeof(name)), 0);
		ck_assert_str_eq(name, "page-faults");
		ck_assert_int_eq(ops_session_event_name(s, 2, name,
							sizeof(name)),
				 -ENOENT);
		ck_assert_uint_eq(ops_session_context(s, ctx[0])->event, 0);
		ck_assert_uint_eq(ops_session_context(s, ctx[1])->event, 1);
		ck_assert_uint_eq(total(s), 8);
		ck_assert_int_eq(ops_session_select_event(s, 2), -ENOENT);
		ck_assert_int_eq(ops_session_select_event(s, 1), 0);
		ck_assert_uint_eq(total(s), 5);
		ck_assert_str_eq(ops_session_info(s)->event, "page-faults");
		ck_assert_int_eq(wr.n, 0);
		ops_session_close(s);
	}
}
END_TEST

/* One event: no event past it, every context event 0. */
START_TEST(test_one_event)
{
	struct warns wr = { 0 };
	struct ops_session *s;
	uint32_t ctx[2];

	write_events("cpu-clock", ctx, false);
	s = session_must_open(sdir, &wr);
	ck_assert_uint_eq(ops_session_nr_events(s), 1);
	ck_assert_uint_eq(ops_session_context(s, ctx[0])->event, 0);
	ck_assert_int_eq(ops_session_select_event(s, 0), 0);
	ck_assert_uint_eq(total(s), 3);
	ops_session_close(s);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("samples_events");
	TCase *tc = tcase_create("events");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_one_event);
	suite_add_tcase(su, tc);
	return opjit_check_run(su);
}
