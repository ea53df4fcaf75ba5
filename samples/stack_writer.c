// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The stack table of samples.hist and its counts (FORMAT.md, STACKS and
 * STACK_COUNTS).  A stack is interned by its record as it goes on disk:
 * encoding one per sample costs less than the frames' own lookups in the
 * recorder, and the bytes then serve as hash key and as definition.
 * Counts share the histogram's table, marked by OPS_STACK_CTX.
 */
#include <errno.h>
#include <string.h>

#include "writer_internal.h"

/* Tags of a frame record: 0 continues the previous frame's place. */
#define TAG_SAME 0
#define TAG_ANON 1
#define TAG_UNKNOWN 2
#define TAG_IMAGE 3

static int stack_check(const struct ops_writer *w, const struct ops_stack *st)
{
	uint32_t i;

	if (!st->frames || !st->nr_frames ||
	    st->nr_frames > OPS_STACK_MAX_FRAMES ||
	    st->nr_kernel > st->nr_frames)
		return -EINVAL;
	for (i = 0; i < st->nr_frames; i++) {
		const struct ops_frame *f = &st->frames[i];

		if (f->kind > OPS_FRAME_UNKNOWN ||
		    (f->kind == OPS_FRAME_IMAGE &&
		     f->image >= w->hist.images.nr))
			return -EINVAL;
	}
	return 0;
}

/* The STACKS record of ST into OUT (emptied first). */
static int stack_encode(struct ops_buf *out, const struct ops_stack *st)
{
	const struct ops_frame *f, *prev = NULL;
	uint8_t *p;
	uint32_t i;
	int ret;

	out->len = 0;
	/* three varints of header, a tag and a value per frame */
	ret = ops_buf_reserve(out, (size_t)(3 + 2 * st->nr_frames) *
					   OPS_VARINT_MAX);
	if (ret)
		return ret;
	p = out->data;
	p += ops_varint_encode(p, st->nr_frames);
	p += ops_varint_encode(p, st->nr_kernel);
	p += ops_varint_encode(p, st->flags);
	for (i = 0; i < st->nr_frames; i++, prev = f) {
		f = &st->frames[i];
		if (prev && prev->kind == f->kind &&
		    (f->kind != OPS_FRAME_IMAGE || prev->image == f->image)) {
			p += ops_varint_encode(p, TAG_SAME);
			p += ops_varint_encode(
				p, ops_zigzag((int64_t)(f->addr - prev->addr)));
			continue;
		}
		p += ops_varint_encode(p, f->kind == OPS_FRAME_ANON ? TAG_ANON :
				       f->kind == OPS_FRAME_UNKNOWN ?
				       TAG_UNKNOWN :
				       (uint64_t)TAG_IMAGE + f->image);
		p += ops_varint_encode(p, f->addr);
	}
	out->len = (size_t)(p - out->data);
	return 0;
}

int ops_writer_stack(struct ops_writer *w, const struct ops_stack *st,
		     uint32_t *id)
{
	int ret;

	if (!w->callgraph)
		return ops_writer_fail(w, -EINVAL,
				       "%s/samples.hist: stacks in a session opened without call graphs",
				       w->dir);
	if (stack_check(w, st))
		return ops_writer_fail(w, -EINVAL,
				       "%s/samples.hist: invalid stack",
				       w->dir);
	ret = stack_encode(&w->records, st);
	if (!ret)
		ret = ops_keyset_add(&w->hist.stacks, w->records.data,
				     w->records.len, id);
	if (ret)
		return ops_writer_fail(w, ret, "%s/samples.hist: cannot add stack: %s",
				       w->dir, strerror(-ret));
	return 0;
}

int ops_writer_stack_add(struct ops_writer *w, uint32_t ctx, uint32_t stack,
			 uint64_t count)
{
	if (ctx >= w->hist.contexts.nr)
		return ops_writer_fail(w, -EINVAL,
				       "%s/samples.hist: unknown context %u",
				       w->dir, ctx);
	if (stack >= w->hist.stacks.nr)
		return ops_writer_fail(w, -EINVAL,
				       "%s/samples.hist: unknown stack %u",
				       w->dir, stack);
	return ops_hist_count(w, ctx | OPS_STACK_CTX, stack, count);
}

int ops_hist_writer_defs(struct ops_writer *w)
{
	struct ops_hist_writer *h = &w->hist;
	int ret;

	if (h->images_on_disk == h->images.nr &&
	    h->contexts_on_disk == h->contexts.nr &&
	    h->stacks_on_disk == h->stacks.nr)
		return 0;
	w->out.len = 0;
	ret = ops_hist_put_defs(w, &h->images, h->images_on_disk,
				h->images.nr, OPS_HIST_IMAGES);
	ret = ret ? ret : ops_hist_put_defs(w, &h->contexts,
					    h->contexts_on_disk,
					    h->contexts.nr, OPS_HIST_CONTEXTS);
	ret = ret ? ret : ops_hist_put_defs(w, &h->stacks, h->stacks_on_disk,
					    h->stacks.nr, OPS_HIST_STACKS);
	if (ret)
		return ops_writer_fail(w, ret, "%s/samples.hist: cannot flush: %s",
				       w->dir, strerror(-ret));
	ret = ops_blockfile_append(&h->bf, w->out.data, w->out.len, w->err,
				   sizeof(w->err));
	if (ret)
		return ret;
	h->images_on_disk = h->images.nr;
	h->contexts_on_disk = h->contexts.nr;
	h->stacks_on_disk = h->stacks.nr;
	return 0;
}
