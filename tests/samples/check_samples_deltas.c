// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Stack deltas (FORMAT.md, STACK_DELTAS; versions 5 and 6): JIT stacks
 * written
 * as their thread's stack before plus what differs read back as the
 * stacks given, in threads that interleave (more than the lanes, so that
 * threads share one), across flushes, blocks and the compaction, beside
 * interned stacks; and a damaged delta block is one warning for
 * samples.hist, one for the samples it leaves without a stack, and the
 * rest of the session.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <oputil/crc32c.h>
#include <oputil/u64map.h>

#include "block_internal.h"
#include "helpers.h"
#include "writer_internal.h"

#include "check_run.h"

#define NR_THREADS 21 /* more than the writer's 16 lanes */
#define MAX_DEPTH 200

/* One given sample: its thread and stack (leaf first). */
struct given {
	uint32_t tid;
	struct ops_stack st;
	struct ops_frame *frames;
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* N samples of NR_THREADS threads, each a recursion that returns a few
 * levels and calls again: the app's main at the root, JIT frames, a
 * libc frame now and then, sometimes kernel frames at the leaf, and
 * now and then a stack cut at the depth limit.  Image ids: 0 app, 1
 * libc, 2 kernel. */
static struct given *make_given(uint32_t n, uint64_t seed)
{
	struct ops_frame path[NR_THREADS][MAX_DEPTH]; /* root first */
	uint32_t depth[NR_THREADS] = { 0 };
	struct given *g = calloc(n, sizeof(*g));
	uint32_t i, t, d, k;

	ck_assert_ptr_nonnull(g);
	for (i = 0; i < n; i++) {
		uint32_t nk = rnd(&seed) % 4 == 0 ? 1 + rnd(&seed) % 2 : 0;

		t = (uint32_t)(rnd(&seed) % NR_THREADS);
		/* return a few levels, keep main and one JIT frame */
		d = (uint32_t)(rnd(&seed) % 8);
		depth[t] = depth[t] > d + 2 ? depth[t] - d : 2;
		path[t][0] = (struct ops_frame){ OPS_FRAME_IMAGE, 0, 0x1100 };
		path[t][1] = (struct ops_frame){ OPS_FRAME_ANON, 0,
						 0x7f0000001000ull + t };
		/* and call again */
		d = (uint32_t)(rnd(&seed) % 9);
		for (k = 0; k < d && depth[t] < MAX_DEPTH - 3; k++)
			path[t][depth[t]++] =
				rnd(&seed) % 10 == 0
					? (struct ops_frame){ OPS_FRAME_IMAGE,
							      1,
							      0x29d90 +
								      rnd(&seed) %
									      4 }
					: (struct ops_frame){
						  OPS_FRAME_ANON, 0,
						  0x7f0000002000ull +
							  rnd(&seed) % 64 * 8
					  };
		g[i].tid = 1000 + t;
		g[i].frames = malloc((depth[t] + nk) * sizeof(*g[i].frames));
		ck_assert_ptr_nonnull(g[i].frames);
		for (k = 0; k < nk; k++)
			g[i].frames[k] = (struct ops_frame){
				OPS_FRAME_IMAGE, 2, 0xffffffff81000100ull + k
			};
		for (k = 0; k < depth[t]; k++)
			g[i].frames[nk + k] = path[t][depth[t] - 1 - k];
		g[i].st = (struct ops_stack){ g[i].frames, depth[t] + nk, nk,
					      rnd(&seed) % 16 == 0
						      ? OPS_STACK_TRUNCATED
						      : 0 };
	}
	return g;
}

static void given_free(struct given *g, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		free(g[i].frames);
	free(g);
}

/* A native stack counted beside the JIT ones: interned in both forms. */
static const struct ops_frame native[] = {
	{ OPS_FRAME_IMAGE, 0, 0x1234 },
	{ OPS_FRAME_IMAGE, 0, 0x1100 },
};

/* G[0..N) into a session in DIR, with deltas or not, flushed every
 * FLUSH samples and compacted then (COMPACT); a flat anonymous sample at
 * each.  KEEP: the close copies no stack deltas into a compacted file.
 * Whether the file is the one the flushes wrote (a compaction writes a
 * fresh one over it). */
static bool write_session_closing(const char *dir, bool deltas,
				  const struct given *g, uint32_t n,
				  uint32_t flush, bool compact, bool keep)
{
	struct ops_session_info info = info_example();
	struct ops_stack ns = { native, 2, 0, 0 };
	char *path = tmp_path(dir, "samples.hist");
	struct stat before, after;
	struct app_session s;
	struct ops_writer *w;
	uint32_t id, proc, c, i;

	info.callgraph_depth = MAX_DEPTH;
	info.stack_deltas = deltas;
	app_session_open(&s, dir, &info);
	w = s.w;
	proc = s.proc;
	c = s.ctx;
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(
			ops_writer_stack_of(w, &g[i].st, g[i].tid, &id), 0);
		ck_assert_int_eq(ops_writer_anon_stack(w, proc, 1000 + i, id,
						       g[i].tid),
				 0);
		ck_assert_int_eq(ops_writer_anon(w, proc, 1000 + i,
						 g[i].frames[0].addr,
						 g[i].tid),
				 0);
		if (i % 97 == 0) {
			ck_assert_int_eq(ops_writer_stack_of(w, &ns, 7, &id),
					 0);
			ck_assert_int_eq(ops_writer_stack_add(w, c, id, 1), 0);
		}
		if (flush && i % flush == flush - 1) {
			ck_assert_int_eq(ops_writer_flush(w), 0);
			if (compact)
				ck_assert_msg(!ops_hist_writer_compact(w,
								       false),
					      "%s", ops_writer_error(w));
			/* what the file has, the writer does not keep */
			ck_assert_uint_eq(w->hist.delta_blocks.len, 0);
			if (compact)
				ck_assert_uint_le(w->hist.nr_delta_extents, 1);
		}
	}
	if (deltas)
		ck_assert_uint_gt(w->hist.nr_deltas, 0);
	if (keep)
		w->hist.close_copy_max = 0;
	ck_assert_int_eq(stat(path, &before), 0);
	ck_assert_int_eq(ops_writer_close(w, 5), 0);
	ck_assert_int_eq(stat(path, &after), 0);
	free(path);
	return after.st_ino == before.st_ino;
}

