// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The call graph model: stacks of frames in this very test binary (its
 * own functions, at the file offsets /proc/self/maps gives) are named
 * through image_bfd and folded into nodes, self and total counts, arcs
 * and unique stacks.  One TCase per behaviour.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callgraph.h"
#include "image_bfd.h"
#include "report.h"
#include "spec.h"
#include "check_run.h"
#include "self_offset.h"

#define FN __attribute__((noinline, used))

void cg_hot(void);
void cg_mid_a(void);
void cg_mid_b(void);
void cg_root(void);

volatile unsigned long cg_sink;

FN void cg_hot(void)
{
	cg_sink = cg_sink * 3 + 1;
}

FN void cg_mid_a(void)
{
	cg_hot();
	cg_sink ^= 5;
}

FN void cg_mid_b(void)
{
	cg_hot();
	cg_sink ^= 7;
}

FN void cg_root(void)
{
	cg_mid_a();
	cg_mid_b();
	cg_sink += 11;
}

struct fixture {
	char dir[64];
	struct ops_session *s;
	struct opreport_opts o;
	struct report r;
	struct image_cache *images;
	struct callgraph *cg;
};

static void fixture_open(struct fixture *fx)
{
	struct ops_session_info info = { .event = "cpu-clock",
					 .frequency = 1000 };
	struct ops_image img = { .kind = OPS_IMAGE_FILE };
	struct ops_process proc = { .tgid = 4242,
				    .comm = "jit",
				    .exe = "jit" };
	struct ops_writer *w;
	char exe[512], err[256];
	ssize_t n;
	uint32_t id;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	img.path = exe;
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/opjit-cg-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx->dir));
	ck_assert_int_eq(ops_writer_open(&w, fx->dir, &info), 0);
	ck_assert_int_eq(ops_writer_image(w, &img, &id), 0);
	ck_assert_int_eq(id, 0);
	/* a process whose anonymous frames no handler names */
	ck_assert_int_eq(ops_writer_process(w, &proc, &id), 0);
	ck_assert_int_eq(id, 0);
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
	ck_assert_int_eq(ops_session_open(&fx->s, fx->dir, NULL, NULL, err,
					  sizeof(err)),
			 0);
	fx->o.demangle = DEMANGLE_NONE;
	fx->o.spec = profile_spec_new();
	ck_assert_int_eq(report_init(&fx->r, &fx->o), 0);
	fx->r.session = fx->s;
	fx->r.info = ops_session_info(fx->s);
	ck_assert_int_eq(image_cache_new(&fx->images, &fx->o, 1), 0);
	ck_assert_int_eq(callgraph_new(&fx->cg, &fx->r), 0);
}

static void fixture_resolve(struct fixture *fx)
{
	struct cg_sources src = { .s = fx->s, .images = fx->images };

	ck_assert_int_eq(callgraph_resolve(fx->cg, &src), 0);
}

