// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The stack table and stack counts of samples.hist (FORMAT.md, STACKS
 * and STACK_COUNTS), the mirror of stack_writer.c.  A block that does
 * not parse is rolled back whole, as the other definition blocks are.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/hash.h>

#include "block_internal.h"
#include "reader_internal.h"

/* The fewest bytes a stack node and a count record take. */
#define STACK_MIN 4
#define COUNT_MIN 3

#define TAG_SAME 0
#define TAG_ANON 1
#define TAG_UNKNOWN 2
#define TAG_IMAGE 3

#define NODE_KERNEL 0x1
#define NODE_CUT 0x2

/* a node's depth and kernel frames fit its 16-bit fields */
_Static_assert(OPS_STACK_MAX_FRAMES < 1u << 15, "node fields too small");

static uint64_t frame_hash(const struct ops_frame *f)
{
	return oputil_hash_word64(oputil_hash_word64(OPUTIL_HASH_SEED,
						     (uint64_t)f->image << 8 |
							     f->kind),
				  f->addr);
}

uint32_t ops_hist_frame_intern(struct ops_hist_data *h,
			       const struct ops_frame *f)
{
	struct oputil_idxset_pos pos;
	uint32_t i;

	i = oputil_idxset_find(&h->frame_set, frame_hash(f), &pos, k,
			       h->frames[k].addr == f->addr &&
				       h->frames[k].image == f->image &&
				       h->frames[k].kind == f->kind);
	if (i != OPUTIL_IDXSET_NONE)
		return i;
	if (h->nr_frames >= UINT32_MAX - 1 ||
	    oputil_grow(&h->frames, &h->cap_frames, (size_t)h->nr_frames + 1,
			sizeof(*h->frames)) ||
	    oputil_idxset_put(&h->frame_set, &pos, h->nr_frames) < 0)
		return UINT32_MAX;
	h->frames[h->nr_frames] = *f;
	return h->nr_frames++;
}

bool ops_hist_stack_frame(const struct ops_hist_data *h, struct ops_cur *c,
			  uint64_t tag, const struct ops_frame *prev,
			  struct ops_frame *f)
{
	if (!c->ok)
		return false;
	if (tag == TAG_SAME) {
		if (!prev)
			return false;
		*f = *prev;
		f->addr += (uint64_t)ops_cur_svarint(c);
		return c->ok;
	}
	memset(f, 0, sizeof(*f));
	if (tag == TAG_ANON) {
		f->kind = OPS_FRAME_ANON;
	} else if (tag == TAG_UNKNOWN) {
		f->kind = OPS_FRAME_UNKNOWN;
	} else {
		if (tag - TAG_IMAGE >= h->nr_images)
			return false;
		f->kind = OPS_FRAME_IMAGE;
		f->image = (uint32_t)(tag - TAG_IMAGE);
	}
	f->addr = ops_cur_varint(c);
	return c->ok;
}

const char *ops_hist_stacks(struct ops_hist_data *h, const uint8_t *p,
			    size_t len, bool parent_ids, bool *oom)
{
	uint32_t first, n, i, start = h->nr_stacks;
	const char *why = "bad stack record";
	struct ops_cur c;
	size_t cap;

	ops_cur_init(&c, p, len);
	first = ops_cur_varint32(&c);
	n = ops_cur_varint32(&c);
	if (!c.ok || first != h->nr_stacks)
		return "stack ids out of order";
	if (n > ops_cur_left(&c) / STACK_MIN ||
	    (uint64_t)first + n > UINT32_MAX)
		return "bad stack count";
	cap = h->cap_stacks;
	if (oputil_grow(&h->nodes, &cap, (size_t)first + n, sizeof(*h->nodes)))
		goto nomem;
	h->cap_stacks = (uint32_t)(cap > UINT32_MAX ? UINT32_MAX : cap);
	if (!h->stack_frames &&
	    !(h->stack_frames =
		      malloc(OPS_STACK_MAX_FRAMES * sizeof(*h->stack_frames))))
		goto nomem;
	for (i = 0; i < n; i++) {
		struct ops_stack_node *nd = &h->nodes[first + i];
		uint32_t parent = ops_cur_varint32(&c);
		uint32_t flags = ops_cur_varint32(&c);
		const struct ops_stack_node *up = NULL;
		struct ops_frame f;
		uint32_t kernel;

		if (!c.ok || parent > first + i)
			goto bad;
		/* from version 3 the distance back to the parent: 1 for the
		 * node just before, as most are */
		if (!parent_ids && parent)
			parent = first + i - parent + 1;
		if (parent) {
			up = &h->nodes[parent - 1];
			/* user frames are the outer ones */
			if (!(flags & NODE_KERNEL) && ops_node_kernel(up))
				goto bad;
			if (up->depth >= OPS_STACK_MAX_FRAMES)
				goto bad;
		}
		if (!ops_hist_stack_frame(h, &c, ops_cur_varint(&c),
					  up ? &h->frames[up->frame] : NULL,
					  &f))
			goto bad;
		nd->frame = ops_hist_frame_intern(h, &f);
		if (nd->frame == UINT32_MAX)
			goto nomem;
		nd->parent = parent;
		nd->depth = (uint16_t)(up ? up->depth + 1 : 1);
		kernel = (up ? ops_node_kernel(up) : 0) +
			 !!(flags & NODE_KERNEL);
		nd->kernel_cut =
			(uint16_t)(kernel << 1 |
				   (up			 ? ops_node_flags(up)
				    : (flags & NODE_CUT) ? OPS_STACK_TRUNCATED
							 : 0));
	}
	if (ops_cur_left(&c))
		return "trailing bytes in stack block";
	h->nr_stacks = start + n;
	return NULL;
bad:
	return why;
nomem:
	*oom = true;
	return "out of memory";
}