static void write_session_compacting(const char *dir, bool deltas,
				     const struct given *g, uint32_t n,
				     uint32_t flush, bool compact)
{
	(void)write_session_closing(dir, deltas, g, n, flush, compact, false);
}

/* G[0..N) into a session in DIR, with deltas (DELTAS) or not, flushed
 * every FLUSH samples (0: at the close only). */
static void write_session(const char *dir, bool deltas, const struct given *g,
			  uint32_t n, uint32_t flush)
{
	write_session_compacting(dir, deltas, g, n, flush, false);
}

/*
 * The same stacks as chains of addresses (ops_writer_chain_of), as a
 * recorder gives them: each distinct frame of the run has an index in
 * FRAMES, and in generation GEN the address of index X is
 * (X + GEN * 7) % NR_FRAMES + 1, so that an address places another
 * frame in each generation, and one placed in a generation before is
 * never the frame now.  The generation changes every CHAIN_GEN_SPAN
 * samples, as a process's mappings change.
 */
#define CHAIN_GEN_SPAN 1500
#define CHAIN_BAD_ADDR (~0ull) /* places as no frame may be */

struct chain_frames {
	struct ops_frame *frames;
	uint32_t nr, cap;
	uint64_t gen;
	uint64_t placed; /* place calls */
};

static uint32_t frame_index(struct chain_frames *t, const struct ops_frame *f)
{
	uint32_t x;

	for (x = 0; x < t->nr; x++)
		if (t->frames[x].kind == f->kind &&
		    t->frames[x].image == f->image &&
		    t->frames[x].addr == f->addr)
			return x;
	if (t->nr == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->frames = realloc(t->frames, t->cap * sizeof(*t->frames));
		ck_assert_ptr_nonnull(t->frames);
	}
	t->frames[t->nr] = *f;
	return t->nr++;
}

static void chain_place(void *arg, uint64_t addr, bool kernel,
			struct ops_frame *f)
{
	struct chain_frames *t = arg;

	(void)kernel;
	t->placed++;
	if (addr == CHAIN_BAD_ADDR) {
		*f = (struct ops_frame){ OPS_FRAME_UNKNOWN + 1, 0, 0 };
		return;
	}
	ck_assert_uint_ge(addr, 1);
	ck_assert_uint_le(addr, t->nr);
	*f = t->frames[(addr - 1 + t->nr - (t->gen * 7) % t->nr) % t->nr];
}

/* The addresses of stack ST in T's generation into ADDRS, and the
 * chain of them. */
static struct ops_chain chain_of(struct chain_frames *t,
				 const struct ops_stack *st, uint64_t *addrs)
{
	uint32_t i;

	for (i = 0; i < st->nr_frames; i++)
		addrs[i] =
			(frame_index(t, &st->frames[i]) + t->gen * 7) % t->nr +
			1;
	return (struct ops_chain){ .addrs = addrs,
				   .nr = st->nr_frames,
				   .nr_kernel = st->nr_kernel,
				   .flags = st->flags,
				   .space = 42,
				   .gen = t->gen,
				   .place = chain_place,
				   .arg = t };
}

static bool is_bad(uint32_t i, uint32_t bad)
{
	return bad && i % bad == bad - 1;
}

/* A session in DIR that writes JIT stacks as deltas, into *S. */
static void deltas_open(struct app_session *s, const char *dir)
{
	struct ops_session_info info = info_example();

	info.callgraph_depth = MAX_DEPTH;
	info.stack_deltas = true;
	app_session_open(s, dir, &info);
}

/* G[0..N) into a session in DIR with deltas, every stack as a chain
 * (CHAINS) or placed, flushed every 4000 samples; every 13th sample of
 * a thread also a native stack of its own (no JIT frame: interned),
 * counted.  Each BAD-th sample (BAD 0: none) has a leaf that places as
 * no frame may be, and is not written.  The place calls in *PLACED. */
