// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * samples.hist writer.  Counting happens in memory, in an open-addressing
 * table keyed by (context, offset); each flush appends the new
 * definitions and only the cells that changed, so a long session costs
 * one small block per second, and close rewrites the file compactly.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <oputil/grow.h>
#include <oputil/hash.h>

#include "writer_internal.h"

#define COUNTS_PER_BLOCK 65536

int ops_image_encode(struct ops_buf *out, const struct ops_image *img)
{
	int ret;

	ret = ops_buf_put_varint(out, img->kind);
	ret = ret ? ret : ops_buf_put_str(out, img->path);
	ret = ret ? ret : ops_buf_put_u8(out, img->build_id_size);
	ret = ret ? ret : ops_buf_put(out, img->build_id, img->build_id_size);
	ret = ret ? ret : ops_buf_put_varint(out, img->size);
	ret = ret ? ret : ops_buf_put_svarint(out, img->mtime_ns);
	return ret;
}

int ops_context_encode(struct ops_buf *out, const struct ops_context *ctx)
{
	int ret;

	ret = ops_buf_put_varint(out, ctx->app);
	ret = ret ? ret : ops_buf_put_varint(out, ctx->image);
	ret = ret ? ret : ops_buf_put_varint(out, ctx->tgid);
	ret = ret ? ret : ops_buf_put_svarint(out, ctx->cpu);
	return ret;
}

/* Bytes of V as a varint. */
static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

int ops_writer_image(struct ops_writer *w, const struct ops_image *img,
		     uint32_t *id)
{
	int ret;

	if (!img->path || img->kind > OPS_IMAGE_MODULE ||
	    img->build_id_size > OPS_BUILD_ID_MAX)
		return ops_writer_fail(w, -EINVAL,
				       "%s/samples.hist: invalid image %s",
				       w->dir,
				       img->path ? img->path : "(null)");
	w->records.len = 0;
	ret = ops_image_encode(&w->records, img);
	if (!ret)
		ret = ops_keyset_add(&w->hist.images, w->records.data,
				     w->records.len, id);
	if (ret)
		return ops_writer_fail(
			w, ret, "%s/samples.hist: cannot add image %s: %s",
			w->dir, img->path, strerror(-ret));
	return 0;
}

int ops_writer_context(struct ops_writer *w, const struct ops_context *ctx,
		       uint32_t *id)
{
	int ret;

	if (ctx->app >= w->hist.images.nr || ctx->image >= w->hist.images.nr)
		return ops_writer_fail(
			w, -EINVAL,
			"%s/samples.hist: context names unknown image %u or %u",
			w->dir, ctx->app, ctx->image);
	if (ctx->tid && !w->threads)
		return ops_writer_fail(
			w, -EINVAL,
			"%s/samples.hist: context of thread %u in a session that does not separate threads",
			w->dir, ctx->tid);
	if (ctx->event >= w->nr_events)
		return ops_writer_fail(
			w, -EINVAL,
			"%s/samples.hist: context of event %u in a session of %u events",
			w->dir, ctx->event, w->nr_events);
	w->records.len = 0;
	ret = ops_context_encode(&w->records, ctx);
	/* the thread ends the key, and goes to CONTEXT_THREADS */
	if (!ret && w->threads)
		ret = ops_buf_put_varint(&w->records, ctx->tid);
	if (!ret && w->threads)
		ret = oputil_grow(&w->hist.ctx_tids, &w->hist.cap_ctx_tids,
				  (size_t)w->hist.contexts.nr + 1,
				  sizeof(*w->hist.ctx_tids));
	/* the event after it, and to CONTEXT_EVENTS */
	if (!ret && w->nr_events > 1)
		ret = ops_buf_put_varint(&w->records, ctx->event);
	if (!ret && w->nr_events > 1)
		ret = oputil_grow(&w->hist.ctx_events, &w->hist.cap_ctx_events,
				  (size_t)w->hist.contexts.nr + 1,
				  sizeof(*w->hist.ctx_events));
	if (!ret)
		ret = ops_keyset_add(&w->hist.contexts, w->records.data,
				     w->records.len, id);
	if (!ret && w->threads)
		w->hist.ctx_tids[*id] = ctx->tid;
	if (!ret && w->nr_events > 1)
		w->hist.ctx_events[*id] = ctx->event;
	if (ret)
		return ops_writer_fail(
			w, ret, "%s/samples.hist: cannot add context: %s",
			w->dir, strerror(-ret));
	return 0;
}

