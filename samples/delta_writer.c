// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The stacks of JIT samples as deltas (FORMAT.md, STACK_DELTAS; version
 * 5): each is written as its thread's stack before, cut to the part it
 * shares from the root, plus its own frames below that, and given the
 * next id.  Nothing is looked up: a recursive JIT workload makes new
 * stacks for as long as it runs, and finding each frame's node in a
 * table as large as the run's stacks (node fib.js: 36 frames, 3 new
 * nodes a sample) was most of the recorder's time, in cache and TLB
 * misses.  Here a sample touches its lane's last stack and the end of
 * a buffer; the report interns.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/hash.h>

#include "writer_internal.h"

static bool step_eq(const struct ops_delta_step *s, const struct ops_frame *f,
		    uint8_t flags)
{
	return s->frame.addr == f->addr && s->frame.kind == f->kind &&
	       s->frame.image == f->image && s->flags == flags;
}

/* A frame new to its lane's list goes into the sets of the trims at the
 * stop (the perf maps', kallsyms'): JIT code is a few thousand
 * addresses, so these stay small and cached.  A frame kept from the
 * lane's stack or found in its list went in when it was new there, and
 * the sets only grow: putting every new frame again was 7% of a node
 * recording.  ops_delta_stack reserved the room, so this cannot fail. */
static void delta_note(struct ops_hist_writer *h, const struct ops_frame *f,
		       bool kernel)
{
	if (f->kind == OPS_FRAME_ANON)
		(void)oputil_u64map_put(&h->aframes, f->addr, 0, NULL);
	if (kernel && f->kind == OPS_FRAME_IMAGE)
		(void)oputil_u64map_put(&h->kframes, f->addr,
					(uint64_t)f->image + 1, NULL);
}

/* The place of frame F in lane L's list of last frames, or nr_mru. */
static uint32_t mru_find(const struct ops_delta_lane *l,
			 const struct ops_frame *f)
{
	uint32_t k;

	for (k = 0; k < l->nr_mru; k++)
		if (l->mru[k].addr == f->addr && l->mru[k].kind == f->kind &&
		    l->mru[k].image == f->image)
			break;
	return k;
}

/* Frame F, below PREV (NULL at a root), into P as lane L's record
 * has it: its place K among the frames the lane named last, or (K
 * nr_mru) the frame itself, which then comes first there.  A
 * recursion's frames are a few return addresses again and again: a
 * byte each, where a STACKS record takes three or more, and a block
 * that needs no deflating (zlib level 1 was 0.54 us a node fib.js
 * sample, half the writer's time, for 51 bytes a sample).  KERNEL: F
 * ran in the kernel. */
static uint8_t *delta_put(struct ops_hist_writer *h, struct ops_delta_lane *l,
			  uint8_t *p, uint32_t k, const struct ops_frame *f,
			  const struct ops_frame *prev, bool kernel)
{
	if (k < l->nr_mru) {
		*p++ = (uint8_t)k;
		/* the list does not say whether the frame ran in the
		 * kernel when it entered: a kernel frame is noted */
		if (kernel)
			delta_note(h, f, kernel);
	} else {
		p = ops_stack_frame_encode(p, f, prev, OPS_DELTA_MRU);
		delta_note(h, f, kernel);
	}
	ops_delta_mru_front(l->mru, &l->nr_mru, k, f);
	return p;
}

static uint8_t *delta_frame(struct ops_hist_writer *h,
			    struct ops_delta_lane *l, uint8_t *p,
			    const struct ops_frame *f,
			    const struct ops_frame *prev, bool kernel)
{
	return delta_put(h, l, p, mru_find(l, f), f, prev, kernel);
}

/* The records of the open run as a STACK_DELTAS block kept in
 * H->delta_blocks. */