const struct ops_stack *ops_hist_stack(struct ops_hist_data *h, uint32_t id)
{
	const struct ops_stack_node *nd;
	uint32_t d = 0;

	if (id >= h->nr_stacks)
		return NULL;
	nd = &h->nodes[id];
	h->stack = (struct ops_stack){ h->stack_frames, nd->depth,
				       ops_node_kernel(nd),
				       ops_node_flags(nd) };
	/* the depths the parse checked bound the walk */
	for (;;) {
		h->stack_frames[d++] = h->frames[nd->frame];
		if (!nd->parent)
			break;
		nd = &h->nodes[nd->parent - 1];
	}
	return &h->stack;
}

const char *ops_hist_stack_counts(struct ops_hist_data *h, const uint8_t *p,
				  size_t len, bool *oom)
{
	size_t start = h->nr_stack_counts;
	uint64_t n, i, ctx = 0, stack = 0, d;
	struct ops_cur c;

	ops_cur_init(&c, p, len);
	n = ops_cur_varint(&c);
	if (!c.ok || n > ops_cur_left(&c) / COUNT_MIN)
		return "bad count of stack counts";
	if (oputil_grow(&h->stack_counts, &h->cap_stack_counts, start + n,
			sizeof(*h->stack_counts))) {
		*oom = true;
		return "out of memory";
	}
	for (i = 0; i < n; i++) {
		struct ops_stack_count *e = &h->stack_counts[start + i];

		d = ops_cur_varint(&c);
		ctx += d;
		if (d > UINT32_MAX || ctx >= h->nr_contexts)
			return c.ok ? "count for an unknown context"
				    : "bad stack count record";
		if (i && !d)
			stack += ops_cur_varint(&c);
		else
			stack = ops_cur_varint(&c);
		e->ctx = (uint32_t)ctx;
		e->stack = (uint32_t)stack;
		e->count = ops_cur_varint(&c);
		if (!c.ok)
			return "bad stack count record";
		if (stack >= h->nr_stacks)
			return "count for an unknown stack";
	}
	if (ops_cur_left(&c))
		return "trailing bytes in stack count block";
	h->nr_stack_counts = start + n;
	return NULL;
}

static int stack_count_cmp(const void *a, const void *b)
{
	const struct ops_stack_count *x = a, *y = b;

	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return 0;
}

void ops_hist_stacks_finish(struct ops_hist_data *h)
{
	struct ops_stack_count *e = h->stack_counts;
	size_t i, n = 0;

	if (!h->nr_stack_counts)
		return;
	qsort(e, h->nr_stack_counts, sizeof(*e), stack_count_cmp);
	for (i = 1; i < h->nr_stack_counts; i++) {
		if (e[i].ctx == e[n].ctx && e[i].stack == e[n].stack)
			e[n].count = ops_add_sat(e[n].count, e[i].count);
		else
			e[++n] = e[i];
	}
	h->nr_stack_counts = n + 1;
}

void ops_hist_stacks_free(struct ops_hist_data *h)
{
	free(h->nodes);
	free(h->frames);
	oputil_idxset_free(&h->frame_set);
	h->frames = NULL;
	h->nr_frames = 0;
	h->cap_frames = 0;
	free(h->stack_frames);
	free(h->stack_counts);
	ops_hist_deltas_free(h);
	h->nodes = NULL;
	h->stack_frames = NULL;
	h->stack_counts = NULL;
	h->nr_stacks = h->cap_stacks = 0;
	h->nr_stack_counts = h->cap_stack_counts = 0;
}
