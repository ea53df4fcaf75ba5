// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Reading the user stack copies of samples.hist (FORMAT.md,
 * STACK_COPIES and COPY_COUNTS).  A damaged block is dropped whole; a
 * count for a copy no block defined is damage.
 *
 * Here a copy is kept as the writer keeps it, its pieces interned: a
 * session's copies are tens of MiB whole and a few hundred KiB of
 * distinct pieces.  A session of revision 4.4 holds them so on disk
 * (COPY_PIECES, PIECED_COPIES), and its piece ids go into the table as
 * they are; an older one holds each copy whole (STACK_COPIES), whose
 * pieces are found again by content.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/crc32c.h>
#include <oputil/grow.h>
#include <oputil/hash.h>

#include "bytes_internal.h"
#include "reader_internal.h"

/* The smallest record: six one-byte varints. */
#define COPY_MIN 6

/* The end (offset from sp) of the piece that starts at offset OFF of a
 * copy of SIZE bytes at SP. */
static uint32_t piece_end(uint64_t sp, uint32_t off, uint32_t size)
{
	uint64_t next = ((sp + off) / OPS_STACK_COPY_PIECE + 1) *
				OPS_STACK_COPY_PIECE -
			sp;

	return next < size ? (uint32_t)next : size;
}

/* The id of the piece P of LEN bytes, interned.  0 or -ENOMEM. */
static int piece_intern(struct ops_hist_data *h, const uint8_t *p, size_t len,
			uint32_t *id)
{
	uint32_t hash = (uint32_t)oputil_hash_u64(
		oputil_crc32c((uint32_t)len, p, len));
	struct oputil_idxset_pos pos;
	uint32_t i;

	i = oputil_idxset_find(
		&h->piece_set, hash, &pos, k,
		h->piece_set.hash[k] == hash && h->piece_len[k] == len &&
			!memcmp(h->piece_bytes +
					(size_t)k * OPS_STACK_COPY_PIECE,
				p, len));
	if (i != OPUTIL_IDXSET_NONE) {
		*id = i;
		return 0;
	}
	if (h->nr_pieces >= UINT32_MAX - 1 ||
	    oputil_grow(&h->piece_bytes, &h->cap_piece_bytes,
			(h->nr_pieces + 1) * OPS_STACK_COPY_PIECE, 1) ||
	    oputil_grow(&h->piece_len, &h->cap_piece_len, h->nr_pieces + 1,
			1) ||
	    oputil_idxset_put(&h->piece_set, &pos, (uint32_t)h->nr_pieces) < 0)
		return -ENOMEM;
	memcpy(h->piece_bytes + h->nr_pieces * OPS_STACK_COPY_PIECE, p, len);
	h->piece_len[h->nr_pieces] = (uint8_t)len;
	*id = (uint32_t)h->nr_pieces++;
	return 0;
}

/* The id of the piece of copy PREV (its ids from PREV_IDS) that covers
 * exactly [A, A + LEN) and holds the bytes P, or OPUTIL_IDXSET_NONE.  A
 * loop's copies share their sp and most of their pieces, so that this
 * one comparison with the copy before finds nine pieces in ten without
 * hashing them. */
static uint32_t piece_as_before(const struct ops_hist_data *h,
				const struct ops_stack_copy *prev,
				const uint32_t *prev_ids, uint64_t a,
				const uint8_t *p, uint32_t len)
{
	uint32_t off, id;

	if (a < prev->sp || a - prev->sp >= prev->size)
		return OPUTIL_IDXSET_NONE;
	off = (uint32_t)(a - prev->sp);
	/* a piece of PREV starts at A (its first, or one on the grid) and
	 * ends where this one does */
	if ((off && a % OPS_STACK_COPY_PIECE) ||
	    piece_end(prev->sp, off, prev->size) - off != len)
		return OPUTIL_IDXSET_NONE;
	id = prev_ids[a / OPS_STACK_COPY_PIECE -
		      prev->sp / OPS_STACK_COPY_PIECE];
	if (memcmp(h->piece_bytes + (size_t)id * OPS_STACK_COPY_PIECE, p, len))
		return OPUTIL_IDXSET_NONE;
	return id;
}

/* The head of a copy record (STACK_COPIES or PIECED_COPIES: context,
 * stack, registers, size) from C into E, its pieces to come at the end
 * of h->copy_pieces; what is wrong with it, or NULL. */
static const char *copy_head_read(const struct ops_hist_data *h,
				  struct ops_cur *c, struct ops_stack_copy *e)
{
	uint64_t ctx, stack, size;