static int delta_close(struct ops_writer *w)
{
	struct ops_hist_writer *h = &w->hist;
	int ret;

	if (!h->delta_recs.len)
		return 0;
	w->payload.len = 0;
	ret = ops_buf_put_varint(&w->payload, h->delta_first);
	ret = ret ? ret
		  : ops_buf_put_varint(&w->payload,
				       h->nr_deltas - h->delta_first);
	ret = ret ? ret
		  : ops_buf_put(&w->payload, h->delta_recs.data,
				h->delta_recs.len);
	ret = ret ? ret
		  : ops_block_frame(&h->delta_blocks, OPS_HIST_STACK_DELTAS,
				    w->payload.data, w->payload.len);
	if (ret)
		return ret;
	h->delta_recs.len = 0;
	h->delta_first = h->nr_deltas;
	return 0;
}

/* Room for a record of N frames (NR_KERNEL in the kernel) in lane L:
 * first what can fail, as a record is written whole or not at all and
 * its lane's frames change with it. */
static int delta_reserve(struct ops_hist_writer *h, struct ops_delta_lane *l,
			 uint32_t n, uint32_t nr_kernel)
{
	int ret;

	if (h->nr_deltas == UINT32_MAX)
		return -EOVERFLOW;
	ret = oputil_grow(&l->path, &l->cap_path, n, sizeof(*l->path));
	/* a record's most: four counts, then a frame's tag and value
	 * each */
	ret = ret ? ret
		  : ops_buf_reserve(&h->delta_recs,
				    (4 + 2 * (size_t)n) * OPS_VARINT_MAX);
	ret = ret ? ret : oputil_u64map_reserve(&h->aframes, n);
	return ret ? ret : oputil_u64map_reserve(&h->kframes, nr_kernel);
}

/* The counts that open lane NL's record of N frames, D of them its
 * stack before's, NR_KERNEL in the kernel; at P, which it returns
 * past. */
static uint8_t *delta_head(uint8_t *p, uint32_t nl, uint32_t d, uint32_t n,
			   uint32_t nr_kernel, uint32_t flags)
{
	p += ops_varint_encode(p, nl);
	p += ops_varint_encode(p, d);
	p += ops_varint_encode(p, n - d);
	/* the new frames that ran in the kernel, the innermost; and at a
	 * new root, whether the chain was cut */
	p += ops_varint_encode(
		p, (uint64_t)(nr_kernel < n - d ? nr_kernel : n - d) << 1 |
			   (!d && (flags & OPS_STACK_TRUNCATED)));
	return p;
}

/* Lane L's record of N frames (SHARED of them its stack before's)
 * ends at P: the stack's id in *ID. */
static int delta_end(struct ops_writer *w, struct ops_delta_lane *l,
		     uint8_t *p, uint32_t n, uint32_t shared, uint32_t *id)
{
	struct ops_hist_writer *h = &w->hist;

	h->delta_recs.len = (size_t)(p - h->delta_recs.data);
	h->stack_stats.added += n - shared;
	l->path_n = n;
	l->last = *id = h->nr_deltas++;
	/* blocks near 1 MiB, as the other definitions' */
	if (h->delta_recs.len >= OPS_BLOCK_SOFT_MAX)
		return delta_close(w);
	return 0;
}

/* A stack of N frames sharing D with its lane's stack before, in the
 * writer's counts. */
static void delta_count(struct ops_hist_writer *h, uint32_t n, uint32_t d)
{
	h->stack_stats.stacks++;
	h->stack_stats.frames += n;
	h->stack_stats.shared += d;
}

/* Whether a stack of N frames sharing D with lane L's stack before is
 * that stack again: its id in *ID. */
static bool delta_again(const struct ops_delta_lane *l, uint32_t n, uint32_t d,
			uint32_t *id)
{
	if (d != n || l->path_n != n)
		return false;
	*id = l->last;
	return true;
}

static uint32_t delta_lane(uint32_t tid)
{
	return (uint32_t)(oputil_hash_u64(tid) & (OPS_STACK_LANES - 1));
}

