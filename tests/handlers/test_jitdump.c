// SPDX-License-Identifier: GPL-3.0-or-later
/* The jitdump parser, its index and the handler's table: byte orders,
 * versions, torn and malformed files, and which code an (address, time)
 * names. */
#define _GNU_SOURCE
#include <byteswap.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <opjit/anon_handler.h>

#include "handler_internal.h"

#include "jitdump.h"

#include "check_run.h"

/* ------------------------------------------------------------------ */
/* A small writer */

struct w {
	uint8_t buf[65536];
	size_t len;
	bool swap;
};

static void w32(struct w *w, uint32_t v)
{
	if (w->swap)
		v = bswap_32(v);
	memcpy(w->buf + w->len, &v, 4);
	w->len += 4;
}

static void w64(struct w *w, uint64_t v)
{
	if (w->swap)
		v = bswap_64(v);
	memcpy(w->buf + w->len, &v, 8);
	w->len += 8;
}

static void wstr(struct w *w, const char *s)
{
	size_t n = strlen(s) + 1;

	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static void w_header(struct w *w, uint32_t version, uint32_t size,
		     uint64_t flags)
{
	w32(w, JD_MAGIC);
	w32(w, version);
	w32(w, size);
	w32(w, 62);
	w32(w, 0);
	w32(w, 4242);
	w64(w, 1700000000000000000ull); /* wall time: to be ignored */
	w64(w, flags);
}

static void w_load(struct w *w, uint64_t t, uint64_t addr, uint64_t size,
		   uint64_t index, const char *name)
{
	w32(w, JD_CODE_LOAD);
	w32(w, (uint32_t)(16 + 40 + strlen(name) + 1 + 4));
	w64(w, t);
	w32(w, 4242);
	w32(w, 4243);
	w64(w, addr);
	w64(w, addr);
	w64(w, size);
	w64(w, index);
	wstr(w, name);
	w32(w, 0xc3c3c3c3); /* a few code bytes */
}

static void w_move(struct w *w, uint64_t t, uint64_t from, uint64_t to,
		   uint64_t size, uint64_t index)
{
	w32(w, JD_CODE_MOVE);
	w32(w, 16 + 48);
	w64(w, t);
	w32(w, 4242);
	w32(w, 4243);
	w64(w, to);
	w64(w, from);
	w64(w, to);
	w64(w, size);
	w64(w, index);
}

static void w_debug(struct w *w, uint64_t addr)
{
	size_t at = w->len;
	uint32_t total;

	w32(w, JD_CODE_DEBUG_INFO);
	w32(w, 0);
	w64(w, 1);
	w64(w, addr);
	w64(w, 3);
	w64(w, addr + 0x10);
	w32(w, 12);
	w32(w, 0);
	wstr(w, "app.js");
	w64(w, addr);
	w32(w, 10);
	w32(w, 0);
	wstr(w, "\xff"); /* the same file as before */
	w64(w, addr + 0x40);
	w32(w, 20);
	w32(w, 0);
	wstr(w, "other.js");
	total = (uint32_t)(w->len - at);
	if (w->swap)
		total = bswap_32(total);
	memcpy(w->buf + at + 4, &total, 4);
}

static void w_raw(struct w *w, uint32_t id, uint32_t total)
{
	uint32_t i;

	w32(w, id);
	w32(w, total);
	w64(w, 5);
	for (i = 16; i < total; i++)
		w->buf[w->len++] = 0xab;
}

/* A file: alpha at 0x1000 from t=100, beta at 0x2000 from t=200,
 * gamma over alpha at t=300, beta moved to 0x3000 at t=400. */
static void w_story(struct w *w, bool swap, uint32_t version,
		    uint32_t hdr_size, uint64_t flags)
{
	memset(w, 0, sizeof(*w));
	w->swap = swap;
	w_header(w, version, hdr_size, flags);
	w_debug(w, 0x1000);
	w_load(w, 100000000, 0x1000, 0x100, 1, "alpha");
	w_raw(w, JD_CODE_UNWINDING_INFO, 16 + 24 + 8);
	w_load(w, 200000000, 0x2000, 0x100, 2, "beta");
	w_raw(w, 99, 40); /* a type from the future */
	w_load(w, 300000000, 0x1000, 0x80, 3, "gamma");
	w_move(w, 400000000, 0x2000, 0x3000, 0x100, 2);
	w_raw(w, JD_CODE_CLOSE, 16);
}

/* ------------------------------------------------------------------ */
/* Parsing from memory */

static struct jd_dump d;
static struct jd_index x;

static int parse_mem(const struct w *w, size_t len)
{
	struct jd_src s;
	int rc;

	memset(&d, 0, sizeof(d));
	d.path = "mem";
	jd_src_mem(&s, w->buf, len);
	rc = jd_parse(&d, &s);
	jd_src_free(&s);
	return rc;
}

static const char *name_at(uint64_t addr, uint64_t t)
{
	size_t seg = jd_index_seg(&x, addr);
	uint32_t l;

	if (seg == SIZE_MAX)
		return NULL;
	l = jd_index_life(&x, seg, t);
	if (l == UINT32_MAX)
		return NULL;
	return jd_name(&d, d.code[x.life[l].code].name);
}

static void teardown(void)
{
	jd_index_free(&x);
	jd_free(&d);
}

static void check_story(void)
{
	ck_assert_int_eq(d.ncode, 3);
	ck_assert_int_eq(d.nmove, 1);
	ck_assert_int_eq(d.skipped, 2);
	ck_assert(d.closed);
	ck_assert_int_eq(d.nbad, 0);
	ck_assert(!d.torn && !d.broken);
	ck_assert_int_eq(jd_index_build(&x, &d, false), 0);
	ck_assert_str_eq(name_at(0x1010, 150000000), "alpha");
	ck_assert_str_eq(name_at(0x1010, 350000000), "gamma");
	ck_assert_str_eq(name_at(0x2010, 350000000), "beta");
	ck_assert_str_eq(name_at(0x3010, 450000000), "beta");
}

START_TEST(native_v1)
{
	struct w w;

	w_story(&w, false, 1, 40, 0);
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert(!d.swapped);
	check_story();
}
END_TEST

START_TEST(byte_swapped)
{
	struct w w;

	w_story(&w, true, 1, 40, 0);
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert(d.swapped);
	check_story();
}
END_TEST

/* Mono writes version 2 with the size of a pointer as header size. */
START_TEST(mono_v2)
{
	struct w w;

	w_story(&w, false, 2, 8, 0);
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert_int_eq(d.version, 2);
	check_story();
}
END_TEST

START_TEST(unknown_version)
{
	struct w w;

	w_story(&w, false, 3, 40, 0);
	ck_assert_int_eq(parse_mem(&w, w.len), 1);
	ck_assert_str_eq(d.bad[0], "jitdump version 3, 1 and 2 are known");
	memset(w.buf, 'x', 4);
	ck_assert_int_eq(parse_mem(&w, w.len), 1);
	ck_assert_str_eq(d.bad[0], "not a jitdump file");
	ck_assert_int_eq(parse_mem(&w, 20), 1);
	ck_assert_str_eq(d.bad[0], "not a jitdump file");
}
END_TEST

/* The runtime was killed mid-record: everything before it is kept. */
START_TEST(torn_tail)
{
	struct w w;
	size_t cut;

	memset(&w, 0, sizeof(w));
	w_header(&w, 1, 40, 0);
	w_load(&w, 100, 0x1000, 0x100, 1, "alpha");
	cut = w.len;
	w_load(&w, 200, 0x2000, 0x100, 2, "beta");
	ck_assert_int_eq(parse_mem(&w, w.len - 7), 0);
	ck_assert(d.torn);
	ck_assert_uint_eq(d.torn_at, cut);
	ck_assert_int_eq(d.ncode, 1);
	ck_assert_int_eq(d.records, 1);
	jd_free(&d);
	/* cut inside the record header */
	ck_assert_int_eq(parse_mem(&w, cut + 5), 0);
	ck_assert(d.torn);
	ck_assert_uint_eq(d.torn_at, cut);
	ck_assert_int_eq(d.ncode, 1);
}
END_TEST

/* A record size that cannot be ends the parse: nothing after it can be
 * found. */
START_TEST(impossible_size)
{
	struct w w;
	size_t at;

	memset(&w, 0, sizeof(w));
	w_header(&w, 1, 40, 0);
	w_load(&w, 100, 0x1000, 0x100, 1, "alpha");
	at = w.len;
	w_raw(&w, JD_CODE_LOAD, 16);
	w.buf[at + 4] = 8; /* total_size 8 */
	w_load(&w, 200, 0x2000, 0x100, 2, "beta");
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert(d.broken);
	ck_assert_uint_eq(d.broken_at, at);
	ck_assert_uint_eq(d.broken_size, 8);
	ck_assert_int_eq(d.ncode, 1);
}
END_TEST

/* Records that are wrong inside a sane size are skipped by that size,
 * each with one message naming its offset. */
START_TEST(bad_records)
{
	struct w w;
	size_t a, b, c;
	char want[160];

	memset(&w, 0, sizeof(w));
	w_header(&w, 1, 40, 0);
	a = w.len;
	w_load(&w, 100, 0x1000, 0x100, 1, "alpha");
	memset(w.buf + a + 56, 'n', w.len - a - 56); /* no NUL */
	b = w.len;
	w_move(&w, 150, 0x1000, 0x5000, 0x100, 1);
	w.buf[b + 4] = 40; /* too short for a move */
	w.len = b + 40;
	c = w.len;
	w_debug(&w, 0x2000);
	w.buf[c + 24] = 200; /* 200 entries in a small record */
	w_load(&w, 200, 0x2000, 0x100, 2, "beta");
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert_int_eq(d.nbad, 3);
	snprintf(want, sizeof(want),
		 "malformed JIT_CODE_LOAD at offset %zu: "
		 "name not terminated",
		 a);
	ck_assert_str_eq(d.bad[0], want);
	snprintf(want, sizeof(want),
		 "malformed JIT_CODE_MOVE at offset %zu: "
		 "40 bytes, at least 64 expected",
		 b);
	ck_assert_str_eq(d.bad[1], want);
	snprintf(want, sizeof(want),
		 "malformed JIT_CODE_DEBUG_INFO at "
		 "offset %zu: 200 entries do not fit in %u bytes",
		 c, (unsigned)(16 + 16 + 3 * 16 + 7 + 2 + 9));
	ck_assert_str_eq(d.bad[2], want);
	ck_assert_int_eq(d.ncode, 1);
	ck_assert_str_eq(jd_name(&d, d.code[0].name), "beta");
	ck_assert(!d.torn && !d.broken);
}
END_TEST

/* A sample a little older than the load record of the code it hit is
 * named after that code; a sample far older is not. */
START_TEST(early_sample)
{
	struct w w;
	const uint64_t t = 5000000000ull;

	memset(&w, 0, sizeof(w));
	w_header(&w, 1, 40, 0);
	w_load(&w, t, 0x1000, 0x100, 1, "alpha");
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert_int_eq(jd_index_build(&x, &d, false), 0);
	ck_assert_str_eq(name_at(0x1000, t - 5000), "alpha");
	ck_assert_str_eq(name_at(0x1000, t - JD_EARLY_NS), "alpha");
	ck_assert_ptr_null(name_at(0x1000, t - JD_EARLY_NS - 1));
	ck_assert_ptr_null(name_at(0x1000, t - 1000000000ull));
	ck_assert_ptr_null(name_at(0x1100, t));
	ck_assert_ptr_null(name_at(0xfff, t));
}
END_TEST

/* Reused memory: the old code until the new load, the new one from
 * then on, even within the tolerance before the new load. */
START_TEST(reused_address)
{
	struct w w;

	w_story(&w, false, 1, 40, 0);
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert_int_eq(jd_index_build(&x, &d, false), 0);
	ck_assert_str_eq(name_at(0x1000, 300000000 - 1000), "alpha");
	ck_assert_str_eq(name_at(0x1000, 300000000), "gamma");
	/* gamma is shorter: past its end, alpha's tail is still alpha */
	ck_assert_str_eq(name_at(0x10f0, 350000000), "alpha");
}
END_TEST

/* Writers on several threads may append out of time order: the record
 * times decide, not the file order. */
START_TEST(out_of_order)
{
	struct w w;

	memset(&w, 0, sizeof(w));
	w_header(&w, 1, 40, 0);
	w_load(&w, 300000000, 0x1000, 0x100, 2, "gamma");
	w_load(&w, 100000000, 0x1000, 0x100, 1, "alpha");
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert_int_eq(jd_index_build(&x, &d, false), 0);
	ck_assert_str_eq(name_at(0x1010, 200000000), "alpha");
	ck_assert_str_eq(name_at(0x1010, 350000000), "gamma");
}
END_TEST

/* After a move, the old address no longer names the code; the new one
 * does, found by code_index. */
START_TEST(move)
{
	struct w w;

	w_story(&w, false, 1, 40, 0);
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert_int_eq(jd_index_build(&x, &d, false), 0);
	ck_assert_str_eq(name_at(0x2010, 399999999), "beta");
	ck_assert_ptr_null(name_at(0x2010, 400000000));
	ck_assert_ptr_null(name_at(0x3010, 300000000));
	ck_assert_str_eq(name_at(0x3010, 400000000), "beta");
	ck_assert_int_eq(x.unknown_moves, 0);
}
END_TEST

/* Records stamped by the CPU's counter: times mean nothing to us, the
 * newest code at an address names it. */
START_TEST(by_address)
{
	struct w w;

	w_story(&w, false, 1, 40, JD_FLAGS_ARCH_TIMESTAMP);
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert_int_eq(jd_index_build(&x, &d, true), 0);
	ck_assert_str_eq(name_at(0x1010, 0), "gamma");
	ck_assert_str_eq(name_at(0x3010, 0), "beta");
}
END_TEST

START_TEST(lines)
{
	struct w w;
	const struct jd_line *l;
	size_t seg;
	uint32_t life;

	w_story(&w, false, 1, 40, 0);
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert_int_eq(jd_index_build(&x, &d, false), 0);
	ck_assert_int_eq(d.code[0].nlines, 3);
	ck_assert_int_eq(d.code[1].nlines, 0);
	seg = jd_index_seg(&x, 0x1018);
	life = jd_index_life(&x, seg, 150000000);
	l = jd_line_at(&d, &x, life, 0x1018);
	ck_assert_uint_eq(l->line, 12);
	ck_assert_str_eq(jd_name(&d, l->file), "app.js");
	l = jd_line_at(&d, &x, life, 0x1004);
	ck_assert_uint_eq(l->line, 10);
	ck_assert_str_eq(jd_name(&d, l->file), "app.js");
	l = jd_line_at(&d, &x, life, 0x1050);
	ck_assert_uint_eq(l->line, 20);
	ck_assert_str_eq(jd_name(&d, l->file), "other.js");
}
END_TEST

/* A name as node 20 writes some: its bytes read after they were freed,
 * the first 16 overwritten by the allocator's list pointer and key
 * (NULs among them), its length and terminator still right. */
static const uint8_t freed_junk[16] = { 0x23, 0xcc, 0x03, 0,	0,    0,
					0,    0,    0x50, 0x3a, 0x94, 0x43,
					0x3b, 0x90, 0xf6, 0xb9 };
static const uint8_t *junk = freed_junk;

static void w_garbled(struct w *w, const char *name)
{
	size_t n = strlen(name);

	memcpy(w->buf + w->len, name, n + 1);
	memcpy(w->buf + w->len, junk, n < 16 ? n : 16);
	w->len += n + 1;
}

/* A line table as node writes it for fib: its own script's name
 * garbled twice, an inlined script's garbled once, a good name once,
 * then padding to 8 bytes, and the load of the code. */
static void w_node_debug_at(struct w *w, uint64_t addr, const char *fib)
{
	char load[256];
	size_t at = w->len;
	uint32_t total;

	w32(w, JD_CODE_DEBUG_INFO);
	w32(w, 0);
	w64(w, 1);
	w64(w, addr);
	w64(w, 4);
	w64(w, addr + 0x40);
	w32(w, 7);
	w32(w, 2);
	w_garbled(w, fib);
	w64(w, addr + 0x42);
	w32(w, 7);
	w32(w, 11);
	w_garbled(w, fib);
	w64(w, addr + 0x50);
	w32(w, 598);
	w32(w, 30);
	w_garbled(w, "node:internal/util");
	w64(w, addr + 0x60);
	w32(w, 8);
	w32(w, 3);
	wstr(w, fib);
	while ((w->len - at) % 8)
		w->buf[w->len++] = 0;
	total = (uint32_t)(w->len - at);
	memcpy(w->buf + at + 4, &total, 4);
	snprintf(load, sizeof(load), "JS:*fib %s:6:13", fib);
	w_load(w, 100000000, addr, 0x100, 1, load);
}

static void w_node_debug(struct w *w, uint64_t addr)
{
	w_node_debug_at(w, addr, "/srv/app/tests/handlers/fib.js");
}

/* Every entry of node's table is read at its place, the garbled names
 * of fib's own script recovered from the load's name, the inlined
 * one's dropped with its line kept, and nothing reported malformed. */
START_TEST(node_garbled_names)
{
	static const char *fib = "/srv/app/tests/handlers/fib.js";
	struct w w;
	const struct jd_line *l;
	uint32_t life;

	memset(&w, 0, sizeof(w));
	w_header(&w, 1, 40, 0);
	w_node_debug(&w, 0x1000);
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert_int_eq(d.nbad, 0);
	ck_assert_int_eq(d.ncode, 1);
	ck_assert_int_eq(jd_index_build(&x, &d, false), 0);
	life = jd_index_life(&x, jd_index_seg(&x, 0x1044), 200000000);
	ck_assert_uint_ne(life, UINT32_MAX);
	l = jd_line_at(&d, &x, life, 0x1041);
	ck_assert_uint_eq(l->line, 7);
	ck_assert_str_eq(jd_name(&d, l->file), fib);
	l = jd_line_at(&d, &x, life, 0x1044);
	ck_assert_uint_eq(l->line, 7);
	ck_assert_str_eq(jd_name(&d, l->file), fib);
	l = jd_line_at(&d, &x, life, 0x1058);
	ck_assert_uint_eq(l->line, 598);
	ck_assert_uint_eq(l->file, JD_NO_FILE);
	l = jd_line_at(&d, &x, life, 0x1070);
	ck_assert_uint_eq(l->line, 8);
	ck_assert_str_eq(jd_name(&d, l->file), fib);
	ck_assert_int_eq(d.code[0].nlines, 4);
	ck_assert_uint_eq(d.names_garbled, 3);
	ck_assert_uint_eq(d.names_recovered, 2);
}
END_TEST

/* Read a dump of the corpus into W. */
static void w_file(struct w *w, const char *name)
{
	char path[512];
	ssize_t n;
	int fd;

	memset(w, 0, sizeof(*w));
	snprintf(path, sizeof(path), "%s/%s", JD_CORPUS, name);
	fd = open(path, O_RDONLY);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	n = read(fd, w->buf, sizeof(w->buf));
	close(fd);
	ck_assert_msg(n > 0 && (size_t)n < sizeof(w->buf), "%s: %zd bytes",
		      path, n);
	w->len = (size_t)n;
}

static const struct jd_code *code_named(const char *prefix)
{
	size_t i;

	for (i = 0; i < d.ncode; i++)
		if (!strncmp(jd_name(&d, d.code[i].name), prefix,
			     strlen(prefix)))
			return &d.code[i];
	ck_abort_msg("no code named %s...", prefix);
	return NULL;
}

/* node 20's own bytes (tests/opannotate/hot.js under --perf-prof, two
 * loads with their tables): V8 adds 64 bytes to every line's address,
 * so a table read as written starts 64 bytes into its code, a 40-byte
 * stub's line lies past its end, and hot's loop body (the imul of
 * Math.imul(s, 31), line 7) falls on the loop's own line 6. */
START_TEST(node_line_bias)
{
	static const uint8_t imul[] = { 0x44, 0x6b, 0xc7, 0x1f };
	const struct jd_code *c;
	const struct jd_line *l;
	const uint8_t *code, *at;
	uint32_t life;
	size_t i, k;
	struct w w;

	w_file(&w, "node20-hot.dump");
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert_int_eq(d.nbad, 0);
	ck_assert_int_eq(d.ncode, 2);
	ck_assert_uint_eq(d.line_bias, 0x40);
	for (i = 0; i < d.ncode; i++) {
		c = &d.code[i];
		ck_assert_uint_gt(c->nlines, 0);
		/* the entry of the function's own position, at its start */
		ck_assert_uint_eq(d.lines[c->first_line].addr, c->addr);
		for (k = 0; k < c->nlines; k++)
			ck_assert_msg(
				d.lines[c->first_line + k].addr - c->addr <
					c->size,
				"%s: a line at +0x%llx of %llu bytes",
				jd_name(&d, c->name),
				(unsigned long long)(d.lines[c->first_line + k]
							     .addr -
						     c->addr),
				(unsigned long long)c->size);
	}
	c = code_named("JS:*hot ");
	ck_assert_uint_eq(c->code_len, c->size);
	code = w.buf + c->code_off;
	at = memmem(code, c->code_len, imul, sizeof(imul));
	ck_assert_ptr_nonnull(at);
	ck_assert_int_eq(jd_index_build(&x, &d, false), 0);
	life = jd_index_life(&x, jd_index_seg(&x, c->addr), c->time);
	ck_assert_uint_ne(life, UINT32_MAX);
	l = jd_line_at(&d, &x, life, c->addr + (uint64_t)(at - code));
	ck_assert_uint_eq(l->line, 7);
	ck_assert_str_eq(jd_name(&d, l->file),
			 "/srv/myapp/src/tests/opannotate/hot.js");
	/* the function's entry is its declaration's line */
	l = jd_line_at(&d, &x, life, c->addr);
	ck_assert_uint_eq(l->line, 4);
}
END_TEST

/* The same bytes but for the header's reserved word: not V8's, its
 * addresses are taken as written. */
START_TEST(line_bias_v8_only)
{
	const struct jd_code *c;
	struct w w;

	w_file(&w, "node20-hot.dump");
	memset(w.buf + 16, 0, 4);
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert_uint_eq(d.line_bias, 0);
	c = code_named("JS:*hot ");
	ck_assert_uint_eq(d.lines[c->first_line].addr, c->addr + 0x40);
}
END_TEST

/* A script's path of 17 to 23 bytes keeps fewer than its last 8 bytes
 * past the allocator's 16 (node --perf-prof fib.js run in
 * /home/me/app): recovered from those it keeps. */
START_TEST(garbled_short_path)
{
	static const char *fib = "/home/me/app/fib.js";
	const struct jd_line *l;
	uint32_t life;
	struct w w;

	memset(&w, 0, sizeof(w));
	w_header(&w, 1, 40, 0);
	w_node_debug_at(&w, 0x1000, fib);
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert_int_eq(d.nbad, 0);
	ck_assert_uint_eq(d.names_garbled, 3);
	ck_assert_uint_eq(d.names_recovered, 2);
	ck_assert_int_eq(jd_index_build(&x, &d, false), 0);
	life = jd_index_life(&x, jd_index_seg(&x, 0x1044), 200000000);
	l = jd_line_at(&d, &x, life, 0x1044);
	ck_assert_uint_eq(l->line, 7);
	ck_assert_str_eq(jd_name(&d, l->file), fib);
}
END_TEST

/* The allocator's next pointer of a block in a heap below 128 MiB
 * (node's, at 0x6f4a000) reads as text, "Jo", then NULs: still taken
 * as garbled, since the entry after it does not fit, and recovered. */
START_TEST(garbled_reads_as_text)
{
	static const uint8_t jo[16] = { 'J',  'o',  0,	  0,	0,    0,
					0,    0,    0x50, 0x3a, 0x94, 0x43,
					0x3b, 0x90, 0xf6, 0xb9 };
	static const char *fib = "/srv/app/tests/handlers/fib.js";
	const struct jd_line *l;
	uint32_t life, v8;
	struct w w;

	memset(&w, 0, sizeof(w));
	w_header(&w, 1, 40, 0);
	v8 = JD_V8_RESERVED;
	memcpy(w.buf + 16, &v8, 4);
	junk = jo;
	w_node_debug(&w, 0x1000);
	junk = freed_junk;
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert_int_eq(d.nbad, 0);
	ck_assert_int_eq(d.code[0].nlines, 4);
	ck_assert_uint_eq(d.names_garbled, 3);
	ck_assert_uint_eq(d.line_bias, 0x40);
	ck_assert_uint_eq(d.names_recovered, 2);
	ck_assert_int_eq(jd_index_build(&x, &d, false), 0);
	/* V8's lines are 64 bytes past their instructions */
	life = jd_index_life(&x, jd_index_seg(&x, 0x1004), 200000000);
	l = jd_line_at(&d, &x, life, 0x1004);
	ck_assert_uint_eq(l->line, 7);
	ck_assert_str_eq(jd_name(&d, l->file), fib);
	l = jd_line_at(&d, &x, life, 0x1018);
	ck_assert_uint_eq(l->line, 598);
	ck_assert_uint_eq(l->file, JD_NO_FILE);
}
END_TEST

/* A short name that is text, in a dump that is not V8's, is taken as
 * the format says even when the entry after it does not fit there. */
START_TEST(text_kept_outside_v8)
{
	struct w w;
	size_t at;
	uint32_t total;

	memset(&w, 0, sizeof(w));
	w_header(&w, 1, 40, 0); /* no V8 word */
	at = w.len;
	w32(&w, JD_CODE_DEBUG_INFO);
	w32(&w, 0);
	w64(&w, 1);
	w64(&w, 0x1000);
	w64(&w, 2);
	w64(&w, 0x1000);
	w32(&w, 3);
	w32(&w, 0);
	wstr(&w, "a.c");
	w64(&w, 0x1010);
	w32(&w, 0); /* line 0: does not fit */
	w32(&w, 0);
	wstr(&w, "b.c");
	while ((w.len - at) % 8)
		w.buf[w.len++] = 0;
	total = (uint32_t)(w.len - at);
	memcpy(w.buf + at + 4, &total, 4);
	w_load(&w, 100, 0x1000, 0x100, 1, "f");
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert_int_eq(d.nbad, 0);
	ck_assert_int_eq(d.code[0].nlines, 2);
	ck_assert_uint_eq(d.names_garbled, 0);
	ck_assert_str_eq(jd_name(&d, d.lines[d.code[0].first_line].file),
			 "a.c");
	ck_assert_str_eq(jd_name(&d, d.lines[d.code[0].first_line + 1].file),
			 "b.c");
}
END_TEST

/* A garbled name the code's name does not explain (another length, or
 * a load with no script in its name) stays without a file. */
START_TEST(garbled_not_guessed)
{
	struct w w;
	size_t i;

	memset(&w, 0, sizeof(w));
	w_header(&w, 1, 40, 0);
	w_node_debug(&w, 0x1000);
	/* the load's name: "JS:*fib" alone */
	for (i = 0; i + 7 < w.len; i++)
		if (!memcmp(w.buf + i, "JS:*fib ", 8))
			w.buf[i + 7] = '\0';
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert_int_eq(d.nbad, 0);
	ck_assert_int_eq(d.code[0].nlines, 4);
	ck_assert_uint_eq(d.names_garbled, 3);
	ck_assert_uint_eq(d.names_recovered, 0);
	for (i = 0; i < 3; i++)
		ck_assert_uint_eq(d.lines[d.code[0].first_line + i].file,
				  JD_NO_FILE);
	ck_assert_uint_eq(d.lines[d.code[0].first_line + 3].line, 8);
}
END_TEST

/* Names that are not text where no later NUL is followed by an entry
 * that fits: read as the format says, each line kept without a file. */
START_TEST(garbled_no_resync)
{
	struct w w;
	size_t at, i;
	uint32_t total;

	memset(&w, 0, sizeof(w));
	w_header(&w, 1, 40, 0);
	at = w.len;
	w32(&w, JD_CODE_DEBUG_INFO);
	w32(&w, 0);
	w64(&w, 1);
	w64(&w, 0x1000);
	w64(&w, 3);
	for (i = 0; i < 3; i++) {
		w64(&w, i ? 0 : 0x1010); /* 0: before the code */
		w32(&w, (uint32_t)(5 + i));
		w32(&w, 0);
		wstr(&w, "\x01\x02");
	}
	total = (uint32_t)(w.len - at);
	memcpy(w.buf + at + 4, &total, 4);
	w_load(&w, 100, 0x1000, 0x100, 1, "JS:*f /a/b/c/d/e/f.js:1:1");
	ck_assert_int_eq(parse_mem(&w, w.len), 0);
	ck_assert_msg(d.nbad == 0, "%s", d.bad[0]);
	ck_assert_int_eq(d.code[0].nlines, 3);
	ck_assert_uint_eq(d.names_garbled, 3);
	ck_assert_uint_eq(d.names_recovered, 0);
	/* sorted by address: the two at 0 (6, 7), then 0x1010 (5) */
	for (i = 0, total = 0; i < 3; i++) {
		const struct jd_line *l = &d.lines[d.code[0].first_line + i];

		ck_assert_uint_eq(l->file, JD_NO_FILE);
		total += l->line;
	}
	ck_assert_uint_eq(total, 18);
	ck_assert_uint_eq(d.lines[d.code[0].first_line + 2].line, 5);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Through the handler's table, from files */

static const struct opjit_handler *h;
static char dir[64];
static char warned[16][768];
static int nwarned;

static void record_warn(const struct opjit_host *host, const char *msg)
{
	(void)host;
	if (nwarned < 16)
		snprintf(warned[nwarned], sizeof(warned[0]), "%s", msg);
	nwarned++;
}

static const struct opjit_host host = {
	.struct_size = sizeof(struct opjit_host),
	.abi_major = OPJIT_HANDLER_ABI_MAJOR,
	.warn = record_warn,
	.open_map = handler_trust_open_map,
};

static struct opjit_map_candidate cand[2];
static const struct opjit_map_candidate *candp[2];
static struct opjit_process proc;
static char path[128];
static void *state;
static char claim_err[256];

static void hsetup(void)
{
	struct timespec ts;

	h = opjit_handler_entry(OPJIT_HANDLER_ABI_MAJOR,
				OPJIT_HANDLER_ABI_MINOR);
	ck_assert_ptr_nonnull(h);
	snprintf(dir, sizeof(dir), "/tmp/opjit-jitdump-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/jit-4242.dump", dir);
	nwarned = 0;
	state = NULL;
	memset(&proc, 0, sizeof(proc));
	proc.struct_size = sizeof(proc);
	proc.tgid = proc.nspid = 4242;
	proc.uid = (uint32_t)geteuid();
	proc.comm = "node";
	proc.exe = "/usr/bin/node";
	clock_gettime(CLOCK_REALTIME, &ts);
	proc.start_unix_ns = ((int64_t)ts.tv_sec - 60) * 1000000000LL;
	cand[0].struct_size = sizeof(cand[0]);
	cand[0].path = "/nonexistent/jit-4242.dump";
	cand[0].kind = OPJIT_MAP_JITDUMP;
	cand[1].struct_size = sizeof(cand[1]);
	cand[1].path = path;
	cand[1].kind = OPJIT_MAP_JITDUMP;
	candp[0] = &cand[0];
	candp[1] = &cand[1];
	proc.maps = candp;
	proc.nr_maps = 2;
}

static void hteardown(void)
{
	if (state)
		h->release(state);
	unlink(path);
	rmdir(dir);
}

static void put_file(const struct w *w, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, w->buf, len), (ssize_t)len);
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
}

