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
 * recording.  ops_delta_reserve() made the room, so this cannot fail. */
void ops_delta_note(struct ops_hist_writer *h, const struct ops_frame *f,
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
			ops_delta_note(h, f, kernel);
	} else {
		p = ops_stack_frame_encode(p, f, prev, OPS_DELTA_MRU);
		ops_delta_note(h, f, kernel);
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
int ops_delta_close(struct ops_writer *w)
{
	struct ops_hist_writer *h = &w->hist;
	int ret;

	if (!h->delta_recs.len)
		return 0;
	w->payload.len = 0;
	ret = ops_buf_put_varint(&w->payload, h->delta_first);
	ret = ret ? ret : ops_buf_put_varint(&w->payload, h->delta_nrecs);
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
	h->delta_nrecs = 0;
	return 0;
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

int ops_delta_stack(struct ops_writer *w, const struct ops_stack *st,
		    uint32_t tid, uint32_t *id)
{
	struct ops_hist_writer *h = &w->hist;
	uint32_t nl = ops_delta_lane(tid);
	struct ops_delta_lane *l = &h->dlanes[nl];
	uint32_t n = st->nr_frames, d = 0, i, shared;
	uint8_t *p;
	int ret;

	ret = ops_delta_reserve(h, n, st->nr_kernel);
	ret = ret ? ret
		  : oputil_grow(&l->path, &l->cap_path, n, sizeof(*l->path));
	if (ret)
		return ret;
	if (l->tid != tid || l->last == UINT32_MAX) {
		/* another thread's: the lane starts again from the root */
		l->tid = tid;
		l->path_n = 0;
	}
	/* placed frames: the lane's addresses are no longer the reader's
	 * last */
	l->raw_gen = 0;
	while (d < n && d < l->path_n &&
	       step_eq(&l->path[d], &st->frames[n - 1 - d],
		       ops_stack_node_flags(st, n - 1 - d)))
		d++;
	ops_delta_count(h, n, d);
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
	l->path_n = n;
	return ops_delta_end(w, l, p, n, shared, id);
}

bool ops_delta_pending(const struct ops_hist_writer *h)
{
	return h->delta_recs.len || h->delta_blocks.len;
}

/* A compaction's copy of the blocks the file has, at this place of
 * W->out: a range each (ops_delta_written() joins those that follow
 * each other). */
static int delta_splice(struct ops_writer *w)
{
	struct ops_hist_writer *h = &w->hist;
	uint64_t total = 0;
	uint32_t i;
	int ret = oputil_grow(&h->splices, &h->cap_splices,
			      (size_t)h->nr_splices + h->nr_delta_extents,
			      sizeof(*h->splices));

	if (ret)
		return ret;
	for (i = 0; i < h->nr_delta_extents; i++) {
		const struct ops_extent *e = &h->delta_extents[i];

		h->splices[h->nr_splices++] =
			(struct ops_splice){ w->out.len, e->off, e->len };
		total += e->len;
	}
	h->delta_compacted =
		(struct ops_extent){ h->compact_at + w->out.len + h->spliced,
				     total };
	h->spliced += total;
	return 0;
}

int ops_delta_put(struct ops_writer *w)
{
	struct ops_hist_writer *h = &w->hist;
	int ret = ops_delta_close(w);

	/* room for the range the write adds, so that its record cannot
	 * fail once the file has it */
	ret = ret ? ret
		  : oputil_grow(&h->delta_extents, &h->cap_delta_extents,
				(size_t)h->nr_delta_extents + 2,
				sizeof(*h->delta_extents));
	if (!ret && h->compacting)
		ret = delta_splice(w);
	h->delta_pending_at =
		(h->compacting ? h->compact_at + h->spliced : h->bf.size) +
		w->out.len;
	ret = ret ? ret
		  : ops_buf_put(&w->out, h->delta_blocks.data,
				h->delta_blocks.len);
	h->delta_pending_len = ret ? 0 : h->delta_blocks.len;
	return ret;
}

void ops_delta_written(struct ops_writer *w, bool written)
{
	struct ops_hist_writer *h = &w->hist;
	struct ops_extent *last;
	size_t n = h->delta_pending_len;

	h->delta_pending_len = 0;
	if (!written)
		return;
	/* the fresh file has the old one's at one place */
	if (h->compacting) {
		h->nr_delta_extents = 0;
		if (h->delta_compacted.len)
			h->delta_extents[h->nr_delta_extents++] =
				h->delta_compacted;
	}
	if (!n)
		return;
	last = h->nr_delta_extents ? &h->delta_extents[h->nr_delta_extents - 1]
				   : NULL;
	if (last && last->off + last->len == h->delta_pending_at)
		last->len += n;
	else
		h->delta_extents[h->nr_delta_extents++] =
			(struct ops_extent){ h->delta_pending_at, n };
	memmove(h->delta_blocks.data, h->delta_blocks.data + n,
		h->delta_blocks.len - n);
	h->delta_blocks.len -= n;
}

void ops_delta_free(struct ops_hist_writer *h)
{
	size_t i;

	for (i = 0; i < OPS_STACK_LANES; i++) {
		free(h->dlanes[i].path);
		free(h->dlanes[i].raw);
	}
	free(h->chain_frames);
	free(h->raw_slots);
	ops_buf_free(&h->raw_defs);
	ops_buf_free(&h->delta_recs);
	ops_buf_free(&h->delta_blocks);
	free(h->delta_extents);
	free(h->splices);
}
