// SPDX-License-Identifier: GPL-3.0-or-later
/* Sessions of several events (FORMAT.md, CONTEXT_EVENTS): each context
 * keeps its event through flushes and the compaction, a session of one
 * event has no such block, a context past the list is refused, and
 * ops_session_select_event keeps one event's counts and name; each
 * event's JIT samples and stack samples go to their own streams of
 * anon.samples (EVENT_SAMPLES, EVENT_STACK_SAMPLES), which only a
 * session of several events has; ops_session_event_samples counts
 * each event's samples whatever is selected. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/crc32c.h>

#include "helpers.h"

#include "check_run.h"

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

/* The block types of container file PATH, in order, in TYPES (room for
 * MAX); how many. */
static size_t block_types(const char *path, uint16_t *types, size_t max)
{
	size_t len, off, n = 0;
	uint8_t *b = file_read(path, &len);

	for (off = 16; off + 16 <= len && n < max;) {
		uint32_t plen = b[off + 8] | b[off + 9] << 8 |
				b[off + 10] << 16 |
				(uint32_t)b[off + 11] << 24;

		types[n++] = (uint16_t)(b[off + 4] | b[off + 5] << 8);
		off += 16 + plen;
	}
	free(b);
	return n;
}

static bool has_type(const uint16_t *types, size_t n, uint16_t type)
{
	for (size_t i = 0; i < n; i++)
		if (types[i] == type)
			return true;
	return false;
}

/* A process's JIT samples of EVENTS (one or two), interleaved as rings
 * of two events read them: event 0 at 0x1000 + i, event 1 at 0x2000 + i
 * (and of a third, one at 0x3000);
 * with call graphs, a stack sample of each too.  Flushed between, and
 * the last written by the process's exit. */
static void write_anon(const char *events, bool stacks)
{
	struct ops_session_info info = info_example();
	struct ops_process p = { .tgid = 42, .nspid = 42, .comm = "jit" };
	struct ops_frame f = { OPS_FRAME_ANON, 0, 0x1000 };
	struct ops_stack st = { .frames = &f, .nr_frames = 1 };
	struct ops_writer *w = NULL;
	bool two = strchr(events, ',') != NULL;
	bool three = two && strchr(strchr(events, ',') + 1, ',');
	uint32_t id, stack;

	info.event = events;
	info.callgraph_depth = stacks ? 8 : 0;
	ck_assert_int_eq(ops_writer_open(&w, sdir, &info), 0);
	ck_assert_int_eq(ops_writer_process(w, &p, &id), 0);
	for (uint32_t i = 0; i < 6; i++) {
		ck_assert_int_eq(ops_writer_anon_event(w, id, 0, 100 + 10 * i,
						       0x1000 + i, 7),
				 0);
		if (two && i % 2 == 0)
			ck_assert_int_eq(ops_writer_anon_event(w, id, 1,
							       105 + 10 * i,
							       0x2000 + i, 8),
					 0);
		if (three && i == 5)
			ck_assert_int_eq(ops_writer_anon_event(w, id, 2, 160,
							       0x3000, 9),
					 0);
		if (i == 2)
			ck_assert_int_eq(ops_writer_flush(w), 0);
	}
	if (stacks) {
		ck_assert_int_eq(ops_writer_stack(w, &st, &stack), 0);
		ck_assert_int_eq(ops_writer_anon_stack_event(w, id, 0, 200,
							     stack, 7),
				 0);
		if (two)
			ck_assert_int_eq(ops_writer_anon_stack_event(
						 w, id, 1, 210, stack, 8),
					 0);
	}
	p.flags = OPS_PROC_EXITED;
	ck_assert_int_eq(ops_writer_process_update(w, id, &p), 0);
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
}

/* The samples of process 0 of S: N of them, at BASE + 2 * i apart
 * (STEP) from time T0, thread TID. */
static void check_anon(struct ops_session *s, size_t n, uint64_t base,
		       uint64_t step, uint64_t t0, uint32_t tid)
{
	const struct ops_anon_sample *a;
	size_t got, count;

	ck_assert_int_eq(ops_session_anon_count(s, 0, &count), 0);
	ck_assert_uint_eq(count, n);
	ck_assert_int_eq(ops_session_anon(s, 0, &a, &got), 0);
	ck_assert_uint_eq(got, n);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_eq(a[i].addr, base + step * i);
		ck_assert_uint_eq(a[i].time_ns, t0 + 10 * step * i);
		ck_assert_uint_eq(a[i].tid, tid);
	}
}