static uint64_t hist_hash(uint32_t ctx, uint64_t offset)
{
	return oputil_hash_word64(oputil_hash_word(OPUTIL_HASH_SEED, ctx),
				  offset);
}

int ops_hist_append(struct ops_writer *w, int ret)
{
	struct ops_hist_writer *h = &w->hist;

	if (ret) {
		ops_hist_stacks_written(w, false);
		return ops_writer_fail(w, ret,
				       "%s/samples.hist: cannot flush: %s",
				       w->dir, strerror(-ret));
	}
	ret = ops_blockfile_append(&h->bf, w->out.data, w->out.len, w->err,
				   sizeof(w->err));
	ops_hist_stacks_written(w, !ret);
	if (ret)
		return ret;
	h->images_on_disk = h->images.nr;
	h->contexts_on_disk = h->contexts.nr;
	h->stacks_on_disk = h->stacks.nr;
	return 0;
}

int ops_writer_hist_add(struct ops_writer *w, uint32_t ctx, uint64_t offset,
			uint64_t count)
{
	if (ctx >= w->hist.contexts.nr)
		return ops_writer_fail(w, -EINVAL,
				       "%s/samples.hist: unknown context %u",
				       w->dir, ctx);
	return ops_hist_count(w, ctx, offset, count);
}

int ops_hist_count(struct ops_writer *w, uint32_t ctx, uint64_t offset,
		   uint64_t count)
{
	struct ops_hist_writer *h = &w->hist;
	struct oputil_idxset_pos pos;
	struct ops_hist_cell *c;
	uint32_t i;
	int ret;

	if (!count)
		return 0;
	/* counted before anything can fail: see anon_add */
	w->samples_added += count;
	i = oputil_idxset_find(&h->cell_set, hist_hash(ctx, offset), &pos, k,
			       h->cells[k].ctx == ctx &&
				       h->cells[k].offset == offset);
	if (i != OPUTIL_IDXSET_NONE) {
		c = &h->cells[i];
		goto found;
	}
	/* a cell's index is 32 bits in the dirty list and the set */
	ret = h->nr_cells == UINT32_MAX
		      ? -ENOSPC
		      : oputil_grow(&h->cells, &h->cap_cells, h->nr_cells + 1,
				    sizeof(*h->cells));
	if (ret)
		goto fail;
	ret = oputil_idxset_put(&h->cell_set, &pos, h->nr_cells);
	if (ret < 0)
		goto fail;
	c = &h->cells[h->nr_cells++];
	memset(c, 0, sizeof(*c));
	c->ctx = ctx;
	c->offset = offset;
found:
	if (!c->pending) {
		ret = oputil_grow(&h->dirty, &h->cap_dirty, h->nr_dirty + 1,
				  sizeof(*h->dirty));
		if (ret)
			goto fail;
		h->dirty[h->nr_dirty++] = (uint32_t)(c - h->cells);
	}
	if (h->slicing && !c->slice) {
		ret = oputil_grow(&h->slice_dirty, &h->cap_slice_dirty,
				  h->nr_slice_dirty + 1,
				  sizeof(*h->slice_dirty));
		if (ret)
			goto fail;
		h->slice_dirty[h->nr_slice_dirty++] = (uint32_t)(c - h->cells);
	}
	if (h->slicing)
		c->slice = ops_add_sat(c->slice, count);
	c->total = ops_add_sat(c->total, count);
	c->pending = ops_add_sat(c->pending, count);
	return 0;
fail:
	return ops_writer_fail(w, ret, "%s/samples.hist: cannot count: %s",
			       w->dir, strerror(-ret));
}