static void write_chains(const char *dir, bool chains, const struct given *g,
			 uint32_t n, uint32_t bad, uint64_t *placed)
{
	struct chain_frames t = { 0 };
	uint64_t addrs[MAX_DEPTH + 8];
	struct app_session s;
	uint32_t id, i;
	bool jit = false;
	int ret;

	deltas_open(&s, dir);
	/* every frame indexed first: an address stands for one frame in a
	 * generation for the whole run */
	for (i = 0; i < n; i++)
		for (uint32_t j = 0; j < g[i].st.nr_frames; j++)
			frame_index(&t, &g[i].frames[j]);
	for (i = 0; i < 2; i++)
		frame_index(&t, &native[i]);
	for (i = 0; i < n; i++) {
		struct ops_stack ns = { (struct ops_frame *)native, 2, 0, 0 };
		struct ops_chain c;

		t.gen = 1 + i / CHAIN_GEN_SPAN;
		if (chains) {
			c = chain_of(&t, &g[i].st, addrs);
			if (is_bad(i, bad))
				addrs[0] = CHAIN_BAD_ADDR;
			ret = ops_writer_chain_of(s.w, &c, g[i].tid, &id,
						  &jit);
			if (is_bad(i, bad)) {
				ck_assert_int_eq(ret, -EINVAL);
				continue;
			}
			ck_assert_int_eq(ret, 0);
			ck_assert(jit);
		} else if (is_bad(i, bad)) {
			continue;
		} else {
			ck_assert_int_eq(ops_writer_stack_of(s.w, &g[i].st,
							     g[i].tid, &id),
					 0);
		}
		ck_assert_int_eq(ops_writer_anon_stack(s.w, s.proc, 1000 + i,
						       id, g[i].tid),
				 0);
		if (i % 13 == 0) {
			if (chains) {
				c = chain_of(&t, &ns, addrs);
				ck_assert_int_eq(
					ops_writer_chain_of(s.w, &c, g[i].tid,
							    &id, &jit),
					0);
				ck_assert(!jit);
			} else {
				ck_assert_int_eq(ops_writer_stack_of(s.w, &ns,
								     g[i].tid,
								     &id),
						 0);
			}
			ck_assert_int_eq(
				ops_writer_stack_add(s.w, s.ctx, id, 1), 0);
		}
		if (i % 4000 == 3999)
			ck_assert_int_eq(ops_writer_flush(s.w), 0);
	}
	ck_assert_int_eq(ops_writer_close(s.w, 5), 0);
	*placed = t.placed;
	free(t.frames);
}

static bool stack_eq(const struct ops_stack *a, const struct ops_stack *b)
{
	uint32_t i;

	if (a->nr_frames != b->nr_frames || a->nr_kernel != b->nr_kernel ||
	    a->flags != b->flags)
		return false;
	for (i = 0; i < a->nr_frames; i++)
		if (a->frames[i].kind != b->frames[i].kind ||
		    a->frames[i].image != b->frames[i].image ||
		    a->frames[i].addr != b->frames[i].addr)
			return false;
	return true;
}

/* A report of DIR reads what one of OTHER reads: the same JIT stack
 * samples (time, thread, stack) and the same counts of other stacks. */
static void same_reads(const char *dir, const char *other)
{
	struct warns wr = { 0 };
	struct ops_session *s = session_must_open(dir, &wr),
			   *o = session_must_open(other, &wr);
	const struct ops_anon_stack_sample *a, *b;
	const struct ops_stack_count *sa, *sb;
	size_t na, nb, i;

	ck_assert_int_eq(ops_session_anon_stacks(s, 0, &a, &na), 0);
	ck_assert_int_eq(ops_session_anon_stacks(o, 0, &b, &nb), 0);
	ck_assert_uint_eq(na, nb);
	for (i = 0; i < na; i++) {
		ck_assert_uint_eq(a[i].time_ns, b[i].time_ns);
		ck_assert_uint_eq(a[i].tid, b[i].tid);
		ck_assert_msg(stack_eq(ops_session_stack(s, a[i].stack),
				       ops_session_stack(o, b[i].stack)),
			      "sample %zu: another stack", i);
	}
	sa = ops_session_stack_hist(s, &na);
	sb = ops_session_stack_hist(o, &nb);
	ck_assert_uint_eq(na, nb);
	for (i = 0; i < na; i++) {
		ck_assert_uint_eq(sa[i].count, sb[i].count);
		ck_assert(stack_eq(ops_session_stack(s, sa[i].stack),
				   ops_session_stack(o, sb[i].stack)));
	}
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
	ops_session_close(o);
}

/* The anonymous stack samples of DIR are G's, in order, from the first;
 * how many read. */
static size_t check_read(const char *dir, const struct given *g, uint32_t n,
			 uint32_t version, struct warns *wr)
{
	struct ops_session *s = session_must_open(dir, wr);
	const struct ops_anon_stack_sample *a;
	const struct ops_stack_count *sc;
	size_t na, nc, i;

	ck_assert_uint_eq(ops_session_info(s)->format_version, version);
	ck_assert_int_eq(ops_session_anon_stacks(s, 0, &a, &na), 0);
	ck_assert_uint_le(na, n);
	for (i = 0; i < na; i++) {
		const struct ops_stack *st = ops_session_stack(s, a[i].stack);

		ck_assert_ptr_nonnull(st);
		ck_assert_uint_eq(a[i].tid, g[i].tid);
		ck_assert_msg(stack_eq(st, &g[i].st),
			      "sample %zu: not its stack", i);
	}
	/* the interned stack beside them, counted once each 97 */
	sc = ops_session_stack_hist(s, &nc);
	if (na == n) {
		ck_assert_uint_eq(nc, 1);
		ck_assert_uint_eq(sc[0].count, (n + 96) / 97);
		ck_assert_uint_eq(ops_session_stack(s, sc[0].stack)->nr_frames,
				  2);
	}
	ops_session_close(s);
	return na;
}

/* Many samples: several flushes, blocks near 1 MiB, a compaction at the
 * close; the same stacks read back with deltas as without. */
