// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Reading the user stack copies of samples.hist (FORMAT.md,
 * STACK_COPIES and COPY_COUNTS).  A damaged block is dropped whole; a
 * count for a copy no block defined is damage.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "bytes_internal.h"
#include "reader_internal.h"

/* The smallest record: six one-byte varints. */
#define COPY_MIN 6

const char *ops_hist_copies(struct ops_hist_data *h, const uint8_t *p,
			    size_t len, bool *oom)
{
	size_t start = h->nr_copies, bytes_start = h->nr_copy_bytes;
	const char *why = NULL;
	uint64_t n, i;
	int rc;
	struct ops_cur c;

	ops_cur_init(&c, p, len);
	rc = ops_cur_block_head(&c, start, COPY_MIN, &n);
	if (rc)
		return rc == -ERANGE ? "bad count of stack copies"
				     : "bad stack copy block";
	/* every byte of the block at most: its records' bytes fit */
	if (oputil_grow(&h->copies, &h->cap_copies, start + n,
			sizeof(*h->copies)) ||
	    oputil_grow(&h->copy_bytes, &h->cap_copy_bytes,
			bytes_start + ops_cur_left(&c), 1)) {
		*oom = true;
		return "out of memory";
	}
	for (i = 0; i < n; i++) {
		struct ops_stack_copy *e = &h->copies[start + i];
		uint64_t ctx, stack, size;

		ctx = ops_cur_varint(&c);
		stack = ops_cur_varint(&c);
		e->ip = ops_cur_varint(&c);
		e->sp = ops_cur_varint(&c);
		e->bp = ops_cur_varint(&c);
		size = ops_cur_varint(&c);
		if (!c.ok || size > OPS_STACK_COPY_MAX ||
		    size > ops_cur_left(&c))
			why = "bad stack copy record";
		else if (ctx >= h->nr_contexts)
			why = "stack copy of an unknown context";
		else if (stack >= h->nr_stacks)
			why = "stack copy of an unknown stack";
		if (why)
			goto out;
		e->ctx = (uint32_t)ctx;
		e->stack = (uint32_t)stack;
		e->size = (uint32_t)size;
		/* an offset now: the buffer may move as later blocks come */
		e->bytes = (const uint8_t *)(uintptr_t)h->nr_copy_bytes;
		e->count = 0;
		ops_cur_bytes(&c, h->copy_bytes + h->nr_copy_bytes, size);
		h->nr_copy_bytes += size;
	}
	if (ops_cur_left(&c)) {
		why = "trailing bytes in stack copy block";
		goto out;
	}
	h->nr_copies = start + n;
out:
	if (why)
		h->nr_copy_bytes = bytes_start;
	return why;
}

const char *ops_hist_copy_counts(struct ops_hist_data *h, const uint8_t *p,
				 size_t len)
{
	uint64_t n, i, id = 0, d, count;
	struct ops_cur c;

	ops_cur_init(&c, p, len);
	n = ops_cur_varint(&c);
	if (!c.ok || n > ops_cur_left(&c) / 3)
		return "bad count of stack copy counts";
	/* checked whole before any count is added: a bad block adds none */
	for (i = 0; i < n; i++) {
		d = ops_cur_varint(&c);
		id = i ? id + ops_cur_varint(&c) : ops_cur_varint(&c);
		ops_cur_varint(&c);
		if (!c.ok || d)
			return "bad stack copy count record";
		if (id >= h->nr_copies)
			return "count for an unknown stack copy";
	}
	if (ops_cur_left(&c))
		return "trailing bytes in stack copy count block";
	ops_cur_init(&c, p, len);
	n = ops_cur_varint(&c);
	for (i = 0; i < n; i++) {
		ops_cur_varint(&c);
		id = i ? id + ops_cur_varint(&c) : ops_cur_varint(&c);
		count = ops_cur_varint(&c);
		h->copies[id].count = ops_add_sat(h->copies[id].count, count);
	}
	return NULL;
}

void ops_hist_copies_finish(struct ops_hist_data *h)
{
	size_t i;

	for (i = 0; i < h->nr_copies; i++)
		h->copies[i].bytes =
			h->copies[i].size
				? h->copy_bytes + (uintptr_t)h->copies[i].bytes
				: NULL;
}

void ops_hist_copies_free(struct ops_hist_data *h)
{
	free(h->copies);
	free(h->copy_bytes);
	h->copies = NULL;
	h->copy_bytes = NULL;
	h->nr_copies = h->nr_copy_bytes = 0;
}