static const char *resolve_one(uint64_t addr, uint64_t t, const char **file,
			       uint32_t *line)
{
	const struct opjit_symbol *sym = NULL;
	const char *f = NULL;
	uint32_t l = 0;
	struct opjit_resolve_batch b = {
		.struct_size = sizeof(b),
		.count = 1,
		.addrs = &addr,
		.times = &t,
		.symbols = &sym,
		.files = &f,
		.lines = &l,
	};

	ck_assert_int_eq(h->resolve(state, &b), 0);
	if (file)
		*file = f;
	if (line)
		*line = l;
	return sym ? sym->name : NULL;
}

START_TEST(handler_claims_and_names)
{
	struct w w;
	const char *file;
	uint32_t line;

	w_story(&w, false, 1, 40, 0);
	put_file(&w, w.len, 0644);
	ck_assert_int_eq(h->claim(&host, &proc, &state, claim_err,
				  sizeof(claim_err)),
			 1);
	ck_assert_int_eq(nwarned, 0);
	ck_assert_str_eq(resolve_one(0x1018, 150000000, &file, &line),
			 "alpha");
	ck_assert_str_eq(file, "app.js");
	ck_assert_uint_eq(line, 12);
	ck_assert_str_eq(resolve_one(0x1018, 350000000, NULL, NULL), "gamma");
	ck_assert_str_eq(resolve_one(0x3000, 450000000, NULL, NULL), "beta");
	ck_assert_ptr_null(resolve_one(0x9000, 450000000, NULL, NULL));
}
END_TEST

