// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libopjit-jitlog against the one reader of its format: what a JIT logs
 * is named, with lines, at the right times; eight threads logging while
 * a reader reads never show it a torn or doubled record and lose nothing
 * once flushed; a writer killed mid-log leaves a log that reads up to its
 * last whole frame; the file is never made through a planted link; on
 * attach, nothing is written until a profiler attaches, and then the live
 * code with its own times.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <opjit/jitlog.h>
#include <oputil/clock.h>
#include <oputil/crc32c.h>

#include "jm_format.h"
#include "jm_resolve.h"

#include "check_run.h"

static char dir[64], path[128];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/jitlog-test.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/anon.log", dir);
}

static void teardown(void)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static char *slurp(size_t *len)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	char *buf;
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	ck_assert_ptr_nonnull(buf);
	n = pread(fd, buf, (size_t)st.st_size, 0);
	ck_assert_int_ge(n, 0);
	close(fd);
	*len = (size_t)n;
	return buf;
}

static struct opjit_jitlog *open_log(void)
{
	struct opjit_jitlog_options o = { .struct_size = sizeof(o),
					  .path = path };
	struct opjit_jitlog *log;

	ck_assert_int_eq(opjit_jitlog_open(&o, &log), 0);
	return log;
}

/* The name and line opjit gives ADDR at time T, or NULL. */
static const char *name_at(struct jm_state *st, uint64_t addr, uint64_t t,
			   uint32_t *line)
{
	const struct jm_code *co = jm_state_find_code(st, addr, t);
	const struct jm_method *me;
	const struct jm_pc *pc;

	*line = 0;
	if (!co)
		return NULL;
	me = jm_state_method(st, co->method);
	pc = jm_code_pc(&st->map, co, addr);
	if (me && pc && pc->nr_frames)
		*line = jm_method_line(me, st->map.frames[pc->frame].bci);
	return me ? me->name : NULL;
}

START_TEST(load_move_unload_are_named_by_time)
{
	static const struct opjit_jitlog_line lines[] = { { 0, 10 },
							  { 0x40, 11 } };
	struct opjit_jitlog_code a = { .struct_size = sizeof(a),
				       .addr = 0x7f0000010000,
				       .size = 0x100,
				       .name = "expr_a",
				       .file = "expr.txt",
				       .lines = lines,
				       .nr_lines = 2 };
	struct opjit_jitlog_code b = { .struct_size = sizeof(b),
				       .addr = 0x7f0000020000,
				       .size = 0x80,
				       .name = "expr_b" };
	struct opjit_jitlog *log = open_log();
	struct jm_state st;
	uint64_t t0, t1, t2;
	uint32_t line;
	size_t len;
	char *buf;

	ck_assert_int_eq(opjit_jitlog_load(log, &a), 0);
	ck_assert_int_eq(opjit_jitlog_load(log, &b), 0);
	ck_assert_uint_ne(a.id, b.id);
	t0 = oputil_clock_ns(CLOCK_MONOTONIC);
	usleep(1000);
	b.addr = 0x7f0000030000;
	ck_assert_int_eq(opjit_jitlog_move(log, &b, 0x7f0000020000), 0);
	ck_assert_int_eq(opjit_jitlog_unload(log, &a), 0);
	usleep(1000);
	t1 = oputil_clock_ns(CLOCK_MONOTONIC);
	ck_assert_int_eq(opjit_jitlog_close(log), 0);
	t2 = t1 + 1000000000ull;

	buf = slurp(&len);
	ck_assert_int_eq(jm_state_init(&st, buf, len), 0);
	ck_assert_str_eq(st.map.damage, "");
	ck_assert_uint_eq(st.map.major, 2);
	ck_assert_uint_eq(st.map.pid, (uint32_t)getpid());
	ck_assert_str_eq(name_at(&st, 0x7f0000010010, t0, &line), "expr_a");
	ck_assert_uint_eq(line, 10);
	ck_assert_str_eq(name_at(&st, 0x7f0000010050, t0, &line), "expr_a");
	ck_assert_uint_eq(line, 11);
	ck_assert_str_eq(name_at(&st, 0x7f0000020010, t0, &line), "expr_b");
	ck_assert_ptr_null(
		name_at(&st, 0x7f0000030010, t0 - 200000000ull, &line));
	/* after the move and the unload */
	ck_assert_str_eq(name_at(&st, 0x7f0000030010, t1, &line), "expr_b");
	ck_assert_ptr_null(name_at(&st, 0x7f0000020010, t2, &line));
	ck_assert_ptr_null(name_at(&st, 0x7f0000010010, t2, &line));
	ck_assert_uint_eq(jm_state_why_unknown(&st, 0x7f0000010010, t2),
			  OPJIT_UNRESOLVED_UNLOADED);
	jm_state_free(&st);
	free(buf);
}
END_TEST

START_TEST(bad_calls_say_why)
{
	struct opjit_jitlog_code nameless = { .struct_size = sizeof(nameless),
					      .addr = 0x1000,
					      .size = 16 };
	struct opjit_jitlog *log = open_log();

	ck_assert_int_eq(opjit_jitlog_load(log, &nameless), -EINVAL);
	ck_assert_int_eq(opjit_jitlog_unload(log, &nameless), -EINVAL);
	ck_assert_int_eq(opjit_jitlog_load(NULL, &nameless), -EINVAL);
	ck_assert_str_eq(opjit_jitlog_strerror(-EEXIST),
			 "the log's file belongs to another user");
	ck_assert_int_eq(opjit_jitlog_close(log), 0);
}