START_TEST(test_roundtrip)
{
	const uint32_t n = 60000;
	struct given *g = make_given(n, 12345);
	char *plain = tmp_path(tmp, "plain");
	struct warns wr = { 0 };

	write_session(sdir, true, g, n, 25000);
	ck_assert_uint_eq(check_read(sdir, g, n, OPS_FORMAT_VERSION_RAW, &wr),
			  n);
	ck_assert_int_eq(wr.n, 0);
	write_session(plain, false, g, n, 25000);
	ck_assert_uint_eq(
		check_read(plain, g, n, OPS_FORMAT_VERSION_DEFLATE, &wr), n);
	ck_assert_int_eq(wr.n, 0);
	free(plain);
	given_free(g, n);
}
END_TEST

/* The sets the trims at the stop keep entries by (the perf maps' JIT
 * frames, kallsyms' kernel frames) hold every such frame of every
 * stack written, though the writer puts in only the frames new to its
 * lane's list: here also a kernel image's frame that entered the list
 * at a user place (not a kernel frame then) and comes again in the
 * kernel, found in the list. */
START_TEST(test_trim_sets)
{
	const uint32_t n = 3000;
	const uint64_t k = 0xffffffff81000900ull;
	struct ops_frame a[] = { { OPS_FRAME_IMAGE, 2, k },
				 { OPS_FRAME_ANON, 0, 0x7f0000009000ull },
				 { OPS_FRAME_IMAGE, 0, 0x1100 } };
	struct ops_frame b[] = { { OPS_FRAME_IMAGE, 2, k },
				 { OPS_FRAME_ANON, 0, 0x7f0000009008ull },
				 { OPS_FRAME_IMAGE, 0, 0x1100 } };
	struct ops_stack sa = { a, 3, 0, 0 }, sb = { b, 3, 1, 0 };
	struct given *g = make_given(n, 777);
	struct oputil_u64map aframes = { 0 }, kframes = { 0 };
	struct app_session s;
	uint32_t id, i, j;
	uint64_t v;
	size_t slot;

	deltas_open(&s, sdir);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(
			ops_writer_stack_of(s.w, &g[i].st, g[i].tid, &id), 0);
		for (j = 0; j < g[i].st.nr_frames; j++) {
			const struct ops_frame *f = &g[i].frames[j];

			if (f->kind == OPS_FRAME_ANON)
				ck_assert_int_ge(oputil_u64map_put(&aframes,
								   f->addr, 0,
								   NULL),
						 0);
			else if (j < g[i].st.nr_kernel)
				ck_assert_int_ge(
					oputil_u64map_put(&kframes, f->addr,
							  f->image + 1, NULL),
					0);
		}
	}
	ck_assert_int_eq(ops_writer_stack_of(s.w, &sa, 5000, &id), 0);
	ck_assert_int_eq(ops_writer_stack_of(s.w, &sb, 5000, &id), 0);
	ck_assert_int_ge(oputil_u64map_put(&aframes, a[1].addr, 0, NULL), 0);
	ck_assert_int_ge(oputil_u64map_put(&aframes, b[1].addr, 0, NULL), 0);
	ck_assert_int_ge(oputil_u64map_put(&kframes, k, 3, NULL), 0);
	ck_assert_uint_eq(s.w->hist.aframes.nr, aframes.nr);
	ck_assert_uint_eq(s.w->hist.kframes.nr, kframes.nr);
	for (slot = 0; slot < aframes.cap; slot++)
		if (aframes.slots[slot].key)
			ck_assert_msg(
				oputil_u64map_get(&s.w->hist.aframes,
						  aframes.slots[slot].key,
						  NULL),
				"JIT frame %llx not kept",
				(unsigned long long)aframes.slots[slot].key);
	for (slot = 0; slot < kframes.cap; slot++) {
		if (!kframes.slots[slot].key)
			continue;
		ck_assert_msg(oputil_u64map_get(&s.w->hist.kframes,
						kframes.slots[slot].key, &v),
			      "kernel frame %llx not kept",
			      (unsigned long long)kframes.slots[slot].key);
		ck_assert_uint_eq(v, kframes.slots[slot].val);
	}
	ck_assert_int_eq(ops_writer_close(s.w, 5), 0);
	oputil_u64map_free(&aframes);
	oputil_u64map_free(&kframes);
	given_free(g, n);
}
END_TEST

/* Never flushed until the close, and flushed after every sample: the
 * lanes' stacks carry across blocks either way. */
START_TEST(test_flush_every_sample)
{
	const uint32_t n = 3000;
	struct given *g = make_given(n, 7);
	char *other = tmp_path(tmp, "other");
	struct warns wr = { 0 };

	write_session(sdir, true, g, n, 1);
	ck_assert_uint_eq(check_read(sdir, g, n, OPS_FORMAT_VERSION_RAW, &wr),
			  n);
	write_session(other, true, g, n, 0);
	ck_assert_uint_eq(check_read(other, g, n, OPS_FORMAT_VERSION_RAW, &wr),
			  n);
	ck_assert_int_eq(wr.n, 0);
	free(other);
	given_free(g, n);
}
END_TEST

/* The anonymous stack samples of DIR, written by write_chains(), are
 * G's but each BAD-th, in order, and each 13th sample's native stack counted
 * once. */
static void check_chains_read(const char *dir, const struct given *g,
			      uint32_t n, uint32_t bad)
{
	struct warns wr = { 0 };
	struct ops_session *s = session_must_open(dir, &wr);
	const struct ops_anon_stack_sample *a;
	const struct ops_stack_count *sc;
	size_t na, nc, k = 0;
	uint32_t i, natives = 0;

	ck_assert_int_eq(ops_session_anon_stacks(s, 0, &a, &na), 0);
	ck_assert_uint_eq(na, n - (bad ? n / bad : 0));
	for (i = 0; i < n; i++) {
		if (is_bad(i, bad))
			continue;
		natives += i % 13 == 0;
		ck_assert_uint_eq(a[k].tid, g[i].tid);
		ck_assert_msg(stack_eq(ops_session_stack(s, a[k].stack),
				       &g[i].st),
			      "sample %u: not its stack", i);
		k++;
	}
	sc = ops_session_stack_hist(s, &nc);
	ck_assert_uint_eq(nc, 1);
	ck_assert_uint_eq(sc[0].count, natives);
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
}