int ops_hist_put_defs(struct ops_writer *w, const struct ops_keyset *ks,
		      uint32_t from, uint32_t to, uint16_t type)
{
	uint32_t first = from, i;
	const uint8_t *k;
	size_t n;
	int ret = 0;

	w->records.len = 0;
	for (i = from; i < to && !ret; i++) {
		k = ops_keyset_key(ks, i, &n);
		if (type == OPS_HIST_CONTEXTS && w->threads)
			n -= varint_len(w->hist.ctx_tids[i]);
		if (type == OPS_HIST_CONTEXTS && w->nr_events > 1)
			n -= varint_len(w->hist.ctx_events[i]);
		ret = type == OPS_HIST_STACKS
			      ? ops_stack_record_put(&w->records, k, n, i)
		      : type == OPS_HIST_COPY_PIECES
			      ? ops_copy_piece_put(&w->records, k, n)
			      : ops_buf_put(&w->records, k, n);
		if (ret || (w->records.len < OPS_BLOCK_SOFT_MAX && i + 1 < to))
			continue;
		w->payload.len = 0;
		ret = ops_buf_put_varint(&w->payload, first);
		ret = ret ? ret
			  : ops_buf_put_varint(&w->payload, i + 1 - first);
		ret = ret ? ret
			  : ops_buf_put(&w->payload, w->records.data,
					w->records.len);
		/* the stack table is most of a call graph session's bytes,
		 * and squeezes to a third */
		if (!ret &&
		    (type == OPS_HIST_STACKS || type == OPS_HIST_COPY_PIECES ||
		     type == OPS_HIST_PIECED_COPIES))
			ret = ops_block_frame_deflated(&w->out, type,
						       w->payload.data,
						       w->payload.len,
						       &w->records);
		else if (!ret)
			ret = ops_block_frame(&w->out, type, w->payload.data,
					      w->payload.len);
		w->records.len = 0;
		first = i + 1;
	}
	return ret;
}

/* One value a context, contexts FROM..TO, in blocks of TYPE: the
 * contexts' threads and events, each beside the CONTEXTS block. */
static int put_context_column(struct ops_writer *w, uint16_t type,
			      const uint32_t *values, uint32_t from,
			      uint32_t to)
{
	uint32_t i, end;
	int ret = 0;

	for (i = from; i < to && !ret; i = end) {
		end = to - i > COUNTS_PER_BLOCK ? i + COUNTS_PER_BLOCK : to;
		w->payload.len = 0;
		ret = ops_buf_put_varint(&w->payload, i);
		ret = ret ? ret : ops_buf_put_varint(&w->payload, end - i);
		for (uint32_t j = i; j < end && !ret; j++)
			ret = ops_buf_put_varint(&w->payload, values[j]);
		ret = ret ? ret
			  : ops_block_frame(&w->out, type, w->payload.data,
					    w->payload.len);
	}
	return ret;
}

int ops_hist_put_contexts(struct ops_writer *w, uint32_t from, uint32_t to)
{
	int ret = ops_hist_put_defs(w, &w->hist.contexts, from, to,
				    OPS_HIST_CONTEXTS);

	if (!ret && w->threads)
		ret = put_context_column(w, OPS_HIST_CONTEXT_THREADS,
					 w->hist.ctx_tids, from, to);
	if (!ret && w->nr_events > 1)
		ret = put_context_column(w, OPS_HIST_CONTEXT_EVENTS,
					 w->hist.ctx_events, from, to);
	return ret;
}

static int delta_cmp(const void *a, const void *b)
{
	const struct ops_hist_delta *x = a, *y = b;

	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return 0;
}

/* W->hist.sorted[0..N) as COUNTS blocks appended to W->out, then the
 * stacks from STACKS_FROM on and the STACK_COUNTS blocks: damage to the
 * stack table leaves the flat counts before it readable. */
static int hist_put_stack_defs(struct ops_writer *w, uint32_t stacks_from,
			       uint32_t copies_from, uint32_t pieces_from,
			       uint32_t pmaps_from)
{
	int ret = ops_hist_put_stacks(w, stacks_from);

	ret = ret ? ret : ops_copy_put(w, copies_from, pieces_from);
	return ret ? ret
		   : ops_hist_put_defs(w, &w->hist.pmaps, pmaps_from,
				       w->hist.pmaps.nr,
				       OPS_HIST_PROCESS_MAPS);
}

