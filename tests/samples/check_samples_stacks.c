// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Call graphs in a session: the stack table, (context, stack) counts and
 * anonymous stack streams written and read back; the versions a session
 * is written in; and damage to any of them, which the reader reports
 * once per file while keeping the rest.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <oputil/crc32c.h>

#include "block_internal.h"
#include "helpers.h"
#include "writer_internal.h"

#include "check_run.h"

/* The ids a test session is made of. */
struct cg {
	struct ops_writer *w;
	uint32_t app, libc, kernel, ctx, kctx, proc;
	uint32_t s_native, s_kernel, s_anon;
};

static const struct ops_frame native[] = {
	{ OPS_FRAME_IMAGE, 0, 0x1234 },
	{ OPS_FRAME_IMAGE, 0, 0x1300 },
	{ OPS_FRAME_IMAGE, 0, 0x1100 },
	{ OPS_FRAME_IMAGE, 1, 0x29d90 },
};

static const struct ops_frame kernel[] = {
	{ OPS_FRAME_IMAGE, 2, 0xffffffff81000100ull },
	{ OPS_FRAME_IMAGE, 2, 0xffffffff81000000ull },
	{ OPS_FRAME_IMAGE, 0, 0x1234 },
	{ OPS_FRAME_UNKNOWN, 0, 0x42 },
};

static const struct ops_frame jit[] = {
	{ OPS_FRAME_ANON, 0, 0x7f0000001000ull },
	{ OPS_FRAME_ANON, 0, 0x7f0000000800ull },
	{ OPS_FRAME_IMAGE, 1, 0x29d90 },
};

static void cg_open(struct cg *c, uint32_t depth)
{
	struct ops_session_info info = info_example();
	struct ops_context ctx = { .cpu = -1 };
	struct app_session s;

	info.callgraph_depth = depth;
	app_session_open(&s, sdir, &info);
	c->w = s.w;
	c->app = s.app;
	c->libc = s.libc;
	c->kernel = s.kernel;
	c->ctx = s.ctx;
	c->proc = s.proc;
	ctx.app = c->app;
	ctx.image = c->kernel;
	ck_assert_int_eq(ops_writer_context(c->w, &ctx, &c->kctx), 0);
}

/* Three stacks, counted and streamed, over two flushes. */
static void cg_write(struct cg *c)
{
	struct ops_stack s1 = { native, 4, 0, 0 };
	struct ops_stack s2 = { kernel, 4, 2, OPS_STACK_TRUNCATED };
	struct ops_stack s3 = { jit, 3, 0, 0 };
	uint32_t again;

	ck_assert_int_eq(ops_writer_stack(c->w, &s1, &c->s_native), 0);
	ck_assert_int_eq(ops_writer_stack(c->w, &s2, &c->s_kernel), 0);
	ck_assert_int_eq(ops_writer_stack_add(c->w, c->ctx, c->s_native, 3),
			 0);
	ck_assert_int_eq(ops_writer_stack_add(c->w, c->kctx, c->s_kernel, 1),
			 0);
	ck_assert_int_eq(ops_writer_flush(c->w), 0);
	/* the same frames are the same stack */
	ck_assert_int_eq(ops_writer_stack(c->w, &s1, &again), 0);
	ck_assert_uint_eq(again, c->s_native);
	ck_assert_int_eq(ops_writer_stack_add(c->w, c->ctx, again, 2), 0);
	ck_assert_int_eq(ops_writer_stack(c->w, &s3, &c->s_anon), 0);
	ck_assert_int_eq(
		ops_writer_anon_stack(c->w, c->proc, 1000, c->s_anon, 43), 0);
	ck_assert_int_eq(
		ops_writer_anon_stack(c->w, c->proc, 900, c->s_anon, 44), 0);
	ck_assert_int_eq(ops_writer_anon_stack(c->w, c->proc, 2000,
					       c->s_native, 43),
			 0);
	ck_assert_int_eq(ops_writer_flush(c->w), 0);
}

static void frames_eq(const struct ops_stack *got, const struct ops_frame *f,
		      uint32_t n, uint32_t nr_kernel, uint32_t flags)
{
	uint32_t i;

	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(got->nr_frames, n);
	ck_assert_uint_eq(got->nr_kernel, nr_kernel);
	ck_assert_uint_eq(got->flags, flags);
	for (i = 0; i < n; i++) {
		ck_assert_uint_eq(got->frames[i].kind, f[i].kind);
		ck_assert_uint_eq(got->frames[i].image, f[i].image);
		ck_assert_uint_eq(got->frames[i].addr, f[i].addr);
	}
}