START_TEST(test_anon_events)
{
	const struct ops_anon_stack_sample *ss;
	struct warns wr = { 0 };
	struct ops_session *s;
	uint16_t types[64];
	size_t n, nt;
	bool stacks = _i;

	write_anon("cpu-clock,page-faults", stacks);
	nt = block_types(anon, types, 64);
	ck_assert(has_type(types, nt, 4));
	ck_assert(has_type(types, nt, 5) == stacks);
	s = session_must_open(sdir, &wr);
	/* the first event's, as a reader that knows no EVENT_ block sees */
	check_anon(s, 6, 0x1000, 1, 100, 7);
	ck_assert_int_eq(ops_session_anon_stacks(s, 0, &ss, &n), 0);
	ck_assert_uint_eq(n, stacks ? 1 : 0);
	if (stacks)
		ck_assert_uint_eq(ss[0].time_ns, 200);
	ck_assert_int_eq(ops_session_select_event(s, 1), 0);
	check_anon(s, 3, 0x2000, 2, 105, 8);
	ck_assert_int_eq(ops_session_anon_stacks(s, 0, &ss, &n), 0);
	ck_assert_uint_eq(n, stacks ? 1 : 0);
	if (stacks) {
		ck_assert_uint_eq(ss[0].time_ns, 210);
		ck_assert_uint_eq(ss[0].tid, 8);
	}
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);

	/* one event: no EVENT_ block, every sample read */
	write_anon("cpu-clock", stacks);
	nt = block_types(anon, types, 64);
	ck_assert(!has_type(types, nt, 4) && !has_type(types, nt, 5));
	s = session_must_open(sdir, &wr);
	check_anon(s, 6, 0x1000, 1, 100, 7);
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
}
END_TEST

/* Each event's period (event_periods), for the report's header: a
 * session of one event has none, a bad list is one warning. */
static struct ops_session *open_periods(const char *events,
					const char *periods, struct warns *wr)
{
	struct ops_session_info info = info_example();
	struct ops_writer *w = NULL;

	info.event = events;
	info.event_periods = periods;
	info.frequency = 4000;
	info.period = 0;
	ck_assert_int_eq(ops_writer_open(&w, sdir, &info), 0);
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
	return session_must_open(sdir, wr);
}

START_TEST(test_event_periods)
{
	struct warns wr = { 0 };
	struct ops_session *s;
	char *text;
	size_t len;

	for (uint32_t e = 0; e < 2; e++) {
		s = open_periods("cpu-clock,page-faults", "0,1", &wr);
		ck_assert_str_eq(ops_session_info(s)->event_periods, "0,1");
		ck_assert_int_eq(ops_session_select_event(s, e), 0);
		ck_assert_uint_eq(ops_session_info(s)->period, e ? 1 : 0);
		ck_assert_uint_eq(ops_session_info(s)->frequency,
				  e ? 0 : 4000);
		ck_assert_str_eq(ops_session_info(s)->event_periods, "");
		ops_session_close(s);
	}
	ck_assert_int_eq(wr.n, 0);

	/* not written for one event */
	s = open_periods("cpu-clock", NULL, &wr);
	ops_session_close(s);
	text = file_read(meta, &len);
	ck_assert_ptr_null(memmem(text, len, "event_periods", 13));
	free(text);

	s = open_periods("cpu-clock,page-faults", "0,x", &wr);
	ck_assert_int_eq(wr.n, 1);
	ck_assert_int_eq(ops_session_select_event(s, 1), 0);
	ck_assert_uint_eq(ops_session_info(s)->frequency, 4000);
	ops_session_close(s);
	s = open_periods("cpu-clock,page-faults", "0,1,1", &wr);
	ck_assert_int_eq(wr.n, 2);
	ops_session_close(s);
}
END_TEST

/* JIT samples of three events recorded, session.meta listing only the
 * first two, as a damaged or older list would. */
static void write_anon_two_listed(void)
{
	size_t len;
	char *text, *at;

	write_anon("cpu-clock,page-faults,cycles", false);
	text = file_read(meta, &len);
	at = memmem(text, len, ",cycles\n", 8);
	ck_assert_ptr_nonnull(at);
	memmove(at, at + 7, len - (size_t)(at + 7 - text));
	file_write(meta, text, len - 7);
	free(text);
}

/* Damage in the EVENT_ blocks: event 0 there is a bad block, which ends
 * the file's walk with one warning; an event past session.meta's list is
 * never read, with one warning. */
