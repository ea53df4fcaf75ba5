// SPDX-License-Identifier: GPL-3.0-or-later
/* Naming samples by address and time, inlined frames, stubs, and the
 * one-pointer-per-method rule, on maps built byte by byte. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jm_build.h"
#include "jm_format.h"
#include "jm_resolve.h"

#include "check_run.h"

#define S 1000000000ull /* one second in ns */

static struct jmb b;
static struct jm_state st;

/*
 * outer() is compiled at 0x1000 at 100 s with inner() inlined at +0x20,
 * freed at 200 s; other() takes the same memory at 300 s.  The
 * interpreter lives at 0x9000; other() also has code at 0x5000 that the
 * agent only learnt of by replay, at 1000 s.
 */
static void setup(void)
{
	static const uint32_t outer_l[] = { 0, 10, 4, 11 };
	static const uint32_t inner_l[] = { 0, 20, 3, 21 };
	static const uint32_t other_l[] = { 0, 30 };
	static const uint32_t offs[] = { 0, 0x20, 0x40 };
	static const uint16_t nf[] = { 1, 2, 1 };
	static const struct jmb_frame fr[] = {
		{ 1, 0 },
		{ 2, 3 },
		{ 1, 4 },
		{ 1, 4 },
	};
	static const uint32_t offs3[] = { 0 };
	static const uint16_t nf3[] = { 1 };
	static const struct jmb_frame fr3[] = { { 3, 0 } };

	jmb_init(&b, 1, JM_HDR_INLINE);
	jmb_dynamic(&b, 50 * S, 0, 0x9000, 0x1000, "Interpreter");
	jmb_method(&b, 99 * S, 1, "p.A.outer()", "p/A.java", outer_l, 2);
	jmb_method(&b, 99 * S, 2, "p.A.inner(int)", "p/A.java", inner_l, 2);
	jmb_code_load(&b, 100 * S, 0, 1, 0x1000, 0x100, offs, nf, fr, 3);
	jmb_code_unload(&b, 200 * S, 1, 0x1000);
	jmb_method(&b, 299 * S, 3, "p.B.other()", "p/B.java", other_l, 1);
	jmb_code_load(&b, 300 * S, 0, 3, 0x1000, 0x80, offs3, nf3, fr3, 1);
	jmb_code_load(&b, 1000 * S, JM_REC_REPLAYED, 3, 0x5000, 0x10, NULL,
		      NULL, NULL, 0);
	ck_assert_int_eq(jm_state_init(&st, b.buf, b.len), 0);
}

static void teardown(void)
{
	jm_state_free(&st);
	jmb_free(&b);
}

struct one {
	const struct opjit_symbol *sym;
	const char *file;
	uint32_t line;
};

static struct one resolve1(uint64_t addr, uint64_t t)
{
	struct opjit_resolve_batch batch = { 0 };
	struct one o = { 0 };

	batch.struct_size = sizeof(batch);
	batch.count = 1;
	batch.addrs = &addr;
	batch.times = &t;
	batch.symbols = &o.sym;
	batch.files = &o.file;
	batch.lines = &o.line;
	ck_assert_int_eq(jm_state_resolve(&st, &batch), 0);
	return o;
}

static const char *name_at(uint64_t addr, uint64_t t)
{
	struct one o = resolve1(addr, t);

	return o.sym ? o.sym->name : "(unknown)";
}

/* A DATA range (the agent's Method* of an interpreted frame) names its
 * method like code, from its load on, or always when replayed; the
 * value read from a frame is looked up as it is, not at - 1. */