	ctx = ops_cur_varint(c);
	stack = ops_cur_varint(c);
	e->ip = ops_cur_varint(c);
	e->sp = ops_cur_varint(c);
	e->bp = ops_cur_varint(c);
	size = ops_cur_varint(c);
	if (!c->ok || size > OPS_STACK_COPY_MAX)
		return "bad stack copy record";
	if (ctx >= h->nr_contexts)
		return "stack copy of an unknown context";
	if (stack >= h->nr_stacks)
		return "stack copy of an unknown stack";
	e->ctx = (uint32_t)ctx;
	e->stack = (uint32_t)stack;
	e->size = (uint32_t)size;
	e->bytes = NULL;
	/* an index now: the arrays may move as later blocks come */
	e->piece_base = NULL;
	e->piece_ids = (const uint32_t *)(uintptr_t)h->nr_copy_pieces;
	e->count = 0;
	return NULL;
}

const char *ops_hist_copies(struct ops_hist_data *h, const uint8_t *p,
			    size_t len, bool *oom)
{
	size_t start = h->nr_copies, pieces_start = h->nr_copy_pieces;
	const struct ops_stack_copy *prev = NULL;
	const uint32_t *prev_ids = NULL;
	const char *why = NULL;
	uint64_t n, i;
	int rc;
	struct ops_cur c;

	if (h->copies_pieced)
		return "stack copies of two forms";
	ops_cur_init(&c, p, len);
	rc = ops_cur_block_head(&c, start, COPY_MIN, &n);
	if (rc)
		return rc == -ERANGE ? "bad count of stack copies"
				     : "bad stack copy block";
	/* a record of S bytes has at most S / PIECE + 2 pieces (a first
	 * and a last piece shorter than the rest) and takes more than S
	 * bytes of the block: room for its pieces without a byte each,
	 * which had made every block's array megabytes and moved it */
	if (oputil_grow(&h->copies, &h->cap_copies, start + n,
			sizeof(*h->copies)) ||
	    oputil_grow(&h->copy_pieces, &h->cap_copy_pieces,
			pieces_start +
				ops_cur_left(&c) / OPS_STACK_COPY_PIECE +
				2 * n,
			sizeof(*h->copy_pieces))) {
		*oom = true;
		return "out of memory";
	}
	for (i = 0; i < n; i++) {
		struct ops_stack_copy *e = &h->copies[start + i];
		uint32_t off, end;

		why = copy_head_read(h, &c, e);
		if (!why && e->size > ops_cur_left(&c))
			why = "bad stack copy record";
		if (why)
			goto out;
		for (off = 0; off < e->size; off = end) {
			uint32_t *id = &h->copy_pieces[h->nr_copy_pieces];

			end = piece_end(e->sp, off, e->size);
			*id = prev ? piece_as_before(h, prev, prev_ids,
						     e->sp + off, c.p + off,
						     end - off)
				   : OPUTIL_IDXSET_NONE;
			if (*id != OPUTIL_IDXSET_NONE) {
				h->nr_copy_pieces++;
				continue;
			}
			if (piece_intern(h, c.p + off, end - off, id)) {
				*oom = true;
				why = "out of memory";
				goto out;
			}
			h->nr_copy_pieces++;
		}
		c.p += e->size;
		if (e->size) {
			prev = e;
			prev_ids = h->copy_pieces + (uintptr_t)e->piece_ids;
		}
	}
	if (ops_cur_left(&c)) {
		why = "trailing bytes in stack copy block";
		goto out;
	}
	h->nr_copies = start + n;
	h->copies_whole = true;
out:
	if (why)
		h->nr_copy_pieces = pieces_start;
	return why;
}

/* The fewest bytes a COPY_PIECES record takes: its length and a byte. */
#define PIECE_MIN 2

const char *ops_hist_copy_pieces(struct ops_hist_data *h, const uint8_t *p,
				 size_t len, bool *oom)
{
	size_t start = h->nr_pieces;
	uint64_t n, i, plen;
	struct ops_cur c;
	int rc;

	if (h->copies_whole)
		return "stack copies of two forms";
	ops_cur_init(&c, p, len);
	rc = ops_cur_block_head(&c, start, PIECE_MIN, &n);
	if (rc)
		return rc == -ERANGE ? "bad count of stack copy pieces"
				     : "stack copy piece ids out of order";
	if (start + n > UINT32_MAX - 1)
		return "bad count of stack copy pieces";
	if (oputil_grow(&h->piece_bytes, &h->cap_piece_bytes,
			(start + n) * OPS_STACK_COPY_PIECE, 1) ||
	    oputil_grow(&h->piece_len, &h->cap_piece_len, start + n, 1)) {
		*oom = true;
		return "out of memory";
	}
	for (i = 0; i < n; i++) {
		plen = ops_cur_varint(&c);
		if (!c.ok || !plen || plen > OPS_STACK_COPY_PIECE ||
		    plen > ops_cur_left(&c))
			return "bad stack copy piece record";
		memcpy(h->piece_bytes + (start + i) * OPS_STACK_COPY_PIECE,
		       c.p, plen);
		h->piece_len[start + i] = (uint8_t)plen;
		c.p += plen;
	}
	if (ops_cur_left(&c))
		return "trailing bytes in stack copy piece block";
	h->nr_pieces = start + n;
	h->copies_pieced = true;
	return NULL;
}

