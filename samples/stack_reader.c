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

/* One frame record after PREV (NULL at a root); false on damage. */
static bool stack_frame(const struct ops_hist_data *h, struct ops_cur *c,
			const struct ops_frame *prev, struct ops_frame *f)
{
	uint64_t tag = ops_cur_varint(c);

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

/* Each node is read as its whole stack, leaf first: its frame, then its
 * parent's frames.  A crafted chain of deep nodes would make that
 * quadratic, so the expanded table is bounded. */
#define FRAMES_MAX (1u << 24)

const char *ops_hist_stacks(struct ops_hist_data *h, const uint8_t *p,
			    size_t len, bool parent_ids, bool *oom)
{
	uint32_t first, n, i, start = h->nr_stacks;
	size_t fstart = h->nr_frames, cap;
	const char *why = "bad stack record";
	struct ops_cur c;

	ops_cur_init(&c, p, len);
	first = ops_cur_varint32(&c);
	n = ops_cur_varint32(&c);
	if (!c.ok || first != h->nr_stacks)
		return "stack ids out of order";
	if (n > ops_cur_left(&c) / STACK_MIN ||
	    (uint64_t)first + n > UINT32_MAX)
		return "bad stack count";
	cap = h->cap_stacks;
	if (oputil_grow(&h->stacks, &cap, (size_t)first + n,
			sizeof(*h->stacks)))
		goto nomem;
	cap = h->cap_stacks;
	if (oputil_grow(&h->stack_first, &cap, (size_t)first + n,
			sizeof(*h->stack_first)))
		goto nomem;
	h->cap_stacks = (uint32_t)(cap > UINT32_MAX ? UINT32_MAX : cap);
	for (i = 0; i < n; i++) {
		struct ops_stack *st = &h->stacks[first + i];
		uint32_t parent = ops_cur_varint32(&c);
		uint32_t flags = ops_cur_varint32(&c);
		const struct ops_stack *up = NULL;
		struct ops_frame *f;
		uint32_t nf = 1;

		if (!c.ok || parent > first + i)
			goto bad;
		/* from version 3 the distance back to the parent: 1 for the
		 * node just before, as most are */
		if (!parent_ids && parent)
			parent = first + i - parent + 1;
		if (parent) {
			up = &h->stacks[parent - 1];
			nf = up->nr_frames + 1;
			/* user frames are the outer ones */
			if (!(flags & NODE_KERNEL) && up->nr_kernel)
				goto bad;
		}
		if (nf > OPS_STACK_MAX_FRAMES)
			goto bad;
		if (h->nr_frames + nf > FRAMES_MAX) {
			why = "stack table too large";
			goto bad;
		}
		if (oputil_grow(&h->frames, &h->cap_frames, h->nr_frames + nf,
				sizeof(*h->frames)))
			goto nomem;
		f = &h->frames[h->nr_frames];
		if (!stack_frame(h, &c,
				 up ? &h->frames[h->stack_first[parent - 1]]
				    : NULL,
				 f))
			goto bad;
		if (up)
			memcpy(f + 1, &h->frames[h->stack_first[parent - 1]],
			       up->nr_frames * sizeof(*f));
		st->nr_frames = nf;
		st->nr_kernel =
			(up ? up->nr_kernel : 0) + !!(flags & NODE_KERNEL);
		st->flags = up			 ? up->flags
			    : (flags & NODE_CUT) ? OPS_STACK_TRUNCATED
						 : 0;
		st->frames = NULL;
		h->stack_first[first + i] = h->nr_frames;
		h->nr_frames += nf;
	}
	if (ops_cur_left(&c)) {
		h->nr_frames = fstart;
		return "trailing bytes in stack block";
	}
	h->nr_stacks = start + n;
	return NULL;
bad:
	h->nr_frames = fstart;
	return why;
nomem:
	h->nr_frames = fstart;
	*oom = true;
	return "out of memory";
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

	for (i = 0; i < h->nr_stacks; i++)
		h->stacks[i].frames = h->frames + h->stack_first[i];
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
	free(h->stacks);
	free(h->stack_first);
	free(h->frames);
	free(h->stack_counts);
	h->stacks = NULL;
	h->stack_first = NULL;
	h->frames = NULL;
	h->stack_counts = NULL;
	h->nr_stacks = h->cap_stacks = 0;
	h->nr_frames = h->cap_frames = 0;
	h->nr_stack_counts = h->cap_stack_counts = 0;
}