static const struct opjit_symbol *resolve_sym(uint64_t addr, uint64_t t)
{
	const struct opjit_symbol *sym = NULL;
	struct opjit_resolve_batch b = {
		.struct_size = OPJIT_RESOLVE_BATCH_SIZE_1_0,
		.count = 1,
		.addrs = &addr,
		.times = &t,
		.symbols = &sym,
	};

	ck_assert_int_eq(h->resolve(state, &b), 0);
	ck_assert_ptr_nonnull(sym);
	return sym;
}

/* ABI 1.4: each load's code as its record holds it (the story's records
 * hold 4 bytes, though their sizes say 0x100 and 0x80), per generation;
 * a host older than 1.4 gets a table without the slot. */
START_TEST(handler_code_bytes)
{
	const struct opjit_symbol *alpha, *gamma;
	static const uint8_t want[4] = { 0xc3, 0xc3, 0xc3, 0xc3 };
	const uint8_t *code = NULL;
	uint64_t len = 0, addr = 0, load = 0, fake[16] = { 0 };
	struct w w;

	ck_assert_uint_ge(h->struct_size, OPJIT_HANDLER_SIZE_1_4);
	ck_assert_ptr_nonnull(h->code_bytes);
	/* a 1.3 host's own table, which ends before code_bytes */
	ck_assert_uint_eq(
		opjit_handler_entry(OPJIT_HANDLER_ABI_MAJOR, 3)->struct_size,
		OPJIT_HANDLER_SIZE_1_3);
	w_story(&w, false, 1, 40, 0);
	put_file(&w, w.len, 0644);
	ck_assert_int_eq(h->claim(&host, &proc, &state, claim_err,
				  sizeof(claim_err)),
			 1);
	alpha = resolve_sym(0x1018, 150000000);
	gamma = resolve_sym(0x1018, 350000000);
	ck_assert_ptr_ne(alpha, gamma);
	ck_assert_int_eq(
		h->code_bytes(state, alpha, &code, &len, &addr, &load), 0);
	ck_assert_uint_eq(len, 4);
	ck_assert_mem_eq(code, want, 4);
	ck_assert_uint_eq(addr, 0x1000);
	ck_assert_uint_eq(load, 100000000);
	ck_assert_int_eq(
		h->code_bytes(state, gamma, &code, &len, &addr, &load), 0);
	ck_assert_uint_eq(len, 4);
	ck_assert_uint_eq(load, 300000000);
	/* asked again: the same bytes, read once */
	ck_assert_int_eq(
		h->code_bytes(state, alpha, &code, &len, &addr, &load), 0);
	ck_assert_mem_eq(code, want, 4);
	/* a symbol it did not hand out */
	ck_assert_int_eq(h->code_bytes(state,
				       (const struct opjit_symbol *)fake,
				       &code, &len, &addr, &load),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(h->last_error(state), "another state"));
}
END_TEST