const char *ops_hist_pieced_copies(struct ops_hist_data *h, const uint8_t *p,
				   size_t len, bool *oom)
{
	size_t start = h->nr_copies, pieces_start = h->nr_copy_pieces;
	const char *why = NULL;
	uint64_t n, i, id;
	struct ops_cur c;
	int rc;

	if (h->copies_whole)
		return "stack copies of two forms";
	ops_cur_init(&c, p, len);
	rc = ops_cur_block_head(&c, start, COPY_MIN, &n);
	if (rc)
		return rc == -ERANGE ? "bad count of stack copies"
				     : "bad stack copy block";
	/* a piece's id takes a byte or more */
	if (oputil_grow(&h->copies, &h->cap_copies, start + n,
			sizeof(*h->copies)) ||
	    oputil_grow(&h->copy_pieces, &h->cap_copy_pieces,
			pieces_start + ops_cur_left(&c),
			sizeof(*h->copy_pieces))) {
		*oom = true;
		return "out of memory";
	}
	for (i = 0; i < n && !why; i++) {
		struct ops_stack_copy *e = &h->copies[start + i];
		/* in locals: the stores to the ids would otherwise make
		 * the compiler load h's fields again for each id */
		uint32_t *ids = h->copy_pieces + h->nr_copy_pieces;
		const uint8_t *piece_len = h->piece_len;
		size_t nr_pieces = h->nr_pieces;
		uint32_t off, end;

		why = copy_head_read(h, &c, e);
		if (why)
			break;
		for (off = 0; off < e->size; off = end) {
			end = piece_end(e->sp, off, e->size);
			id = ops_cur_varint(&c);
			if (!c.ok) {
				why = "bad stack copy record";
				break;
			}
			if (id >= nr_pieces) {
				why = "stack copy of an unknown piece";
				break;
			}
			if (piece_len[id] != end - off) {
				why = "bad stack copy record";
				break;
			}
			*ids++ = (uint32_t)id;
		}
		h->nr_copy_pieces = (size_t)(ids - h->copy_pieces);
	}
	if (!why && ops_cur_left(&c))
		why = "trailing bytes in stack copy block";
	if (why) {
		h->nr_copy_pieces = pieces_start;
		return why;
	}
	h->nr_copies = start + n;
	h->copies_pieced = true;
	return NULL;
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

	for (i = 0; i < h->nr_copies; i++) {
		struct ops_stack_copy *e = &h->copies[i];

		e->piece_base = e->size ? h->piece_bytes : NULL;
		e->piece_ids =
			e->size ? h->copy_pieces + (uintptr_t)e->piece_ids
				: NULL;
	}
	/* only the ids are asked for from here on */
	free(h->piece_len);
	h->piece_len = NULL;
	h->cap_piece_len = 0;
	oputil_idxset_free(&h->piece_set);
}

void ops_hist_copies_free(struct ops_hist_data *h)
{
	free(h->copies);
	free(h->piece_bytes);
	free(h->piece_len);
	free(h->copy_pieces);
	oputil_idxset_free(&h->piece_set);
	h->copies = NULL;
	h->piece_bytes = h->piece_len = NULL;
	h->copy_pieces = NULL;
	h->nr_copies = h->nr_pieces = h->nr_copy_pieces = 0;
	h->cap_copies = h->cap_piece_bytes = h->cap_piece_len = 0;
	h->cap_copy_pieces = 0;
	h->copies_whole = h->copies_pieced = false;
}

bool ops_stack_copy_read(const struct ops_stack_copy *c, uint64_t addr,
			 void *out, size_t len)
{
	uint8_t *o = out;
	uint64_t off;

	if (addr < c->sp || addr - c->sp > c->size ||
	    c->size - (addr - c->sp) < len)
		return false;
	off = addr - c->sp;
	if (!len)
		return true;
	if (c->bytes) {
		memcpy(o, c->bytes + off, len);
		return true;
	}
	if (!c->piece_ids || !c->piece_base)
		return false;
	while (len) {
		/* piece j covers [sp, next boundary) for j 0, then aligned */
		uint64_t j = addr / OPS_STACK_COPY_PIECE -
			     c->sp / OPS_STACK_COPY_PIECE;
		uint64_t in = j ? addr % OPS_STACK_COPY_PIECE : addr - c->sp;
		uint64_t room =
			(j ? OPS_STACK_COPY_PIECE
			   : OPS_STACK_COPY_PIECE -
					 c->sp % OPS_STACK_COPY_PIECE) -
			in;
		size_t k = room < len ? (size_t)room : len;

		memcpy(o,
		       c->piece_base +
			       (size_t)c->piece_ids[j] * OPS_STACK_COPY_PIECE +
			       in,
		       k);
		o += k;
		addr += k;
		len -= k;
	}
	return true;
}
