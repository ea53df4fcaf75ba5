// SPDX-License-Identifier: GPL-3.0-or-later
/* Sessions that separate threads (FORMAT.md, CONTEXT_THREADS and
 * THREADS): what the writer puts there, the reader gives back; a reader
 * that skips the two blocks reads the session as one separated by
 * process; damage to either is one warning. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <oputil/crc32c.h>

#include "helpers.h"

#include "check_run.h"

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Contexts of threads 43 and 44 of process 42, and one of no thread,
 * with counts and names over two flushes; thread 43 renamed between
 * them.  The ids of the contexts in CTX. */
static void write_threads(uint32_t ctx[3], bool close)
{
	struct ops_session_info info = info_example();
	struct ops_image img = { .path = "/usr/bin/app" };
	struct ops_context c = { .tgid = 42, .cpu = -1 };
	struct ops_writer *w = NULL;
	uint32_t again;

	info.separate = OPS_SEPARATE_PROCESS | OPS_SEPARATE_THREAD;
	ck_assert_int_eq(ops_writer_open(&w, sdir, &info), 0);
	ck_assert_int_eq(ops_writer_image(w, &img, &c.image), 0);
	c.app = c.image;
	c.tid = 43;
	ck_assert_int_eq(ops_writer_context(w, &c, &ctx[0]), 0);
	c.tid = 44;
	ck_assert_int_eq(ops_writer_context(w, &c, &ctx[1]), 0);
	ck_assert_int_eq(ops_writer_thread(w, 42, 43, "alpha"), 0);
	ck_assert_int_eq(ops_writer_thread(w, 42, 44, "beta gamma"), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, ctx[0], 0x100, 3), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, ctx[1], 0x100, 5), 0);
	ck_assert_int_eq(ops_writer_flush(w), 0);
	/* the same key is the same context; a thread's first context
	 * after a flush goes out with the next */
	c.tid = 43;
	ck_assert_int_eq(ops_writer_context(w, &c, &again), 0);
	ck_assert_uint_eq(again, ctx[0]);
	c.tid = 0;
	ck_assert_int_eq(ops_writer_context(w, &c, &ctx[2]), 0);
	ck_assert_uint_ne(ctx[2], ctx[0]);
	ck_assert_int_eq(ops_writer_hist_add(w, ctx[2], 0x100, 7), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, ctx[0], 0x100, 1), 0);
	ck_assert_int_eq(ops_writer_thread(w, 42, 43, "alpha2"), 0);
	ck_assert_int_eq(ops_writer_thread(w, 42, 44, "beta gamma"), 0);
	/* no thread 0, no empty name */
	ck_assert_int_eq(ops_writer_thread(w, 42, 0, "x"), -EINVAL);
	ck_assert_int_eq(ops_writer_thread(w, 42, 45, ""), -EINVAL);
	ck_assert_int_eq(ops_writer_flush(w), 0);
	if (close)
		ck_assert_int_eq(ops_writer_close(w, 1), 0);
	else
		ops_writer_free(w);
}

static uint64_t count_of(struct ops_session *s, uint32_t ctx)
{
	size_t n;
	const struct ops_hist_entry *e = ops_session_hist(s, &n);
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		if (e[i].ctx == ctx)
			sum += e[i].count;
	return sum;
}

/* Flushed, then closed (compacted): the same contexts, counts and
 * names, the last name of a thread holding. */
START_TEST(test_roundtrip)
{
	const struct ops_thread *t;
	struct ops_session *s;
	struct warns wr = { 0 };
	uint32_t ctx[3];
	size_t n;

	for (int pass = 0; pass < 2; pass++) {
		write_threads(ctx, pass == 1);
		s = session_must_open(sdir, &wr);
		ck_assert_uint_eq(ops_session_info(s)->separate,
				  OPS_SEPARATE_PROCESS | OPS_SEPARATE_THREAD);
		ck_assert_uint_eq(ops_session_nr_contexts(s), 3);
		ck_assert_uint_eq(ops_session_context(s, ctx[0])->tid, 43);
		ck_assert_uint_eq(ops_session_context(s, ctx[1])->tid, 44);
		ck_assert_uint_eq(ops_session_context(s, ctx[2])->tid, 0);
		ck_assert_uint_eq(ops_session_context(s, ctx[1])->tgid, 42);
		ck_assert_uint_eq(count_of(s, ctx[0]), 4);
		ck_assert_uint_eq(count_of(s, ctx[1]), 5);
		ck_assert_uint_eq(count_of(s, ctx[2]), 7);
		t = ops_session_threads(s, &n);
		ck_assert_uint_eq(n, 2);
		ck_assert_uint_eq(t[0].tid, 43);
		ck_assert_str_eq(t[0].name, "alpha2");
		ck_assert_str_eq(t[1].name, "beta gamma");
		ck_assert_str_eq(ops_session_thread_name(s, 42, 44),
				 "beta gamma");
		ck_assert_ptr_null(ops_session_thread_name(s, 42, 45));
		ck_assert_ptr_null(ops_session_thread_name(s, 41, 43));
		ck_assert_int_eq(wr.n, 0);
		ops_session_close(s);
	}
}
END_TEST

/* Without OPS_SEPARATE_THREAD a context of a thread and a name are
 * refused, and the file holds neither block: byte for byte as a
 * session written before them. */