START_TEST(test_method_data)
{
	static const uint32_t l[] = { 0, 5 };
	struct jmb d;
	struct jm_state ds;
	const struct opjit_symbol *sym[4];
	uint64_t addrs[] = { 0x7f00001000, 0x7f00001007, 0x7f00002000,
			     0x7f00001008 };
	uint64_t times[] = { 150 * S, 150 * S, 10 * S, 150 * S };
	struct opjit_resolve_batch batch = { .struct_size = sizeof(batch),
					     .count = 4,
					     .addrs = addrs,
					     .times = times,
					     .symbols = sym };

	jmb_init(&d, 1, 0);
	jmb_method(&d, 99 * S, 1, "Deep.left()", "Deep.java", l, 1);
	jmb_method(&d, 99 * S, 2, "Deep.main(java.lang.String[])", "Deep.java",
		   l, 1);
	jmb_code_load(&d, 100 * S, JM_REC_DATA, 1, 0x7f00001000, 8, NULL, NULL,
		      NULL, 0);
	jmb_code_load(&d, 1000 * S, JM_REC_DATA | JM_REC_REPLAYED, 2,
		      0x7f00002000, 8, NULL, NULL, NULL, 0);
	ck_assert_int_eq(jm_state_init(&ds, d.buf, d.len), 0);
	ck_assert_int_eq(jm_state_resolve(&ds, &batch), 0);
	ck_assert_ptr_nonnull(sym[0]);
	ck_assert_str_eq(sym[0]->name, "Deep.left()");
	ck_assert_ptr_eq(sym[1], sym[0]);
	ck_assert_ptr_nonnull(sym[2]);
	ck_assert_str_eq(sym[2]->name, "Deep.main(java.lang.String[])");
	ck_assert_ptr_null(sym[3]);
	jm_state_free(&ds);
	jmb_free(&d);
}
END_TEST

START_TEST(test_time_follows)
{
	ck_assert_str_eq(name_at(0x1010, 150 * S), "p.A.outer()");
	ck_assert_str_eq(name_at(0x1010, 350 * S), "p.B.other()");
	/* freed and not yet reused: nothing lived there */
	ck_assert_str_eq(name_at(0x1010, 250 * S), "(unknown)");
	/* before anything was compiled there */
	ck_assert_str_eq(name_at(0x1010, 60 * S), "(unknown)");
	/* other() is shorter than outer() was */
	ck_assert_str_eq(name_at(0x10a0, 150 * S), "p.A.outer()");
	ck_assert_str_eq(name_at(0x10a0, 350 * S), "(unknown)");
}
END_TEST

START_TEST(test_load_slack)
{
	/* the load event comes a little after the code first ran */
	ck_assert_str_eq(name_at(0x1010, 300 * S - 50000000), "p.B.other()");
	ck_assert_str_eq(name_at(0x1010, 300 * S - 500000000), "(unknown)");
}
END_TEST

START_TEST(test_replayed_is_older)
{
	ck_assert_str_eq(name_at(0x5008, 10 * S), "p.B.other()");
	ck_assert_str_eq(name_at(0x5008, 2000 * S), "p.B.other()");
	ck_assert_str_eq(name_at(0x5010, 2000 * S), "(unknown)");
}
END_TEST

START_TEST(test_inlined)
{
	struct one o;

	o = resolve1(0x1025, 150 * S);
	ck_assert_ptr_nonnull(o.sym);
	ck_assert_str_eq(o.sym->name, "p.A.inner(int)");
	ck_assert_str_eq(o.file, "p/A.java");
	ck_assert_uint_eq(o.line, 21);
	o = resolve1(0x1045, 150 * S);
	ck_assert_str_eq(o.sym->name, "p.A.outer()");
	ck_assert_uint_eq(o.line, 11);
	o = resolve1(0x1005, 150 * S);
	ck_assert_str_eq(o.sym->name, "p.A.outer()");
	ck_assert_uint_eq(o.line, 10);
	ck_assert_str_eq(o.sym->file, "p/A.java");
	ck_assert_uint_eq(o.sym->line, 10);
}
END_TEST

START_TEST(test_stub)
{
	struct one o = resolve1(0x9abc, 500 * S);

	ck_assert_ptr_nonnull(o.sym);
	ck_assert_str_eq(o.sym->name, "Interpreter");
	ck_assert_ptr_null(o.file);
	ck_assert_uint_eq(o.line, 0);
	ck_assert_uint_eq(o.sym->start, 0x9000);
	ck_assert_uint_eq(o.sym->size, 0x1000);
	ck_assert_str_eq(name_at(0xa000, 500 * S), "(unknown)");
	ck_assert_str_eq(name_at(0x8fff, 500 * S), "(unknown)");
}
END_TEST