static void fixture_close(struct fixture *fx)
{
	char cmd[128];

	callgraph_free(fx->cg);
	image_cache_free(fx->images);
	report_release(&fx->r);
	profile_spec_free(fx->o.spec);
	ops_session_close(fx->s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", fx->dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Add a stack of COUNT samples, leaf first: a leaf offset, then return
 * addresses (offsets of code inside the callers). */
static void add(struct fixture *fx, uint64_t count, size_t n, ...)
{
	struct cg_raw_ctx ctx = { CG_NONE, CG_NONE, 0 };
	struct cg_raw_frame fr[16];
	va_list ap;
	size_t i;

	va_start(ap, n);
	for (i = 0; i < n; i++)
		fr[i] = (struct cg_raw_frame){ 0, va_arg(ap, uint64_t) };
	va_end(ap);
	ck_assert_int_eq(callgraph_add(fx->cg, &ctx, fr, n, 0, count, false),
			 0);
}

/* Add COUNT samples at TIME of process 0, leaf first: N frames, each
 * "a:ADDR" (anonymous) or an offset in this binary. */
static void add_anon(struct fixture *fx, uint64_t count, uint64_t time,
		     size_t n, ...)
{
	struct cg_raw_ctx ctx = { CG_NONE, 0, 4242 };
	struct cg_raw_frame fr[16];
	va_list ap;
	size_t i;

	va_start(ap, n);
	for (i = 0; i < n; i++) {
		const char *f = va_arg(ap, const char *);

		fr[i] = f[0] == 'a'
				? (struct cg_raw_frame){ CG_ANON,
							 strtoull(f + 2, NULL,
								  16) }
				: (struct cg_raw_frame){ 0, strtoull(f, NULL,
								     16) };
	}
	va_end(ap);
	ck_assert_int_eq(
		callgraph_add(fx->cg, &ctx, fr, n, time, count, false), 0);
}

static int64_t find(const struct callgraph *cg, const char *name)
{
	size_t i;

	for (i = 0; i < cg->nr_nodes; i++)
		if (cg->nodes[i].sym && !strcmp(cg->nodes[i].sym->name, name))
			return (int64_t)i;
	return -1;
}

/* an address inside each function: its start + 4, past any prologue */
#define IN(fn) (self_offset((const void *)(fn)) + 4)

START_TEST(self_total_and_arcs)
{
	struct fixture fx = { 0 };
	int64_t hot, a, b, root;
	const struct cg_arc *v;
	size_t n;

	fixture_open(&fx);
	add(&fx, 3, 3, IN(cg_hot), IN(cg_mid_a), IN(cg_root));
	add(&fx, 1, 3, IN(cg_hot), IN(cg_mid_b), IN(cg_root));
	add(&fx, 2, 2, IN(cg_mid_a), IN(cg_root));
	fixture_resolve(&fx);
	hot = find(fx.cg, "cg_hot");
	a = find(fx.cg, "cg_mid_a");
	b = find(fx.cg, "cg_mid_b");
	root = find(fx.cg, "cg_root");
	ck_assert(hot >= 0 && a >= 0 && b >= 0 && root >= 0);
	ck_assert_uint_eq(fx.cg->nr_nodes, 4);
	ck_assert_uint_eq(fx.cg->total, 6);
	ck_assert_uint_eq(fx.cg->nodes[hot].self, 4);
	ck_assert_uint_eq(fx.cg->nodes[hot].total, 4);
	ck_assert_uint_eq(fx.cg->nodes[a].self, 2);
	ck_assert_uint_eq(fx.cg->nodes[a].total, 5);
	ck_assert_uint_eq(fx.cg->nodes[root].self, 0);
	ck_assert_uint_eq(fx.cg->nodes[root].total, 6);
	v = callgraph_callers(fx.cg, (uint32_t)hot, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(v[0].from == (uint32_t)a ? v[0].count : v[1].count,
			  3);
	ck_assert_uint_eq(v[0].from == (uint32_t)b ? v[0].count : v[1].count,
			  1);
	v = callgraph_callees(fx.cg, (uint32_t)root, &n);
	ck_assert_uint_eq(n, 2);
	/* stacks come out root first */
	ck_assert_uint_eq(fx.cg->nr_stacks, 3);
	ck_assert_uint_eq(fx.cg->stacks[0].frames[0], (uint32_t)root);
	fixture_close(&fx);
}
END_TEST

START_TEST(equal_stacks_merge)
{
	struct fixture fx = { 0 };

	fixture_open(&fx);
	/* different addresses in the same functions: one stack */
	add(&fx, 2, 2, IN(cg_hot), IN(cg_mid_a));
	add(&fx, 5, 2, IN(cg_hot) + 1, IN(cg_mid_a) + 2);
	fixture_resolve(&fx);
	ck_assert_uint_eq(fx.cg->nr_stacks, 1);
	ck_assert_uint_eq(fx.cg->stacks[0].count, 7);
	ck_assert_uint_eq(fx.cg->stacks[0].depth, 2);
	fixture_close(&fx);
}
END_TEST

START_TEST(caller_at_return_address_minus_one)
{
	struct fixture fx = { 0 };
	uint64_t b = self_offset((const void *)cg_mid_b);
	int64_t id;

	fixture_open(&fx);
	/* A return address equal to the first byte of cg_mid_b belongs to
	 * a call that ended the code before it: the caller frame must not
	 * be named cg_mid_b, while a leaf at the same address is. */
	add(&fx, 1, 2, IN(cg_hot), b);
	add(&fx, 1, 1, b);
	fixture_resolve(&fx);
	id = find(fx.cg, "cg_mid_b");
	ck_assert(id >= 0);
	ck_assert_uint_eq(fx.cg->nodes[id].self, 1);
	ck_assert_uint_eq(fx.cg->nodes[id].total, 1);
	fixture_close(&fx);
}
END_TEST

START_TEST(recursion_counts_once)
{
	struct fixture fx = { 0 };
	int64_t a;
	const struct cg_arc *v;
	size_t n;

	fixture_open(&fx);
	add(&fx, 4, 4, IN(cg_hot), IN(cg_mid_a), IN(cg_mid_a), IN(cg_root));
	fixture_resolve(&fx);
	a = find(fx.cg, "cg_mid_a");
	ck_assert(a >= 0);
	ck_assert_uint_eq(fx.cg->nodes[a].total, 4);
	v = callgraph_callers(fx.cg, (uint32_t)a, &n);
	ck_assert_uint_eq(n, 2); /* cg_root and itself */
	ck_assert(v[0].from == (uint32_t)a || v[1].from == (uint32_t)a);
	fixture_close(&fx);
}
END_TEST

/* The stacks of a JIT share their callers, and a recursion returns to
 * one address many times: each sample's anonymous frames are counted
 * as frames, however the stacks share them. */
START_TEST(anon_frames_weighed_per_stack)
{
	struct fixture fx = { 0 };
	char root[32];
	int64_t anon;

	fixture_open(&fx);
	fx.r.naming_frames = true;
	snprintf(root, sizeof(root), "%" PRIx64, (uint64_t)IN(cg_root));
	/* 5 anonymous frames, 3 of them one return address */
	add_anon(&fx, 1, 10, 6, "a:7000", "a:8005", "a:8005", "a:8005",
		 "a:9005", root);
	/* below the same callers: 4 anonymous frames */
	add_anon(&fx, 1, 20, 5, "a:7100", "a:8005", "a:8005", "a:9005", root);
	/* a leaf at the address a caller returns to, looked up there,
	 * not at - 1: 3 frames */
	add_anon(&fx, 2, 30, 4, "a:8005", "a:8005", "a:9005", root);
	fixture_resolve(&fx);
	ck_assert_uint_eq(fx.r.nr_naming, 1);
	ck_assert_uint_eq(fx.r.naming[0].tgid, 4242);
	ck_assert_uint_eq(fx.r.naming[0].samples, 5 + 4 + 2 * 3);
	anon = find(fx.cg, "(no symbols)");
	ck_assert(anon >= 0);
	ck_assert_uint_eq(fx.cg->nodes[anon].total, 4);
	ck_assert_uint_eq(fx.cg->nodes[anon].self, 4);
	/* root -> anon (recursing into itself) */
	ck_assert_uint_eq(fx.cg->total, 4);
	fixture_close(&fx);
}
END_TEST

/* Only a chain the recorder cut is cut: not a stack added below one
 * that already has samples, nor the stacks below it. */
START_TEST(truncated_only_as_recorded)
{
	struct fixture fx = { 0 };
	struct cg_raw_ctx ctx = { CG_NONE, CG_NONE, 0 };
	struct cg_raw_frame cut[2] = { { 0, IN(cg_hot) },
				       { 0, IN(cg_mid_b) } };

	fixture_open(&fx);
	add(&fx, 2, 2, IN(cg_mid_a), IN(cg_root));
	add(&fx, 3, 3, IN(cg_hot), IN(cg_mid_a), IN(cg_root));
	ck_assert_int_eq(callgraph_add(fx.cg, &ctx, cut, 2, 0, 5, true), 0);
	fixture_resolve(&fx);
	ck_assert_uint_eq(fx.cg->total, 10);
	ck_assert_uint_eq(fx.cg->truncated, 5);
	fixture_close(&fx);
}
END_TEST

/* Add COUNT samples counted in time slice SLICE, leaf LEAF called from
 * CALLER. */
static void add_counted(struct fixture *fx, uint64_t leaf, uint64_t caller,
			uint32_t slice, uint64_t count)
{
	struct cg_raw_ctx ctx = { CG_NONE, CG_NONE, 0 };
	struct cg_raw_frame fr[2] = { { 0, leaf }, { 0, caller } };
	uint32_t id;

	ck_assert_int_eq(callgraph_add_stack(fx->cg, fr, 2, false, &id), 0);
	ck_assert_int_eq(callgraph_add_counted(fx->cg, &ctx, id, slice, count),
			 0);
}

/* The function stack whose leaf is node LEAF. */
static const struct cg_stack *stack_of_leaf(const struct callgraph *cg,
					    int64_t leaf, int64_t caller)
{
	size_t i;

	for (i = 0; i < cg->nr_stacks; i++)
		if (cg->stacks[i].depth == 2 &&
		    cg->stacks[i].frames[1] == (uint32_t)leaf &&
		    cg->stacks[i].frames[0] == (uint32_t)caller)
			return &cg->stacks[i];
	return NULL;
}

/* A stack's samples keep their time slices through every merge: of
 * samples into classes, of classes into stacks by site, of those into
 * stacks by function; counts with no slice stay in none. */
START_TEST(slices_follow_merges)
{
	struct fixture fx = { 0 };
	struct cg_raw_ctx ctx = { CG_NONE, CG_NONE, 0 };
	struct cg_raw_frame fr[2] = { { 0, IN(cg_hot) }, { 0, IN(cg_mid_b) } };
	const struct cg_stack *st;
	int64_t hot, a, b;

	fixture_open(&fx);
	fx.cg->start_ns = 1000;
	add_counted(&fx, IN(cg_hot), IN(cg_mid_a), 5, 1);
	add_counted(&fx, IN(cg_hot), IN(cg_mid_a), 2, 3);
	add_counted(&fx, IN(cg_hot), IN(cg_mid_a), CG_NO_SLICE, 5);
	/* other addresses in the same functions: the same stack */
	add_counted(&fx, IN(cg_hot) + 1, IN(cg_mid_a) + 2, 7, 2);
	add_counted(&fx, IN(cg_hot) + 1, IN(cg_mid_a) + 2, 2, 4);
	/* by their times: 3 slices after the start, and before it (in the
	 * first, as the timeline has it) */
	ck_assert_int_eq(callgraph_add(fx.cg, &ctx, fr, 2,
				       1000 + 3 * OPS_SLICE_NS + 5, 2, false),
			 0);
	ck_assert_int_eq(callgraph_add(fx.cg, &ctx, fr, 2, 500, 1, false), 0);
	fixture_resolve(&fx);
	hot = find(fx.cg, "cg_hot");
	a = find(fx.cg, "cg_mid_a");
	b = find(fx.cg, "cg_mid_b");
	st = stack_of_leaf(fx.cg, hot, a);
	ck_assert_ptr_nonnull(st);
	ck_assert_uint_eq(st->count, 15);
	ck_assert_uint_eq(st->nr_slices, 3);
	ck_assert_uint_eq(st->slices[0].slice, 2);
	ck_assert_uint_eq(st->slices[0].count, 7);
	ck_assert_uint_eq(st->slices[1].slice, 5);
	ck_assert_uint_eq(st->slices[1].count, 1);
	ck_assert_uint_eq(st->slices[2].slice, 7);
	ck_assert_uint_eq(st->slices[2].count, 2);
	st = stack_of_leaf(fx.cg, hot, b);
	ck_assert_ptr_nonnull(st);
	ck_assert_uint_eq(st->count, 3);
	ck_assert_uint_eq(st->nr_slices, 2);
	ck_assert_uint_eq(st->slices[0].slice, 0);
	ck_assert_uint_eq(st->slices[0].count, 1);
	ck_assert_uint_eq(st->slices[1].slice, 3);
	ck_assert_uint_eq(st->slices[1].count, 2);
	fixture_close(&fx);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("callgraph");
	struct {
		const char *name;
		const TTest *test;
	} cases[] = {
		{ "self_total_arcs", self_total_and_arcs },
		{ "equal_stacks_merge", equal_stacks_merge },
		{ "return_address", caller_at_return_address_minus_one },
		{ "recursion", recursion_counts_once },
		{ "anon_weights", anon_frames_weighed_per_stack },
		{ "truncated", truncated_only_as_recorded },
		{ "slices", slices_follow_merges },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TCase *tc = tcase_create(cases[i].name);

		tcase_add_test(tc, cases[i].test);
		suite_add_tcase(s, tc);
	}
	return s;
}

int main(void)
{
	cg_root(); /* the functions are real code that ran */
	return opjit_check_run(suite());
}