/* Chains (ops_writer_chain_of) read as the sessions placed stacks make,
 * across generations (an address places anew in each),
 * native stacks in the JIT threads' lanes, kernel frames and cut
 * chains; and the writer asks for far fewer places than there are
 * frames, which is the point of chains. */
START_TEST(test_chains)
{
	const uint32_t n = 20000;
	struct given *g = make_given(n, 4242);
	char *placed_dir = tmp_path(tmp, "placed"), *hist_chains, *hist_placed;
	uint64_t placed, unused, frames = 0;
	uint32_t i;

	write_chains(sdir, true, g, n, 0, &placed);
	write_chains(placed_dir, false, g, n, 0, &unused);
	check_chains_read(sdir, g, n, 0);
	same_reads(sdir, placed_dir);
	/* each chain keeps what it shares with its thread's chain before,
	 * as a record of placed frames does, and its new addresses are a
	 * byte or two from the one above: here 0.38 of the placed bytes,
	 * and well over them if chains shared nothing */
	hist_chains = tmp_path(sdir, "samples.hist");
	hist_placed = tmp_path(placed_dir, "samples.hist");
	ck_assert_uint_le(file_size(hist_chains),
			  file_size(hist_placed) * 3 / 4);
	free(hist_chains);
	free(hist_placed);
	for (i = 0; i < n; i++)
		frames += g[i].st.nr_frames;
	ck_assert_uint_gt(placed, 0);
	/* without chains every frame is placed */
	ck_assert_msg(placed * 2 < frames, "%llu places for %llu frames",
		      (unsigned long long)placed, (unsigned long long)frames);
	free(placed_dir);
	given_free(g, n);
}
END_TEST

/* A recursion through two JIT functions, deeper than the depth limit
 * most of the time: each chain cut there has its root in the
 * recursion, one of the two frames the lane named last, so that the
 * cut root is written from the lane's list as any of its frames, and
 * must still be marked cut (a chain that shares it, or not, depends on
 * it). */
START_TEST(test_chain_cut_recursion)
{
	const uint32_t n = 4000, limit = 9;
	const struct ops_frame main_f = { OPS_FRAME_IMAGE, 0, 0x1100 },
			       rec[2] = {
				       { OPS_FRAME_ANON, 0, 0x7f0000003000 },
				       { OPS_FRAME_ANON, 0, 0x7f0000003400 }
			       };
	struct given *g = calloc(n, sizeof(*g));
	char *placed_dir = tmp_path(tmp, "placed");
	uint64_t seed = 77, placed, unused;
	uint32_t i, k, depth, cut = 0;

	ck_assert_ptr_nonnull(g);
	for (i = 0; i < n; i++) {
		uint32_t nr;

		/* main, then the recursion: DEPTH frames from the root */
		depth = 3 + (uint32_t)(rnd(&seed) % 14);
		nr = depth < limit ? depth : limit;
		g[i].tid = 77;
		g[i].frames = malloc(nr * sizeof(*g[i].frames));
		ck_assert_ptr_nonnull(g[i].frames);
		/* leaf first: frame k of the chain is frame depth-1-k from
		 * the root */
		for (k = 0; k < nr; k++) {
			uint32_t from_root = depth - 1 - k;

			g[i].frames[k] = from_root ? rec[from_root % 2]
						   : main_f;
		}
		g[i].st = (struct ops_stack){ g[i].frames, nr, 0,
					      depth > limit
						      ? OPS_STACK_TRUNCATED
						      : 0 };
		cut += depth > limit;
	}
	ck_assert_uint_gt(cut, n / 4);
	write_chains(sdir, true, g, n, 0, &placed);
	write_chains(placed_dir, false, g, n, 0, &unused);
	same_reads(sdir, placed_dir);
	check_chains_read(sdir, g, n, 0);
	free(placed_dir);
	given_free(g, n);
}
END_TEST

/* Hand-made chains of one thread whose one address K is a kernel frame
 * at a kernel place and an unknown one at a user place, as a recorder
 * places them. */
#define HAND_K 0xffffffff81000900ull

static void hand_place(void *arg, uint64_t addr, bool kernel,
		       struct ops_frame *f)
{
	(void)arg;
	if (kernel)
		*f = (struct ops_frame){ OPS_FRAME_IMAGE, 2, addr };
	else if (addr == HAND_K)
		*f = (struct ops_frame){ OPS_FRAME_UNKNOWN, 0, addr };
	else if (addr == 0x1100)
		*f = (struct ops_frame){ OPS_FRAME_IMAGE, 0, addr };
	else
		*f = (struct ops_frame){ OPS_FRAME_ANON, 0, addr };
}

/* The same address at a kernel place and then at a user place (or the
 * other way) at the same depth is another frame and another stack:
 * chains read as placed stacks do, and as given. */