START_TEST(handler_other_kinds_ignored)
{
	struct w w;

	w_story(&w, false, 1, 40, 0);
	put_file(&w, w.len, 0644);
	cand[1].kind = OPJIT_MAP_PERF;
	ck_assert_int_eq(h->claim(&host, &proc, &state, claim_err,
				  sizeof(claim_err)),
			 0);
	ck_assert_int_eq(nwarned, 0);
}
END_TEST

START_TEST(handler_trust)
{
	struct w w;
	char want[256];

	w_story(&w, false, 1, 40, 0);
	put_file(&w, w.len, 0666);
	ck_assert_int_eq(h->claim(&host, &proc, &state, claim_err,
				  sizeof(claim_err)),
			 0);
	ck_assert_int_eq(nwarned, 1);
	snprintf(want, sizeof(want),
		 "%s: writable by group or others (trust rule: mode)", path);
	ck_assert_str_eq(warned[0], want);
}
END_TEST

/* Through the table: node's recovered names are given, the inlined
 * script's garbled one gives no file and no line (not the line before
 * it), and one line says so. */
START_TEST(handler_garbled_names)
{
	struct w w;
	const char *file;
	char want[512];
	uint32_t line;

	memset(&w, 0, sizeof(w));
	w_header(&w, 1, 40, 0);
	w_node_debug(&w, 0x1000);
	put_file(&w, w.len, 0644);
	ck_assert_int_eq(h->claim(&host, &proc, &state, claim_err,
				  sizeof(claim_err)),
			 1);
	ck_assert_int_eq(nwarned, 1);
	snprintf(want, sizeof(want),
		 "%s: 3 line-table file names are not text (a writer's "
		 "bug); recovered from their code's name: 2, lines left "
		 "without a file: 1",
		 path);
	ck_assert_str_eq(warned[0], want);
	ck_assert_str_eq(resolve_one(0x1044, 200000000, &file, &line),
			 "JS:*fib /srv/app/tests/handlers/fib.js:6:13");
	ck_assert_str_eq(file, "/srv/app/tests/handlers/fib.js");
	ck_assert_uint_eq(line, 7);
	ck_assert_ptr_nonnull(resolve_one(0x1058, 200000000, &file, &line));
	ck_assert_ptr_null(file);
	ck_assert_uint_eq(line, 0);
}
END_TEST