START_TEST(test_one_pointer_per_method)
{
	struct one a = resolve1(0x1005, 150 * S);
	struct one c = resolve1(0x1045, 150 * S);
	struct one i = resolve1(0x1025, 150 * S);
	struct one r = resolve1(0x5000, 1500 * S);
	struct one o = resolve1(0x1000, 400 * S);

	ck_assert_ptr_eq(a.sym, c.sym);
	ck_assert_ptr_ne(a.sym, i.sym);
	ck_assert_ptr_eq(r.sym, o.sym);
	ck_assert_uint_eq(a.sym->start, 0x1000);
	ck_assert_uint_eq(a.sym->size, 0x100);
	/* inner() has no code of its own */
	ck_assert_uint_eq(i.sym->start, 0);
	ck_assert_uint_eq(i.sym->size, 0);
}
END_TEST

START_TEST(test_batch)
{
	uint64_t addrs[] = { 0x1005, 0x1005, 0x5000, 0x9000, 0xffff };
	uint64_t times[] = { 150 * S, 350 * S, 1 * S, 60 * S, 60 * S };
	const struct opjit_symbol *syms[5] = { 0 };
	const char *files[5] = { 0 };
	uint32_t lines[5] = { 0 };
	struct opjit_resolve_batch batch = {
		.struct_size = sizeof(batch),
		.count = 5,
		.addrs = addrs,
		.times = times,
		.symbols = syms,
		.files = files,
		.lines = lines,
	};

	ck_assert_int_eq(jm_state_resolve(&st, &batch), 0);
	ck_assert_str_eq(syms[0]->name, "p.A.outer()");
	ck_assert_str_eq(syms[1]->name, "p.B.other()");
	ck_assert_uint_eq(lines[1], 30);
	ck_assert_str_eq(files[1], "p/B.java");
	ck_assert_str_eq(syms[2]->name, "p.B.other()");
	/* replayed code without pcs: no line, but the method's file */
	ck_assert_uint_eq(lines[2], 0);
	ck_assert_str_eq(files[2], "p/B.java");
	ck_assert_str_eq(syms[3]->name, "Interpreter");
	ck_assert_ptr_null(syms[4]);
	ck_assert_ptr_null(files[4]);
}
END_TEST

/* A host that knows only the fields through symbols gets no lines
 * written into memory it does not have. */
START_TEST(test_small_batch)
{
	uint64_t addr = 0x1005, t = 150 * S;
	const struct opjit_symbol *sym = NULL;
	uint32_t line = 12345;
	const char *file = "untouched";
	struct opjit_resolve_batch batch = {
		.struct_size = OPJIT_SIZE_THROUGH(struct opjit_resolve_batch,
						  symbols),
		.count = 1,
		.addrs = &addr,
		.times = &t,
		.symbols = &sym,
		.files = &file,
		.lines = &line,
	};

	ck_assert_int_eq(jm_state_resolve(&st, &batch), 0);
	ck_assert_str_eq(sym->name, "p.A.outer()");
	ck_assert_str_eq(file, "untouched");
	ck_assert_uint_eq(line, 12345);
	batch.symbols = NULL;
	ck_assert_int_eq(jm_state_resolve(&st, &batch), -EINVAL);
	ck_assert_str_eq(st.error, "resolve batch without addresses, times "
				   "or symbols");
}
END_TEST

struct seen {
	int outer, other, interp, total;
	int stop_after;
};

static int seen_cb(void *arg, const struct opjit_symbol *sym)
{
	struct seen *s = arg;

	s->outer += !strcmp(sym->name, "p.A.outer()");
	s->other += !strcmp(sym->name, "p.B.other()");
	s->interp += !strcmp(sym->name, "Interpreter");
	s->total++;
	return s->stop_after && s->total == s->stop_after ? 42 : 0;
}

START_TEST(test_for_each)
{
	struct seen s = { 0 };

	ck_assert_int_eq(jm_state_for_each(&st, seen_cb, &s), 0);
	ck_assert_int_eq(s.outer, 1);
	ck_assert_int_eq(s.other, 1);
	ck_assert_int_eq(s.interp, 1);
	ck_assert_int_eq(s.total, 3);
	memset(&s, 0, sizeof(s));
	s.stop_after = 2;
	ck_assert_int_eq(jm_state_for_each(&st, seen_cb, &s), 42);
	ck_assert_int_eq(s.total, 2);
}
END_TEST