int ops_delta_stack(struct ops_writer *w, const struct ops_stack *st,
		    uint32_t tid, uint32_t *id)
{
	struct ops_hist_writer *h = &w->hist;
	uint32_t nl = delta_lane(tid);
	struct ops_delta_lane *l = &h->dlanes[nl];
	uint32_t n = st->nr_frames, d = 0, i, shared;
	uint8_t *p;
	int ret;

	ret = delta_reserve(h, l, n, st->nr_kernel);
	if (ret)
		return ret;
	if (l->tid != tid || l->last == UINT32_MAX) {
		/* another thread's: the lane starts again from the root */
		l->tid = tid;
		l->path_n = 0;
	}
	/* placed frames: what the lane knew of addresses no longer holds
	 * (ops_delta_chain_taken() tells it again) */
	l->raw_gen = 0;
	l->mru_raw_ok = 0;
	while (d < n && d < l->path_n &&
	       step_eq(&l->path[d], &st->frames[n - 1 - d],
		       ops_stack_node_flags(st, n - 1 - d)))
		d++;
	delta_count(h, n, d);
	if (delta_again(l, n, d, id))
		return 0;
	shared = d;
	p = delta_head(h->delta_recs.data + h->delta_recs.len, nl, d, n,
		       st->nr_kernel, st->flags);
	for (i = n - d; i-- > 0; d++) {
		const struct ops_frame *f = &st->frames[i];

		p = delta_frame(h, l, p, f,
				i + 1 < n ? &st->frames[i + 1] : NULL,
				i < st->nr_kernel);
		l->path[d] =
			(struct ops_delta_step){ *f,
						 ops_stack_node_flags(st, i) };
	}
	return delta_end(w, l, p, n, shared, id);
}

/* The node flags of chain C's address I, leaf first (as
 * ops_stack_node_flags()). */
static inline uint8_t chain_flags(const struct ops_chain *c, uint32_t i)
{
	return ops_frame_node_flags(i, c->nr, c->nr_kernel, c->flags);
}

/* Whether place K of lane L's list holds the frame placed from
 * address A at a kernel place (KERNEL) or not. */
static inline bool mru_raw_is(const struct ops_delta_lane *l, uint32_t k,
			      uint64_t a, bool kernel)
{
	return l->mru_raw[k] == a && (l->mru_raw_ok >> k & 1) &&
	       (l->mru_raw_kernel >> k & 1) == kernel;
}

/* The place in lane L's list of the frame placed from address A at a
 * kernel place (KERNEL) or not, or nr_mru. */
static inline uint32_t mru_raw_find(const struct ops_delta_lane *l, uint64_t a,
				    bool kernel)
{
	uint32_t k;

	for (k = 0; k < l->nr_mru; k++)
		if (mru_raw_is(l, k, a, kernel))
			break;
	return k;
}

/* The addresses of lane L's list take the moves ops_delta_mru_front()
 * makes of its frames for place K (called before it): address A,
 * placed at a kernel place or not (KERNEL), first. */
static inline void mru_raw_front(struct ops_delta_lane *l, uint32_t k,
				 uint64_t a, bool kernel)
{
	uint8_t upto;
	uint32_t j;

	if (k >= l->nr_mru)
		k = l->nr_mru < OPS_DELTA_MRU ? l->nr_mru : OPS_DELTA_MRU - 1;
	/* a place at a time, as ops_delta_mru_front() (no memmove) */
	for (j = 0; j <= k; j++) {
		uint64_t t = l->mru_raw[j];

		l->mru_raw[j] = a;
		a = t;
	}
	upto = (uint8_t)((2u << k) - 1);
	l->mru_raw_ok = (uint8_t)((l->mru_raw_ok & ~upto) |
				  ((l->mru_raw_ok << 1) & upto) | 1);
	l->mru_raw_kernel =
		(uint8_t)((l->mru_raw_kernel & ~upto) |
			  ((l->mru_raw_kernel << 1) & upto) | kernel);
}