START_TEST(handler_torn_one_line)
{
	struct w w;
	char want[256];
	size_t cut;

	memset(&w, 0, sizeof(w));
	w_header(&w, 1, 40, 0);
	w_load(&w, 100, 0x1000, 0x100, 1, "alpha");
	cut = w.len;
	w_load(&w, 200, 0x2000, 0x100, 2, "beta");
	put_file(&w, w.len - 3, 0644);
	ck_assert_int_eq(h->claim(&host, &proc, &state, claim_err,
				  sizeof(claim_err)),
			 1);
	ck_assert_int_eq(nwarned, 1);
	snprintf(want, sizeof(want),
		 "%s: record cut off at offset %zu, "
		 "keeping the 1 records before it",
		 path, cut);
	ck_assert_str_eq(warned[0], want);
	ck_assert_str_eq(resolve_one(0x1000, 100, NULL, NULL), "alpha");
}
END_TEST

START_TEST(handler_arch_timestamp)
{
	struct w w;
	char want[256];

	w_story(&w, false, 1, 40, JD_FLAGS_ARCH_TIMESTAMP);
	put_file(&w, w.len, 0644);
	ck_assert_int_eq(h->claim(&host, &proc, &state, claim_err,
				  sizeof(claim_err)),
			 1);
	ck_assert_int_eq(nwarned, 1);
	snprintf(want, sizeof(want),
		 "%s: records are stamped with the CPU's "
		 "own counter, not CLOCK_MONOTONIC: naming code by address "
		 "only",
		 path);
	ck_assert_str_eq(warned[0], want);
	ck_assert_str_eq(resolve_one(0x1018, 1, NULL, NULL), "gamma");
}
END_TEST

