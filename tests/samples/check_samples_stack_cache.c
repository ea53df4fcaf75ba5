// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The stack writer's shortcuts (the path of the thread's stack before,
 * the bounded index of the nodes, no search below a new node) change
 * how a stack's nodes are found, never which, while the index holds
 * them: a session written with them has the samples.hist, byte for
 * byte, of one whose every node is looked up in the whole table, and
 * each stack reads back as given.  Past a generation of the index, a
 * node no stack met lately is forgotten and stored again: every stack
 * still reads back as given, the nodes in use keep their ids, and the
 * index stays within its bound, as do the keys kept of the nodes.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/hash.h>

#include "block_internal.h"
#include "helpers.h"
#include "writer_internal.h"

#include "check_run.h"

#define MAX_DEPTH 48 /* the writer's depth limit in these streams */

/* A stack of the stream and the id the writer gave it. */
struct given {
	struct ops_frame f[MAX_DEPTH + 4];
	struct ops_stack st;
	uint32_t tid;
	uint32_t id;
};

static uint64_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

enum shape {
	SHAPE_RECURSION, /* threads in a deep recursion, interleaved */
	SHAPE_ROOTS,	 /* equal stacks but for the root */
	SHAPE_CUT,	 /* chains past the depth limit, cut */
	SHAPE_KERNEL,	 /* equal frames, a different kernel split */
};

/* Stack number I of a stream of shape SHAPE: root first in R, then
 * turned leaf first into G. */
static void make_stack(struct given *g, enum shape shape, uint64_t *seed,
		       uint32_t i)
{
	struct ops_frame r[MAX_DEPTH + 40];
	uint32_t n = 0, depth, k, thread = (uint32_t)rnd(seed) % 3;

	/* the thread's root and outer frames: a thread id reused by
	 * another thread is the same frames under another root */
	r[n++] = (struct ops_frame){ OPS_FRAME_IMAGE, 0,
				     shape == SHAPE_ROOTS ? 0x100 + i % 5
							  : 0x100 + thread };
	r[n++] = (struct ops_frame){ OPS_FRAME_IMAGE, 1, 0x29d90 };
	r[n++] = (struct ops_frame){ OPS_FRAME_IMAGE, 0, 0x1300 };
	depth = (uint32_t)rnd(seed) %
		(shape == SHAPE_CUT ? MAX_DEPTH + 30 : 28);
	for (k = 0; k < depth; k++)
		/* the recursion's two call sites */
		r[n++] = (struct ops_frame){ OPS_FRAME_ANON, 0,
					     0x7f0000001000ull +
						     (rnd(seed) & 1) * 0x40 };
	/* a JIT leaf: a new address at almost every sample */
	r[n++] = (struct ops_frame){ OPS_FRAME_ANON, 0,
				     0x7f0000001000ull + rnd(seed) % 512 * 4 };
	g->st = (struct ops_stack){ .frames = g->f };
	g->tid = 1000 + thread;
	if (shape == SHAPE_KERNEL) {
		/* the same frames with one, two or none in the kernel */
		g->st.nr_kernel = (uint32_t)rnd(seed) % 3;
		for (k = 0; k < g->st.nr_kernel; k++)
			r[n++] = (struct ops_frame){ OPS_FRAME_IMAGE, 2,
						     0xffffffff81000000ull +
							     k * 0x100 };
	}
	/* past the limit, the kernel gives the innermost frames */
	k = n > MAX_DEPTH ? n - MAX_DEPTH : 0;
	if (k)
		g->st.flags |= OPS_STACK_TRUNCATED;
	for (g->st.nr_frames = 0; n > k; g->st.nr_frames++)
		g->f[g->st.nr_frames] = r[--n];
}

/* A writer whose index forgets (LIMIT nodes a generation), or the
 * default one (0), or the exact reference (EXACT). */
static struct ops_writer *open_writer_limit(const char *dir, bool exact,
					    uint32_t limit)
{
	struct ops_session_info info = info_example();
	struct ops_image app = { .path = "/usr/bin/app" };
	struct ops_image libc = { .path = "/lib/libc.so.6" };
	struct ops_image k = { .kind = OPS_IMAGE_KERNEL,
			       .path = "[kernel.kallsyms]" };
	struct ops_writer *w;
	uint32_t id;

	info.callgraph_depth = MAX_DEPTH;
	ck_assert_int_eq(ops_writer_open(&w, dir, &info), 0);
	ck_assert_int_eq(ops_writer_image(w, &app, &id), 0);
	ck_assert_int_eq(ops_writer_image(w, &libc, &id), 0);
	ck_assert_int_eq(ops_writer_image(w, &k, &id), 0);
	w->hist.exact = exact;
	w->hist.index_limit = limit;
	return w;
}