/* The steps chain C shares with lane L's path, from the root: the
 * same addresses with the same flags.  Compared by address alone, as
 * the flags agree at every step but the root's (the cut) and below
 * the user part of the shorter of the two (the kernel's). */
static inline uint32_t chain_shared(const struct ops_delta_lane *l,
				    const struct ops_chain *c)
{
	uint32_t n = c->nr, user = n - c->nr_kernel, d = 0, most;

	most = n < l->path_n ? n : (uint32_t)l->path_n;
	if (user != l->raw_user) {
		user = user < l->raw_user ? user : l->raw_user;
		most = most < user ? most : user;
	}
	if (most && (l->path[0].flags & OPS_NODE_CUT) !=
			    (chain_flags(c, n - 1) & OPS_NODE_CUT))
		return 0;
	while (d < most && l->raw[d] == c->addrs[n - 1 - d])
		d++;
	return d;
}

/* Lane L's list with its first two frames (and addresses) changed
 * places: what ops_delta_mru_front() and mru_raw_front() make of a
 * frame found at place 1. */
static inline void delta_swap(struct ops_delta_lane *l)
{
	struct ops_frame f = l->mru[0];
	uint64_t a = l->mru_raw[0];
	uint8_t ok = l->mru_raw_ok, kern = l->mru_raw_kernel;

	l->mru[0] = l->mru[1];
	l->mru[1] = f;
	l->mru_raw[0] = l->mru_raw[1];
	l->mru_raw[1] = a;
	l->mru_raw_ok = (uint8_t)((ok & ~3u) | (ok >> 1 & 1) | (ok & 1) << 1);
	l->mru_raw_kernel =
		(uint8_t)((kern & ~3u) | (kern >> 1 & 1) | (kern & 1) << 1);
}

/* Step D of lane L's path: address I of chain C, found at place 0 or
 * 1 of the lane's list by its address, named by that place into P,
 * which it returns past; from place 1 it moves to the front. */
static inline uint8_t *chain_listed(struct ops_hist_writer *h,
				    struct ops_delta_lane *l, uint8_t *p,
				    uint32_t d, const struct ops_chain *c,
				    uint32_t i)
{
	bool kernel = i < c->nr_kernel;

	if (!mru_raw_is(l, 0, c->addrs[i], kernel)) {
		delta_swap(l);
		*p++ = 1;
	} else {
		*p++ = 0;
	}
	if (kernel)
		delta_note(h, &l->mru[0], kernel);
	l->path[d] = (struct ops_delta_step){ l->mru[0], chain_flags(c, i) };
	l->raw[d] = c->addrs[i];
	if (l->mru[0].kind == OPS_FRAME_ANON && l->first_anon > d)
		l->first_anon = d;
	return p;
}

/* Chain C's frames from address I down (leaf first), outside the
 * kernel, for as long as each is the frame lane L named last or the
 * one before it: a recursion's new frames, most of a node fib.js
 * sample's (15.6 of its 36.5 frames), each a byte, as chain_listed()
 * writes them, with the list's first two frames held in locals instead
 * of loaded and stored at every frame.  Steps from D of the path, into
 * *P; the number of frames taken.  I is no cut root. */