START_TEST(test_anon_event_damage)
{
	struct warns wr = { 0 };
	struct ops_session *s;
	const struct ops_anon_sample *a;
	size_t len, off, n;
	uint8_t *b;

	write_anon("cpu-clock,page-faults", false);
	b = file_read(anon, &len);
	for (off = 16; off + 16 <= len;) {
		uint32_t plen = b[off + 8] | b[off + 9] << 8 |
				b[off + 10] << 16 |
				(uint32_t)b[off + 11] << 24;

		if (b[off + 4] == 4) {
			/* proc_id 0, then the event: 1 becomes 0 */
			ck_assert_uint_eq(b[off + 17], 1);
			b[off + 17] = 0;
			uint32_t crc = oputil_crc32c(0, b + off + 16, plen);

			memcpy(b + off + 12, &crc, 4);
			break;
		}
		off += 16 + plen;
	}
	ck_assert_uint_lt(off + 16, len);
	file_write(anon, b, len);
	free(b);
	s = session_must_open(sdir, &wr);
	ck_assert_int_eq(wr.n, 1);
	ck_assert_ptr_nonnull(strstr(wr.last, "bad sample block header"));
	/* what came before it reads */
	ck_assert_int_eq(ops_session_anon(s, 0, &a, &n), 0);
	ck_assert_uint_ge(n, 1);
	ops_session_close(s);

	/* three events recorded, two listed: the third's samples left out */
	write_anon_two_listed();
	wr.n = 0;
	s = session_must_open(sdir, &wr);
	ck_assert_int_eq(wr.n, 1);
	ck_assert_ptr_nonnull(strstr(wr.last,
				     "samples of event 2, past the 2 of "
				     "session.meta: left out"));
	check_anon(s, 6, 0x1000, 1, 100, 7);
	ops_session_close(s);
}
END_TEST

/* A JIT sample of an event past the session's list is refused. */
START_TEST(test_anon_event_past)
{
	struct ops_session_info info = info_example();
	struct ops_process p = { .tgid = 42, .nspid = 42, .comm = "jit" };
	struct ops_writer *w = NULL;
	uint32_t id;

	info.event = "cpu-clock,page-faults";
	ck_assert_int_eq(ops_writer_open(&w, sdir, &info), 0);
	ck_assert_int_eq(ops_writer_process(w, &p, &id), 0);
	ck_assert_int_eq(ops_writer_anon_event(w, id, 2, 100, 0x1000, 7),
			 -EINVAL);
	ops_writer_free(w);
}
END_TEST

/* Each event's samples for a report's header, whatever is selected:
 * the histograms of each event's contexts, and each event's JIT samples
 * (the stack samples are not more samples); those of an event past the
 * list are no event's. */
START_TEST(test_event_samples)
{
	struct warns wr = { 0 };
	struct ops_session *s;
	uint64_t t[3] = { 9, 9, 9 };
	uint32_t ctx[2];

	write_events("cpu-clock,page-faults", ctx, true);
	s = session_must_open(sdir, &wr);
	ck_assert_int_eq(ops_session_event_samples(s, t, 2), 0);
	ck_assert_uint_eq(t[0], 3);
	ck_assert_uint_eq(t[1], 5);
	ck_assert_uint_eq(t[2], 9);
	ops_session_close(s);

	write_anon("cpu-clock,page-faults", true);
	s = session_must_open(sdir, &wr);
	/* decoded samples of the first event do not stand in for them */
	check_anon(s, 6, 0x1000, 1, 100, 7);
	ck_assert_int_eq(ops_session_event_samples(s, t, 2), 0);
	ck_assert_uint_eq(t[0], 6);
	ck_assert_uint_eq(t[1], 3);
	/* and the selection reads as before */
	ck_assert_int_eq(ops_session_select_event(s, 1), 0);
	check_anon(s, 3, 0x2000, 2, 105, 8);
	ops_session_close(s);

	/* three events recorded, two listed */
	write_anon_two_listed();
	s = session_must_open(sdir, &wr);
	ck_assert_int_eq(ops_session_event_samples(s, t, 2), 0);
	ck_assert_uint_eq(t[0], 6);
	ck_assert_uint_eq(t[1], 3);
	ops_session_close(s);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("samples_events");
	TCase *tc = tcase_create("events");

	tcase_add_checked_fixture(tc, session_setup, session_teardown);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_one_event);
	tcase_add_loop_test(tc, test_anon_events, 0, 2);
	tcase_add_test(tc, test_anon_event_past);
	tcase_add_test(tc, test_anon_event_damage);
	tcase_add_test(tc, test_event_periods);
	tcase_add_test(tc, test_event_samples);
	suite_add_tcase(su, tc);
	return opjit_check_run(su);
}