static struct ops_writer *open_writer(const char *dir, bool edges)
{
	return open_writer_limit(dir, !edges, 0);
}

/* Write N stacks of SHAPE from SEED into DIR, flushing now and then;
 * the ids given into G.  The writer's counters into STATS. */
static void write_stream(const char *dir, bool edges, enum shape shape,
			 struct given *g, uint32_t n,
			 struct ops_stack_stats *stats)
{
	struct ops_writer *w = open_writer(dir, edges);
	uint64_t seed = 42 + shape;
	uint32_t i, failed = 0;

	for (i = 0; i < n; i++) {
		make_stack(&g[i], shape, &seed, i);
		failed += ops_writer_stack_of(w, &g[i].st, g[i].tid,
					      &g[i].id) != 0;
		if (i % 997 == 0)
			failed += ops_writer_flush(w) != 0;
	}
	ck_assert_uint_eq(failed, 0);
	ops_writer_stack_stats(w, stats);
	ck_assert_int_eq(ops_writer_close(w, 5), 0);
}

/* Stack G as read back in GOT: Check's asserts cost a write each, so
 * the frames are compared here and asserted once a stack. */
static bool same_stack(const struct ops_stack *got, const struct given *g)
{
	uint32_t k;

	if (!got || got->nr_frames != g->st.nr_frames ||
	    got->nr_kernel != g->st.nr_kernel || got->flags != g->st.flags)
		return false;
	for (k = 0; k < got->nr_frames; k++)
		if (got->frames[k].kind != g->f[k].kind ||
		    got->frames[k].image != g->f[k].image ||
		    got->frames[k].addr != g->f[k].addr)
			return false;
	return true;
}

static void check_read_back(const char *dir, const struct given *g, uint32_t n)
{
	struct warns wr = { 0 };
	struct ops_session *s = session_must_open(dir, &wr);
	uint32_t i, bad = 0;

	for (i = 0; i < n; i++)
		bad += !same_stack(ops_session_stack(s, g[i].id), &g[i]);
	ck_assert_uint_eq(bad, 0);
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
}

/* Stacks of a stream that one generation of the index holds */
#define NR_STACKS 400u

static void same_table(enum shape shape)
{
	struct given *a = calloc(NR_STACKS, sizeof(*a));
	struct given *b = calloc(NR_STACKS, sizeof(*b));
	char *da = tmp_path(tmp, "cached"), *db = tmp_path(tmp, "table");
	char *ha = tmp_path(da, "samples.hist");
	char *hb = tmp_path(db, "samples.hist");
	struct ops_stack_stats sa, sb;
	void *fa, *fb;
	size_t la, lb;
	uint32_t i;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	write_stream(da, true, shape, a, NR_STACKS, &sa);
	write_stream(db, false, shape, b, NR_STACKS, &sb);
	for (i = 0; i < NR_STACKS && a[i].id == b[i].id; i++)
		;
	ck_assert_uint_eq(i, NR_STACKS);
	fa = file_read(ha, &la);
	fb = file_read(hb, &lb);
	ck_assert_uint_eq(la, lb);
	ck_assert_mem_eq(fa, fb, la);
	check_read_back(da, a, NR_STACKS);
	/* every frame was found one way or added */
	ck_assert_uint_eq(sa.stacks, NR_STACKS);
	ck_assert_uint_eq(sa.frames, sb.frames);
	ck_assert_uint_eq(sa.added, sb.added);
	ck_assert_uint_ge(sa.shared + sa.cached + sa.lookups + sa.added,
			  sa.frames);
	ck_assert_uint_eq(sb.cached, 0);
	/* the index took the work of the table, which is not searched,
	 * and nodes below a new one were added without a search */
	ck_assert_uint_gt(sa.cached, 0);
	ck_assert_uint_eq(sa.lookups, 0);
	ck_assert_uint_lt(sb.lookups, sb.frames - sb.shared);
	/* and held every node: nothing was stored twice */
	ck_assert_uint_eq(sa.generations, 0);
	ck_assert_uint_gt(sa.added, NR_STACKS);
	/* the threads' roots differ: a thread's own stack before shares
	 * more than the last stack of any thread (the reference's one
	 * path) */
	if (shape == SHAPE_RECURSION)
		ck_assert_uint_gt(sa.shared, sb.shared);
	free(fa);
	free(fb);
	free(ha);
	free(hb);
	free(da);
	free(db);
	free(a);
	free(b);
}