/* A name or file of a megabyte is refused, by a log written or on attach,
 * and costs nothing after: the next load is logged. */
static void refuse_long_names(uint32_t mode)
{
	struct opjit_jitlog_options o = { .struct_size = sizeof(o),
					  .path = path,
					  .mode = mode };
	const size_t mb = 1u << 20;
	char *big = malloc(mb + 1);
	struct opjit_jitlog_code c = { .struct_size = sizeof(c),
				       .addr = 0x1000,
				       .size = 16 };
	struct opjit_jitlog_method m = { .struct_size = sizeof(m) };
	struct opjit_jitlog *log;

	ck_assert_ptr_nonnull(big);
	memset(big, 'x', mb);
	big[mb] = 0;
	ck_assert_int_eq(opjit_jitlog_open(&o, &log), 0);
	c.name = big;
	ck_assert_int_eq(opjit_jitlog_load(log, &c), -EINVAL);
	c.name = "small";
	c.file = big;
	ck_assert_int_eq(opjit_jitlog_load(log, &c), -EINVAL);
	m.name = big;
	ck_assert_int_eq(opjit_jitlog_method(log, &m), -EINVAL);
	/* one byte less fits */
	big[mb - 1] = 0;
	ck_assert_int_eq(opjit_jitlog_load(log, &c), 0);
	ck_assert_uint_ne(c.id, 0);
	ck_assert_int_eq(opjit_jitlog_close(log), 0);
	free(big);
}

START_TEST(names_of_a_megabyte_are_refused)
{
	refuse_long_names(OPJIT_JITLOG_ALWAYS);
	refuse_long_names(OPJIT_JITLOG_ON_ATTACH);
}
END_TEST

/* The frames opjit gives ADDR at time T, innermost first, as
 * "name:line < name:line", into BUF. */
static const char *frames_at(struct jm_state *st, uint64_t addr, uint64_t t,
			     char *buf, size_t len)
{
	const struct jm_code *co = jm_state_find_code(st, addr, t);
	const struct jm_pc *pc = co ? jm_code_pc(&st->map, co, addr) : NULL;
	size_t n = 0;

	buf[0] = 0;
	for (uint32_t f = 0; pc && f < pc->nr_frames; f++) {
		const struct jm_frame *fr = &st->map.frames[pc->frame + f];
		const struct jm_method *me = jm_state_method(st, fr->method);

		n += (size_t)snprintf(buf + n, len - n, "%s%s:%u",
				      f ? " < " : "", me ? me->name : "?",
				      me ? jm_method_line(me, fr->bci) : 0);
	}
	return buf;
}

/*
 * Methods and inline chains (1.2): code compiled from a declared method
 * is named by it, its pcs by their inline chains; two pieces of code of
 * one method unload apart; code found older than its load says so; and
 * a 1.0 caller's smaller struct is read without the fields it lacks.
 */
START_TEST(methods_and_inline_chains)
{
	static const struct opjit_jitlog_line outer_lines[] = { { 0, 100 },
								{ 5, 101 } };
	static const struct opjit_jitlog_line inner_lines[] = { { 0, 200 },
								{ 3, 201 } };
	struct opjit_jitlog_method outer = { .struct_size = sizeof(outer),
					     .name = "Outer.run()",
					     .file = "Outer.java",
					     .lines = outer_lines,
					     .nr_lines = 2 };
	struct opjit_jitlog_method inner = { .struct_size = sizeof(inner),
					     .name = "Inner.get()",
					     .lines = inner_lines,
					     .nr_lines = 2 };
	struct opjit_jitlog_frame own0 = { 0, 0, 0 },
				  chain[2] = { { 0, 3, 0 }, { 0, 5, 0 } };
	struct opjit_jitlog_pc pcs[2] = { { 0, 1, &own0 },
					  { 0x20, 2, chain } };
	struct opjit_jitlog_code hot = { .struct_size = sizeof(hot),
					 .addr = 0x7f0000010000,
					 .size = 0x100,
					 .pcs = pcs,
					 .nr_pcs = 2 };
	struct opjit_jitlog_code osr, old10;
	struct opjit_jitlog *log = open_log();
	struct jm_state st;
	uint64_t t;
	uint32_t line;
	char frames[256];
	size_t len;
	char *buf;

	ck_assert_int_eq(opjit_jitlog_method(log, &outer), 0);
	ck_assert_int_eq(opjit_jitlog_method(log, &inner), 0);
	ck_assert_uint_ne(outer.id, inner.id);
	chain[0].method = inner.id;
	hot.method = outer.id;
	osr = hot;
	osr.addr = 0x7f0000020000;
	osr.pcs = NULL;
	osr.nr_pcs = 0;
	osr.flags = OPJIT_JITLOG_CODE_OLDER;
	ck_assert_int_eq(opjit_jitlog_load(log, &hot), 0);
	ck_assert_int_eq(opjit_jitlog_load(log, &osr), 0);
	ck_assert_uint_ne(hot.id, osr.id);
	/* a 1.0 caller: what follows its id is not its, and is not read */
	memset(&old10, 0xa5, sizeof(old10));
	old10.struct_size = OPJIT_JITLOG_CODE_SIZE_1_0;
	old10.addr = 0x7f0000030000;
	old10.size = 0x40;
	old10.name = "old_caller";
	old10.file = NULL;
	old10.lines = NULL;
	old10.nr_lines = 0;
	ck_assert_int_eq(opjit_jitlog_load(log, &old10), 0);
	usleep(1000);
	t = oputil_clock_ns(CLOCK_MONOTONIC);
	usleep(1000);
	ck_assert_int_eq(opjit_jitlog_unload(log, &hot), 0);
	ck_assert_int_eq(opjit_jitlog_close(log), 0);

	buf = slurp(&len);
	ck_assert_int_eq(jm_state_init(&st, buf, len), 0);
	ck_assert_str_eq(st.map.damage, "");
	ck_assert_uint_eq(st.map.nr_methods, 3);
	ck_assert_str_eq(name_at(&st, 0x7f0000010004, t, &line),
			 "Outer.run()");
	ck_assert_uint_eq(line, 100);
	ck_assert_str_eq(frames_at(&st, 0x7f0000010030, t, frames,
				   sizeof(frames)),
			 "Inner.get():201 < Outer.run():101");
	ck_assert_str_eq(name_at(&st, 0x7f0000020004, t, &line),
			 "Outer.run()");
	ck_assert(jm_state_find_code(&st, 0x7f0000020004, t)->flags &
		  JM_REC_REPLAYED);
	ck_assert(!(jm_state_find_code(&st, 0x7f0000010004, t)->flags &
		    JM_REC_REPLAYED));
	ck_assert_str_eq(name_at(&st, 0x7f0000030004, t, &line), "old_caller");
	/* the unload of one piece of Outer.run() leaves the other */
	ck_assert_ptr_null(
		name_at(&st, 0x7f0000010004, t + 1000000000ull, &line));
	ck_assert_str_eq(name_at(&st, 0x7f0000020004, t + 1000000000ull,
				 &line),
			 "Outer.run()");
	ck_assert_uint_eq(st.map.nr_unmatched, 0);
	jm_state_free(&st);
	free(buf);
}
END_TEST