static inline uint32_t chain_run(struct ops_delta_lane *l, uint8_t **p,
				 uint32_t d, uint32_t i,
				 const struct ops_chain *c)
{
	uint8_t user = (uint8_t)(l->mru_raw_ok & ~l->mru_raw_kernel);
	bool ok0 = user & 1, ok1 = l->nr_mru > 1 && (user & 2), swapped = 0;
	struct ops_frame f0 = l->mru[0], f1 = l->mru[1], f;
	uint64_t a0 = l->mru_raw[0], a1 = l->mru_raw[1], a;
	uint32_t first_anon = l->first_anon, from = d;
	uint8_t *q = *p;

	for (;; i--) {
		a = c->addrs[i];
		if (a == a0 && ok0) {
			*q++ = 0;
		} else if (a == a1 && ok1) {
			f = f0, f0 = f1, f1 = f;
			a1 = a0, a0 = a;
			swapped = !swapped;
			*q++ = 1;
		} else {
			break;
		}
		l->path[d] = (struct ops_delta_step){ f0, 0 };
		l->raw[d] = a;
		if (f0.kind == OPS_FRAME_ANON && first_anon > d)
			first_anon = d;
		d++;
		if (i == c->nr_kernel)
			break;
	}
	if (d == from)
		return 0;
	/* two frames: an even number of swaps left them as they were */
	if (swapped)
		delta_swap(l);
	l->first_anon = first_anon;
	*p = q;
	return d - from;
}

/* Address I of chain C placed into *F by C's caller: false (nothing
 * written) for a frame no stack may have. */
static bool chain_place(const struct ops_writer *w, const struct ops_chain *c,
			uint32_t i, struct ops_frame *f)
{
	c->place(c->arg, c->addrs[i], i < c->nr_kernel, f);
	return ops_frame_valid(&w->hist, f);
}

int ops_delta_chain(struct ops_writer *w, const struct ops_chain *c,
		    uint32_t tid, uint32_t *id)
{
	struct ops_hist_writer *h = &w->hist;
	uint32_t nl = delta_lane(tid);
	struct ops_delta_lane *l = &h->dlanes[nl];
	uint32_t n = c->nr, d = 0, i, k, shared, placed = n, cut;
	struct ops_frame mru[OPS_DELTA_MRU], f;
	uint32_t nr_mru;
	uint8_t *p;
	bool anon;
	int ret;

	if (!c->gen || l->tid != tid || l->last == UINT32_MAX ||
	    l->raw_gen != c->gen)
		return 0;
	ret = delta_reserve(h, l, n, c->nr_kernel);
	ret = ret ? ret
		  : oputil_grow(&l->raw, &l->cap_raw, n, sizeof(*l->raw));
	ret = ret ? ret
		  : oputil_grow(&h->chain_frames, &h->cap_chain_frames, n,
				sizeof(*h->chain_frames));
	if (ret)
		return ret;
	d = chain_shared(l, c);
	if (delta_again(l, n, d, id)) {
		delta_count(h, n, d);
		return 1;
	}
	shared = d;
	anon = l->first_anon < d;
	if (!anon) {
		/* whether the new frames have a JIT one, from the root:
		 * placed until the first */
		for (i = n - d; i-- > 0 && !anon;) {
			k = mru_raw_find(l, c->addrs[i], i < c->nr_kernel);
			if (k < l->nr_mru)
				h->chain_frames[i] = l->mru[k];
			else if (!chain_place(w, c, i, &h->chain_frames[i]))
				return -EINVAL;
			placed = i;
			anon = h->chain_frames[i].kind == OPS_FRAME_ANON;
		}
		if (!anon) {
			/* a native stack, for the table: placed whole */
			for (i = n - d; i < n; i++)
				h->chain_frames[i] = l->path[n - 1 - i].frame;
			return 2;
		}
	}
	if (l->first_anon >= d)
		l->first_anon = UINT32_MAX;
	/* the list as the reader has it, should a place be bad (the
	 * addresses' part of it is only a cache, forgotten then) */
	memcpy(mru, l->mru, sizeof(mru));
	nr_mru = l->nr_mru;
	p = delta_head(h->delta_recs.data + h->delta_recs.len, nl, d, n,
		       c->nr_kernel, c->flags);
	cut = c->flags & OPS_STACK_TRUNCATED ? n - 1 : UINT32_MAX;
	for (i = n - d; i-- > 0; d++) {
		uint64_t a = c->addrs[i];
		bool kernel = i < c->nr_kernel;

		if (!kernel && i != cut) {
			k = chain_run(l, &p, d, i, c);
			if (k) {
				/* the loop's step takes the last */
				i -= k - 1;
				d += k - 1;
				continue;
			}
		}
		/* a recursion's frame: the one named last, again, which
		 * stays where it is; or the one before it, as a recursion
		 * through two functions has, and the two change places */
		if (mru_raw_is(l, 0, a, kernel) ||
		    (l->nr_mru > 1 && mru_raw_is(l, 1, a, kernel))) {
			p = chain_listed(h, l, p, d, c, i);
			continue;
		}
		k = mru_raw_find(l, a, kernel);
		if (k < l->nr_mru) {
			f = l->mru[k];
		} else {
			if (i >= placed) {
				f = h->chain_frames[i];
			} else if (!chain_place(w, c, i, &f)) {
				/* nothing written: the lane starts again */
				memcpy(l->mru, mru, sizeof(mru));
				l->nr_mru = nr_mru;
				l->mru_raw_ok = 0;
				l->last = UINT32_MAX;
				return -EINVAL;
			}
			k = mru_find(l, &f);
		}
		mru_raw_front(l, k, a, kernel);
		p = delta_put(h, l, p, k, &f, d ? &l->path[d - 1].frame : NULL,
			      kernel);
		l->path[d] = (struct ops_delta_step){ f, chain_flags(c, i) };
		l->raw[d] = a;
		if (f.kind == OPS_FRAME_ANON && l->first_anon > d)
			l->first_anon = d;
	}
	l->raw_user = n - c->nr_kernel;
	delta_count(h, n, shared);
	ret = delta_end(w, l, p, n, shared, id);
	return ret ? ret : 1;
}