START_TEST(test_recursion)
{
	same_table(SHAPE_RECURSION);
}
END_TEST

START_TEST(test_roots)
{
	same_table(SHAPE_ROOTS);
}
END_TEST

START_TEST(test_cut)
{
	same_table(SHAPE_CUT);
}
END_TEST

START_TEST(test_kernel_split)
{
	same_table(SHAPE_KERNEL);
}
END_TEST

/* Past a generation of the index: each stack reads back as given, and
 * the stacks met all along keep their ids (K, in a thread of its own,
 * found by its path and so put in each new generation; L, given in a
 * thread whose path another thread's stacks replace, found in the
 * index), while the others' nodes are stored again, more than the
 * exact table has; the index never holds more than its bound. */
START_TEST(test_forgets)
{
	enum { N = 20000, LIMIT = 512 };
	char *da = tmp_path(tmp, "bounded"), *db = tmp_path(tmp, "exact");
	struct ops_writer *wa = open_writer_limit(da, false, LIMIT);
	struct ops_writer *wb = open_writer_limit(db, true, 0);
	struct given *g = calloc(N, sizeof(*g));
	struct ops_frame kf[3] = {
		{ OPS_FRAME_ANON, 0, 0x7f0000002000ull },
		{ OPS_FRAME_IMAGE, 1, 0x29d90 },
		{ OPS_FRAME_IMAGE, 0, 0x900 },
	};
	struct ops_stack k = { kf, 3, 0, 0 }, l = { kf, 2, 0, 0 };
	struct ops_stack_stats sa, sb;
	uint32_t i, id, kid = 0, lid = 0, bad = 0, over = 0, b;
	uint64_t seed = 99;

	ck_assert_ptr_nonnull(g);
	for (i = 0; i < N; i++) {
		make_stack(&g[i], SHAPE_RECURSION, &seed, i);
		bad += ops_writer_stack_of(wa, &g[i].st, g[i].tid, &g[i].id) !=
		       0;
		bad += ops_writer_stack_of(wb, &g[i].st, g[i].tid, &b) != 0;
		over += wa->hist.index_nr > LIMIT;
		if (i % 7)
			continue;
		bad += ops_writer_stack_of(wa, &k, 7, &id) != 0;
		bad += i && id != kid;
		kid = id;
		/* in the lane of thread 1000, whose stacks replace it */
		bad += ops_writer_stack_of(wa, &l, 1000, &id) != 0;
		bad += i && id != lid;
		lid = id;
		if (i % 997 == 0)
			bad += ops_writer_flush(wa) != 0;
	}
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(over, 0);
	ops_writer_stack_stats(wa, &sa);
	ops_writer_stack_stats(wb, &sb);
	ck_assert_uint_ge(sa.generations, 3);
	ck_assert_uint_gt(sa.added, sb.added);
	/* the keys of the nodes on disk are forgotten, those of the exact
	 * table, which it searches, kept */
	ck_assert_uint_gt(wa->hist.stacks.base, 0);
	ck_assert_uint_eq(wb->hist.stacks.base, 0);
	ck_assert_int_eq(ops_writer_close(wa, 5), 0);
	ck_assert_int_eq(ops_writer_close(wb, 5), 0);
	check_read_back(da, g, N);
	free(g);
	free(da);
	free(db);
}
END_TEST

/* A stack that differs from an earlier one only at its root has nodes
 * of its own all the way down, and the earlier stack, given again after
 * it, is found again with its own id. */
START_TEST(test_root_only)
{
	char *dir = tmp_path(tmp, "s");
	struct ops_writer *w = open_writer(dir, true);
	struct ops_frame f[4] = {
		{ OPS_FRAME_ANON, 0, 0x7f0000001004ull },
		{ OPS_FRAME_ANON, 0, 0x7f0000001040ull },
		{ OPS_FRAME_IMAGE, 1, 0x29d90 },
		{ OPS_FRAME_IMAGE, 0, 0x100 },
	};
	struct ops_stack st = { f, 4, 0, 0 };
	struct ops_stack_stats stats;
	uint32_t one, two, again, cut;

	ck_assert_int_eq(ops_writer_stack(w, &st, &one), 0);
	f[3].addr = 0x101;
	ck_assert_int_eq(ops_writer_stack(w, &st, &two), 0);
	ck_assert_uint_ne(one, two);
	/* the same frames, cut at the depth limit: another stack */
	st.flags = OPS_STACK_TRUNCATED;
	ck_assert_int_eq(ops_writer_stack(w, &st, &cut), 0);
	ck_assert_uint_ne(cut, two);
	st.flags = 0;
	f[3].addr = 0x100;
	ck_assert_int_eq(ops_writer_stack(w, &st, &again), 0);
	ck_assert_uint_eq(again, one);
	ops_writer_stack_stats(w, &stats);
	/* 4 nodes each for the three stacks, the last found in the cache */
	ck_assert_uint_eq(stats.added, 12);
	ck_assert_uint_eq(stats.cached, 4);
	ck_assert_uint_eq(stats.shared, 0);
	ck_assert_int_eq(ops_writer_close(w, 5), 0);
	free(dir);
}
END_TEST