START_TEST(bad_methods_and_pcs_say_why)
{
	struct opjit_jitlog_method nameless = { .struct_size =
							sizeof(nameless) };
	struct opjit_jitlog_pc frameless = { 0, 2, NULL };
	struct opjit_jitlog_code c = { .struct_size = sizeof(c),
				       .addr = 0x1000,
				       .size = 16,
				       .name = "x",
				       .pcs = &frameless,
				       .nr_pcs = 1 };
	struct opjit_jitlog *log = open_log();

	ck_assert_int_eq(opjit_jitlog_method(log, &nameless), -EINVAL);
	ck_assert_int_eq(opjit_jitlog_method(log, NULL), -EINVAL);
	ck_assert_int_eq(opjit_jitlog_load(log, &c), -EINVAL);
	c.struct_size = OPJIT_JITLOG_CODE_SIZE_1_0 - 1;
	c.pcs = NULL;
	c.nr_pcs = 0;
	ck_assert_int_eq(opjit_jitlog_load(log, &c), -EINVAL);
	ck_assert_int_eq(opjit_jitlog_close(log), 0);
}
END_TEST

#define THREADS 8
#define PER_THREAD 3000

static struct opjit_jitlog *shared;
static atomic_int writers_done;

static void *writer(void *arg)
{
	uintptr_t k = (uintptr_t)arg;
	char name[32];
	int i;

	for (i = 0; i < PER_THREAD; i++) {
		struct opjit_jitlog_code c = { .struct_size = sizeof(c),
					       .addr = 0x7f0000000000 +
						       k * 0x10000000 +
						       (uint64_t)i * 0x100,
					       .size = 0x80,
					       .name = name };

		snprintf(name, sizeof(name), "t%u_%d", (unsigned)k, i);
		ck_assert_int_eq(opjit_jitlog_load(shared, &c), 0);
		ck_assert_int_eq(opjit_jitlog_unload(shared, &c), 0);
	}
	atomic_fetch_add(&writers_done, 1);
	return NULL;
}

/* Every record a reader ever sees is whole, each is seen once, and what
 * one read sees, every later read sees too. */
/* The code SYM names has bytes: LEN of them, equal to WANT, at ADDR. */
static void check_bytes(struct jm_state *st, const struct opjit_symbol *sym,
			const void *want, uint64_t len, uint64_t addr)
{
	const uint8_t *code = NULL;
	uint64_t got_len = 0, got_addr = 0, load_ns = 0;

	ck_assert_ptr_nonnull(sym);
	ck_assert_int_eq(jm_state_code_bytes(st, sym, &code, &got_len,
					     &got_addr, &load_ns),
			 0);
	ck_assert_uint_eq(got_len, len);
	ck_assert_uint_eq(got_addr, addr);
	ck_assert_uint_ne(load_ns, 0);
	ck_assert_mem_eq(code, want, len);
}

/* The symbol opjit gives ADDR at T, through the handler's resolve. */
static const struct opjit_symbol *sym_at(struct jm_state *st, uint64_t addr,
					 uint64_t t)
{
	const struct opjit_symbol *sym = NULL;
	struct opjit_resolve_batch b = {
		.struct_size = OPJIT_RESOLVE_BATCH_SIZE_1_0,
		.count = 1,
		.addrs = &addr,
		.times = &t,
		.symbols = &sym,
	};

	ck_assert_int_eq(jm_state_resolve(st, &b), 0);
	return sym;
}

/* The first frame after OFF in BUF holding a CODE_LOAD: its offset. */
static size_t load_frame(const char *buf, size_t len, size_t off)
{
	while (off + JM_FRAME_HEADER_SIZE + JM_REC_HEADER_SIZE <= len) {
		const unsigned char *r = (const unsigned char *)buf + off +
					 JM_FRAME_HEADER_SIZE;
		uint32_t rlen;

		memcpy(&rlen, r + 4, 4);
		if (r[0] == JM_REC_CODE_LOAD)
			return off;
		off += (JM_FRAME_HEADER_SIZE + rlen + 7) & ~(size_t)7;
	}
	ck_abort_msg("no CODE_LOAD record");
	return 0;
}