/* Code whose METHOD record was lost still gets one stable name. */
START_TEST(test_missing_method)
{
	struct jmb b2;
	struct jm_state st2;
	uint64_t addr = 0x7010, t = 5 * S;
	const struct opjit_symbol *sym = NULL;
	struct opjit_resolve_batch batch = {
		.struct_size = sizeof(batch),
		.count = 1,
		.addrs = &addr,
		.times = &t,
		.symbols = &sym,
	};

	jmb_init(&b2, 1, 0);
	jmb_code_load(&b2, 1 * S, 0, 0x63, 0x7000, 0x40, NULL, NULL, NULL, 0);
	ck_assert_int_eq(jm_state_init(&st2, b2.buf, b2.len), 0);
	ck_assert_int_eq(jm_state_resolve(&st2, &batch), 0);
	ck_assert_str_eq(sym->name, "(method 0x63)");
	jm_state_free(&st2);
	jmb_free(&b2);
}
END_TEST

/* Two loads live at once at one address (an unload lost in a torn
 * tail): the later one is the code that was there. */
START_TEST(test_latest_live_wins)
{
	static const uint32_t l[] = { 0, 1 };
	struct jmb b2;
	struct jm_state st2;

	jmb_init(&b2, 1, 0);
	jmb_method(&b2, 1, 1, "x.Old()", NULL, l, 1);
	jmb_method(&b2, 1, 2, "x.New()", NULL, l, 1);
	jmb_code_load(&b2, 10 * S, 0, 1, 0x7000, 0x40, NULL, NULL, NULL, 0);
	jmb_code_load(&b2, 20 * S, 0, 2, 0x7000, 0x40, NULL, NULL, NULL, 0);
	ck_assert_int_eq(jm_state_init(&st2, b2.buf, b2.len), 0);
	ck_assert_ptr_nonnull(jm_state_find_code(&st2, 0x7000, 15 * S));
	ck_assert_uint_eq(jm_state_find_code(&st2, 0x7000, 15 * S)->method, 1);
	ck_assert_uint_eq(jm_state_find_code(&st2, 0x703f, 25 * S)->method, 2);
	ck_assert_ptr_null(jm_state_find_code(&st2, 0x7040, 25 * S));
	jm_state_free(&st2);
	jmb_free(&b2);
}
END_TEST

START_TEST(test_method_line)
{
	const struct jm_method *me = jm_state_method(&st, 1);

	ck_assert_ptr_nonnull(me);
	ck_assert_uint_eq(jm_method_line(me, 0), 10);
	ck_assert_uint_eq(jm_method_line(me, 3), 10);
	ck_assert_uint_eq(jm_method_line(me, 4), 11);
	ck_assert_uint_eq(jm_method_line(me, 400), 11);
	ck_assert_uint_eq(jm_method_line(me, -1), 10);
	ck_assert_ptr_null(jm_state_method(&st, 77));
}
END_TEST

/*
 * Inlining chains (ABI 1.2).  a() is compiled at 0x2000 (0x100 bytes):
 *   +0x00  a() alone
 *   +0x10  c() inlined in b() inlined in a()
 *   +0x20  c() in b() in (lost method 99) in a()
 *   +0x30  c() in (lost method 99) in a()
 *   +0x40  (lost method 99) in b() in a()
 *   +0x50  c() in 68 frames of d() in a(): a chain past OPJIT_INLINE_MAX
 * e() is compiled at 0x3000 with one frame per pc, and a stub lives at
 * 0x9000.
 */
#define CH_NR_D 68