void ops_delta_chain_taken(struct ops_hist_writer *h,
			   const struct ops_chain *c, uint32_t tid)
{
	struct ops_delta_lane *l = &h->dlanes[delta_lane(tid)];
	uint32_t d;

	if (!c->gen || l->tid != tid ||
	    oputil_grow(&l->raw, &l->cap_raw, c->nr, sizeof(*l->raw)))
		return;
	l->first_anon = UINT32_MAX;
	for (d = 0; d < c->nr; d++) {
		l->raw[d] = c->addrs[c->nr - 1 - d];
		if (l->path[d].frame.kind == OPS_FRAME_ANON &&
		    l->first_anon > d)
			l->first_anon = d;
	}
	l->raw_user = c->nr - c->nr_kernel;
	l->raw_gen = c->gen;
}

bool ops_delta_pending(const struct ops_hist_writer *h)
{
	return h->delta_recs.len || h->delta_on_disk < h->delta_blocks.len;
}

int ops_delta_put(struct ops_writer *w)
{
	struct ops_hist_writer *h = &w->hist;
	size_t from = h->compacting ? 0 : h->delta_on_disk;
	int ret = delta_close(w);

	ret = ret ? ret
		  : ops_buf_put(&w->out, h->delta_blocks.data + from,
				h->delta_blocks.len - from);
	h->delta_pending_end = ret ? h->delta_on_disk : h->delta_blocks.len;
	return ret;
}

void ops_delta_written(struct ops_writer *w, bool written)
{
	struct ops_hist_writer *h = &w->hist;

	if (written && h->delta_pending_end > h->delta_on_disk)
		h->delta_on_disk = h->delta_pending_end;
	h->delta_pending_end = h->delta_on_disk;
}

void ops_delta_free(struct ops_hist_writer *h)
{
	size_t i;

	for (i = 0; i < OPS_STACK_LANES; i++) {
		free(h->dlanes[i].path);
		free(h->dlanes[i].raw);
	}
	free(h->chain_frames);
	ops_buf_free(&h->delta_recs);
	ops_buf_free(&h->delta_blocks);
}