static void cg_check(const struct cg *c, struct ops_session *s)
{
	const struct ops_anon_stack_sample *a;
	const struct ops_stack_count *e;
	size_t n;

	ck_assert_uint_ge(ops_session_info(s)->format_version,
			  OPS_FORMAT_VERSION_STACK_IDS);
	ck_assert_uint_eq(ops_session_info(s)->callgraph_depth, 64);
	/* the table holds the outer parts of each stack as stacks too: 4
	 * + 4 + 2 (the JIT stack shares its outermost frame) */
	ck_assert_uint_eq(ops_session_nr_stacks(s), 10);
	frames_eq(ops_session_stack(s, c->s_native), native, 4, 0, 0);
	frames_eq(ops_session_stack(s, c->s_kernel), kernel, 4, 2,
		  OPS_STACK_TRUNCATED);
	frames_eq(ops_session_stack(s, c->s_anon), jit, 3, 0, 0);
	ck_assert_ptr_null(ops_session_stack(s, 10));
	/* the caller of the native stack's leaf: its other three frames */
	frames_eq(ops_session_stack(s, 2), native + 1, 3, 0, 0);
	e = ops_session_stack_hist(s, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(e[0].ctx, c->ctx);
	ck_assert_uint_eq(e[0].stack, c->s_native);
	ck_assert_uint_eq(e[0].count, 5);
	ck_assert_uint_eq(e[1].ctx, c->kctx);
	ck_assert_uint_eq(e[1].stack, c->s_kernel);
	ck_assert_uint_eq(e[1].count, 1);
	ck_assert_int_eq(ops_session_anon_stacks((struct ops_session *)s,
						 c->proc, &a, &n),
			 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(a[0].time_ns, 1000);
	ck_assert_uint_eq(a[0].stack, c->s_anon);
	ck_assert_uint_eq(a[0].tid, 43);
	ck_assert_uint_eq(a[1].time_ns, 900);
	ck_assert_uint_eq(a[1].tid, 44);
	ck_assert_uint_eq(a[2].time_ns, 2000);
	ck_assert_uint_eq(a[2].stack, c->s_native);
	ck_assert_uint_eq(a[2].tid, 43);
}

/* Read while recording (what a kill -9 leaves), then after close. */
START_TEST(test_roundtrip)
{
	struct warns wr = { 0 };
	struct ops_session *s;
	struct cg c;

	cg_open(&c, 64);
	cg_write(&c);
	s = session_must_open(sdir, &wr);
	/* without stack deltas, a call graph session is of version 4 */
	ck_assert_uint_eq(ops_session_info(s)->format_version,
			  OPS_FORMAT_VERSION_DEFLATE);
	cg_check(&c, s);
	ops_session_close(s);
	ck_assert_int_eq(ops_writer_close(c.w, 5), 0);
	s = session_must_open(sdir, &wr);
	cg_check(&c, s);
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
}
END_TEST

static void copy_check(struct ops_session *s, const struct cg *c,
		       const uint8_t *bytes, uint64_t first, uint64_t second)
{
	const struct ops_stack_copy *cp;
	uint8_t got[64], none;
	size_t n;

	cp = ops_session_stack_copies(s, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(cp[0].ctx, c->ctx);
	ck_assert_uint_eq(cp[0].stack, c->s_native);
	ck_assert_uint_eq(cp[0].ip, 0x401000);
	ck_assert_uint_eq(cp[0].sp, 0x7ffd0000);
	ck_assert_uint_eq(cp[0].bp, 7);
	ck_assert_uint_eq(cp[0].size, 64);
	ck_assert(ops_stack_copy_read(&cp[0], 0x7ffd0000, got, 64));
	ck_assert_mem_eq(got, bytes, 64);
	/* nothing past its end */
	ck_assert(!ops_stack_copy_read(&cp[0], 0x7ffd0000 + 57, got, 8));
	ck_assert(!ops_stack_copy_read(&cp[0], 0x7ffd0000 - 1, got, 1));
	ck_assert_uint_eq(cp[0].count, first);
	ck_assert_uint_eq(cp[1].size, 0);
	ck_assert(!ops_stack_copy_read(&cp[1], cp[1].sp, &none, 1));
	ck_assert_uint_eq(cp[1].count, second);
}

/* Stack copies: equal ones counted as one, across flushes and the
 * compaction at close; the stack counts are those of a session without
 * copies. */
START_TEST(test_stack_copies)
{
	struct warns wr = { 0 };
	struct ops_session *s;
	uint8_t bytes[64];
	struct cg c;
	struct ops_stack_copy cp = { .ip = 0x401000,
				     .sp = 0x7ffd0000,
				     .bp = 7,
				     .size = 64,
				     .bytes = bytes };
	size_t i;

	for (i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(i * 7);
	cg_open(&c, 64);
	cg_write(&c);
	cp.ctx = c.ctx;
	cp.stack = c.s_native;
	ck_assert_int_eq(ops_writer_stack_copy(c.w, &cp), 0);
	ck_assert_int_eq(ops_writer_stack_copy(c.w, &cp), 0);
	ck_assert_int_eq(ops_writer_flush(c.w), 0);
	ck_assert_int_eq(ops_writer_stack_copy(c.w, &cp), 0);
	cp.size = 0;
	cp.bytes = NULL;
	ck_assert_int_eq(ops_writer_stack_copy(c.w, &cp), 0);
	ck_assert_int_eq(ops_writer_flush(c.w), 0);
	s = session_must_open(sdir, &wr);
	cg_check(&c, s);
	copy_check(s, &c, bytes, 3, 1);
	ops_session_close(s);
	ck_assert_int_eq(ops_writer_close(c.w, 5), 0);
	s = session_must_open(sdir, &wr);
	cg_check(&c, s);
	copy_check(s, &c, bytes, 3, 1);
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
}
END_TEST

/* The bytes of copy I of test_stack_copies_unequal: a loop's copies,
 * one word near sp a counter, the rest the same, sp one of three. */
static void unequal_copy(uint8_t *bytes, size_t size, uint32_t i, uint64_t *sp)
{
	size_t k;

	for (k = 0; k < size; k++)
		bytes[k] = (uint8_t)(k * 13 + k / 256);
	memcpy(bytes + 24, &i, sizeof(i));
	*sp = 0x7ffd0000 - 8 * (i % 3);
}

/* ops_stack_copy_word() against ops_stack_copy_read() at every address
 * from 16 bytes below copy C to 16 above it. */
static void word_check(const struct ops_stack_copy *c)
{
	uint64_t a;

	for (a = c->sp - 16; a < c->sp + c->size + 16; a++) {
		uint64_t want = 0x5a5a5a5a5a5a5a5aull, got = want;
		bool ok = ops_stack_copy_read(c, a, &want, sizeof(want));

		ck_assert_msg(ops_stack_copy_word(c, a, &got) == ok,
			      "sp %#llx, at sp%+lld",
			      (unsigned long long)c->sp,
			      (long long)(a - c->sp));
		ck_assert_msg(got == want,
			      "sp %#llx, at sp%+lld: %#llx, not %#llx",
			      (unsigned long long)c->sp,
			      (long long)(a - c->sp), (unsigned long long)got,
			      (unsigned long long)want);
	}
}

/* Copies that are not equal but share most of their bytes, more of
 * them than the writer's cap would hold whole (17000 of 4 KiB, 66 MiB):
 * every one kept, byte for byte, across the compaction at close; copies
 * that share nothing still stop at the cap, and say how many. */
START_TEST(test_stack_copies_unequal)
{
	enum { N = 17000, SIZE = 4096 };
	struct warns wr = { 0 };
	const struct ops_stack_copy *got;
	struct ops_session *s;
	uint8_t *bytes = malloc(SIZE), *whole = malloc(SIZE);
	struct ops_stack_copy cp = { .ip = 0x401000,
				     .bp = 7,
				     .size = SIZE,
				     .bytes = bytes };
	struct cg c;
	uint32_t i;
	size_t n;

	ck_assert_ptr_nonnull(bytes);
	ck_assert_ptr_nonnull(whole);
	cg_open(&c, 64);
	cg_write(&c);
	cp.ctx = c.ctx;
	cp.stack = c.s_native;
	for (i = 0; i < N; i++) {
		unequal_copy(bytes, SIZE, i, &cp.sp);
		ck_assert_int_eq(ops_writer_stack_copy(c.w, &cp), 0);
		if (i % 4096 == 0)
			ck_assert_int_eq(ops_writer_flush(c.w), 0);
	}
	ck_assert_uint_eq(ops_writer_copies_dropped(c.w), 0);
	ck_assert_int_eq(ops_writer_close(c.w, 5), 0);
	s = session_must_open(sdir, &wr);
	got = ops_session_stack_copies(s, &n);
	ck_assert_uint_eq(n, N);
	for (i = 0; i < N; i++) {
		unequal_copy(bytes, SIZE, i, &cp.sp);
		ck_assert_uint_eq(got[i].sp, cp.sp);
		ck_assert_uint_eq(got[i].size, SIZE);
		ck_assert_uint_eq(got[i].count, 1);
		ck_assert(
			ops_stack_copy_read(&got[i], got[i].sp, whole, SIZE));
		ck_assert_mem_eq(whole, bytes, SIZE);
	}
	/* the reader keeps each distinct piece once: copies 0 and 3 (the
	 * same sp) differ only in their first piece, which holds the
	 * counter */
	ck_assert_uint_eq(got[0].sp, got[3].sp);
	ck_assert_ptr_eq(got[0].piece_base, got[3].piece_base);
	ck_assert_uint_ne(got[0].piece_ids[0], got[3].piece_ids[0]);
	for (i = 1; i < SIZE / OPS_STACK_COPY_PIECE; i++)
		ck_assert_uint_eq(got[0].piece_ids[i], got[3].piece_ids[i]);
	/* a word read inline is the word read through the library, at any
	 * address in and around pieces of every first length (sp 0, 8 and
	 * 16 bytes below a piece's start), and of a copy kept whole */
	for (i = 0; i < 4; i++)
		word_check(i < 3 ? &got[i] : &cp);
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);

	/* nothing shared: the cap */
	cg_open(&c, 64);
	cg_write(&c);
	cp.ctx = c.ctx;
	cp.stack = c.s_native;
	cp.sp = 0x7ffd0000;
	for (i = 0; i < N; i++) {
		for (n = 0; n < SIZE; n += sizeof(i)) {
			uint32_t v = i * 2654435761u + (uint32_t)n * 40503u;

			memcpy(bytes + n, &v, sizeof(v));
		}
		ck_assert_int_eq(ops_writer_stack_copy(c.w, &cp), 0);
		if (ops_writer_copies_dropped(c.w))
			break;
	}
	/* 64 MiB: 16384 copies of 4 KiB at most, their pieces' ids aside */
	ck_assert_uint_eq(ops_writer_copies_dropped(c.w), 1);
	ck_assert_uint_gt(i, 15000);
	ck_assert_uint_lt(i, 16384);
	ops_writer_free(c.w);
	free(bytes);
	free(whole);
}
END_TEST

static void pmap_check(struct ops_session *s, const struct cg *c)
{
	const struct ops_process_map *m;
	size_t n;

	m = ops_session_process_maps(s, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(m[0].tgid, 4242);
	ck_assert_uint_eq(m[0].app, c->app);
	ck_assert_uint_eq(m[0].image, c->app);
	ck_assert_uint_eq(m[0].start, 0x401000);
	ck_assert_uint_eq(m[0].len, 0x2000);
	ck_assert_uint_eq(m[0].pgoff, 0x1000);
	ck_assert_uint_eq(m[1].image, c->libc);
	ck_assert_uint_eq(m[1].start, 0x7f0000026000ull);
}

/* Process mappings: each once however often given, across flushes and
 * the compaction at close; a bad one refused. */
START_TEST(test_process_maps)
{
	struct ops_process_map m = { .tgid = 4242,
				     .start = 0x401000,
				     .len = 0x2000,
				     .pgoff = 0x1000 };
	struct warns wr = { 0 };
	struct ops_session *s;
	struct cg c;

	cg_open(&c, 64);
	cg_write(&c);
	m.app = m.image = c.app;
	ck_assert_int_eq(ops_writer_process_map(c.w, &m), 0);
	ck_assert_int_eq(ops_writer_process_map(c.w, &m), 0);
	ck_assert_int_eq(ops_writer_flush(c.w), 0);
	ck_assert_int_eq(ops_writer_process_map(c.w, &m), 0);
	m.image = c.libc;
	m.start = 0x7f0000026000ull;
	m.pgoff = 0x26000;
	ck_assert_int_eq(ops_writer_process_map(c.w, &m), 0);
	ck_assert_int_eq(ops_writer_flush(c.w), 0);
	s = session_must_open(sdir, &wr);
	pmap_check(s, &c);
	ops_session_close(s);
	m.len = 0;
	ck_assert_int_eq(ops_writer_process_map(c.w, &m), -EINVAL);
	ck_assert_int_eq(ops_writer_close(c.w, 5), 0);
	s = session_must_open(sdir, &wr);
	pmap_check(s, &c);
	cg_check(&c, s);
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
}
END_TEST

START_TEST(test_stack_copy_refused)
{
	struct ops_stack_copy cp = { .size = OPS_STACK_COPY_MAX + 1 };
	uint8_t b[1] = { 0 };
	struct cg c;

	cg_open(&c, 64);
	cg_write(&c);
	cp.ctx = c.ctx;
	cp.stack = c.s_native;
	cp.bytes = b;
	ck_assert_int_eq(ops_writer_stack_copy(c.w, &cp), -EINVAL);
	ops_writer_free(c.w);
}
END_TEST

/* A stack sample's definition reaches samples.hist before the block of
 * anon.samples that names it, even when the block is written because
 * its buffer filled, between flushes. */
START_TEST(test_definitions_first)
{
	struct ops_frame f[2] = { { OPS_FRAME_ANON, 0, 0 },
				  { OPS_FRAME_IMAGE, 0, 0x10 } };
	struct ops_stack st = { f, 2, 0, 0 };
	const struct ops_anon_stack_sample *a;
	struct warns wr = { 0 };
	struct ops_session *s;
	uint32_t i, id;
	size_t n;
	struct cg c;

	cg_open(&c, 127);
	/* a record is two bytes at least: the buffer fills */
	for (i = 0; i < OPS_ANON_BLOCK_BYTES; i++) {
		f[0].addr = 0x7f0000000000ull + i * 16;
		ck_assert_int_eq(ops_writer_stack(c.w, &st, &id), 0);
		ck_assert_int_eq(ops_writer_anon_stack(c.w, c.proc, i, id, 43),
				 0);
	}
	/* no flush: what is on disk is what full buffers wrote */
	s = session_must_open(sdir, &wr);
	ck_assert_int_eq(ops_session_anon_stacks(s, 0, &a, &n), 0);
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_lt(n, OPS_ANON_BLOCK_BYTES);
	for (i = 0; i < n; i++)
		ck_assert_ptr_nonnull(ops_session_stack(s, a[i].stack));
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
	ops_writer_free(c.w);
}
END_TEST

/* Without call graphs: version 1 everywhere, no stack, and the writer
 * refuses stacks. */
START_TEST(test_flat_is_version_1)
{
	struct ops_session_info info = info_example();
	struct ops_stack st = { native, 1, 0, 0 };
	struct ops_image img = { .path = "/usr/bin/app" };
	struct ops_writer *w;
	struct warns wr = { 0 };
	struct ops_session *s;
	const char *files[] = { hist, anon };
	uint8_t *buf;
	size_t len, n;
	uint32_t id;
	char *text;
	int i;

	ck_assert_int_eq(ops_writer_open(&w, sdir, &info), 0);
	ck_assert_int_eq(ops_writer_image(w, &img, &id), 0);
	ck_assert_int_eq(ops_writer_stack(w, &st, &id), -EINVAL);
	ck_assert_int_eq(ops_writer_close(w, 5), 0);
	for (i = 0; i < 2; i++) {
		buf = file_read(files[i], &len);
		ck_assert_uint_ge(len, 16);
		ck_assert_uint_eq(ops_le32_load(buf + 8), 1);
		free(buf);
	}
	text = file_read(meta, &len);
	ck_assert_int_eq(strncmp(text, "opjit-session 1\n", 16), 0);
	ck_assert_ptr_null(memmem(text, len, "callgraph", 9));
	free(text);
	s = session_must_open(sdir, &wr);
	ck_assert_uint_eq(ops_session_info(s)->format_version, 1);
	ck_assert_uint_eq(ops_session_info(s)->callgraph_depth, 0);
	ck_assert_uint_eq(ops_session_nr_stacks(s), 0);
	ops_session_stack_hist(s, &n);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
}
END_TEST

/* The writer refuses what would not read back. */
START_TEST(test_writer_refuses)
{
	struct ops_frame bad_image[] = { { OPS_FRAME_IMAGE, 9, 0 } };
	struct ops_frame bad_kind[] = { { 7, 0, 0 } };
	struct ops_stack st = { native, 0, 0, 0 };
	uint32_t id;
	struct cg c;

	cg_open(&c, 127);
	ck_assert_int_eq(ops_writer_stack(c.w, &st, &id), -EINVAL);
	st.nr_frames = 2;
	st.nr_kernel = 3;
	ck_assert_int_eq(ops_writer_stack(c.w, &st, &id), -EINVAL);
	st = (struct ops_stack){ bad_image, 1, 0, 0 };
	ck_assert_int_eq(ops_writer_stack(c.w, &st, &id), -EINVAL);
	st = (struct ops_stack){ bad_kind, 1, 0, 0 };
	ck_assert_int_eq(ops_writer_stack(c.w, &st, &id), -EINVAL);
	st = (struct ops_stack){ native, OPS_STACK_MAX_FRAMES + 1, 0, 0 };
	ck_assert_int_eq(ops_writer_stack(c.w, &st, &id), -EINVAL);
	ck_assert_int_eq(ops_writer_stack_add(c.w, c.ctx, 0, 1), -EINVAL);
	ck_assert_int_eq(ops_writer_anon_stack(c.w, c.proc, 1, 0, 1), -EINVAL);
	ck_assert_ptr_nonnull(strstr(ops_writer_error(c.w), "unknown stack"));
	ops_writer_free(c.w);
}
END_TEST

/* The offset of the first block of TYPE in a container file. */
static size_t block_of(const uint8_t *buf, size_t len, uint16_t type)
{
	size_t off = OPS_FILE_HEADER_SIZE;

	while (off + OPS_BLOCK_HEADER_SIZE <= len) {
		if (ops_le16_load(buf + off + 4) == type)
			return off;
		off += OPS_BLOCK_HEADER_SIZE + ops_le32_load(buf + off + 8);
	}
	ck_abort_msg("no block of type %u", type);
	return 0;
}

static void fix_crc(uint8_t *buf, size_t off)
{
	uint32_t len = ops_le32_load(buf + off + 8);

	ops_le32_store(buf + off + 12,
		       oputil_crc32c(0, buf + off + OPS_BLOCK_HEADER_SIZE,
				     len));
}

static void check_one_warning(const struct warns *w, const char *file,
			      const char *reason)
{
	ck_assert_int_eq(w->n, 1);
	ck_assert_msg(!strncmp(w->last, file, strlen(file)) &&
			      strstr(w->last, reason),
		      "warning '%s' is not about %s: %s", w->last, file,
		      reason);
}

/* A stack record cut short, with a good checksum: the block is dropped
 * with one warning, the flat histogram before it reads. */
START_TEST(test_truncated_stack)
{
	struct warns wr = { 0 };
	struct ops_session *s;
	uint8_t *buf;
	size_t len, off, n, end;
	uint32_t plen;
	struct cg c;

	cg_open(&c, 64);
	ck_assert_int_eq(ops_writer_hist_add(c.w, c.ctx, 0x1234, 7), 0);
	cg_write(&c);
	ck_assert_int_eq(ops_writer_close(c.w, 5), 0);
	buf = file_read(hist, &len);
	off = block_of(buf, len, OPS_HIST_STACKS);
	/* the block loses its last byte: its last record runs out */
	plen = ops_le32_load(buf + off + 8);
	end = off + OPS_BLOCK_HEADER_SIZE + plen;
	memmove(buf + end - 1, buf + end, len - end);
	ops_le32_store(buf + off + 8, plen - 1);
	fix_crc(buf, off);
	file_write(hist, buf, len - 1);
	free(buf);
	s = session_must_open(sdir, &wr);
	check_one_warning(&wr, hist, "bad stack record");
	ck_assert_uint_eq(ops_session_nr_stacks(s), 0);
	ops_session_hist(s, &n);
	ck_assert_uint_eq(n, 1);
	ops_session_stack_hist(s, &n);
	ck_assert_uint_eq(n, 0);
	ops_session_close(s);
}
END_TEST

/* A stack table whose bytes changed: the checksum says so. */
START_TEST(test_corrupt_stack_table)
{
	struct warns wr = { 0 };
	struct ops_session *s;
	uint8_t *buf;
	size_t len, off;
	struct cg c;

	cg_open(&c, 64);
	cg_write(&c);
	ck_assert_int_eq(ops_writer_close(c.w, 5), 0);
	buf = file_read(hist, &len);
	off = block_of(buf, len, OPS_HIST_STACKS);
	buf[off + OPS_BLOCK_HEADER_SIZE + 5] ^= 0x40;
	file_write(hist, buf, len);
	free(buf);
	s = session_must_open(sdir, &wr);
	check_one_warning(&wr, hist, "bad checksum");
	ck_assert_uint_eq(ops_session_nr_stacks(s), 0);
	ops_session_close(s);
}
END_TEST

/* Anonymous stack samples whose stacks were lost with samples.hist:
 * left out with one warning naming anon.samples, the flat samples and
 * other processes' data read. */
START_TEST(test_stack_id_without_entry)
{
	const struct ops_anon_stack_sample *a;
	const struct ops_anon_sample *flat;
	struct warns wr = { 0 };
	struct ops_session *s;
	uint8_t *buf;
	size_t len, n;
	struct cg c;

	cg_open(&c, 64);
	ck_assert_int_eq(
		ops_writer_anon(c.w, c.proc, 1, 0x7f0000001000ull, 43), 0);
	cg_write(&c);
	ck_assert_int_eq(ops_writer_close(c.w, 5), 0);
	/* samples.hist cut back to its first block: no stack defined */
	buf = file_read(hist, &len);
	len = OPS_FILE_HEADER_SIZE + OPS_BLOCK_HEADER_SIZE +
	      ops_le32_load(buf + OPS_FILE_HEADER_SIZE + 8);
	file_write(hist, buf, len);
	free(buf);
	s = session_must_open(sdir, &wr);
	ck_assert_int_eq(wr.n, 0);
	ck_assert_uint_eq(ops_session_nr_stacks(s), 0);
	ck_assert_int_eq(ops_session_anon_stacks(s, 0, &a, &n), 0);
	ck_assert_uint_eq(n, 0);
	check_one_warning(&wr, anon, "with no entry");
	ck_assert_int_eq(ops_session_anon(s, 0, &flat, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(wr.n, 1);
	ops_session_close(s);
}
END_TEST

/* Make the container file PATH say version V: what it said before. */
static uint32_t file_version_set(const char *path, uint32_t v)
{
	size_t len;
	uint8_t *buf = file_read(path, &len);
	uint32_t was = ops_le32_load(buf + 8);

	ops_le32_store(buf + 8, v);
	file_write(path, buf, len);
	free(buf);
	return was;
}

/* Make session.meta's first line say version V (one digit). */
static void meta_version_set(unsigned v)
{
	size_t len;
	char *buf = file_read(meta, &len);

	buf[14] = (char)('0' + v);
	file_write(meta, buf, len);
	free(buf);
}

/* A version 1 session, as written before call graphs, reads with no
 * stacks and no warning. */
START_TEST(test_version_1_reads)
{
	struct warns wr = { 0 };
	struct ops_session *s;
	size_t n;
	struct cg c;

	cg_open(&c, 64);
	ck_assert_int_eq(ops_writer_hist_add(c.w, c.ctx, 0x1234, 7), 0);
	ck_assert_int_eq(ops_writer_close(c.w, 5), 0);
	/* a session with no stack block is the version 1 format */
	ck_assert_uint_eq(file_version_set(hist, 1),
			  OPS_FORMAT_VERSION_DEFLATE);
	meta_version_set(1);
	s = session_must_open(sdir, &wr);
	ck_assert_int_eq(wr.n, 0);
	ck_assert_uint_eq(ops_session_info(s)->format_version, 1);
	ops_session_hist(s, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(ops_session_nr_stacks(s), 0);
	ops_session_close(s);
}
END_TEST

/* BUF's blocks as VERSION (2 or 3) wrote them, into a new buffer: no
 * block compressed (version 4 compresses the stack table), and with
 * version 2 the STACKS blocks' parents as ids rather than the distance
 * back.  *DEFLATED: how many blocks were compressed. */
static uint8_t *as_version(const uint8_t *buf, size_t len, uint32_t version,
			   size_t *olen, unsigned *deflated)
{
	uint8_t *out = malloc(OPS_FILE_HEADER_SIZE), *z = NULL;
	size_t off = OPS_FILE_HEADER_SIZE, zcap = 0,
	       cap = OPS_FILE_HEADER_SIZE;

	*deflated = 0;
	ck_assert_ptr_nonnull(out);
	memcpy(out, buf, OPS_FILE_HEADER_SIZE);
	*olen = OPS_FILE_HEADER_SIZE;
	while (off + OPS_BLOCK_HEADER_SIZE <= len) {
		uint32_t plen = ops_le32_load(buf + off + 8);
		const uint8_t *pay = buf + off + OPS_BLOCK_HEADER_SIZE;
		size_t n = plen;
		uint8_t *ohead, *q;

		if (ops_le16_load(buf + off + 6) & OPS_BLOCK_DEFLATED) {
			ck_assert_ptr_null(
				ops_block_inflate(pay, plen, &z, &zcap, &n));
			pay = z;
			(*deflated)++;
		}
		/* ids take no more room than distances, plus a varint */
		cap = *olen + OPS_BLOCK_HEADER_SIZE + 2 * n + 32;
		out = realloc(out, cap);
		ck_assert_ptr_nonnull(out);
		ohead = out + *olen;
		q = ohead + OPS_BLOCK_HEADER_SIZE;
		memcpy(ohead, buf + off, OPS_BLOCK_HEADER_SIZE);
		ohead[6] = ohead[7] = 0; /* no flags */
		if (version == OPS_FORMAT_VERSION_STACK_IDS &&
		    ops_le16_load(buf + off + 4) == OPS_HIST_STACKS) {
			struct ops_cur c;
			uint64_t first, nr, k, r, j;

			ops_cur_init(&c, pay, n);
			first = ops_cur_varint(&c);
			nr = ops_cur_varint(&c);
			q += ops_varint_encode(q, first);
			q += ops_varint_encode(q, nr);
			for (k = 0; k < nr; k++) {
				r = ops_cur_varint(&c);
				q += ops_varint_encode(q, r ? first + k - r + 1
							    : 0);
				/* flags, tag, value */
				for (j = 0; j < 3; j++)
					q += ops_varint_encode(
						q, ops_cur_varint(&c));
			}
			ck_assert(c.ok && !ops_cur_left(&c));
		} else {
			memcpy(q, pay, n);
			q += n;
		}
		ops_le32_store(ohead + 8,
			       (uint32_t)(q - ohead - OPS_BLOCK_HEADER_SIZE));
		fix_crc(ohead, 0);
		*olen = (size_t)(q - out);
		off += OPS_BLOCK_HEADER_SIZE + plen;
	}
	ops_le32_store(out + 8, version);
	free(z);
	return out;
}

/* Rewrite the session of C (closed) as VERSION wrote it; how many blocks
 * of samples.hist were compressed. */
static unsigned session_as_version(uint32_t version)
{
	uint8_t *buf, *old;
	size_t len, olen;
	unsigned deflated;

	buf = file_read(hist, &len);
	ck_assert_uint_eq(ops_le32_load(buf + 8), OPS_FORMAT_VERSION_DEFLATE);
	old = as_version(buf, len, version, &olen, &deflated);
	file_write(hist, old, olen);
	free(buf);
	free(old);
	file_version_set(anon, version);
	meta_version_set(version);
	return deflated;
}

/* More stacks than cg_write's, so that the stack table is worth
 * compressing: 2000 of 20 frames, counted. */
static void cg_write_many(struct cg *c)
{
	struct ops_frame f[20];
	struct ops_stack st = { f, 20, 0, 0 };
	uint32_t k, i, id;

	for (k = 0; k < 2000; k++) {
		for (i = 0; i < 20; i++)
			f[i] = (struct ops_frame){ OPS_FRAME_IMAGE, c->app,
						   0x1000 + i * 64 +
							   (i ? 0 : k * 4) };
		ck_assert_int_eq(ops_writer_stack(c->w, &st, &id), 0);
		ck_assert_int_eq(ops_writer_stack_add(c->w, c->ctx, id, 1), 0);
	}
}

/* Version 4 compresses the stack table; sessions of version 3, and of
 * 2 with parents by id, read as they did: the same stacks. */
START_TEST(test_older_versions_read)
{
	uint32_t versions[] = { 3, OPS_FORMAT_VERSION_STACK_IDS };
	size_t v;

	for (v = 0; v < 2; v++) {
		struct warns wr = { 0 };
		struct ops_session *s;
		struct ops_stack *snap;
		struct cg c;
		uint32_t n, id;

		cg_open(&c, 64);
		cg_write(&c);
		cg_write_many(&c);
		ck_assert_int_eq(ops_writer_close(c.w, 5), 0);
		s = session_must_open(sdir, &wr);
		n = ops_session_nr_stacks(s);
		ck_assert_uint_gt(n, 2000);
		snap = calloc(n, sizeof(*snap));
		ck_assert_ptr_nonnull(snap);
		for (id = 0; id < n; id++) {
			const struct ops_stack *st = ops_session_stack(s, id);

			snap[id] = *st;
			snap[id].frames =
				malloc(st->nr_frames * sizeof(*st->frames));
			ck_assert_ptr_nonnull(snap[id].frames);
			memcpy((void *)snap[id].frames, st->frames,
			       st->nr_frames * sizeof(*st->frames));
		}
		ops_session_close(s);

		ck_assert_uint_gt(session_as_version(versions[v]), 0);
		s = session_must_open(sdir, &wr);
		ck_assert_int_eq(wr.n, 0);
		ck_assert_uint_eq(ops_session_info(s)->format_version,
				  versions[v]);
		ck_assert_uint_eq(ops_session_nr_stacks(s), n);
		for (id = 0; id < n; id++) {
			frames_eq(ops_session_stack(s, id), snap[id].frames,
				  snap[id].nr_frames, snap[id].nr_kernel,
				  snap[id].flags);
			free((void *)snap[id].frames);
		}
		free(snap);
		ops_session_close(s);
		session_teardown();
		session_setup();
	}
}
END_TEST

/* A compressed block whose stream is damage (checksum good): one
 * warning at that block, the flat counts before it kept. */
START_TEST(test_bad_compressed_block)
{
	struct warns wr = { 0 };
	struct ops_session *s;
	size_t len, off = OPS_FILE_HEADER_SIZE, bad = 0;
	uint8_t *buf;
	struct cg c;

	cg_open(&c, 64);
	cg_write(&c);
	cg_write_many(&c);
	ck_assert_int_eq(ops_writer_close(c.w, 5), 0);
	buf = file_read(hist, &len);
	while (off + OPS_BLOCK_HEADER_SIZE <= len) {
		uint32_t plen = ops_le32_load(buf + off + 8);

		if (ops_le16_load(buf + off + 6) & OPS_BLOCK_DEFLATED) {
			struct ops_cur cur;

			/* the first deflate block's type made the reserved
			 * one: past the length and the zlib header */
			ops_cur_init(&cur, buf + off + OPS_BLOCK_HEADER_SIZE,
				     plen);
			ops_cur_varint(&cur);
			ck_assert_uint_gt(ops_cur_left(&cur), 2);
			bad = off;
			buf[cur.p + 2 - buf] |= 0x06;
			fix_crc(buf, off);
			break;
		}
		off += OPS_BLOCK_HEADER_SIZE + plen;
	}
	ck_assert_uint_gt(bad, 0);
	file_write(hist, buf, len);
	free(buf);
	s = session_must_open(sdir, &wr);
	check_one_warning(&wr, hist, "bad compressed payload");
	ck_assert_uint_gt(ops_session_nr_contexts(s), 0);
	ops_session_close(s);
}
END_TEST

/* The archived map of a process, read back through the reader as a
 * handler gets it; NULL when it has none.  NAME (64 bytes) the copy's
 * base name. */
static char *archived_map(const char *dir, uint32_t proc, char *name)
{
	const char *const *paths;
	struct ops_session *s;
	struct warns wr = { 0 };
	char why[256], *text = NULL;
	struct stat st;
	int fd;

	s = session_must_open(dir, &wr);
	if (ops_session_archived_maps(s, proc, &paths) == 1) {
		snprintf(name, 64, "%s", strrchr(paths[0], '/') + 1);
		fd = ops_archived_map_fd(open(paths[0], O_RDONLY), paths[0],
					 why, sizeof(why));
		ck_assert_msg(fd >= 0, "%s", why);
		ck_assert_int_eq(fstat(fd, &st), 0);
		text = calloc(1, (size_t)st.st_size + 1);
		ck_assert_int_eq(read(fd, text, (size_t)st.st_size),
				 st.st_size);
		close(fd);
	}
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
	return text;
}

/*
 * A perf map is archived plain and, at a clean stop, keeps only the
 * entries a report looks up: those holding a sample, a stack's JIT frame,
 * or a caller's return address - 1; the first entry (a reader
 * recognises the map by it); and every line that is not an entry.  A
 * recorder that never stops leaves the whole plain copy.
 */
START_TEST(test_archived_perf_map_trimmed)
{
	static const char map[] =
		"7f0000000000 10 first_entry\n"
		"7f0000001000 20 jit_leaf_frame\n"
		"7f00000007f0 10 caller_whose_call_ends_it\n"
		"7f0000002000 40 sampled\n"
		"7f0000003000 40 never_ran\n"
		"a line that is not an entry\n"
		"0x7F0000004000 0x10 NEVER_RAN_EITHER\n"
		"7f0000002008 10 newer_code_over_the_sample\n"
		"7f0000005000 0 empty\n"
		"7f0000006000 10 last_line_never_ran";
	static const char kept[] =
		"7f0000000000 10 first_entry\n"
		"7f0000001000 20 jit_leaf_frame\n"
		"7f00000007f0 10 caller_whose_call_ends_it\n"
		"7f0000002000 40 sampled\n"
		"a line that is not an entry\n"
		"7f0000002008 10 newer_code_over_the_sample\n";
	struct ops_stack st = { jit, 3, 0, 0 };
	char *src, *text, name[64];
	uint32_t sid;
	struct cg c;

	for (int stop = 1; stop >= 0; stop--) {
		src = tmp_path(tmp, "perf-42.map");
		file_write(src, map, strlen(map));
		cg_open(&c, 64);
		ck_assert_int_eq(ops_writer_stack(c.w, &st, &sid), 0);
		ck_assert_int_eq(
			ops_writer_anon_stack(c.w, c.proc, 10, sid, 42), 0);
		ck_assert_int_eq(ops_writer_anon(c.w, c.proc, 11,
						 0x7f0000002010ull, 42),
				 0);
		ck_assert_int_eq(
			ops_writer_archive_map(c.w, c.proc, src, 1 << 20), 0);
		if (stop) {
			ck_assert_int_eq(ops_writer_close(c.w, 20), 0);
		} else {
			ck_assert_int_eq(ops_writer_flush(c.w), 0);
			ops_writer_free(c.w); /* killed */
		}
		text = archived_map(sdir, c.proc, name);
		ck_assert_ptr_nonnull(text);
		ck_assert_str_eq(name,
				 stop ? "perf-42.map.gz" : "perf-42.map");
		ck_assert_str_eq(text, stop ? kept : map);
		free(text);
		free(src);
		session_teardown();
		session_setup();
	}
}
END_TEST

/*
 * A recorder that gives every JIT sample with its stack
 * (ops_writer_anon_in_stacks()): the trim takes the samples' addresses
 * from the stacks' leaves and keeps the entries it keeps without the
 * promise; it does not read the samples back, so a sample that broke
 * the promise (no stack's leaf) would lose its entry.
 */
START_TEST(test_archived_perf_map_trimmed_by_stacks)
{
	static const char map[] = "7f0000000000 10 first_entry\n"
				  "7f0000001000 20 jit_leaf_frame\n"
				  "7f00000007f0 10 caller_whose_call_ends_it\n"
				  "7f0000002000 40 sampled_not_a_leaf\n"
				  "7f0000003000 40 never_ran\n";
	static const char kept[] =
		"7f0000000000 10 first_entry\n"
		"7f0000001000 20 jit_leaf_frame\n"
		"7f00000007f0 10 caller_whose_call_ends_it\n";
	struct ops_stack st = { jit, 3, 0, 0 };
	char *src = tmp_path(tmp, "perf-42.map"), *text, name[64];
	uint32_t sid;
	struct cg c;

	file_write(src, map, strlen(map));
	cg_open(&c, 64);
	ops_writer_anon_in_stacks(c.w);
	ck_assert_int_eq(ops_writer_stack(c.w, &st, &sid), 0);
	/* the promise kept: the sample's address is its stack's leaf */
	ck_assert_int_eq(ops_writer_anon(c.w, c.proc, 10, jit[0].addr, 42), 0);
	ck_assert_int_eq(ops_writer_anon_stack(c.w, c.proc, 10, sid, 42), 0);
	/* and broken */
	ck_assert_int_eq(
		ops_writer_anon(c.w, c.proc, 11, 0x7f0000002010ull, 42), 0);
	ck_assert_int_eq(ops_writer_archive_map(c.w, c.proc, src, 1 << 20), 0);
	ck_assert_int_eq(ops_writer_close(c.w, 20), 0);
	text = archived_map(sdir, c.proc, name);
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(name, "perf-42.map.gz");
	ck_assert_str_eq(text, kept);
	free(text);
	free(src);
}
END_TEST

/* A recorder stopped between writing the trimmed copy and removing the
 * plain one left both: the trimmed one is the copy. */
START_TEST(test_archived_map_plain_and_trimmed)
{
	char *maps, *plain, *gz, *text, name[64];
	struct cg c;

	cg_open(&c, 64);
	ck_assert_int_eq(ops_writer_close(c.w, 20), 0);
	maps = tmp_path(sdir, "maps");
	ck_assert_int_eq(mkdir(maps, 0755), 0);
	free(maps);
	maps = tmp_path(sdir, "maps/0");
	ck_assert_int_eq(mkdir(maps, 0755), 0);
	plain = tmp_path(maps, "perf-42.map");
	gz = tmp_path(maps, "perf-42.map.gz");
	file_write(plain, "7f00 10 whole\n7f10 10 other\n", 28);
	/* "7f00 10 whole\n", gzip-compressed */
	file_write(gz,
		   "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x33\x4f\x33\x30"
		   "\x50\x30\x34\x50\x28\xcf\xc8\xcf\x49\xe5\x02\x00\x90\xf0"
		   "\x20\xd4\x0e\x00\x00\x00",
		   34);
	text = archived_map(sdir, c.proc, name);
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(name, "perf-42.map.gz");
	ck_assert_str_eq(text, "7f00 10 whole\n");
	free(text);
	free(plain);
	free(gz);
	free(maps);
}
END_TEST

/* The pieces tests' copies: A, 600 bytes at an sp 40 bytes below a
 * multiple of 128 (pieces of 40, 128, 128, 128, 128 and 48 bytes); B,
 * A with one word of its third piece changed; C, 300 bytes of its own
 * at another sp (112, 128, 60).  Ten distinct pieces. */
enum { PIECES_A = 600, PIECES_C = 300, PIECES_DISTINCT = 10 };

struct piece_copies {
	uint8_t a[PIECES_A], b[PIECES_A], c[PIECES_C];
	struct ops_stack_copy ca, cb, cc;
};

static void piece_copies_make(struct piece_copies *p, const struct cg *c)
{
	uint32_t k;

	for (k = 0; k < PIECES_A; k++)
		p->a[k] = (uint8_t)((k * 2654435761u) >> 13);
	memcpy(p->b, p->a, PIECES_A);
	p->b[40 + 128 + 8] ^= 0x5a;
	for (k = 0; k < PIECES_C; k++)
		p->c[k] = (uint8_t)((k * 40503u + 77) >> 5);
	p->ca = (struct ops_stack_copy){ .ctx = c->ctx,
					 .stack = c->s_native,
					 .ip = 0x401000,
					 .sp = 0x7ffd0000 - 40,
					 .bp = 7,
					 .size = PIECES_A,
					 .bytes = p->a };
	p->cb = p->ca;
	p->cb.bytes = p->b;
	p->cc = p->ca;
	p->cc.ctx = c->kctx;
	p->cc.stack = c->s_kernel;
	p->cc.sp = 0x7ffe0010;
	p->cc.size = PIECES_C;
	p->cc.bytes = p->c;
}

/* A (twice) and B in slice 0, a flush, then C and A in slice 1. */
static void piece_copies_write(struct cg *c, struct piece_copies *p)
{
	uint64_t t0 = info_example().start_ns, end;

	piece_copies_make(p, c);
	ck_assert_int_eq(ops_writer_time(c->w, t0 + 50 * 1000000ull, &end), 0);
	ck_assert_int_eq(ops_writer_stack_copy(c->w, &p->ca), 0);
	ck_assert_int_eq(ops_writer_stack_copy(c->w, &p->ca), 0);
	ck_assert_int_eq(ops_writer_stack_copy(c->w, &p->cb), 0);
	ck_assert_int_eq(ops_writer_flush(c->w), 0);
	ck_assert_int_eq(ops_writer_time(c->w, t0 + 150 * 1000000ull, &end),
			 0);
	ck_assert_int_eq(ops_writer_stack_copy(c->w, &p->cc), 0);
	ck_assert_int_eq(ops_writer_stack_copy(c->w, &p->ca), 0);
	ck_assert_int_eq(ops_writer_flush(c->w), 0);
}

/* Copy GOT is WANT, bytes and all, counted COUNT times. */
static void copy_eq(const struct ops_stack_copy *got,
		    const struct ops_stack_copy *want, uint64_t count)
{
	uint8_t whole[PIECES_A];

	ck_assert_uint_eq(got->ctx, want->ctx);
	ck_assert_uint_eq(got->stack, want->stack);
	ck_assert_uint_eq(got->ip, want->ip);
	ck_assert_uint_eq(got->sp, want->sp);
	ck_assert_uint_eq(got->bp, want->bp);
	ck_assert_uint_eq(got->size, want->size);
	ck_assert_uint_eq(got->count, count);
	ck_assert(ops_stack_copy_read(got, got->sp, whole, got->size));
	ck_assert_mem_eq(whole, want->bytes, want->size);
}

/* The copies of piece_copies_write read back, each distinct piece once
 * in the reader; the counts those of slice SLICE (0 or 1), or of both
 * (2). */
static void piece_copies_check(struct ops_session *s,
			       const struct piece_copies *p, int slice)
{
	static const uint64_t counts[3][3] = { { 2, 1, 0 },
					       { 1, 0, 1 },
					       { 3, 1, 1 } };
	const struct ops_stack_copy *got;
	size_t n, i;

	got = ops_session_stack_copies(s, &n);
	ck_assert_uint_eq(n, 3);
	copy_eq(&got[0], &p->ca, counts[slice][0]);
	copy_eq(&got[1], &p->cb, counts[slice][1]);
	copy_eq(&got[2], &p->cc, counts[slice][2]);
	/* A and B share every piece but their third */
	ck_assert_ptr_eq(got[0].piece_base, got[1].piece_base);
	for (i = 0; i < 6; i++)
		if (i == 2)
			ck_assert_uint_ne(got[0].piece_ids[i],
					  got[1].piece_ids[i]);
		else
			ck_assert_uint_eq(got[0].piece_ids[i],
					  got[1].piece_ids[i]);
}

/* The session's stacks, and the copies of piece_copies_write whole and
 * in each of its two slices. */
static void piece_copies_check_all(const struct cg *c,
				   const struct piece_copies *p,
				   struct warns *wr)
{
	struct ops_session *s = session_must_open(sdir, wr);

	cg_check(c, s);
	piece_copies_check(s, p, 2);
	ops_session_close(s);
	s = session_must_open(sdir, wr);
	ck_assert_int_eq(ops_session_set_window(s, 0, 100 * 1000000ull), 0);
	piece_copies_check(s, p, 0);
	ops_session_close(s);
	s = session_must_open(sdir, wr);
	ck_assert_int_eq(ops_session_set_window(s, 100 * 1000000ull,
						200 * 1000000ull),
			 0);
	piece_copies_check(s, p, 1);
	ops_session_close(s);
}

/* The payload of the block at OFF of BUF, inflated when it is deflated,
 * malloc'ed; its length in *N. */
static uint8_t *block_payload(const uint8_t *buf, size_t off, size_t *n)
{
	uint32_t plen = ops_le32_load(buf + off + 8);
	const uint8_t *pay = buf + off + OPS_BLOCK_HEADER_SIZE;
	uint8_t *z = NULL;
	size_t zcap = 0;

	*n = plen;
	if (ops_le16_load(buf + off + 6) & OPS_BLOCK_DEFLATED) {
		ck_assert_ptr_null(ops_block_inflate(pay, plen, &z, &zcap, n));
		return z;
	}
	z = malloc(plen ? plen : 1);
	ck_assert_ptr_nonnull(z);
	memcpy(z, pay, plen);
	return z;
}

/* The blocks of TYPE in the container file BUF, and in *RECORDS the
 * sum of their second varints (a definition block's n). */
static size_t blocks_of(const uint8_t *buf, size_t len, uint16_t type,
			uint64_t *records)
{
	size_t off = OPS_FILE_HEADER_SIZE, nr = 0, n;

	*records = 0;
	while (off + OPS_BLOCK_HEADER_SIZE <= len) {
		if (ops_le16_load(buf + off + 4) == type) {
			uint8_t *pay = block_payload(buf, off, &n);
			struct ops_cur c;

			ops_cur_init(&c, pay, n);
			ops_cur_varint(&c);
			*records += ops_cur_varint(&c);
			free(pay);
			nr++;
		}
		off += OPS_BLOCK_HEADER_SIZE + ops_le32_load(buf + off + 8);
	}
	return nr;
}

/* Each distinct piece of the copies is once in the file, whether
 * flushed twice or compacted, and no copy is whole. */
static void pieces_once(bool slices)
{
	uint64_t records;
	uint8_t *buf;
	size_t len;

	buf = file_read(hist, &len);
	ck_assert_uint_gt(blocks_of(buf, len, OPS_HIST_COPY_PIECES, &records),
			  0);
	ck_assert_uint_eq(records, PIECES_DISTINCT);
	blocks_of(buf, len, OPS_HIST_PIECED_COPIES, &records);
	ck_assert_uint_eq(records, 3);
	ck_assert_uint_eq(blocks_of(buf, len, OPS_HIST_STACK_COPIES, &records),
			  0);
	ck_assert_uint_eq(blocks_of(buf, len, OPS_HIST_COPY_COUNTS, &records),
			  0);
	ck_assert_uint_gt(
		blocks_of(buf, len, OPS_HIST_PIECED_COPY_COUNTS, &records), 0);
	ck_assert_uint_eq(blocks_of(buf, len, OPS_HIST_PIECED_COPY_SLICES,
				    &records) > 0,
			  slices);
	free(buf);
}

/* Stack copies that share pieces and copies that do not: each piece
 * once on disk, across two flushes and the compaction at close, and
 * every copy read back byte for byte, with its counts, whole and by time
 * slice. */
START_TEST(test_copy_pieces_roundtrip)
{
	struct warns wr = { 0 };
	struct piece_copies p;
	struct cg c;
	int pass;

	cg_open(&c, 64);
	cg_write(&c);
	piece_copies_write(&c, &p);
	for (pass = 0; pass < 2; pass++) {
		pieces_once(true);
		piece_copies_check_all(&c, &p, &wr);
		if (!pass)
			ck_assert_int_eq(ops_writer_close(c.w, 5), 0);
	}
	ck_assert_int_eq(wr.n, 0);
}
END_TEST

/* The COPY_PIECES and PIECED_COPIES blocks of the container file BUF,
 * headers and all, in file order, into *OUT (malloc'ed); their number. */
static size_t copy_blocks(const uint8_t *buf, size_t len, uint8_t **out,
			  size_t *out_len)
{
	size_t off = OPS_FILE_HEADER_SIZE, nr = 0, n;

	*out = NULL;
	*out_len = 0;
	while (off + OPS_BLOCK_HEADER_SIZE <= len) {
		uint16_t type = ops_le16_load(buf + off + 4);

		n = OPS_BLOCK_HEADER_SIZE + ops_le32_load(buf + off + 8);
		if (type == OPS_HIST_COPY_PIECES ||
		    type == OPS_HIST_PIECED_COPIES) {
			*out = realloc(*out, *out_len + n);
			ck_assert_ptr_nonnull(*out);
			memcpy(*out + *out_len, buf + off, n);
			*out_len += n;
			nr++;
		}
		off += n;
	}
	return nr;
}

/* The compaction at close puts the copies' blocks the flushes wrote
 * back as they were, byte for byte, rather than encoding and deflating
 * every piece again (as much of a short recording's CPU as the flushes
 * took); the copies read back the same. */
START_TEST(test_copy_blocks_kept)
{
	struct warns wr = { 0 };
	struct piece_copies p;
	uint8_t *buf, *before, *after;
	size_t len, nb, na;
	struct cg c;

	cg_open(&c, 64);
	cg_write(&c);
	piece_copies_write(&c, &p);
	buf = file_read(hist, &len);
	/* each flush's pieces, then its copies */
	ck_assert_uint_eq(copy_blocks(buf, len, &before, &nb), 4);
	free(buf);
	ck_assert_int_eq(ops_writer_close(c.w, 5), 0);
	buf = file_read(hist, &len);
	ck_assert_uint_eq(copy_blocks(buf, len, &after, &na), 4);
	ck_assert_uint_eq(na, nb);
	ck_assert_mem_eq(after, before, nb);
	free(buf);
	free(before);
	free(after);
	pieces_once(true);
	piece_copies_check_all(&c, &p, &wr);
	ck_assert_int_eq(wr.n, 0);
}
END_TEST

/* Copies of one stack's memory at shifting sp, and sizes (the writer
 * finds a piece the copy before had at the same address without hashing
 * it): each read back byte for byte, and as many pieces on disk as
 * there are distinct ones, none twice and none lost to a match at the
 * wrong place. */
START_TEST(test_copy_pieces_shifted)
{
	/* sp and size of each copy, over MEM at 0x7ffd0000; the third
	 * changes one byte of memory first */
	static const struct {
		uint32_t at, size;
	} w[] = { { 0, 1024 },	 { 8, 1016 }, { 8, 1016 }, { 136, 600 },
		  { 64, 1000 },	 { 0, 128 },  { 1, 1 },	   { 512, 1536 },
		  { 384, 1152 }, { 0, 2048 }, { 0, 2048 } };
	enum { N = sizeof(w) / sizeof(w[0]), MEM = 2048 };
	static uint8_t mem[N][MEM];
	struct ops_stack_copy want[N];
	const struct ops_stack_copy *got;
	uint8_t pieces[N * 20][128];
	size_t plen[N * 20], np = 0, n, i, j, q;
	struct warns wr = { 0 };
	struct ops_session *s;
	uint64_t records;
	uint8_t *buf;
	size_t len;
	struct cg c;

	cg_open(&c, 64);
	cg_write(&c);
	for (i = 0; i < N; i++) {
		uint64_t sp = 0x7ffd0000 + w[i].at, off, end;

		if (!i)
			for (j = 0; j < MEM; j++)
				mem[0][j] = (uint8_t)((j * 2654435761u) >> 13);
		else
			memcpy(mem[i], mem[i - 1], MEM);
		if (i == 2)
			mem[i][300] ^= 0x5a;
		want[i] =
			(struct ops_stack_copy){ .ctx = c.ctx,
						 .stack = c.s_native,
						 .ip = 0x401000 +
						       (i < N - 1 ? i : i - 1),
						 .sp = sp,
						 .bp = 7,
						 .size = w[i].size,
						 .bytes = mem[i] + w[i].at };
		ck_assert_int_eq(ops_writer_stack_copy(c.w, &want[i]), 0);
		/* the distinct pieces, the slow way */
		for (off = 0; off < w[i].size; off = end) {
			end = ((sp + off) / 128 + 1) * 128 - sp;
			end = end < w[i].size ? end : w[i].size;
			for (q = 0; q < np; q++)
				if (plen[q] == end - off &&
				    !memcmp(pieces[q], want[i].bytes + off,
					    end - off))
					break;
			if (q == np) {
				memcpy(pieces[np], want[i].bytes + off,
				       end - off);
				plen[np++] = end - off;
			}
		}
	}
	ck_assert_int_eq(ops_writer_close(c.w, 5), 0);
	buf = file_read(hist, &len);
	blocks_of(buf, len, OPS_HIST_COPY_PIECES, &records);
	ck_assert_uint_eq(records, np);
	free(buf);
	s = session_must_open(sdir, &wr);
	got = ops_session_stack_copies(s, &n);
	/* the last two are one copy, counted twice */
	ck_assert_uint_eq(n, N - 1);
	for (i = 0; i < N - 1; i++) {
		uint8_t whole[MEM];

		ck_assert_uint_eq(got[i].sp, want[i].sp);
		ck_assert_uint_eq(got[i].size, want[i].size);
		ck_assert_uint_eq(got[i].count, i == N - 2 ? 2 : 1);
		ck_assert(ops_stack_copy_read(&got[i], got[i].sp, whole,
					      got[i].size));
		ck_assert_mem_eq(whole, want[i].bytes, want[i].size);
	}
	ops_session_close(s);
	ck_assert_int_eq(wr.n, 0);
}
END_TEST

/* A compaction while recording (its flushes' records outgrew the
 * table) writes every piece once again, and the flushes after it add
 * only the new ones: the copies read right before and after the close. */
START_TEST(test_copy_pieces_compacted)
{
	struct warns wr = { 0 };
	struct piece_copies p;
	struct ops_session *s;
	uint64_t records;
	uint8_t *buf;
	size_t len;
	uint32_t i, k;
	struct cg c;

	cg_open(&c, 64);
	cg_write(&c);
	piece_copies_make(&p, &c);
	ck_assert_int_eq(ops_writer_stack_copy(c.w, &p.ca), 0);
	ck_assert_int_eq(ops_writer_stack_copy(c.w, &p.ca), 0);
	ck_assert_int_eq(ops_writer_stack_copy(c.w, &p.cb), 0);
	ck_assert_int_eq(ops_writer_flush(c.w), 0);
	/* 300 flushes of 1024 cells: past 4 records a cell and 262144 */
	for (i = 0; i < 300; i++) {
		for (k = 0; k < 1024; k++)
			ck_assert_int_eq(
				ops_writer_hist_add(c.w, c.ctx, k * 4, 1), 0);
		ck_assert_int_eq(ops_writer_flush(c.w), 0);
	}
	buf = file_read(hist, &len);
	ck_assert_uint_lt(blocks_of(buf, len, OPS_HIST_COUNTS, &records), 100);
	free(buf);
	ck_assert_int_eq(ops_writer_stack_copy(c.w, &p.cc), 0);
	ck_assert_int_eq(ops_writer_stack_copy(c.w, &p.ca), 0);
	ck_assert_int_eq(ops_writer_flush(c.w), 0);
	pieces_once(false);
	s = session_must_open(sdir, &wr);
	piece_copies_check(s, &p, 2);
	ops_session_close(s);
	ck_assert_int_eq(ops_writer_close(c.w, 5), 0);
	pieces_once(false);
	s = session_must_open(sdir, &wr);
	piece_copies_check(s, &p, 2);
	ops_session_close(s);
	ck_assert_int_eq(wr.n, 0);
}
END_TEST

/* Write BUF to samples.hist with the block at OFF replaced by PAY (PLEN
 * bytes, not compressed), or left out for PAY NULL. */
static void hist_with_block(const uint8_t *buf, size_t len, size_t off,
			    const uint8_t *pay, size_t plen)
{
	size_t end =
		off + OPS_BLOCK_HEADER_SIZE + ops_le32_load(buf + off + 8);
	size_t olen =
		off + (pay ? OPS_BLOCK_HEADER_SIZE + plen : 0) + (len - end);
	uint8_t *out = malloc(olen);

	ck_assert_ptr_nonnull(out);
	memcpy(out, buf, off);
	if (pay) {
		memcpy(out + off, buf + off, OPS_BLOCK_HEADER_SIZE);
		out[off + 6] = out[off + 7] = 0;
		ops_le32_store(out + off + 8, (uint32_t)plen);
		memcpy(out + off + OPS_BLOCK_HEADER_SIZE, pay, plen);
		fix_crc(out, off);
	}
	memcpy(out + olen - (len - end), buf + end, len - end);
	file_write(hist, out, olen);
	free(out);
}

/* The session as piece_copies_write left it, damaged by DAMAGE: one
 * warning, REASON, at the block damaged; no copy, and the stacks and
 * flat counts before it kept. */
static void pieces_damage_check(const char *reason)
{
	struct warns wr = { 0 };
	struct ops_session *s;
	size_t n;

	s = session_must_open(sdir, &wr);
	check_one_warning(&wr, hist, reason);
	ops_session_stack_copies(s, &n);
	ck_assert_uint_eq(n, 0);
	ck_assert_uint_gt(ops_session_nr_stacks(s), 0);
	ck_assert_uint_gt(ops_session_nr_contexts(s), 0);
	ops_session_close(s);
}

/* Damage to the pieces or to a copy naming them: the block is dropped
 * whole with one line, the file before it read. */
START_TEST(test_copy_pieces_damage)
{
	struct piece_copies p;
	uint8_t *buf, *pay, *bad;
	size_t len, n, off, at, idlen;
	struct ops_cur cur;
	struct cg c;
	int i;

	cg_open(&c, 64);
	cg_write(&c);
	piece_copies_write(&c, &p);
	ck_assert_int_eq(ops_writer_close(c.w, 5), 0);
	buf = file_read(hist, &len);

	/* A's first piece (id 0) named as one not defined, then as one
	 * of 128 bytes (id 1) where its place holds 40 */
	off = block_of(buf, len, OPS_HIST_PIECED_COPIES);
	pay = block_payload(buf, off, &n);
	ops_cur_init(&cur, pay, n);
	for (i = 0; i < 8; i++) /* first_id, n, ctx, stack, ip, sp, bp, size */
		ops_cur_varint(&cur);
	at = (size_t)(cur.p - pay);
	ck_assert_uint_eq(ops_cur_varint(&cur), 0);
	idlen = (size_t)(cur.p - pay) - at;
	bad = malloc(n + 8);
	ck_assert_ptr_nonnull(bad);
	memcpy(bad, pay, at);
	i = (int)ops_varint_encode(bad + at, PIECES_DISTINCT);
	memcpy(bad + at + i, pay + at + idlen, n - at - idlen);
	hist_with_block(buf, len, off, bad, n - idlen + (size_t)i);
	pieces_damage_check("stack copy of an unknown piece");
	i = (int)ops_varint_encode(bad + at, 1);
	memcpy(bad + at + i, pay + at + idlen, n - at - idlen);
	hist_with_block(buf, len, off, bad, n - idlen + (size_t)i);
	pieces_damage_check("bad stack copy record");
	/* cut short: its last record's last piece runs out */
	hist_with_block(buf, len, off, pay, n - 1);
	pieces_damage_check("bad stack copy record");
	free(bad);
	free(pay);

	/* the pieces cut short */
	off = block_of(buf, len, OPS_HIST_COPY_PIECES);
	pay = block_payload(buf, off, &n);
	hist_with_block(buf, len, off, pay, n - 1);
	pieces_damage_check("bad stack copy piece record");
	/* or gone: the copies name pieces never defined */
	hist_with_block(buf, len, off, NULL, 0);
	pieces_damage_check("stack copy of an unknown piece");
	/* the pieces after a whole copy (an empty STACK_COPIES block) */
	bad = malloc(len + OPS_BLOCK_HEADER_SIZE + 2);
	ck_assert_ptr_nonnull(bad);
	memcpy(bad, buf, off);
	ops_le32_store(bad + off, OPS_BLOCK_MAGIC);
	bad[off + 4] = OPS_HIST_STACK_COPIES;
	bad[off + 5] = bad[off + 6] = bad[off + 7] = 0;
	ops_le32_store(bad + off + 8, 2);
	bad[off + OPS_BLOCK_HEADER_SIZE] =
		bad[off + OPS_BLOCK_HEADER_SIZE + 1] = 0;
	fix_crc(bad, off);
	memcpy(bad + off + OPS_BLOCK_HEADER_SIZE + 2, buf + off, len - off);
	file_write(hist, bad, len + OPS_BLOCK_HEADER_SIZE + 2);
	free(bad);
	pieces_damage_check("stack copies of two forms");
	free(pay);
	free(buf);
}
END_TEST

/* Append a block of TYPE, payload PAY of N bytes, to OUT (*OLEN bytes,
 * *CAP allocated). */
static void block_put(uint8_t **out, size_t *olen, size_t *cap, uint16_t type,
		      const uint8_t *pay, size_t n)
{
	if (*olen + OPS_BLOCK_HEADER_SIZE + n > *cap) {
		*cap = 2 * (*olen + OPS_BLOCK_HEADER_SIZE + n);
		*out = realloc(*out, *cap);
		ck_assert_ptr_nonnull(*out);
	}
	ops_le32_store(*out + *olen, OPS_BLOCK_MAGIC);
	(*out)[*olen + 4] = (uint8_t)type;
	(*out)[*olen + 5] = (uint8_t)(type >> 8);
	(*out)[*olen + 6] = (*out)[*olen + 7] = 0;
	ops_le32_store(*out + *olen + 8, (uint32_t)n);
	memcpy(*out + *olen + OPS_BLOCK_HEADER_SIZE, pay, n);
	fix_crc(*out, *olen);
	*olen += OPS_BLOCK_HEADER_SIZE + n;
}

/* Skip a COUNTS-encoded section (n, then n records of three varints). */
static void section_skip(struct ops_cur *c)
{
	uint64_t n = ops_cur_varint(c), i;

	for (i = 0; i < 3 * n; i++)
		ops_cur_varint(c);
	ck_assert(c->ok);
}

/* BUF (a samples.hist of revision 4.4) as a writer of 4.3 wrote it:
 * every copy whole in STACK_COPIES, its counts in COPY_COUNTS and in the
 * copies' section of TIME_SLICES; nothing compressed. */
static uint8_t *as_whole_copies(const uint8_t *buf, size_t len, size_t *olen)
{
	size_t off = OPS_FILE_HEADER_SIZE, cap = len * 4 + 4096, n, nr = 0;
	uint8_t *out = malloc(cap), *pieces = NULL, *pay, *rec;
	size_t *plens = NULL;

	ck_assert_ptr_nonnull(out);
	memcpy(out, buf, OPS_FILE_HEADER_SIZE);
	*olen = OPS_FILE_HEADER_SIZE;
	while (off + OPS_BLOCK_HEADER_SIZE <= len) {
		uint16_t type = ops_le16_load(buf + off + 4);
		size_t next = off + OPS_BLOCK_HEADER_SIZE +
			      ops_le32_load(buf + off + 8);
		struct ops_cur c;
		uint64_t first, k, i, j;

		pay = block_payload(buf, off, &n);
		ops_cur_init(&c, pay, n);
		rec = malloc(n * 200 + 64);
		ck_assert_ptr_nonnull(rec);
		if (type == OPS_HIST_COPY_PIECES) {
			first = ops_cur_varint(&c);
			k = ops_cur_varint(&c);
			ck_assert_uint_eq(first, nr);
			pieces = realloc(pieces, (nr + k) * 128);
			plens = realloc(plens, (nr + k) * sizeof(*plens));
			for (i = 0; i < k; i++, nr++) {
				plens[nr] = ops_cur_varint(&c);
				memcpy(pieces + nr * 128, c.p, plens[nr]);
				c.p += plens[nr];
			}
		} else if (type == OPS_HIST_PIECED_COPIES) {
			uint8_t *q = rec;
			uint64_t v[6];

			q += ops_varint_encode(q, ops_cur_varint(&c));
			k = ops_cur_varint(&c);
			q += ops_varint_encode(q, k);
			for (i = 0; i < k; i++) {
				uint64_t off2, end;

				for (j = 0; j < 6; j++) {
					v[j] = ops_cur_varint(&c);
					q += ops_varint_encode(q, v[j]);
				}
				/* v[3] sp, v[5] size */
				for (off2 = 0; off2 < v[5]; off2 = end) {
					uint64_t id = ops_cur_varint(&c);

					end = ((v[3] + off2) / 128 + 1) * 128 -
					      v[3];
					end = end < v[5] ? end : v[5];
					ck_assert_uint_lt(id, nr);
					ck_assert_uint_eq(plens[id],
							  end - off2);
					memcpy(q, pieces + id * 128,
					       end - off2);
					q += end - off2;
				}
			}
			ck_assert(c.ok && !ops_cur_left(&c));
			block_put(&out, olen, &cap, OPS_HIST_STACK_COPIES, rec,
				  (size_t)(q - rec));
		} else if (type == OPS_HIST_PIECED_COPY_COUNTS) {
			block_put(&out, olen, &cap, OPS_HIST_COPY_COUNTS, pay,
				  n);
		} else if (type == OPS_HIST_TIME_SLICES &&
			   next + OPS_BLOCK_HEADER_SIZE <= len &&
			   ops_le16_load(buf + next + 4) ==
				   OPS_HIST_PIECED_COPY_SLICES) {
			/* the copies' section from the block after */
			size_t n2, a, b;
			uint8_t *pay2 = block_payload(buf, next, &n2);
			struct ops_cur c2;

			ops_cur_varint(&c);
			ops_cur_varint(&c);
			section_skip(&c);
			a = (size_t)(c.p - pay);
			ck_assert_uint_eq(ops_cur_varint(&c), 0);
			b = (size_t)(c.p - pay);
			ops_cur_init(&c2, pay2, n2);
			ops_cur_varint(&c2);
			ops_cur_varint(&c2);
			memcpy(rec, pay, a);
			memcpy(rec + a, c2.p, ops_cur_left(&c2));
			memcpy(rec + a + ops_cur_left(&c2), pay + b, n - b);
			block_put(&out, olen, &cap, type, rec,
				  n - (b - a) + ops_cur_left(&c2));
			free(pay2);
			next += OPS_BLOCK_HEADER_SIZE +
				ops_le32_load(buf + next + 8);
		} else {
			ck_assert_uint_ne(type, OPS_HIST_PIECED_COPY_SLICES);
			block_put(&out, olen, &cap, type, pay, n);
		}
		free(rec);
		free(pay);
		off = next;
	}
	free(pieces);
	free(plens);
	return out;
}

/* A session written before the pieces (each copy whole, its counts in
 * COPY_COUNTS and TIME_SLICES) reads as it did: the same copies, bytes
 * and counts as the same session written with them, whole and by
 * slice, each distinct piece once in the reader. */
START_TEST(test_copies_whole_read)
{
	struct warns wr = { 0 };
	struct piece_copies p;
	uint8_t *buf, *old;
	uint64_t records;
	size_t len, olen;
	struct cg c;

	cg_open(&c, 64);
	cg_write(&c);
	piece_copies_write(&c, &p);
	ck_assert_int_eq(ops_writer_close(c.w, 5), 0);
	buf = file_read(hist, &len);
	old = as_whole_copies(buf, len, &olen);
	file_write(hist, old, olen);
	free(buf);
	ck_assert_uint_eq(blocks_of(old, olen, OPS_HIST_COPY_PIECES, &records),
			  0);
	ck_assert_uint_gt(
		blocks_of(old, olen, OPS_HIST_STACK_COPIES, &records), 0);
	ck_assert_uint_eq(records, 3);
	ck_assert_uint_gt(blocks_of(old, olen, OPS_HIST_COPY_COUNTS, &records),
			  0);
	free(old);
	piece_copies_check_all(&c, &p, &wr);
	ck_assert_int_eq(wr.n, 0);
}
END_TEST

static Suite *stacks_suite(void)
{
	const struct check_case cases[] = {
		{ "roundtrip", test_roundtrip },
		{ "definitions_first", test_definitions_first },
		{ "flat_is_version_1", test_flat_is_version_1 },
		{ "writer_refuses", test_writer_refuses },
		{ "truncated_stack", test_truncated_stack },
		{ "corrupt_stack_table", test_corrupt_stack_table },
		{ "stack_id_without_entry", test_stack_id_without_entry },
		{ "version_1_reads", test_version_1_reads },
		{ "older_versions_read", test_older_versions_read },
		{ "bad_compressed_block", test_bad_compressed_block },
		{ "stack_copies", test_stack_copies },
		{ "stack_copies_unequal", test_stack_copies_unequal },
		{ "stack_copy_refused", test_stack_copy_refused },
		{ "copy_pieces_roundtrip", test_copy_pieces_roundtrip },
		{ "copy_pieces_compacted", test_copy_pieces_compacted },
		{ "copy_blocks_kept", test_copy_blocks_kept },
		{ "copy_pieces_shifted", test_copy_pieces_shifted },
		{ "copy_pieces_damage", test_copy_pieces_damage },
		{ "copies_whole_read", test_copies_whole_read },
		{ "process_maps", test_process_maps },
		{ "archived_perf_map_trimmed",
		  test_archived_perf_map_trimmed },
		{ "archived_perf_map_trimmed_by_stacks",
		  test_archived_perf_map_trimmed_by_stacks },
		{ "archived_map_plain_and_trimmed",
		  test_archived_map_plain_and_trimmed },
	};
	Suite *s = suite_create("samples_stacks");
	SUITE_ADD_CASES(s, cases, session_setup, session_teardown, 0);
	return s;
}

int main(void)
{
	return opjit_check_run(stacks_suite());
}