static void chain_setup(void)
{
	static const uint32_t a_l[] = { 0, 100, 5, 101, 9, 102 };
	static const uint32_t b_l[] = { 0, 200, 7, 201 };
	static const uint32_t c_l[] = { 0, 300, 2, 301 };
	static const uint32_t e_l[] = { 0, 500 };
	static const uint32_t offs[] = { 0, 0x10, 0x20, 0x30, 0x40, 0x50 };
	static const uint16_t nf[] = { 1, 3, 4, 3, 3, CH_NR_D + 2 };
	static const uint32_t e_offs[] = { 0 };
	static const uint16_t e_nf[] = { 1 };
	static const struct jmb_frame e_fr[] = { { 14, 0 } };
	static const struct jmb_frame head[] = {
		{ 10, 0 },				    /* +0x00 */
		{ 12, 2 }, { 11, 7 }, { 10, 5 },	    /* +0x10 */
		{ 12, 0 }, { 11, 0 }, { 99, 3 }, { 10, 9 }, /* +0x20 */
		{ 12, 0 }, { 99, 3 }, { 10, 9 },	    /* +0x30 */
		{ 99, 0 }, { 11, 7 }, { 10, 5 },	    /* +0x40 */
		{ 12, 0 },				    /* +0x50 ... */
	};
	uint32_t d_l[2 * (CH_NR_D + 1)];
	struct jmb_frame fr[sizeof(head) / sizeof(head[0]) + CH_NR_D + 1];
	size_t n = sizeof(head) / sizeof(head[0]);

	/* d()'s bci k is its line 400 + k, so each frame says where it is */
	for (int k = 0; k <= CH_NR_D; k++) {
		d_l[2 * k] = (uint32_t)k;
		d_l[2 * k + 1] = 400 + (uint32_t)k;
	}
	memcpy(fr, head, sizeof(head));
	for (int k = 1; k <= CH_NR_D; k++)
		fr[n++] = (struct jmb_frame){ 13, k };
	fr[n++] = (struct jmb_frame){ 10, 9 };

	jmb_init(&b, 1, JM_HDR_INLINE);
	jmb_dynamic(&b, 1 * S, 0, 0x9000, 0x1000, "Interpreter");
	jmb_method(&b, 1 * S, 10, "p.C.a()", "p/A.java", a_l, 3);
	jmb_method(&b, 1 * S, 11, "p.C.b(int)", "p/B.java", b_l, 2);
	jmb_method(&b, 1 * S, 12, "p.C.c(long)", "p/C.java", c_l, 2);
	jmb_method(&b, 1 * S, 13, "p.C.d()", "p/D.java", d_l, CH_NR_D + 1);
	jmb_method(&b, 1 * S, 14, "p.C.e()", "p/E.java", e_l, 1);
	jmb_code_load(&b, 2 * S, 0, 10, 0x2000, 0x100, offs, nf, fr, 6);
	jmb_code_load(&b, 2 * S, 0, 14, 0x3000, 0x40, e_offs, e_nf, e_fr, 1);
	ck_assert_int_eq(jm_state_init(&st, b.buf, b.len), 0);
}

#define CH_T (5 * S)
/* stale chain outputs: a 1.2 batch must get them overwritten, an
 * older one, which ends before them, must get them left alone */
#define CH_STALE ((const struct opjit_inline_frame *)(uintptr_t)0x5a5a)
#define CH_STALE_NR 0xa5a5u

struct chain {
	const struct opjit_symbol *sym;
	const char *file;
	uint32_t line;
	const struct opjit_inline_frame *inl;
	uint32_t nr;
};

/* ADDR through a batch of STRUCT_SIZE whose chain outputs start stale */
static struct chain resolve_sized(uint64_t addr, size_t struct_size)
{
	uint64_t t = CH_T;
	struct chain c = { .inl = CH_STALE, .nr = CH_STALE_NR };
	struct opjit_resolve_batch batch = {
		.struct_size = struct_size,
		.count = 1,
		.addrs = &addr,
		.times = &t,
		.symbols = &c.sym,
		.files = &c.file,
		.lines = &c.line,
		.inlined = &c.inl,
		.nr_inlined = &c.nr,
	};

	ck_assert_int_eq(jm_state_resolve(&st, &batch), 0);
	return c;
}

static struct chain resolve12(uint64_t addr)
{
	return resolve_sized(addr, OPJIT_RESOLVE_BATCH_SIZE_1_2);
}

static void ck_frame(const struct opjit_inline_frame *f, const char *name,
		     const char *file, uint32_t line)
{
	ck_assert_uint_eq(f->struct_size, OPJIT_INLINE_FRAME_SIZE_1_2);
	ck_assert_uint_eq(f->reserved, 0);
	ck_assert_ptr_nonnull(f->symbol);
	ck_assert_str_eq(f->symbol->name, name);
	ck_assert_str_eq(f->file, file);
	ck_assert_uint_eq(f->line, line);
}