/* Stack I of the sequence of test_thread_paths into F (leaf first),
 * its thread into *TID. */
static struct ops_stack thread_stack(uint32_t i, struct ops_frame *f,
				     uint32_t *tid)
{
	/* thread 1's stack A, root first */
	static const struct ops_frame a[] = {
		{ OPS_FRAME_IMAGE, 0, 0x100 },
		{ OPS_FRAME_IMAGE, 1, 0x29d90 },
		{ OPS_FRAME_ANON, 0, 0x7f0000001040ull },
		{ OPS_FRAME_ANON, 0, 0x7f0000001000ull },
		{ OPS_FRAME_ANON, 0, 0x7f0000001040ull },
		{ OPS_FRAME_ANON, 0, 0x7f0000001008ull },
	};
	struct ops_frame r[8];
	uint32_t n = 6, k;

	memcpy(r, a, sizeof(a));
	*tid = 1;
	switch (i % 7) {
	case 0: /* A */
	case 2: /* A again, after thread 2's */
		break;
	case 1: /* thread 2: another root, then A's frames */
	case 6: /* and again, after five of thread 1's */
		*tid = 2;
		r[0].addr = 0x200;
		break;
	case 3: /* shorter: A's outer four frames */
		n = 4;
		break;
	case 4: /* longer: A and a leaf below it */
		r[n++] = (struct ops_frame){ OPS_FRAME_ANON, 0,
					     0x7f0000001010ull };
		break;
	case 5: /* A but for its root */
		r[0].addr = 0x101;
		break;
	}
	for (k = 0; k < n; k++)
		f[k] = r[n - 1 - k];
	return (struct ops_stack){ f, n, 0, 0 };
}

/* Two threads' stacks interleaved: the same stack again, a shorter, a
 * longer one and one differing at its root have the ids of the table
 * alone (one path for all threads, no cache), and each thread's stack
 * shares its outer frames with the thread's own stack before. */
START_TEST(test_thread_paths)
{
	char *da = tmp_path(tmp, "lanes"), *db = tmp_path(tmp, "table");
	struct ops_writer *wa = open_writer(da, true);
	struct ops_writer *wb = open_writer(db, false);
	/* the frames each stack shares with its thread's stack before:
	 * none for the first of each thread, A's six again, A's outer
	 * four, the shorter's four of the longer one, none (another root),
	 * thread 2's six again after four of thread 1's; in the second
	 * round, A after the one of another root, none */
	static const uint64_t shared[14] = { 0, 0, 6, 4, 4, 0, 6,
					     0, 6, 6, 4, 4, 0, 6 };
	struct ops_stack_stats before, after;
	struct ops_frame f[8];
	uint32_t i, tid, tid2 = 2, ia[14], ib[14];

	/* thread 2 in a lane of its own */
	while ((oputil_hash_u64(tid2) & (OPS_STACK_LANES - 1)) ==
	       (oputil_hash_u64(1) & (OPS_STACK_LANES - 1)))
		tid2++;
	for (i = 0; i < 14; i++) {
		struct ops_stack st = thread_stack(i, f, &tid);

		if (tid == 2)
			tid = tid2;
		ops_writer_stack_stats(wa, &before);
		ck_assert_int_eq(ops_writer_stack_of(wa, &st, tid, &ia[i]), 0);
		ops_writer_stack_stats(wa, &after);
		ck_assert_uint_eq(after.shared - before.shared, shared[i]);
		ck_assert_int_eq(ops_writer_stack_of(wb, &st, tid, &ib[i]), 0);
		ck_assert_uint_eq(ia[i], ib[i]);
	}
	/* the same stack is the same id, whichever thread or path */
	ck_assert_uint_eq(ia[0], ia[2]);
	ck_assert_uint_eq(ia[1], ia[6]);
	ck_assert_uint_ne(ia[0], ia[1]);
	ck_assert_uint_ne(ia[0], ia[5]);
	ck_assert_uint_ne(ia[3], ia[0]);
	ck_assert_uint_ne(ia[4], ia[0]);
	for (i = 0; i < 7; i++)
		ck_assert_uint_eq(ia[i], ia[i + 7]);
	ck_assert_int_eq(ops_writer_close(wa, 5), 0);
	ck_assert_int_eq(ops_writer_close(wb, 5), 0);
	free(da);
	free(db);
}
END_TEST