static int hist_put_counts(struct ops_writer *w, uint32_t n,
			   uint32_t stacks_from, uint32_t copies_from,
			   uint32_t pieces_from, uint32_t pmaps_from)
{
	struct ops_hist_delta *d = w->hist.sorted;
	bool stacks_put = false;
	uint32_t i, j, end;
	int ret = 0;

	if (n)
		qsort(d, n, sizeof(*d), delta_cmp);
	for (i = 0; i < n && !ret; i = end) {
		uint32_t pctx = 0;
		uint64_t poff = 0;
		uint32_t kind = d[i].ctx & (OPS_STACK_CTX | OPS_COPY_CTX);

		if (kind && !stacks_put) {
			ret = hist_put_stack_defs(w, stacks_from, copies_from,
						  pieces_from, pmaps_from);
			stacks_put = true;
			if (ret)
				break;
		}

		end = n - i > COUNTS_PER_BLOCK ? i + COUNTS_PER_BLOCK : n;
		/* stack counts sort after the flat ones: one kind a block */
		for (j = i; j < end; j++)
			if ((d[j].ctx & (OPS_STACK_CTX | OPS_COPY_CTX)) !=
			    kind)
				end = j;
		w->payload.len = 0;
		ret = ops_buf_put_varint(&w->payload, end - i);
		for (j = i; j < end && !ret; j++) {
			uint32_t ctx = d[j].ctx &
				       ~(OPS_STACK_CTX | OPS_COPY_CTX);
			bool same = j > i && ctx == pctx;
			uint64_t off = same ? d[j].offset - poff : d[j].offset;

			ret = ops_buf_put_varint(&w->payload, ctx - pctx);
			ret = ret ? ret : ops_buf_put_varint(&w->payload, off);
			ret = ret ? ret
				  : ops_buf_put_varint(&w->payload,
						       d[j].count);
			pctx = ctx;
			poff = d[j].offset;
		}
		ret = ret ? ret
			  : ops_block_frame(
				    &w->out,
				    kind == OPS_STACK_CTX
					    ? OPS_HIST_STACK_COUNTS
				    : kind ? OPS_HIST_PIECED_COPY_COUNTS
					   : OPS_HIST_COUNTS,
				    w->payload.data, w->payload.len);
	}
	if (!ret && !stacks_put)
		ret = hist_put_stack_defs(w, stacks_from, copies_from,
					  pieces_from, pmaps_from);
	return ret;
}

/* The totals as a TOTALS block appended to W->out. */
static int hist_put_totals(struct ops_writer *w)
{
	const struct ops_session_info *i = &w->meta.info;
	int ret;

	w->payload.len = 0;
	ret = ops_buf_put_varint(&w->payload, i->samples);
	ret = ret ? ret : ops_buf_put_varint(&w->payload, i->samples_lost);
	ret = ret ? ret
		  : ops_buf_put_varint(&w->payload, i->samples_unattributed);
	ret = ret ? ret : ops_buf_put_varint(&w->payload, i->samples_anon);
	ret = ret ? ret : ops_buf_put_varint(&w->payload, i->samples_kernel);
	ret = ret ? ret : ops_buf_put_varint(&w->payload, i->processes);
	return ret ? ret
		   : ops_block_frame(&w->out, OPS_HIST_TOTALS, w->payload.data,
				     w->payload.len);
}

static int hist_reserve_sorted(struct ops_hist_writer *h, uint32_t n)
{
	return oputil_grow(&h->sorted, &h->cap_sorted, n, sizeof(*h->sorted));
}

int ops_hist_writer_open(struct ops_writer *w)
{
	char *path = ops_strfmt("%s/samples.hist", w->dir);
	int ret;

	if (!path)
		return ops_writer_fail(w, -ENOMEM, "out of memory");
	w->hist.bf.version = w->callgraph ? ops_meta_version(&w->meta.info)
					  : 0;
	w->hist.deltas = w->callgraph && w->meta.info.stack_deltas;
	w->hist.close_copy_max = OPS_HIST_CLOSE_COPY_MAX;
	ret = ops_blockfile_create(&w->hist.bf, w->dfd, path, "samples.hist",
				   false, OPS_HIST_MAGIC, w->err,
				   sizeof(w->err));
	free(path);
	return ret;
}