/*
 * Code bytes (1.3): with OPJIT_JITLOG_OPT_CODE_BYTES each load and move
 * copies the code into the log while its budget lasts, never a method's
 * data; OPJIT_JITLOG_CODE_BYTES asks for one piece; the handler gives
 * each piece's own bytes through a symbol of that piece; a 2.0 reader
 * (minor 0) sees the log as before; a load whose byte count lies ends
 * the map, as any malformed record does.
 */
START_TEST(code_bytes)
{
	static unsigned char a1[64], a2[64], b[64], c[16], d[8];
	struct opjit_jitlog_options o = {
		.struct_size = sizeof(o),
		.path = path,
		.flags = OPJIT_JITLOG_OPT_CODE_BYTES,
		.code_budget = 64 + 64 + 16 + 8, /* a1, a2, c, and 8 more */
	};
	struct opjit_jitlog_code ca = { .struct_size = sizeof(ca),
					.addr = (uintptr_t)a1,
					.size = sizeof(a1),
					.name = "moved" };
	struct opjit_jitlog_code cb = { .struct_size = sizeof(cb),
					.addr = (uintptr_t)b,
					.size = sizeof(b),
					.name = "past_budget" };
	struct opjit_jitlog_code cc = { .struct_size = sizeof(cc),
					.addr = (uintptr_t)c,
					.size = sizeof(c),
					.name = "within" };
	struct opjit_jitlog_code cd = { .struct_size = sizeof(cd),
					.addr = (uintptr_t)d,
					.size = sizeof(d),
					.name = "data",
					.flags = OPJIT_JITLOG_CODE_DATA };
	const struct opjit_symbol *s1, *s2;
	struct opjit_jitlog *log;
	const uint8_t *code;
	uint64_t t0, t, n, at, ns;
	struct jm_state st;
	size_t len, off;
	uint32_t clen;
	char *buf;

	for (size_t i = 0; i < sizeof(a1); i++) {
		a1[i] = (unsigned char)i;
		a2[i] = (unsigned char)(0xff - i);
		b[i] = 0xcc;
	}
	memset(c, 0x90, sizeof(c));
	memset(d, 0x11, sizeof(d));
	ck_assert_int_eq(opjit_jitlog_open(&o, &log), 0);
	ck_assert_int_eq(opjit_jitlog_load(log, &ca), 0);
	t0 = oputil_clock_ns(CLOCK_MONOTONIC);
	usleep(1000);
	/* moved: the bytes at the new address, which differ */
	ca.addr = (uintptr_t)a2;
	ck_assert_int_eq(opjit_jitlog_move(log, &ca, (uintptr_t)a1), 0);
	ck_assert_int_eq(opjit_jitlog_load(log, &cb), 0); /* 24 left */
	ck_assert_int_eq(opjit_jitlog_load(log, &cc), 0); /* 8 left */
	ck_assert_int_eq(opjit_jitlog_load(log, &cd), 0); /* data: none */
	t = oputil_clock_ns(CLOCK_MONOTONIC);
	ck_assert_int_eq(opjit_jitlog_close(log), 0);

	buf = slurp(&len);
	ck_assert_uint_eq(buf[10], 1); /* version 2.1 */
	ck_assert_int_eq(jm_state_init(&st, buf, len), 0);
	ck_assert_str_eq(st.map.damage, "");
	ck_assert_uint_eq(st.map.nr_codes, 5);
	/* the same name in two places, a symbol and bytes for each */
	s1 = sym_at(&st, (uintptr_t)a1 + 8, t0);
	s2 = sym_at(&st, (uintptr_t)a2 + 8, t);
	ck_assert_ptr_ne(s1, s2);
	ck_assert_str_eq(s1->name, "moved");
	ck_assert_str_eq(s2->name, "moved");
	check_bytes(&st, s1, a1, sizeof(a1), (uintptr_t)a1);
	check_bytes(&st, s2, a2, sizeof(a2), (uintptr_t)a2);
	/* asked again, the same symbol */
	ck_assert_ptr_eq(sym_at(&st, (uintptr_t)a2 + 9, t), s2);
	check_bytes(&st, sym_at(&st, (uintptr_t)c, t), c, sizeof(c),
		    (uintptr_t)c);
	ck_assert_int_eq(jm_state_code_bytes(&st, sym_at(&st, (uintptr_t)b, t),
					     &code, &n, &at, &ns),
			 -ENOENT);
	ck_assert_int_eq(jm_state_code_bytes(&st, sym_at(&st, (uintptr_t)d, t),
					     &code, &n, &at, &ns),
			 -ENOENT);
	jm_state_free(&st);

	/* a 2.0 reader: the same map, without the bytes */
	buf[10] = 0;
	ck_assert_int_eq(jm_state_init(&st, buf, len), 0);
	ck_assert_str_eq(st.map.damage, "");
	ck_assert_uint_eq(st.map.nr_codes, 5);
	for (size_t i = 0; i < st.map.nr_codes; i++)
		ck_assert_ptr_null(st.map.codes[i].bytes);
	ck_assert_int_eq(jm_state_code_bytes(&st, sym_at(&st, (uintptr_t)c, t),
					     &code, &n, &at, &ns),
			 -ENOENT);
	jm_state_free(&st);
	buf[10] = 1;

	/* a count of bytes past the code's size and the record's end,
	 * under a check that holds: malformed, the map ends there */
	off = load_frame(buf, len, JM_HEADER_SIZE);
	for (clen = 65; clen <= 200; clen += 135) {
		unsigned char *r =
			(unsigned char *)buf + off + JM_FRAME_HEADER_SIZE;
		uint32_t rlen, crc;

		memcpy(&rlen, r + 4, 4);
		memcpy(r + JM_REC_HEADER_SIZE + JM_CODE_LOAD_FIXED, &clen, 4);
		crc = oputil_crc32c(0, r, rlen);
		memcpy(buf + off + 4, &crc, 4);
		ck_assert_int_eq(jm_state_init(&st, buf, len), 0);
		ck_assert_str_ne(st.map.damage, "");
		ck_assert_ptr_nonnull(strstr(st.map.damage, "malformed"));
		ck_assert_uint_eq(st.map.nr_codes, 0);
		jm_state_free(&st);
	}
	free(buf);
}
END_TEST