/* The STACKS blocks of a samples.hist: how many, their payloads back to
 * back. */
struct stacks_seen {
	uint32_t blocks;
	struct ops_buf payloads;
};

static const char *see_stacks(void *arg, uint16_t type, const uint8_t *p,
			      size_t len, uint64_t offset)
{
	struct stacks_seen *seen = arg;

	(void)offset;
	if (type != OPS_HIST_STACKS)
		return NULL;
	seen->blocks++;
	return ops_buf_put(&seen->payloads, p, len) ? "out of memory" : NULL;
}

static void read_stacks(const char *dir, struct stacks_seen *seen)
{
	char *path = tmp_path(dir, "samples.hist");
	size_t len;
	uint8_t *buf = file_read(path, &len);
	struct warns wr = { 0 };

	ck_assert_ptr_nonnull(buf);
	memset(seen, 0, sizeof(*seen));
	ck_assert_uint_eq(ops_blocks_parse(buf, len, OPS_HIST_MAGIC, path,
					   see_stacks, seen, warns_collect,
					   &wr),
			  len);
	ck_assert_int_eq(wr.n, 0);
	free(buf);
	free(path);
}

/* A compaction (the close's, or one while recording) puts the STACKS
 * blocks the file had as they were, and encodes only the nodes added
 * since: the table is not encoded and deflated again whole.  Before
 * that, a compaction wrote the whole table as one block. */
START_TEST(test_compact_keeps_blocks)
{
	char *dir = tmp_path(tmp, "s");
	struct ops_writer *w = open_writer(dir, true);
	struct given *g = calloc(3000, sizeof(*g));
	struct stacks_seen flushed, compacted, closed;
	uint64_t seed = 7;
	uint32_t i;

	ck_assert_ptr_nonnull(g);
	for (i = 0; i < 3000; i++) {
		make_stack(&g[i], SHAPE_RECURSION, &seed, i);
		ck_assert_int_eq(ops_writer_stack(w, &g[i].st, &g[i].id), 0);
		if (i % 997 == 996 || i == 1999)
			ck_assert_int_eq(ops_writer_flush(w), 0);
		if (i == 1999) {
			read_stacks(dir, &flushed);
			ck_assert_uint_ge(flushed.blocks, 3);
			/* as the close does, while recording */
			ck_assert_int_eq(ops_hist_writer_compact(w, false), 0);
			read_stacks(dir, &compacted);
			ck_assert_uint_eq(compacted.blocks, flushed.blocks);
			ck_assert_uint_eq(compacted.payloads.len,
					  flushed.payloads.len);
			ck_assert_mem_eq(compacted.payloads.data,
					 flushed.payloads.data,
					 flushed.payloads.len);
		}
	}
	ck_assert_int_eq(ops_writer_close(w, 5), 0);
	/* the blocks kept, then those of the nodes added since */
	read_stacks(dir, &closed);
	ck_assert_uint_gt(closed.blocks, flushed.blocks);
	ck_assert_uint_gt(closed.payloads.len, flushed.payloads.len);
	ck_assert_mem_eq(closed.payloads.data, flushed.payloads.data,
			 flushed.payloads.len);
	check_read_back(dir, g, 3000);
	ops_buf_free(&flushed.payloads);
	ops_buf_free(&compacted.payloads);
	ops_buf_free(&closed.payloads);
	free(g);
	free(dir);
}
END_TEST

static Suite *stack_cache_suite(void)
{
	const struct check_case cases[] = {
		{ "recursion", test_recursion },
		{ "roots", test_roots },
		{ "cut", test_cut },
		{ "kernel_split", test_kernel_split },
		{ "root_only", test_root_only },
		{ "compact_keeps_blocks", test_compact_keeps_blocks },
		{ "thread_paths", test_thread_paths },
		{ "forgets", test_forgets },
	};
	Suite *s = suite_create("samples_stack_cache");
	SUITE_ADD_CASES(s, cases, session_setup, session_teardown, 0);
	return s;
}

int main(void)
{
	return opjit_check_run(stack_cache_suite());
}