START_TEST(test_chain_three_deep)
{
	struct chain c = resolve12(0x2014);

	/* the sample still names the innermost method, as in 1.0 */
	ck_assert_str_eq(c.sym->name, "p.C.c(long)");
	ck_assert_str_eq(c.file, "p/C.java");
	ck_assert_uint_eq(c.line, 301);
	ck_assert_uint_eq(c.nr, 2);
	ck_assert_ptr_nonnull(c.inl);
	/* b()'s call to c() is at b()'s bci 7, a()'s call to b() at 5 */
	ck_frame(&c.inl[0], "p.C.b(int)", "p/B.java", 201);
	ck_frame(&c.inl[1], "p.C.a()", "p/A.java", 101);
	/* a() is the code's own method: its symbol is the code */
	ck_assert_uint_eq(c.inl[1].symbol->start, 0x2000);
	ck_assert_uint_eq(c.inl[1].symbol->size, 0x100);
	ck_assert_uint_eq(c.inl[1].symbol->line, 100);
	/* b() and c() have no code of their own */
	ck_assert_uint_eq(c.inl[0].symbol->start, 0);
	ck_assert_uint_eq(c.sym->start, 0);
	/* one symbol per method, inlined or not */
	ck_assert_ptr_eq(c.inl[1].symbol, resolve12(0x2000).sym);
}
END_TEST

START_TEST(test_chain_cached)
{
	uint64_t addrs[] = { 0x2010, 0x2010, 0x201f, 0x2020 };
	uint64_t times[] = { CH_T, CH_T, CH_T, CH_T };
	const struct opjit_symbol *syms[4];
	const struct opjit_inline_frame *inl[4];
	uint32_t nr[4];
	struct opjit_resolve_batch batch = {
		.struct_size = OPJIT_RESOLVE_BATCH_SIZE_1_2,
		.count = 4,
		.addrs = addrs,
		.times = times,
		.symbols = syms,
		.inlined = inl,
		.nr_inlined = nr,
	};
	struct chain first = resolve12(0x2010), again = resolve12(0x2010);

	ck_assert_ptr_nonnull(first.inl);
	ck_assert_ptr_eq(first.inl, again.inl);
	ck_assert_uint_eq(again.nr, 2);
	ck_frame(&again.inl[0], "p.C.b(int)", "p/B.java", 201);
	/* the same pc within one batch, at another address too */
	ck_assert_int_eq(jm_state_resolve(&st, &batch), 0);
	ck_assert_ptr_eq(inl[0], first.inl);
	ck_assert_ptr_eq(inl[1], first.inl);
	ck_assert_ptr_eq(inl[2], first.inl);
	ck_assert_uint_eq(nr[2], 2);
	/* another pc, another chain */
	ck_assert_ptr_ne(inl[3], first.inl);
}
END_TEST

START_TEST(test_chain_none)
{
	struct chain c;

	/* a pc with one frame: the code's own method */
	c = resolve12(0x2004);
	ck_assert_str_eq(c.sym->name, "p.C.a()");
	ck_assert_uint_eq(c.line, 100);
	ck_assert_ptr_null(c.inl);
	ck_assert_uint_eq(c.nr, 0);
	c = resolve12(0x3000);
	ck_assert_str_eq(c.sym->name, "p.C.e()");
	ck_assert_ptr_null(c.inl);
	ck_assert_uint_eq(c.nr, 0);
	/* a stub, and nothing at all */
	c = resolve12(0x9100);
	ck_assert_str_eq(c.sym->name, "Interpreter");
	ck_assert_ptr_null(c.inl);
	ck_assert_uint_eq(c.nr, 0);
	c = resolve12(0x8000);
	ck_assert_ptr_null(c.sym);
	ck_assert_ptr_null(c.inl);
	ck_assert_uint_eq(c.nr, 0);
}
END_TEST

START_TEST(test_chain_lost_method)
{
	struct chain c;

	/* the chain stops before the lost caller: no frame without a
	 * symbol, and none past it that would skip a caller */
	c = resolve12(0x2020);
	ck_assert_str_eq(c.sym->name, "p.C.c(long)");
	ck_assert_uint_eq(c.nr, 1);
	ck_frame(&c.inl[0], "p.C.b(int)", "p/B.java", 200);
	/* the same again, now from what was kept */
	c = resolve12(0x2020);
	ck_assert_uint_eq(c.nr, 1);
	ck_frame(&c.inl[0], "p.C.b(int)", "p/B.java", 200);
	c = resolve12(0x2030);
	ck_assert_str_eq(c.sym->name, "p.C.c(long)");
	ck_assert_uint_eq(c.line, 300);
	ck_assert_ptr_null(c.inl);
	ck_assert_uint_eq(c.nr, 0);
	/* the innermost method lost: the code names the sample, as in
	 * 1.0, and nothing was inlined into it */
	c = resolve12(0x2040);
	ck_assert_str_eq(c.sym->name, "p.C.a()");
	ck_assert_ptr_null(c.inl);
	ck_assert_uint_eq(c.nr, 0);
}
END_TEST