/* Code bytes asked for one piece, and a 1.2 caller's options, whose
 * padding where flags now is is never read. */
START_TEST(code_bytes_asked_per_load)
{
	static unsigned char x[32], y[32];
	struct opjit_jitlog_options o = {
		.struct_size = OPJIT_JITLOG_OPTIONS_SIZE_1_1,
		.path = path,
		.flags = OPJIT_JITLOG_OPT_CODE_BYTES,
	};
	struct opjit_jitlog_code cx = { .struct_size = sizeof(cx),
					.addr = (uintptr_t)x,
					.size = sizeof(x),
					.name = "asked",
					.flags = OPJIT_JITLOG_CODE_BYTES };
	struct opjit_jitlog_code cy = { .struct_size = sizeof(cy),
					.addr = (uintptr_t)y,
					.size = sizeof(y),
					.name = "not_asked" };
	struct opjit_jitlog *log;
	struct jm_state st;
	uint64_t t;
	size_t len;
	char *buf;

	memset(x, 0xc3, sizeof(x));
	ck_assert_int_eq(opjit_jitlog_open(&o, &log), 0);
	ck_assert_int_eq(opjit_jitlog_load(log, &cx), 0);
	ck_assert_int_eq(opjit_jitlog_load(log, &cy), 0);
	t = oputil_clock_ns(CLOCK_MONOTONIC);
	ck_assert_int_eq(opjit_jitlog_close(log), 0);
	buf = slurp(&len);
	ck_assert_int_eq(jm_state_init(&st, buf, len), 0);
	ck_assert_uint_eq(st.map.nr_codes, 2);
	check_bytes(&st, sym_at(&st, (uintptr_t)x, t), x, sizeof(x),
		    (uintptr_t)x);
	ck_assert_ptr_null(jm_state_find_code(&st, (uintptr_t)y, t)->bytes);
	jm_state_free(&st);
	free(buf);

	/* a flag this library does not know */
	o.struct_size = sizeof(o);
	o.flags = 0x2;
	ck_assert_int_eq(opjit_jitlog_open(&o, &log), -EINVAL);
}
END_TEST

START_TEST(threads_and_a_reader)
{
	pthread_t t[THREADS];
	size_t seen = 0, reads = 0, len;
	uintptr_t k;
	struct jm_map m;
	char *buf;

	shared = open_log();
	atomic_store(&writers_done, 0);
	for (k = 0; k < THREADS; k++)
		ck_assert_int_eq(
			pthread_create(&t[k], NULL, writer, (void *)k), 0);
	while (atomic_load(&writers_done) < THREADS) {
		int tries = 0;

		/* A read of the file copies with loads in any order (the
		 * kernel's copy is a string move), so a frame sealed during
		 * the copy can come back with its number but older bytes,
		 * and read as torn.  The next read has the whole frame; only
		 * a frame torn in three reads in a row is. */
		for (;;) {
			buf = slurp(&len);
			ck_assert_int_eq(jm_parse(buf, len, &m), 0);
			if (!strstr(m.damage, "is torn") || ++tries == 3)
				break;
			jm_map_free(&m);
			free(buf);
		}
		ck_assert_msg(!m.damage[0], "read %zu: %s", reads, m.damage);
		ck_assert_uint_ge(m.nr_records, seen);
		seen = m.nr_records;
		/* a method logged once is there once */
		ck_assert_uint_le(m.nr_methods, THREADS * PER_THREAD);
		jm_map_free(&m);
		free(buf);
		reads++;
	}
	for (k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	ck_assert_int_eq(opjit_jitlog_flush(shared), 0);
	buf = slurp(&len);
	ck_assert_int_eq(jm_parse(buf, len, &m), 0);
	ck_assert_str_eq(m.damage, "");
	ck_assert_uint_eq(m.nr_records, 3u * THREADS * PER_THREAD);
	ck_assert_uint_eq(m.nr_methods, THREADS * PER_THREAD);
	jm_map_free(&m);
	free(buf);
	ck_assert_int_eq(opjit_jitlog_close(shared), 0);
	ck_assert_uint_gt(reads, 0);
}
END_TEST

/* A copy of a log that ends inside a frame (taken while the log grew)
 * reads up to the frame before, without a warning; a frame whose bytes
 * changed is torn, and says so. */
START_TEST(cut_copy_and_torn_frame)
{
	struct opjit_jitlog *log = open_log();
	struct jm_map m;
	size_t len, whole;
	char *buf;
	int i;

	for (i = 0; i < 10; i++) {
		struct opjit_jitlog_code c = { .struct_size = sizeof(c),
					       .addr = 0x7f0000000000 +
						       (uint64_t)i * 64,
					       .size = 64,
					       .name = "piece" };

		ck_assert_int_eq(opjit_jitlog_load(log, &c), 0);
	}
	ck_assert_int_eq(opjit_jitlog_close(log), 0);
	buf = slurp(&len);
	ck_assert_int_eq(jm_parse(buf, len, &m), 0);
	ck_assert_uint_eq(m.nr_records, 20);
	whole = m.valid_len;
	jm_map_free(&m);
	ck_assert_int_eq(jm_parse(buf, whole - 9, &m), 0);
	ck_assert_str_eq(m.damage, "");
	ck_assert_uint_eq(m.nr_records, 19);
	jm_map_free(&m);
	buf[whole - 9] ^= 0x5a;
	ck_assert_int_eq(jm_parse(buf, len, &m), 0);
	ck_assert_ptr_nonnull(strstr(m.damage, "is torn (its check fails)"));
	ck_assert_uint_eq(m.nr_records, 19);
	jm_map_free(&m);
	free(buf);
}
END_TEST

/* Killed while logging: the log reads up to its last whole frame. */
START_TEST(killed_writer)
{
	struct jm_map m;
	size_t len;
	char *buf;
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct opjit_jitlog *log = open_log();
		uint64_t i;

		for (i = 0;; i++) {
			struct opjit_jitlog_code c = {
				.struct_size = sizeof(c),
				.addr = 0x7f0000000000 + i * 64,
				.size = 64,
				.name = "spin",
				.file = "x.c"
			};

			opjit_jitlog_load(log, &c);
		}
	}
	usleep(100000);
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	buf = slurp(&len);
	ck_assert_int_eq(jm_parse(buf, len, &m), 0);
	ck_assert_uint_gt(m.nr_records, 100);
	ck_assert_msg(!m.damage[0] || strstr(m.damage, "torn"), "%s",
		      m.damage);
	jm_map_free(&m);
	free(buf);
}
END_TEST