START_TEST(test_chain_kernel_places)
{
	static const struct {
		uint32_t nr, nr_kernel;
		uint64_t addrs[4];
	} seq[] = {
		{ 2, 0, { 0x7f0000001000ull, 0x1100 } },
		{ 3, 1, { HAND_K, 0x7f0000001000ull, 0x1100 } },
		{ 3, 0, { HAND_K, 0x7f0000001000ull, 0x1100 } },
		{ 3, 1, { HAND_K, 0x7f0000001000ull, 0x1100 } },
		{ 4, 1, { HAND_K, HAND_K, 0x7f0000001000ull, 0x1100 } },
		{ 4, 0, { HAND_K, HAND_K, 0x7f0000001000ull, 0x1100 } },
		{ 3, 0, { HAND_K, 0x7f0000001000ull, 0x1100 } },
	};
	const uint32_t n = sizeof(seq) / sizeof(seq[0]);
	struct ops_frame placed[sizeof(seq) / sizeof(seq[0])][4];
	struct ops_stack st[sizeof(seq) / sizeof(seq[0])];
	char *other = tmp_path(tmp, "placed");
	const struct ops_anon_stack_sample *a;
	struct ops_session *rs;
	struct warns wr = { 0 };
	uint32_t i, j, pass, id;
	size_t na;
	bool jit;

	for (i = 0; i < n; i++) {
		for (j = 0; j < seq[i].nr; j++)
			hand_place(NULL, seq[i].addrs[j], j < seq[i].nr_kernel,
				   &placed[i][j]);
		st[i] = (struct ops_stack){ placed[i], seq[i].nr,
					    seq[i].nr_kernel, 0 };
	}
	for (pass = 0; pass < 2; pass++) {
		struct app_session s;

		deltas_open(&s, pass ? other : sdir);
		for (i = 0; i < n; i++) {
			struct ops_chain c = { .addrs = seq[i].addrs,
					       .nr = seq[i].nr,
					       .nr_kernel = seq[i].nr_kernel,
					       .space = 42,
					       .gen = 1,
					       .place = hand_place };

			if (pass)
				ck_assert_int_eq(ops_writer_stack_of(
							 s.w, &st[i], 9, &id),
						 0);
			else
				ck_assert_int_eq(ops_writer_chain_of(s.w, &c,
								     9, &id,
								     &jit),
						 0);
			ck_assert_int_eq(ops_writer_anon_stack(
						 s.w, s.proc, 1000 + i, id, 9),
					 0);
		}
		ck_assert_int_eq(ops_writer_close(s.w, 5), 0);
	}
	same_reads(sdir, other);
	rs = session_must_open(sdir, &wr);
	ck_assert_int_eq(ops_session_anon_stacks(rs, 0, &a, &na), 0);
	ck_assert_uint_eq(na, n);
	for (i = 0; i < n; i++)
		ck_assert_msg(stack_eq(ops_session_stack(rs, a[i].stack),
				       &st[i]),
			      "sample %u: not its stack", i);
	ops_session_close(rs);
	free(other);
}
END_TEST

/* Chains with an address that places as no frame may (the leaf, the
 * last placed, after frames that moved in the lane's list): -EINVAL
 * and nothing of them written, and every other stack reads back as
 * given, their threads' after them too. */
START_TEST(test_chain_bad_place)
{
	const uint32_t n = 3000;
	struct given *g = make_given(n, 99);
	uint64_t placed;

	write_chains(sdir, true, g, n, 97, &placed);
	check_chains_read(sdir, g, n, 97);
	given_free(g, n);
}
END_TEST

/* Two processes whose chains name the same addresses, which place as
 * other frames in each (another layout) and in each generation of its
 * mappings: process P's address A (kernel frames aside) is the frame
 * at A + P * 0x100000 + (GEN / 10) * 0x40. */
static void space_place(void *arg, uint64_t addr, bool kernel,
			struct ops_frame *f)
{
	uint64_t shift = (uint64_t)(uintptr_t)arg;

	if (kernel)
		*f = (struct ops_frame){ OPS_FRAME_IMAGE, 2, addr };
	else if (addr < 0x100)
		*f = (struct ops_frame){ OPS_FRAME_IMAGE, 0, addr + shift };
	else
		*f = (struct ops_frame){ OPS_FRAME_ANON, 0, addr + shift };
}

/* Each sample of two processes read back as its own process's stack
 * in its generation: whether the two share a thread id (a lane that
 * changes process) or not, across generations, with kernel leaves, and
 * with an address cached from an older generation never its frame
 * now. */
