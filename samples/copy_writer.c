// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The user stack copies of samples.hist (FORMAT.md, STACK_COPIES and
 * COPY_COUNTS).  A hot loop gives the same registers and the same bytes
 * at sample after sample, so a copy is interned whole and counted like a
 * histogram cell.  Copies that are not equal still share most of their
 * bytes (a frame near sp holds a counter or a clock, the frames below
 * it do not change), so a copy is kept as its registers and the ids of
 * its pieces: COPY_PIECE bytes at addresses aligned to it, each interned
 * once.  A new copy costs the pieces that changed, not all its bytes,
 * in memory and on disk alike: its key is its PIECED_COPIES record, and
 * each piece goes to the file once, in COPY_PIECES.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "writer_internal.h"

/* The copies the writer keeps (their records and pieces, for
 * deduplication and compaction): past this a sample keeps its stack and
 * loses its copy. */
#define COPIES_MAX_BYTES (64u << 20)

/* Small enough that a changed word costs little, large enough that a
 * piece's id (a varint, and the table's slot) is a fraction of it. */
#define COPY_PIECE 128u

/* The end (offset from sp) of the piece that starts at offset OFF of a
 * copy of SIZE bytes at SP. */
static uint32_t piece_end(uint64_t sp, uint32_t off, uint32_t size)
{
	uint64_t next = ((sp + off) / COPY_PIECE + 1) * COPY_PIECE - sp;

	return next < size ? (uint32_t)next : size;
}

/* The most pieces a copy has: one more than its size in whole pieces,
 * for a start that is not aligned. */
#define COPY_LAST_IDS (OPS_STACK_COPY_MAX / COPY_PIECE + 1)

/* The id of the piece of H's last copy that holds the LEN bytes of B at
 * address ADDR, the same bytes at the same place; UINT32_MAX if none. */
static uint32_t copy_last_piece(const struct ops_hist_writer *h, uint64_t addr,
				const uint8_t *b, uint32_t len)
{
	uint64_t sp = h->copy_last.sp, end = sp + h->copy_last.size;
	uint64_t piece = addr / COPY_PIECE * COPY_PIECE;
	uint64_t start = piece > sp ? piece : sp;
	uint64_t stop = piece + COPY_PIECE < end ? piece + COPY_PIECE : end;

	if (!h->copy_last.bytes || addr < sp || start != addr ||
	    stop != addr + len ||
	    memcmp(h->copy_last.bytes + (addr - sp), b, len))
		return UINT32_MAX;
	return h->copy_last.ids[piece / COPY_PIECE - sp / COPY_PIECE];
}

/* C, whose pieces' ids are in h->copy_last.new, as the last copy. */
static void copy_last_keep(struct ops_hist_writer *h,
			   const struct ops_stack_copy *c)
{
	uint32_t *ids = h->copy_last.ids;

	h->copy_last.ids = h->copy_last.new;
	h->copy_last.new = ids;
	h->copy_last.sp = c->sp;
	h->copy_last.size = c->size;
	if (c->size)
		memcpy(h->copy_last.bytes, c->bytes, c->size);
}