/* A link planted where the log goes is replaced, never followed; a file
 * of another user's is left alone and refused. */
START_TEST(planted_files)
{
	struct opjit_jitlog_options o = { .struct_size = sizeof(o),
					  .path = path };
	struct opjit_jitlog *log;
	char victim[160];
	struct stat st;
	int fd;

	snprintf(victim, sizeof(victim), "%s/victim", dir);
	fd = open(victim, O_CREAT | O_WRONLY, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "keep", 4), 4);
	close(fd);
	ck_assert_int_eq(symlink(victim, path), 0);
	ck_assert_int_eq(opjit_jitlog_open(&o, &log), 0);
	ck_assert_int_eq(opjit_jitlog_close(log), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(stat(victim, &st), 0);
	ck_assert_int_eq(st.st_size, 4);
	/* a document of ours in the log's place is left alone; an empty
	 * file is replaced */
	ck_assert_int_eq(unlink(path), 0);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "my notes", 8), 8);
	close(fd);
	ck_assert_int_eq(opjit_jitlog_open(&o, &log), -ENOTEMPTY);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 8);
	ck_assert_int_eq(truncate(path, 0), 0);
	ck_assert_int_eq(opjit_jitlog_open(&o, &log), 0);
	ck_assert_int_eq(opjit_jitlog_close(log), 0);
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
		ck_assert_int_eq(opjit_jitlog_open(&o, &log), -EEXIST);
		ck_assert_int_eq(lstat(path, &st), 0);
		ck_assert_uint_eq(st.st_uid, 65534);
	}
}
END_TEST

/* The library's control block, written here as a profiler would. */
extern struct opjit_jitlog_control opjit_jitlog_control;

static void set_state(uint32_t st)
{
	__atomic_store_n(&opjit_jitlog_control.state, st, __ATOMIC_RELEASE);
}

/* Wait (up to 5 s) until the library moves the state to WANT. */
static void wait_state(uint32_t want)
{
	int i;

	for (i = 0; i < 500; i++) {
		if (__atomic_load_n(&opjit_jitlog_control.state,
				    __ATOMIC_ACQUIRE) == want)
			return;
		usleep(10000);
	}
	ck_abort_msg("the library did not move the state to %u", want);
}

/*
 * On attach: nothing is written until the profiler attaches; then the
 * code loaded before, with its own load time, and every later event; at
 * detach the log closes and later events are not written.
 */