START_TEST(test_raw_spaces)
{
	enum { N = 6000, DEPTH = 8 };
	static struct ops_frame want[N][DEPTH];
	static uint64_t addrs[N][DEPTH];
	static struct ops_stack st[N];
	const struct ops_anon_stack_sample *a;
	struct ops_session *rs;
	struct app_session s;
	struct warns wr = { 0 };
	uint64_t seed = 31;
	uint32_t i, j, id, tid[N];
	size_t na;
	bool jit;

	deltas_open(&s, sdir);
	for (i = 0; i < N; i++) {
		uint32_t proc = (uint32_t)(rnd(&seed) % 2);
		uint64_t gen = 1 + proc + 10 * (i / 1500);
		uintptr_t shift = proc * 0x100000 + (gen / 10) * 0x40;
		uint32_t nr = 2 + (uint32_t)(rnd(&seed) % (DEPTH - 2));
		uint32_t nk = nr > 2 && rnd(&seed) % 3 == 0;
		struct ops_chain c = { .addrs = addrs[i],
				       .nr = nr,
				       .nr_kernel = nk,
				       .space = 100 + proc,
				       .gen = gen,
				       .place = space_place,
				       .arg = (void *)shift };

		/* the same thread id in both, mostly */
		tid[i] = rnd(&seed) % 4 ? 7 : 23 + proc;
		for (j = 0; j < nr; j++)
			addrs[i][j] = j == nr - 1 ? 0x10
				      : j < nk	  ? 0xffffffff81000000ull +
							 rnd(&seed) % 4 * 8
					       : 0x200 + rnd(&seed) % 4 * 0x10;
		for (j = 0; j < nr; j++)
			space_place((void *)shift, addrs[i][j], j < nk,
				    &want[i][j]);
		st[i] = (struct ops_stack){ want[i], nr, nk, 0 };
		ck_assert_int_eq(
			ops_writer_chain_of(s.w, &c, tid[i], &id, &jit), 0);
		ck_assert(jit);
		ck_assert_int_eq(ops_writer_anon_stack(s.w, s.proc, 1000 + i,
						       id, tid[i]),
				 0);
		if (i % 700 == 699)
			ck_assert_int_eq(ops_writer_flush(s.w), 0);
	}
	ck_assert_int_eq(ops_writer_close(s.w, 5), 0);
	rs = session_must_open(sdir, &wr);
	ck_assert_uint_eq(ops_session_info(rs)->format_version,
			  OPS_FORMAT_VERSION_RAW);
	ck_assert_int_eq(ops_session_anon_stacks(rs, 0, &a, &na), 0);
	ck_assert_uint_eq(na, N);
	for (i = 0; i < N; i++) {
		ck_assert_uint_eq(a[i].tid, tid[i]);
		ck_assert_msg(stack_eq(ops_session_stack(rs, a[i].stack),
				       &st[i]),
			      "sample %u: not its stack", i);
	}
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(rs);
}
END_TEST

/* The offset of the payload of the first block of TYPE in BUF (LEN) at
 * or after FROM, or 0. */
static size_t block_find(const uint8_t *buf, size_t len, uint16_t type,
			 size_t from, uint32_t *plen, uint16_t *flags)
{
	size_t off = OPS_FILE_HEADER_SIZE;

	while (off + OPS_BLOCK_HEADER_SIZE <= len) {
		*plen = ops_le32_load(buf + off + 8);
		*flags = (uint16_t)(buf[off + 6] | buf[off + 7] << 8);
		if ((uint16_t)(buf[off + 4] | buf[off + 5] << 8) == type &&
		    off >= from)
			return off + OPS_BLOCK_HEADER_SIZE;
		off += OPS_BLOCK_HEADER_SIZE + *plen;
	}
	return 0;
}

/* A delta block cut short: one warning for samples.hist, one for the
 * samples whose stacks it held; the samples before it read as given. */
START_TEST(test_truncated_block)
{
	const uint32_t n = 6000;
	struct given *g = make_given(n, 11);
	struct warns wr = { 0 };
	uint32_t plen, last = 0;
	uint16_t flags;
	size_t len, off = 0, at;
	uint8_t *buf;

	write_session(sdir, true, g, n, 1000);
	buf = file_read(hist, &len);
	while ((at = block_find(buf, len, OPS_HIST_STACK_DELTAS, off + 1,
				&plen, &flags))) {
		off = at;
		last++;
	}
	ck_assert_uint_ge(last, 2);
	/* the last one loses its end */
	file_write(hist, buf, off + plen / 2);
	at = check_read(sdir, g, n, OPS_FORMAT_VERSION_RAW, &wr);
	ck_assert_uint_gt(at, 0);
	ck_assert_uint_lt(at, n);
	ck_assert_int_eq(wr.n, 2);
	ck_assert_ptr_nonnull(strstr(wr.last, "with no entry"));
	free(buf);
	given_free(g, n);
}
END_TEST

/* The STACK_DELTAS payloads of the samples.hist in DIR, one after the
 * other, as they are stored. */
static uint8_t *delta_payloads(const char *dir, size_t *n)
{
	char *path = tmp_path(dir, "samples.hist");
	size_t len, off = 0, at;
	uint8_t *buf = file_read(path, &len), *out = malloc(len);
	uint32_t plen;
	uint16_t flags;

	ck_assert_ptr_nonnull(out);
	*n = 0;
	while ((at = block_find(buf, len, OPS_HIST_STACK_DELTAS, off + 1,
				&plen, &flags))) {
		memcpy(out + *n, buf + at, plen);
		*n += plen;
		off = at;
	}
	free(buf);
	free(path);
	return out;
}

/* A compaction after every flush: each copies the blocks the file has
 * from it (the writer keeps none of them), and the blocks at the close
 * are the same bytes as a session's compacted only then. */
START_TEST(test_compactions)
{
	const uint32_t n = 20000;
	struct given *g = make_given(n, 4242);
	char *other = tmp_path(tmp, "other");
	struct warns wr = { 0 };
	uint8_t *a, *b;
	size_t na, nb;

	write_session_compacting(sdir, true, g, n, 3000, true);
	ck_assert_uint_eq(check_read(sdir, g, n, OPS_FORMAT_VERSION_RAW, &wr),
			  n);
	write_session_compacting(other, true, g, n, 3000, false);
	ck_assert_uint_eq(check_read(other, g, n, OPS_FORMAT_VERSION_RAW, &wr),
			  n);
	ck_assert_int_eq(wr.n, 0);
	a = delta_payloads(sdir, &na);
	b = delta_payloads(other, &nb);
	ck_assert_uint_gt(na, 20000);
	ck_assert_uint_eq(na, nb);
	ck_assert_int_eq(memcmp(a, b, na), 0);
	free(a);
	free(b);
	free(other);
	given_free(g, n);
}
END_TEST