START_TEST(handler_not_a_dump)
{
	struct w w;
	char want[256];

	memset(&w, 0, sizeof(w));
	memcpy(w.buf, "7f00 10 not a dump\n", 19);
	put_file(&w, 19, 0644);
	ck_assert_int_eq(h->claim(&host, &proc, &state, claim_err,
				  sizeof(claim_err)),
			 0);
	ck_assert_int_eq(nwarned, 1);
	snprintf(want, sizeof(want), "%s: not a jitdump file", path);
	ck_assert_str_eq(warned[0], want);
}
END_TEST

START_TEST(handler_many_bad_records)
{
	struct w w;
	char want[256];
	int i;

	memset(&w, 0, sizeof(w));
	w_header(&w, 1, 40, 0);
	for (i = 0; i < 20; i++)
		w_raw(&w, JD_CODE_MOVE, 20);
	put_file(&w, w.len, 0644);
	ck_assert_int_eq(h->claim(&host, &proc, &state, claim_err,
				  sizeof(claim_err)),
			 1);
	ck_assert_int_eq(nwarned, JD_MAX_REPORTED + 1);
	snprintf(want, sizeof(want),
		 "%s: malformed JIT_CODE_MOVE at offset "
		 "40: 20 bytes, at least 64 expected",
		 path);
	ck_assert_str_eq(warned[0], want);
	snprintf(want, sizeof(want), "%s: %d more malformed records skipped",
		 path, 20 - JD_MAX_REPORTED);
	ck_assert_str_eq(warned[JD_MAX_REPORTED], want);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("jitdump");
	struct {
		const char *name;
		const TTest *t;
	} parse[] = {
		{ "native_v1", native_v1 },
		{ "byte_swapped", byte_swapped },
		{ "mono_v2", mono_v2 },
		{ "unknown_version", unknown_version },
		{ "torn_tail", torn_tail },
		{ "impossible_size", impossible_size },
		{ "bad_records", bad_records },
		{ "early_sample", early_sample },
		{ "reused_address", reused_address },
		{ "out_of_order", out_of_order },
		{ "move", move },
		{ "by_address", by_address },
		{ "lines", lines },
		{ "node_garbled_names", node_garbled_names },
		{ "garbled_short_path", garbled_short_path },
		{ "garbled_reads_as_text", garbled_reads_as_text },
		{ "text_kept_outside_v8", text_kept_outside_v8 },
		{ "garbled_not_guessed", garbled_not_guessed },
		{ "garbled_no_resync", garbled_no_resync },
		{ "node_line_bias", node_line_bias },
		{ "line_bias_v8_only", line_bias_v8_only },
	}, handler[] = {
		{ "handler_claims_and_names", handler_claims_and_names },
		{ "handler_code_bytes", handler_code_bytes },
		{ "handler_other_kinds_ignored",
		  handler_other_kinds_ignored },
		{ "handler_trust", handler_trust },
		{ "handler_torn_one_line", handler_torn_one_line },
		{ "handler_garbled_names", handler_garbled_names },
		{ "handler_arch_timestamp", handler_arch_timestamp },
		{ "handler_not_a_dump", handler_not_a_dump },
		{ "handler_many_bad_records", handler_many_bad_records },
	};
	size_t i;

	for (i = 0; i < sizeof(parse) / sizeof(parse[0]); i++) {
		TCase *tc = tcase_create(parse[i].name);

		tcase_add_checked_fixture(tc, NULL, teardown);
		tcase_add_test(tc, parse[i].t);
		suite_add_tcase(s, tc);
	}
	for (i = 0; i < sizeof(handler) / sizeof(handler[0]); i++) {
		TCase *tc = tcase_create(handler[i].name);

		tcase_add_checked_fixture(tc, hsetup, hteardown);
		tcase_add_test(tc, handler[i].t);
		suite_add_tcase(s, tc);
	}
	return s;
}

int main(void)
{
	return opjit_check_run(suite());
}