START_TEST(on_attach)
{
	struct opjit_jitlog_options o = { .struct_size = sizeof(o),
					  .path = path,
					  .mode = OPJIT_JITLOG_ON_ATTACH };
	struct opjit_jitlog_code a = { .struct_size = sizeof(a),
				       .addr = 0x7f0000010000,
				       .size = 0x100,
				       .name = "before_attach" };
	struct opjit_jitlog_code b = { .struct_size = sizeof(b),
				       .addr = 0x7f0000020000,
				       .size = 0x100,
				       .name = "freed_before_attach" };
	struct opjit_jitlog_code c = { .struct_size = sizeof(c),
				       .addr = 0x7f0000030000,
				       .size = 0x100,
				       .name = "after_attach" };
	struct opjit_jitlog_code d = { .struct_size = sizeof(d),
				       .addr = 0x7f0000040000,
				       .size = 0x100,
				       .name = "after_detach" };
	struct opjit_jitlog_method m = { .struct_size = sizeof(m),
					 .name = "declared_before_attach" };
	struct opjit_jitlog_code e = { .struct_size = sizeof(e),
				       .addr = 0x7f0000060000,
				       .size = 0x100 };
	struct opjit_jitlog *log;
	struct jm_state st;
	uint64_t t_load, t_moved;
	struct stat sb;
	uint32_t line;
	size_t len;
	char *buf;

	ck_assert_mem_eq(opjit_jitlog_control.magic,
			 OPJIT_JITLOG_CONTROL_MAGIC, 8);
	ck_assert_uint_eq(opjit_jitlog_control.version,
			  OPJIT_JITLOG_CONTROL_VERSION);
	set_state(OPJIT_JITLOG_DETACHED);
	ck_assert_int_eq(opjit_jitlog_open(&o, &log), 0);
	ck_assert_uint_eq(opjit_jitlog_control.on_attach_logs, 1);
	t_load = oputil_clock_ns(CLOCK_MONOTONIC);
	ck_assert_int_eq(opjit_jitlog_load(log, &a), 0);
	ck_assert_int_eq(opjit_jitlog_load(log, &b), 0);
	ck_assert_int_eq(opjit_jitlog_unload(log, &b), 0);
	a.addr = 0x7f0000050000;
	ck_assert_int_eq(opjit_jitlog_move(log, &a, 0x7f0000010000), 0);
	ck_assert_int_eq(opjit_jitlog_method(log, &m), 0);
	e.method = m.id;
	ck_assert_int_eq(opjit_jitlog_load(log, &e), 0);
	t_moved = oputil_clock_ns(CLOCK_MONOTONIC);
	usleep(120000);			       /* two looks of the watcher */
	ck_assert_int_ne(lstat(path, &sb), 0); /* no file, not one byte */

	set_state(OPJIT_JITLOG_ATTACH);
	wait_state(OPJIT_JITLOG_OBSERVING);
	ck_assert_int_eq(opjit_jitlog_load(log, &c), 0);
	set_state(OPJIT_JITLOG_DETACH);
	wait_state(OPJIT_JITLOG_DETACHED);
	ck_assert_int_eq(opjit_jitlog_load(log, &d), 0);

	buf = slurp(&len);
	ck_assert_int_eq(jm_state_init(&st, buf, len), 0);
	ck_assert_str_eq(st.map.damage, "");
	/* the table keeps the load's own time, and the move */
	ck_assert_str_eq(name_at(&st, 0x7f0000050010, t_moved, &line),
			 "before_attach");
	ck_assert_ptr_null(name_at(&st, 0x7f0000010010, t_moved, &line));
	ck_assert_str_eq(name_at(&st, 0x7f0000060010, t_moved, &line),
			 "declared_before_attach");
	ck_assert_str_eq(name_at(&st, 0x7f0000030010, t_moved + 1000000000ull,
				 &line),
			 "after_attach");
	ck_assert_ptr_null(name_at(&st, 0x7f0000020010, t_load, &line));
	ck_assert_ptr_null(
		name_at(&st, 0x7f0000040010, t_moved + 1000000000ull, &line));
	jm_state_free(&st);
	free(buf);

	/* attached again: the log is written anew, with what lives now */
	set_state(OPJIT_JITLOG_ATTACH);
	wait_state(OPJIT_JITLOG_OBSERVING);
	buf = slurp(&len);
	ck_assert_int_eq(jm_state_init(&st, buf, len), 0);
	ck_assert_str_eq(name_at(&st, 0x7f0000040010, t_moved + 1000000000ull,
				 &line),
			 "after_detach");
	jm_state_free(&st);
	free(buf);
	ck_assert_int_eq(opjit_jitlog_close(log), 0);
	ck_assert_uint_eq(opjit_jitlog_control.on_attach_logs, 0);
	set_state(OPJIT_JITLOG_DETACHED);
}
END_TEST

#define KEEP 5 /* pieces each writer leaves loaded */

static atomic_int writers_stop;

static uint64_t keep_addr(uintptr_t k, int i, bool kept)
{
	return 0x7f0000000000 + k * 0x10000000 + (kept ? 0x1000000 : 0) +
	       (uint64_t)i * 0x100;
}

/* Load and unload until told to stop, then leave KEEP pieces loaded. */
static void *writer_keep(void *arg)
{
	uintptr_t k = (uintptr_t)arg;
	char name[32];
	int i;

	for (i = 0; !atomic_load(&writers_stop); i++) {
		struct opjit_jitlog_code c = {
			.struct_size = sizeof(c),
			.addr = keep_addr(k, i % 1000, false),
			.size = 0x80,
			.name = name,
		};

		snprintf(name, sizeof(name), "t%u_%d", (unsigned)k, i);
		ck_assert_int_eq(opjit_jitlog_load(shared, &c), 0);
		ck_assert_int_eq(opjit_jitlog_unload(shared, &c), 0);
	}
	for (i = 0; i < KEEP; i++) {
		struct opjit_jitlog_code c = {
			.struct_size = sizeof(c),
			.addr = keep_addr(k, i, true),
			.size = 0x80,
			.name = name,
		};

		snprintf(name, sizeof(name), "t%u_kept%d", (unsigned)k, i);
		ck_assert_int_eq(opjit_jitlog_load(shared, &c), 0);
	}
	atomic_fetch_add(&writers_done, 1);
	return NULL;
}

/* Eight threads load and unload while the profiler attaches, detaches and
 * attaches again: the log the library ends with is whole, and names what
 * lives at the end and nothing freed. */