START_TEST(test_not_separated)
{
	struct ops_session_info info = info_example();
	struct ops_image img = { .path = "/usr/bin/app" };
	struct ops_context c = { .cpu = -1 };
	struct ops_writer *w = NULL;
	uint8_t *buf;
	size_t len, off;
	uint32_t id;

	info.separate = OPS_SEPARATE_PROCESS;
	ck_assert_int_eq(ops_writer_open(&w, sdir, &info), 0);
	ck_assert_int_eq(ops_writer_image(w, &img, &c.image), 0);
	c.app = c.image;
	ck_assert_int_eq(ops_writer_context(w, &c, &id), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, id, 0x10, 1), 0);
	c.tid = 7;
	ck_assert_int_eq(ops_writer_context(w, &c, &id), -EINVAL);
	ck_assert_int_eq(ops_writer_thread(w, 1, 7, "x"), -EINVAL);
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
	buf = file_read(hist, &len);
	for (off = 16; off + 16 <= len; off += 16 + le32(buf + off + 8)) {
		uint32_t type = le32(buf + off + 4) & 0xffff;

		ck_assert_msg(type != 11 && type != 12, "block type %u", type);
	}
	ck_assert_uint_eq(off, len);
	free(buf);
}
END_TEST

/* A reader that does not know CONTEXT_THREADS and THREADS skips them
 * (FORMAT.md): the session without them reads as one separated by
 * process, every count kept. */
START_TEST(test_old_reader)
{
	struct ops_session *s;
	struct warns wr = { 0 };
	uint8_t *buf, *out;
	size_t len, off, n = 16, dropped = 0;
	uint32_t ctx[3];

	write_threads(ctx, true);
	buf = file_read(hist, &len);
	out = malloc(len);
	ck_assert_ptr_nonnull(out);
	memcpy(out, buf, 16);
	for (off = 16; off + 16 <= len; off += 16 + le32(buf + off + 8)) {
		uint32_t type = le32(buf + off + 4) & 0xffff;
		size_t blen = 16 + le32(buf + off + 8);

		if (type == 11 || type == 12) {
			dropped++;
			continue;
		}
		memcpy(out + n, buf + off, blen);
		n += blen;
	}
	ck_assert_uint_eq(dropped, 2);
	file_write(hist, out, n);
	s = session_must_open(sdir, &wr);
	ck_assert_uint_eq(ops_session_context(s, ctx[0])->tid, 0);
	ck_assert_uint_eq(ops_session_context(s, ctx[1])->tgid, 42);
	ck_assert_uint_eq(count_of(s, ctx[0]) + count_of(s, ctx[1]) +
				  count_of(s, ctx[2]),
			  16);
	ops_session_threads(s, &len);
	ck_assert_uint_eq(len, 0);
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
	free(out);
	free(buf);
}
END_TEST

/* Append a block of TYPE holding PAYLOAD to samples.hist, with a good
 * checksum: damage only the parser sees. */
static void append_block(uint16_t type, const uint8_t *payload, size_t plen)
{
	size_t len;
	uint8_t *buf = file_read(hist, &len), *out = malloc(len + 16 + plen);

	ck_assert_ptr_nonnull(out);
	memcpy(out, buf, len);
	put_le32(out + len, 0x4b4c424f);
	out[len + 4] = (uint8_t)type;
	out[len + 5] = (uint8_t)(type >> 8);
	out[len + 6] = out[len + 7] = 0;
	put_le32(out + len + 8, (uint32_t)plen);
	put_le32(out + len + 12, oputil_crc32c(0, payload, plen));
	memcpy(out + len + 16, payload, plen);
	file_write(hist, out, len + 16 + plen);
	free(out);
	free(buf);
}

static void expect_damage(uint16_t type, const uint8_t *payload, size_t plen,
			  const char *why)
{
	struct ops_session *s;
	struct warns wr = { 0 };
	uint32_t ctx[3];
	size_t n;
	const struct ops_thread *t;

	write_threads(ctx, true);
	append_block(type, payload, plen);
	s = session_must_open(sdir, &wr);
	ck_assert_int_eq(wr.n, 1);
	ck_assert_msg(strstr(wr.last, why), "%s", wr.last);
	ck_assert_ptr_nonnull(strstr(wr.last, "samples.hist"));
	/* the block is dropped whole: what came before holds */
	ck_assert_uint_eq(ops_session_context(s, ctx[0])->tid, 43);
	ck_assert_uint_eq(ops_session_context(s, ctx[2])->tid, 0);
	t = ops_session_threads(s, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(t[0].name, "alpha2");
	ops_session_close(s);
}

START_TEST(test_damage)
{
	/* the contexts all have their threads: a block for context 0 is
	 * out of order, one past the contexts too many */
	const uint8_t order[] = { 0, 1, 9 }, many[] = { 3, 1, 9 };
	/* n = 1: tgid 42, tid 0; an empty name; a name past the block */
	const uint8_t tid0[] = { 1, 42, 0, 1, 'x' };
	const uint8_t empty[] = { 1, 42, 43, 0 };
	const uint8_t past[] = { 1, 42, 43, 9, 'x' };
	/* a tid of 2^32 as a varint */
	const uint8_t huge[] = { 1, 42, 0x80, 0x80, 0x80, 0x80, 0x10, 1, 'x' };

	expect_damage(11, order, sizeof(order),
		      "context thread ids out of order");
	expect_damage(11, many, sizeof(many), "bad context thread count");
	expect_damage(12, tid0, sizeof(tid0), "bad thread record");
	expect_damage(12, empty, sizeof(empty), "bad thread record");
	expect_damage(12, past, sizeof(past), "bad thread record");
	expect_damage(12, huge, sizeof(huge), "bad thread record");
}
END_TEST

static Suite *threads_suite(void)
{
	Suite *s = suite_create("samples_threads");
	const struct check_case cases[] = {
		{ "roundtrip", test_roundtrip },
		{ "not_separated", test_not_separated },
		{ "old_reader", test_old_reader },
		{ "damage", test_damage },
	};

	SUITE_ADD_CASES(s, cases, session_setup, session_teardown, 0);
	return s;
}

int main(void)
{
	return opjit_check_run(threads_suite());
}
