// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The user stack copies of samples.hist (FORMAT.md, STACK_COPIES and
 * COPY_COUNTS).  A hot loop gives the same registers and the same bytes
 * at sample after sample, so a copy is interned whole, as its record,
 * and counted like a histogram cell; a new copy costs its bytes once.
 */
#include <errno.h>
#include <string.h>

#include "writer_internal.h"

/* The copies the writer keeps (each one's record, for deduplication and
 * compaction): past this a sample keeps its stack and loses its copy. */
#define COPIES_MAX_BYTES (64u << 20)

int ops_writer_stack_copy(struct ops_writer *w, const struct ops_stack_copy *c)
{
	struct ops_hist_writer *h = &w->hist;
	struct ops_buf *k = &h->copy_key;
	uint32_t id;
	int ret;

	if (c->ctx >= h->contexts.nr || c->stack >= h->stacks.nr ||
	    c->size > OPS_STACK_COPY_MAX || (c->size && !c->bytes))
		return ops_writer_fail(w, -EINVAL,
				       "%s/samples.hist: invalid stack copy",
				       w->dir);
	k->len = 0;
	ret = ops_buf_put_varint(k, c->ctx);
	ret = ret ? ret : ops_buf_put_varint(k, c->stack);
	ret = ret ? ret : ops_buf_put_varint(k, c->ip);
	ret = ret ? ret : ops_buf_put_varint(k, c->sp);
	ret = ret ? ret : ops_buf_put_varint(k, c->bp);
	ret = ret ? ret : ops_buf_put_varint(k, c->size);
	ret = ret ? ret : ops_buf_put(k, c->bytes, c->size);
	if (!ret && h->copies.arena.len + k->len > COPIES_MAX_BYTES) {
		h->copies_dropped++;
		return 0;
	}
	ret = ret ? ret : ops_keyset_add(&h->copies, k->data, k->len, &id);
	if (ret)
		return ops_writer_fail(
			w, ret, "%s/samples.hist: cannot add stack copy: %s",
			w->dir, strerror(-ret));
	return ops_hist_count(w, OPS_COPY_CTX, id, 1);
}