int ops_hist_writer_flush(struct ops_writer *w)
{
	struct ops_hist_writer *h = &w->hist;
	uint32_t i;
	int ret;

	w->out.len = 0;
	ret = ops_hist_put_defs(w, &h->images, h->images_on_disk, h->images.nr,
				OPS_HIST_IMAGES);
	ret = ret ? ret
		  : ops_hist_put_contexts(w, h->contexts_on_disk,
					  h->contexts.nr);
	ret = ret ? ret : ops_thread_put(w, false);
	ret = ret ? ret : hist_reserve_sorted(h, h->nr_dirty);
	if (ret)
		return ops_writer_fail(w, ret,
				       "%s/samples.hist: cannot flush: %s",
				       w->dir, strerror(-ret));
	for (i = 0; i < h->nr_dirty; i++) {
		const struct ops_hist_cell *c = &h->cells[h->dirty[i]];

		h->sorted[i] = (struct ops_hist_delta){ c->offset, c->pending,
							c->ctx };
	}
	ret = hist_put_counts(w, h->nr_dirty, h->stacks_on_disk,
			      h->copies_on_disk, h->pieces_on_disk,
			      h->pmaps_on_disk);
	/* every count on disk is in a slice on disk too */
	ret = ret ? ret : ops_slice_close(w);
	ret = ret ? ret
		  : ops_buf_put(&w->out, h->slices.data + h->slices_on_disk,
				h->slices.len - h->slices_on_disk);
	if (!ret && w->totals_dirty)
		ret = hist_put_totals(w);
	ret = ops_hist_append(w, ret);
	if (ret)
		return ret;
	/* the copies go out with the counts, never with the definitions */
	h->copies_on_disk = h->copies.nr;
	h->pieces_on_disk = h->copy_pieces.nr;
	h->pmaps_on_disk = h->pmaps.nr;
	h->slices_on_disk = h->slices.len;
	w->totals_dirty = false;
	for (i = 0; i < h->nr_dirty; i++)
		w->hist_on_disk += h->sorted[i].count;
	for (i = 0; i < h->nr_dirty; i++)
		h->cells[h->dirty[i]].pending = 0;
	h->records_on_disk += h->nr_dirty;
	h->nr_dirty = 0;
	ops_thread_written(h);
	/* deltas of a long session outgrow its table: start afresh */
	if (h->records_on_disk > 4 * (uint64_t)h->nr_cells + 262144)
		return ops_hist_writer_compact(w, false);
	return 0;
}

int ops_hist_writer_compact(struct ops_writer *w, bool sync)
{
	struct ops_hist_writer *h = &w->hist;
	struct ops_blockfile bf = { .fd = -1 };
	char *tmp = NULL, *path = NULL;
	uint32_t i, n = 0;
	int ret;

	tmp = ops_strfmt("%s/.samples.hist.tmp", w->dir);
	path = ops_strfmt("%s/samples.hist", w->dir);
	if (!tmp || !path) {
		ret = ops_writer_fail(w, -ENOMEM, "out of memory");
		goto out;
	}
	bf.version = w->callgraph ? ops_meta_version(&w->meta.info) : 0;
	ret = ops_blockfile_create(&bf, w->dfd, tmp, ".samples.hist.tmp", true,
				   OPS_HIST_MAGIC, w->err, sizeof(w->err));
	if (ret)
		goto out;
	h->compacting = true;
	h->compact_at = bf.size;
	h->nr_splices = 0;
	h->spliced = 0;
	w->out.len = 0;
	ret = ops_hist_put_defs(w, &h->images, 0, h->images.nr,
				OPS_HIST_IMAGES);
	ret = ret ? ret : ops_hist_put_contexts(w, 0, h->contexts.nr);
	ret = ret ? ret : ops_thread_put(w, true);
	ret = ret ? ret : hist_reserve_sorted(h, h->nr_cells);
	if (!ret) {
		for (i = 0; i < h->nr_cells; i++)
			if (h->cells[i].total)
				h->sorted[n++] = (struct ops_hist_delta){
					h->cells[i].offset, h->cells[i].total,
					h->cells[i].ctx
				};
		ret = hist_put_counts(w, n, 0, 0, 0, 0);
	}
	ret = ret ? ret : ops_slice_close(w);
	ret = ret ? ret : ops_buf_put(&w->out, h->slices.data, h->slices.len);
	ret = ret ? ret : hist_put_totals(w);
	if (ret) {
		ops_writer_fail(w, ret, "%s: cannot compact: %s", tmp,
				strerror(-ret));
		goto out;
	}
	ret = ops_blockfile_append_spliced(&bf, w->out.data, w->out.len,
					   h->splices, h->nr_splices, &h->bf,
					   w->err, sizeof(w->err));
	if (ret)
		goto out;
	ret = sync ? ops_writer_datasync(w, bf.fd, tmp) : 0;
	if (ret)
		goto out;
	if (renameat(w->dfd, ".samples.hist.tmp", w->dfd, "samples.hist")) {
		ret = ops_writer_fail(w, -errno, "cannot rename %s to %s: %s",
				      tmp, path, strerror(errno));
		goto out;
	}
	ops_blockfile_close(&h->bf);
	h->bf = bf;
	w->totals_dirty = false;
	w->hist_on_disk = 0;
	for (i = 0; i < n; i++)
		w->hist_on_disk += h->sorted[i].count;
	free(h->bf.path);
	h->bf.path = path;
	path = NULL;
	bf.fd = -1;
	bf.path = NULL;
	h->images_on_disk = h->images.nr;
	h->contexts_on_disk = h->contexts.nr;
	h->stacks_on_disk = h->stacks.nr;
	h->copies_on_disk = h->copies.nr;
	h->pieces_on_disk = h->copy_pieces.nr;
	h->pmaps_on_disk = h->pmaps.nr;
	h->slices_on_disk = h->slices.len;
	for (i = 0; i < h->nr_dirty; i++)
		h->cells[h->dirty[i]].pending = 0;
	h->nr_dirty = 0;
	h->records_on_disk = n;
	ops_thread_written(h);
out:
	ops_hist_stacks_written(w, !ret);
	h->compacting = false;
	if (bf.fd >= 0) {
		ops_blockfile_close(&bf);
		unlinkat(w->dfd, ".samples.hist.tmp", 0);
	}
	free(bf.path);
	free(tmp);
	free(path);
	return ret;
}