START_TEST(on_attach_threads)
{
	struct opjit_jitlog_options o = { .struct_size = sizeof(o),
					  .path = path,
					  .mode = OPJIT_JITLOG_ON_ATTACH };
	pthread_t t[THREADS];
	struct jm_state st;
	uint64_t now;
	uint32_t line;
	uintptr_t k;
	char want[32];
	size_t len;
	char *buf;
	int i;

	set_state(OPJIT_JITLOG_DETACHED);
	ck_assert_int_eq(opjit_jitlog_open(&o, &shared), 0);
	atomic_store(&writers_done, 0);
	atomic_store(&writers_stop, 0);
	for (k = 0; k < THREADS; k++)
		ck_assert_int_eq(pthread_create(&t[k], NULL, writer_keep,
						(void *)k),
				 0);
	set_state(OPJIT_JITLOG_ATTACH);
	wait_state(OPJIT_JITLOG_OBSERVING);
	usleep(5000);
	set_state(OPJIT_JITLOG_DETACH);
	wait_state(OPJIT_JITLOG_DETACHED);
	set_state(OPJIT_JITLOG_ATTACH);
	wait_state(OPJIT_JITLOG_OBSERVING);
	usleep(5000);
	atomic_store(&writers_stop, 1);
	for (k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	ck_assert_int_eq(opjit_jitlog_flush(shared), 0);
	now = oputil_clock_ns(CLOCK_MONOTONIC);
	buf = slurp(&len);
	ck_assert_int_eq(jm_state_init(&st, buf, len), 0);
	ck_assert_str_eq(st.map.damage, "");
	for (k = 0; k < THREADS; k++) {
		for (i = 0; i < KEEP; i++) {
			const char *got = name_at(
				&st, keep_addr(k, i, true) + 0x10, now, &line);

			snprintf(want, sizeof(want), "t%u_kept%d", (unsigned)k,
				 i);
			ck_assert_str_eq(got ? got : "(none)", want);
		}
		/* the loads and unloads: all freed by now */
		for (i = 0; i < 1000; i += 97)
			ck_assert_ptr_null(
				name_at(&st, keep_addr(k, i, false) + 0x10,
					now, &line));
	}
	jm_state_free(&st);
	free(buf);
	ck_assert_int_eq(opjit_jitlog_close(shared), 0);
	set_state(OPJIT_JITLOG_DETACHED);
}
END_TEST

/* On attach, code bytes wait in the table with their load and are
 * written when a profiler attaches: the code loaded and moved before it,
 * with the bytes it had when logged, older than the attach. */
START_TEST(code_bytes_on_attach)
{
	static unsigned char x[48], y[48], want[48];
	struct opjit_jitlog_options o = {
		.struct_size = sizeof(o),
		.path = path,
		.mode = OPJIT_JITLOG_ON_ATTACH,
		.flags = OPJIT_JITLOG_OPT_CODE_BYTES,
	};
	struct opjit_jitlog_code c = { .struct_size = sizeof(c),
				       .addr = (uintptr_t)x,
				       .size = sizeof(x),
				       .name = "before_attach" };
	const uint8_t *code;
	uint64_t t, n, at, ns;
	struct opjit_jitlog *log;
	struct jm_state st;
	struct stat sb;
	size_t len;
	char *buf;

	memset(x, 0x90, sizeof(x));
	memset(y, 0xcc, sizeof(y));
	memcpy(want, y, sizeof(y));
	set_state(OPJIT_JITLOG_DETACHED);
	ck_assert_int_eq(opjit_jitlog_open(&o, &log), 0);
	ck_assert_int_eq(opjit_jitlog_load(log, &c), 0);
	c.addr = (uintptr_t)y;
	ck_assert_int_eq(opjit_jitlog_move(log, &c, (uintptr_t)x), 0);
	/* the table holds the bytes the code had when logged */
	memset(y, 0xf4, sizeof(y));
	ck_assert_int_ne(lstat(path, &sb), 0);
	set_state(OPJIT_JITLOG_ATTACH);
	wait_state(OPJIT_JITLOG_OBSERVING);
	t = oputil_clock_ns(CLOCK_MONOTONIC);
	set_state(OPJIT_JITLOG_DETACH);
	wait_state(OPJIT_JITLOG_DETACHED);
	ck_assert_int_eq(opjit_jitlog_close(log), 0);

	buf = slurp(&len);
	ck_assert_int_eq(jm_state_init(&st, buf, len), 0);
	ck_assert_str_eq(st.map.damage, "");
	/* the move replaced the load in the table: one piece, at y */
	ck_assert_uint_eq(st.map.nr_codes, 1);
	ck_assert_int_eq(jm_state_code_bytes(&st, sym_at(&st, (uintptr_t)y, t),
					     &code, &n, &at, &ns),
			 0);
	ck_assert_uint_eq(n, sizeof(y));
	ck_assert_uint_eq(at, (uintptr_t)y);
	ck_assert_uint_eq(ns, 0); /* there since before the attach */
	ck_assert_mem_eq(code, want, sizeof(want));
	jm_state_free(&st);
	free(buf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jitlog");
	TCase *tc = tcase_create("library");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, load_move_unload_are_named_by_time);
	tcase_add_test(tc, bad_calls_say_why);
	tcase_add_test(tc, names_of_a_megabyte_are_refused);
	tcase_add_test(tc, methods_and_inline_chains);
	tcase_add_test(tc, bad_methods_and_pcs_say_why);
	tcase_add_test(tc, threads_and_a_reader);
	tcase_add_test(tc, killed_writer);
	tcase_add_test(tc, cut_copy_and_torn_frame);
	tcase_add_test(tc, planted_files);
	tcase_add_test(tc, on_attach);
	tcase_add_test(tc, on_attach_threads);
	tcase_add_test(tc, code_bytes);
	tcase_add_test(tc, code_bytes_asked_per_load);
	tcase_add_test(tc, code_bytes_on_attach);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
