// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Time slices of the histograms (FORMAT.md, TIME_SLICES): every count
 * also goes to the open slice, and a slice is closed into one block when
 * the recorder's clock leaves it (forward, or back for a sample read
 * late) or at a flush.  Closed slices stay in
 * memory as the blocks they are, so that a compaction, which folds the
 * COUNTS into totals, keeps them as they were.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "writer_internal.h"

/* The open slice's cells sorted by (ctx, offset) as the COUNTS blocks
 * are: flat counts, then copy counts, then stack counts (OPS_COPY_CTX
 * is below OPS_STACK_CTX), the sections' order. */
static int slice_cmp(const void *a, const void *b)
{
	const struct ops_hist_delta *x = a, *y = b;

	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return 0;
}

/* One section: the records of D[0..N) whose kind is KIND, COUNTS
 * encoded after their number. */
static int slice_put_section(struct ops_buf *b, const struct ops_hist_delta *d,
			     uint32_t n, uint32_t kind, uint32_t *at)
{
	uint32_t i = *at, end = i, pctx = 0;
	uint64_t poff = 0;
	int ret;

	while (end < n &&
	       (d[end].ctx & (OPS_STACK_CTX | OPS_COPY_CTX)) == kind)
		end++;
	ret = ops_buf_put_varint(b, end - i);
	for (; i < end && !ret; i++) {
		uint32_t ctx = d[i].ctx & ~(OPS_STACK_CTX | OPS_COPY_CTX);
		bool same = i > *at && ctx == pctx;

		ret = ops_buf_put_varint(b, ctx - pctx);
		ret = ret ? ret
			  : ops_buf_put_varint(b, same ? d[i].offset - poff
						       : d[i].offset);
		ret = ret ? ret : ops_buf_put_varint(b, d[i].count);
		pctx = ctx;
		poff = d[i].offset;
	}
	*at = end;
	return ret;
}

int ops_slice_close(struct ops_writer *w)
{
	struct ops_hist_writer *h = &w->hist;
	struct ops_hist_delta *d;
	uint32_t i, at = 0, n = h->nr_slice_dirty, copies, copies_end;
	int ret;

	if (!n)
		return 0;
	ret = oputil_grow(&h->slice_sorted, &h->cap_slice_sorted, n,
			  sizeof(*h->slice_sorted));
	if (ret)
		goto fail;
	d = h->slice_sorted;
	for (i = 0; i < n; i++) {
		struct ops_hist_cell *c = &h->cells[h->slice_dirty[i]];

		d[i] = (struct ops_hist_delta){ c->offset, c->slice, c->ctx };
		c->slice = 0;
	}
	h->nr_slice_dirty = 0;
	qsort(d, n, sizeof(*d), slice_cmp);
	w->payload.len = 0;
	ret = ops_buf_put_varint(&w->payload, OPS_SLICE_NS);
	ret = ret ? ret : ops_buf_put_varint(&w->payload, h->slice_index);
	ret = ret ? ret : slice_put_section(&w->payload, d, n, 0, &at);
	/* the copies' counts go beside, in PIECED_COPY_SLICES: a reader
	 * that knows no copy of this session finds none of them here */
	copies = at;
	while (at < n &&
	       (d[at].ctx & (OPS_STACK_CTX | OPS_COPY_CTX)) == OPS_COPY_CTX)
		at++;
	copies_end = at;
	ret = ret ? ret : ops_buf_put_varint(&w->payload, 0);
	ret = ret ? ret
		  : slice_put_section(&w->payload, d, n, OPS_STACK_CTX, &at);
	ret = ret ? ret
		  : ops_block_frame(&h->slices, OPS_HIST_TIME_SLICES,
				    w->payload.data, w->payload.len);
	if (ret || copies == copies_end)
		goto out;
	w->payload.len = 0;
	ret = ops_buf_put_varint(&w->payload, OPS_SLICE_NS);
	ret = ret ? ret : ops_buf_put_varint(&w->payload, h->slice_index);
	ret = ret ? ret
		  : slice_put_section(&w->payload, d, n, OPS_COPY_CTX,
				      &copies);
	ret = ret ? ret
		  : ops_block_frame(&h->slices, OPS_HIST_PIECED_COPY_SLICES,
				    w->payload.data, w->payload.len);
out:
	if (!ret)
		return 0;
fail:
	return ops_writer_fail(w, ret,
			       "%s/samples.hist: cannot keep a time slice: %s",
			       w->dir, strerror(-ret));
}

int ops_writer_time(struct ops_writer *w, uint64_t time_ns,
		    uint64_t *slice_end)
{
	struct ops_hist_writer *h = &w->hist;
	uint64_t start = w->meta.info.start_ns;
	uint64_t index = time_ns > start ? (time_ns - start) / OPS_SLICE_NS
					 : 0;
	int ret = 0;

	/* a sample read late (from another CPU's buffer, or held until
	 * its mapping was known) goes back to its own slice, which another
	 * block then names again: its flat count and its stack are in the
	 * slice of its time, as its anonymous stack sample is */
	if (!h->slicing || index != h->slice_index) {
		ret = ops_slice_close(w);
		if (!ret) {
			h->slice_index = index;
			h->slicing = true;
		}
	}
	*slice_end = start + (h->slice_index + 1) * OPS_SLICE_NS;
	return ret;
}