/*
 * The close compacts the file, so that it holds one count record a cell
 * with every definition before the counts, unless that means copying
 * megabytes of stack deltas to fold few records.  The STACK_DELTAS
 * blocks of a JIT recording are most of its bytes (36 MB for five
 * minutes of node), and their copy and sync at the close cost the
 * recorder about 0.9 ms of CPU a MB, 4% of its time, for counts that
 * such a recording has about one record of per cell (1,316 for 1,183
 * cells on node) and a reader sums as fast.  Then the file stays as its
 * flushes wrote it, as a killed recorder's does, and reads the same;
 * the bound on its extra records keeps a reader's cost for them under
 * 1.5 MiB.
 */
int ops_hist_writer_finish(struct ops_writer *w)
{
	struct ops_hist_writer *h = &w->hist;
	uint64_t deltas = 0;
	uint32_t i;
	int ret;

	for (i = 0; i < h->nr_delta_extents; i++)
		deltas += h->delta_extents[i].len;
	if (deltas <= h->close_copy_max ||
	    h->records_on_disk + h->nr_dirty >
		    2 * (uint64_t)h->nr_cells + 65536)
		return ops_hist_writer_compact(w, true);
	ret = ops_hist_writer_flush(w);
	return ret ? ret : ops_writer_datasync(w, h->bf.fd, h->bf.path);
}

void ops_hist_writer_free(struct ops_hist_writer *h)
{
	size_t i;

	ops_blockfile_close(&h->bf);
	ops_keyset_free(&h->images);
	ops_keyset_free(&h->contexts);
	free(h->ctx_tids);
	free(h->ctx_events);
	ops_thread_writer_free(h);
	ops_keyset_free(&h->stacks);
	ops_delta_free(h);
	ops_keyset_free(&h->copies);
	ops_keyset_free(&h->copy_pieces);
	ops_keyset_free(&h->pmaps);
	free(h->copy_key.data);
	free(h->copy_last.bytes);
	free(h->copy_last.ids);
	free(h->copy_last.new);
	for (i = 0; i < OPS_STACK_LANES; i++)
		free(h->lanes[i].path);
	free(h->index[0]);
	ops_buf_free(&h->stack_blocks);
	ops_buf_free(&h->copy_blocks);
	free(h->cells);
	oputil_idxset_free(&h->cell_set);
	free(h->dirty);
	free(h->sorted);
	free(h->slice_dirty);
	free(h->slice_sorted);
	ops_buf_free(&h->slices);
	oputil_u64map_free(&h->kframes);
	oputil_u64map_free(&h->aframes);
	memset(h, 0, sizeof(*h));
}