START_TEST(test_chain_cut)
{
	struct chain c = resolve12(0x2050);

	ck_assert_str_eq(c.sym->name, "p.C.c(long)");
	/* 69 frames: the 64 nearest the sample, all d(), and not a() */
	ck_assert_uint_eq(c.nr, OPJIT_INLINE_MAX);
	for (uint32_t k = 0; k < OPJIT_INLINE_MAX; k++)
		ck_frame(&c.inl[k], "p.C.d()", "p/D.java", 401 + k);
}
END_TEST

/* A host of 1.0 or 1.1 has no chain arrays: memory past its batch is
 * not ours to write, and the chains are not made for it. */
START_TEST(test_chain_old_host)
{
	struct chain c = resolve_sized(0x2010, OPJIT_RESOLVE_BATCH_SIZE_1_0);

	ck_assert_str_eq(c.sym->name, "p.C.c(long)");
	ck_assert_str_eq(c.file, "p/C.java");
	ck_assert_uint_eq(c.line, 301);
	ck_assert_ptr_eq(c.inl, CH_STALE);
	ck_assert_uint_eq(c.nr, CH_STALE_NR);
	c = resolve_sized(0x2010,
			  OPJIT_SIZE_THROUGH(struct opjit_resolve_batch,
					     inlined));
	ck_assert_ptr_eq(c.inl, CH_STALE);
	ck_assert_uint_eq(c.nr, CH_STALE_NR);
	ck_assert_ptr_null(st.inl);
}
END_TEST

/* A 1.2 batch that leaves one of the two arrays out gets neither. */
START_TEST(test_chain_half_batch)
{
	uint64_t addr = 0x2010, t = CH_T;
	const struct opjit_symbol *sym = NULL;
	uint32_t nr = CH_STALE_NR;
	struct opjit_resolve_batch batch = {
		.struct_size = OPJIT_RESOLVE_BATCH_SIZE_1_2,
		.count = 1,
		.addrs = &addr,
		.times = &t,
		.symbols = &sym,
		.nr_inlined = &nr,
	};

	ck_assert_int_eq(jm_state_resolve(&st, &batch), 0);
	ck_assert_str_eq(sym->name, "p.C.c(long)");
	ck_assert_uint_eq(nr, CH_STALE_NR);
}
END_TEST

static Suite *jm_resolve_suite(void)
{
	Suite *s = suite_create("jm_resolve");
	TCase *tc;

	tc = tcase_create("time");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_time_follows);
	tcase_add_test(tc, test_method_data);
	tcase_add_test(tc, test_load_slack);
	tcase_add_test(tc, test_replayed_is_older);
	suite_add_tcase(s, tc);
	tc = tcase_create("names");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_inlined);
	tcase_add_test(tc, test_stub);
	tcase_add_test(tc, test_one_pointer_per_method);
	tcase_add_test(tc, test_method_line);
	suite_add_tcase(s, tc);
	tc = tcase_create("batch");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_batch);
	tcase_add_test(tc, test_small_batch);
	tcase_add_test(tc, test_for_each);
	suite_add_tcase(s, tc);
	tc = tcase_create("inline chains");
	tcase_add_checked_fixture(tc, chain_setup, teardown);
	tcase_add_test(tc, test_chain_three_deep);
	tcase_add_test(tc, test_chain_cached);
	tcase_add_test(tc, test_chain_none);
	tcase_add_test(tc, test_chain_lost_method);
	tcase_add_test(tc, test_chain_cut);
	tcase_add_test(tc, test_chain_old_host);
	tcase_add_test(tc, test_chain_half_batch);
	suite_add_tcase(s, tc);
	tc = tcase_create("damaged");
	tcase_add_test(tc, test_missing_method);
	tcase_add_test(tc, test_latest_live_wins);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return opjit_check_run(jm_resolve_suite());
}