int ops_writer_stack_copy(struct ops_writer *w, const struct ops_stack_copy *c)
{
	struct ops_hist_writer *h = &w->hist;
	struct ops_buf *k = &h->copy_key;
	uint32_t id, off, end, n = 0;
	int ret;

	if (c->ctx >= h->contexts.nr || c->stack >= h->stacks.nr ||
	    c->size > OPS_STACK_COPY_MAX || (c->size && !c->bytes))
		return ops_writer_fail(w, -EINVAL,
				       "%s/samples.hist: invalid stack copy",
				       w->dir);
	/* at most this much more: every piece new */
	if (h->copies.arena.len + h->copy_pieces.arena.len + c->size +
		    (c->size / COPY_PIECE + 2) * OPS_VARINT_MAX * 2 >
	    COPIES_MAX_BYTES) {
		h->copies_dropped++;
		return 0;
	}
	if (!h->copy_last.bytes) {
		h->copy_last.bytes = malloc(OPS_STACK_COPY_MAX);
		h->copy_last.ids = malloc(COPY_LAST_IDS * sizeof(uint32_t));
		h->copy_last.new = malloc(COPY_LAST_IDS * sizeof(uint32_t));
		if (!h->copy_last.bytes || !h->copy_last.ids ||
		    !h->copy_last.new) {
			free(h->copy_last.bytes);
			h->copy_last.bytes = NULL;
			return ops_writer_fail(
				w, -ENOMEM,
				"%s/samples.hist: cannot add stack copy: %s",
				w->dir, strerror(ENOMEM));
		}
		h->copy_last.size = 0;
	}
	k->len = 0;
	ret = ops_buf_put_varint(k, c->ctx);
	ret = ret ? ret : ops_buf_put_varint(k, c->stack);
	ret = ret ? ret : ops_buf_put_varint(k, c->ip);
	ret = ret ? ret : ops_buf_put_varint(k, c->sp);
	ret = ret ? ret : ops_buf_put_varint(k, c->bp);
	ret = ret ? ret : ops_buf_put_varint(k, c->size);
	for (off = 0; off < c->size && !ret; off = end) {
		end = piece_end(c->sp, off, c->size);
		id = copy_last_piece(h, c->sp + off, c->bytes + off,
				     end - off);
		if (id == UINT32_MAX)
			ret = ops_keyset_add(&h->copy_pieces, c->bytes + off,
					     end - off, &id);
		h->copy_last.new[n++] = id;
		ret = ret ? ret : ops_buf_put_varint(k, id);
	}
	ret = ret ? ret : ops_keyset_add(&h->copies, k->data, k->len, &id);
	if (ret) {
		/* the pieces added are kept; which the last copy had is
		 * known no more */
		h->copy_last.size = 0;
		return ops_writer_fail(
			w, ret, "%s/samples.hist: cannot add stack copy: %s",
			w->dir, strerror(-ret));
	}
	copy_last_keep(h, c);
	return ops_hist_count(w, OPS_COPY_CTX, id, 1);
}

int ops_copy_piece_put(struct ops_buf *out, const uint8_t *piece, size_t len)
{
	int ret = ops_buf_put_varint(out, len);

	return ret ? ret : ops_buf_put(out, piece, len);
}

int ops_copy_put(struct ops_writer *w, uint32_t copies_from,
		 uint32_t pieces_from)
{
	struct ops_hist_writer *h = &w->hist;
	int ret;

	/* a compaction: the blocks the file had, as they were (deflating
	 * every piece again at the close was as much CPU as deflating them
	 * at the flushes) */
	if (!copies_from && !pieces_from && h->copy_blocks.len) {
		ret = ops_buf_put(&w->out, h->copy_blocks.data,
				  h->copy_blocks.len);
		if (ret)
			return ret;
		copies_from = h->copy_blocks_copies;
		pieces_from = h->copy_blocks_pieces;
	}
	h->copy_pending_off = w->out.len;
	/* a piece's definition before the first copy that names it */
	ret = ops_hist_put_defs(w, &h->copy_pieces, pieces_from,
				h->copy_pieces.nr, OPS_HIST_COPY_PIECES);
	ret = ret ? ret
		  : ops_hist_put_defs(w, &h->copies, copies_from, h->copies.nr,
				      OPS_HIST_PIECED_COPIES);
	h->copy_pending_end = w->out.len;
	h->copy_pending_pieces = h->copy_pieces.nr;
	h->copy_pending_copies = h->copies.nr;
	/* kept only where they continue the blocks kept */
	h->copy_pending = !ret && copies_from == h->copy_blocks_copies &&
			  pieces_from == h->copy_blocks_pieces;
	return ret;
}

void ops_copy_written(struct ops_writer *w, bool written)
{
	struct ops_hist_writer *h = &w->hist;

	/* when this fails, the blocks kept stay, and the next compaction
	 * encodes the copies after them: the writer keeps every copy */
	if (written && h->copy_pending &&
	    (h->copy_pending_copies > h->copy_blocks_copies ||
	     h->copy_pending_pieces > h->copy_blocks_pieces) &&
	    !ops_buf_put(&h->copy_blocks, w->out.data + h->copy_pending_off,
			 h->copy_pending_end - h->copy_pending_off)) {
		h->copy_blocks_copies = h->copy_pending_copies;
		h->copy_blocks_pieces = h->copy_pending_pieces;
	}
	h->copy_pending = false;
}

uint64_t ops_writer_copies_dropped(const struct ops_writer *w)
{
	return w->hist.copies_dropped;
}