/* A close that would copy more stack deltas into a compacted file than
 * it may (here any) ends the file with a flush: the file is the one the
 * flushes wrote, and reads as a compacted one, every sample, stack and
 * count; a short one is compacted as before. */
START_TEST(test_close_without_compaction)
{
	const uint32_t n = 20000;
	struct given *g = make_given(n, 4242);
	char *other = tmp_path(tmp, "other");
	struct warns wr = { 0 };

	ck_assert(write_session_closing(sdir, true, g, n, 3000, false, true));
	ck_assert_uint_eq(check_read(sdir, g, n, OPS_FORMAT_VERSION_RAW, &wr),
			  n);
	ck_assert_int_eq(wr.n, 0);
	ck_assert(
		!write_session_closing(other, true, g, n, 3000, false, false));
	same_reads(sdir, other);
	free(other);
	given_free(g, n);
}
END_TEST

/* The file cut behind the writer's back: the close's compaction cannot
 * copy the blocks it no longer has, says so naming it, and leaves it
 * as it was rather than replace it with less. */
START_TEST(test_compaction_source_cut)
{
	const uint32_t n = 4000;
	struct given *g = make_given(n, 99);
	struct app_session s;
	uint32_t id, i;
	size_t len;
	uint8_t *buf;

	deltas_open(&s, sdir);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(
			ops_writer_stack_of(s.w, &g[i].st, g[i].tid, &id), 0);
		ck_assert_int_eq(ops_writer_anon_stack(s.w, s.proc, 1000 + i,
						       id, g[i].tid),
				 0);
	}
	ck_assert_int_eq(ops_writer_flush(s.w), 0);
	buf = file_read(hist, &len);
	ck_assert_int_eq(truncate(hist, (off_t)(len / 2)), 0);
	ck_assert_int_ne(ops_writer_finish(s.w, 5), 0);
	ck_assert_ptr_nonnull(strstr(ops_writer_error(s.w), hist));
	ck_assert_ptr_nonnull(
		strstr(ops_writer_error(s.w), "shorter than written"));
	ops_writer_free(s.w);
	ck_assert_uint_eq(file_size(hist), len / 2);
	free(buf);
	given_free(g, n);
}
END_TEST

/* A record that does not parse, its block's checksum good: the block is
 * dropped whole with one warning, its samples with one more, and the
 * flat samples still read. */
START_TEST(test_bad_record)
{
	const uint32_t n = 3;
	struct given *g = make_given(n, 5);
	struct ops_session *s;
	const struct ops_anon_sample *flat;
	const struct ops_anon_stack_sample *a;
	struct warns wr = { 0 };
	uint32_t plen;
	uint16_t flags;
	size_t len, at, na;
	uint8_t *buf;

	write_session(sdir, true, g, n, 0);
	buf = file_read(hist, &len);
	at = block_find(buf, len, OPS_HIST_STACK_DELTAS, 0, &plen, &flags);
	ck_assert_uint_gt(at, 0);
	/* the block stored as it is, so that a byte of it can be changed */
	if (flags & OPS_BLOCK_DEFLATED) {
		uint8_t *raw = NULL, *out;
		size_t cap = 0, rlen, olen;

		ck_assert_ptr_null(
			ops_block_inflate(buf + at, plen, &raw, &cap, &rlen));
		olen = len - plen + rlen;
		out = malloc(olen);
		ck_assert_ptr_nonnull(out);
		memcpy(out, buf, at);
		memcpy(out + at, raw, rlen);
		memcpy(out + at + rlen, buf + at + plen, len - at - plen);
		out[at - 10] = out[at - 9] = 0; /* flags */
		ops_le32_store(out + at - 8, (uint32_t)rlen);
		free(raw);
		free(buf);
		buf = out;
		len = olen;
		plen = (uint32_t)rlen;
	}
	/* first id 0, 3 records, the first one's lane past the lanes */
	ck_assert_uint_eq(buf[at], 0);
	ck_assert_uint_eq(buf[at + 1], 3);
	buf[at + 2] = 0x7f;
	ops_le32_store(buf + at - 4, oputil_crc32c(0, buf + at, plen));
	file_write(hist, buf, len);
	s = session_must_open(sdir, &wr);
	ck_assert_int_eq(ops_session_anon_stacks(s, 0, &a, &na), 0);
	ck_assert_uint_eq(na, 0);
	ck_assert_int_eq(ops_session_anon(s, 0, &flat, &na), 0);
	ck_assert_uint_eq(na, n);
	ck_assert_int_eq(wr.n, 2);
	ops_session_close(s);
	free(buf);
	given_free(g, n);
}
END_TEST

static Suite *deltas_suite(void)
{
	const struct check_case cases[] = {
		{ "roundtrip", test_roundtrip },
		{ "flush_every_sample", test_flush_every_sample },
		{ "truncated_block", test_truncated_block },
		{ "bad_record", test_bad_record },
		{ "trim_sets", test_trim_sets },
		{ "chains", test_chains },
		{ "chain_bad_place", test_chain_bad_place },
		{ "chain_kernel_places", test_chain_kernel_places },
		{ "chain_cut_recursion", test_chain_cut_recursion },
		{ "raw_spaces", test_raw_spaces },
		{ "compactions", test_compactions },
		{ "compaction_source_cut", test_compaction_source_cut },
		{ "close_without_compaction", test_close_without_compaction },
	};
	Suite *s = suite_create("samples_deltas");
	SUITE_ADD_CASES(s, cases, session_setup, session_teardown, 60);
	return s;
}

int main(void)
{
	return opjit_check_run(deltas_suite());
}
