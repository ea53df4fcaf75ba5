// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The stacks of JIT samples as the addresses the kernel gave (FORMAT.md,
 * STACK_DELTAS; version 6): each chain is its lane's chain before, cut
 * to the addresses it shares from the root, plus its own addresses
 * below, each the difference from the one above it.  Nothing is placed
 * per sample: the first time the writer meets an address in a
 * generation of its process's mappings it asks the recorder for its
 * frame and defines it in the records, and the report places every
 * later use by the definition.  Placing the new frames of each sample
 * and keeping the lanes' frames as the reader would have them was most
 * of a node recording's time (2,000 instructions a sample of 36
 * frames); an address costs a compare, a slot of a direct-mapped table
 * and a byte or two.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/hash.h>

#include "writer_internal.h"

/* Slots of the table of placed addresses: a JIT's hot code is a few
 * thousand return addresses. */
#define RAW_SLOTS 4096u
/* The slot of address A at a kernel place (KERNEL) or not in generation
 * GEN. */
static struct ops_raw_slot *raw_slot(struct ops_hist_writer *h, uint64_t a,
				     uint64_t gen, bool kernel)
{
	return &h->raw_slots[oputil_hash_u64(a ^ gen ^ (uint64_t)kernel << 63) &
			     (RAW_SLOTS - 1)];
}

static bool raw_slot_is(const struct ops_raw_slot *s, uint64_t a, uint64_t gen,
			bool kernel)
{
	return s->addr == a && s->gen == gen && s->kernel == kernel;
}

/* Address A (at a kernel place: KERNEL) of chain C placed by C's
 * caller into slot S and defined at *DEF (room reserved), which it
 * moves past.  NULL (nothing written) for a frame no stack may have. */
static __attribute__((noinline)) const struct ops_frame *
raw_place(struct ops_hist_writer *h, const struct ops_chain *c,
	  struct ops_raw_slot *s, uint64_t a, bool kernel, uint8_t **def)
{
	uint8_t *p;

	c->place(c->arg, a, kernel, &s->frame);
	if (!ops_frame_valid(h, &s->frame)) {
		s->gen = 0;
		return NULL;
	}
	s->addr = a;
	s->gen = c->gen;
	s->kernel = kernel;
	p = *def;
	*p++ = kernel ? OPS_DELTA_DEF_KERNEL : OPS_DELTA_DEF_USER;
	p += ops_varint_encode(p, c->space);
	p += ops_varint_encode(p, a);
	*def = ops_stack_frame_encode(p, &s->frame, NULL, 0);
	h->delta_nrecs++;
	ops_delta_note(h, &s->frame, kernel);
	return &s->frame;
}

/* Address A of chain C (at a kernel place: KERNEL) as a frame: from
 * the table, or placed and defined at *DEF (raw_place()).  NULL for a
 * frame no stack may have.  Inline: the table has nearly every
 * address. */
static inline const struct ops_frame *raw_frame(struct ops_hist_writer *h,
						const struct ops_chain *c,
						uint64_t a, bool kernel,
						uint8_t **def)
{
	struct ops_raw_slot *s = raw_slot(h, a, c->gen, kernel);

	if (raw_slot_is(s, a, c->gen, kernel))
		return &s->frame;
	return raw_place(h, c, s, a, kernel, def);
}

/* Frame I of chain C, as raw_frame() finds or defines it. */
static const struct ops_frame *raw_frame_at(struct ops_hist_writer *h,
					    const struct ops_chain *c,
					    uint32_t i, uint8_t **def)
{
	return raw_frame(h, c, c->addrs[i], i < c->nr_kernel, def);
}

/* The addresses chain C shares with lane L's last chain, from the root.
 * Compared by address alone, as the node flags agree at every depth but
 * the root's (the cut) and below the user part of the shorter of the
 * two (the kernel's).  Four at a time, with no branch between them: a
 * recursion shares tens. */
static uint32_t raw_shared(const struct ops_delta_lane *l,
			   const struct ops_chain *c)
{
	uint32_t n = c->nr, user = n - c->nr_kernel, d = 0, most;
	const uint64_t *x = c->addrs + n, *y = l->raw + OPS_STACK_MAX_FRAMES;

	most = n < l->raw_n ? n : l->raw_n;
	if (user != l->raw_user) {
		user = user < l->raw_user ? user : l->raw_user;
		most = most < user ? most : user;
	}
	if (most && l->raw_cut != !!(c->flags & OPS_STACK_TRUNCATED))
		return 0;
	while (most - d >= 4 && !((x[-1] ^ y[-1]) | (x[-2] ^ y[-2]) |
				  (x[-3] ^ y[-3]) | (x[-4] ^ y[-4]))) {
		d += 4;
		x -= 4;
		y -= 4;
	}
	while (d < most && x[-1] == y[-1]) {
		d++;
		x--;
		y--;
	}
	return d;
}

/* Chain C placed into H->chain_frames for the stack table: a native
 * stack, whose frames from FROM on (leaf first) are to place, each as
 * raw_frame() finds or defines it at *P.  2, or -EINVAL for a frame no
 * stack may have. */
static int raw_place_rest(struct ops_hist_writer *h, const struct ops_chain *c,
			  uint32_t from, uint8_t **p)
{
	const struct ops_frame *f;
	uint32_t i;

	for (i = from; i < c->nr; i++) {
		f = raw_frame_at(h, c, i, p);
		h->delta_recs.len = (size_t)(*p - h->delta_recs.data);
		if (!f)
			return -EINVAL;
		h->chain_frames[i] = *f;
	}
	return 2;
}

/* One step of a chain's record at P, V being the zigzag of the
 * difference from the address above; P past it.  Most steps are within
 * a function or two: a byte. */
static inline uint8_t *raw_step(uint8_t *p, uint64_t v)
{
	*p = (uint8_t)v;
	if (v < 0x80)
		return p + 1;
	return p + ops_varint_encode(p, v);
}

/* The record of lane NL's chain C, D of its frames from the root kept,
 * at P, which it returns past: the counts, then each new address as
 * the difference from the one above it.  SPACE: the process is named.
 * The new frames but those placed already (from LOOKED on) are defined
 * at *DEF where the table does not have them.  A user address that is
 * one of the last two distinct ones above it in the chain (a
 * recursion's return addresses: most of a JIT's new frames) is defined
 * already, as every user address above it is, and not looked up; a
 * kernel one always is, the user ones above it being of another place.
 * In three runs, the frames placed already, the user ones and the
 * kernel's, so that a step tests no index.  NULL for a frame no stack
 * may have. */
static uint8_t *raw_record(struct ops_hist_writer *h, uint8_t *p, uint32_t nl,
			   const struct ops_chain *c, uint32_t d,
			   uint32_t looked, bool space, uint8_t **def)
{
	const uint64_t *x = c->addrs, *q;
	uint32_t n = c->nr, nk = c->nr_kernel;
	uint32_t kernel = nk < looked ? nk : looked;
	uint64_t prev = d ? x[n - d] : 0, alt = d > 1 ? x[n - d + 1] : prev;
	uint64_t a;

	p += ops_varint_encode(p, OPS_DELTA_RAW + nl);
	p += ops_varint_encode(p, d);
	p += ops_varint_encode(p, n - d);
	p += ops_varint_encode(p, (uint64_t)(nk < n - d ? nk : n - d) << 2 |
					  (uint64_t)space << 1 |
					  (!d &&
					   (c->flags & OPS_STACK_TRUNCATED)));
	if (space)
		p += ops_varint_encode(p, c->space);
	for (q = x + n - d; q > x + looked; prev = a) {
		a = *--q;
		p = raw_step(p, ops_zigzag((int64_t)(a - prev)));
	}
	/* the last two distinct addresses above are PREV and ALT.  One
	 * branch, seldom taken: which of the two a recursion's frame is
	 * follows no pattern a predictor learns, and a branch on it was
	 * a miss every other frame */
	while (q > x + kernel) {
		int again, known;

		a = *--q;
		p = raw_step(p, ops_zigzag((int64_t)(a - prev)));
		again = a == prev;
		known = again | (a == alt);
		/* the flags as values: else GCC branches on each again */
		__asm__("" : "+r"(again), "+r"(known));
		if (__builtin_expect(!known, 0) &&
		    !raw_frame(h, c, a, false, def))
			return NULL;
		alt = again ? alt : prev;
		prev = a;
	}
	for (; q > x; prev = a) {
		a = *--q;
		p = raw_step(p, ops_zigzag((int64_t)(a - prev)));
		if (!raw_frame(h, c, a, true, def))
			return NULL;
	}
	return p;
}

/* The record from REC to END, and the definitions from DEFS to
 * DEFS_END made on the side while it was written, at REC: the
 * definitions first, as a reader needs them; the end. */
static uint8_t *raw_defs_first(uint8_t *rec, uint8_t *end, const uint8_t *defs,
			       const uint8_t *defs_end)
{
	size_t nd = (size_t)(defs_end - defs);

	if (!nd)
		return end;
	memmove(rec + nd, rec, (size_t)(end - rec));
	memcpy(rec, defs, nd);
	return end + nd;
}

int ops_raw_chain(struct ops_writer *w, const struct ops_chain *c,
		  uint32_t tid, uint32_t *id)
{
	struct ops_hist_writer *h = &w->hist;
	uint32_t nl = ops_delta_lane(tid);
	struct ops_delta_lane *l = &h->dlanes[nl];
	uint32_t n = c->nr, d = 0, first_anon = UINT32_MAX, looked;
	const struct ops_frame *f;
	uint8_t *p, *end, *def;
	bool space;
	int ret;

	/* a space is a process's id, which the format keeps below 2^31 */
	if (!c->gen || c->space > INT32_MAX)
		return 0;
	if (!h->raw_slots &&
	    !(h->raw_slots = calloc(RAW_SLOTS, sizeof(*h->raw_slots))))
		return -ENOMEM;
	if (!l->raw &&
	    !(l->raw = malloc(OPS_STACK_MAX_FRAMES * sizeof(*l->raw))))
		return -ENOMEM;
	ret = ops_delta_reserve(h, n, c->nr_kernel);
	ret = ret ? ret
		  : oputil_grow(&h->chain_frames, &h->cap_chain_frames, n,
				sizeof(*h->chain_frames));
	ret = ret ? ret
		  : ops_buf_reserve(&h->raw_defs,
				    4 * (size_t)n * OPS_VARINT_MAX);
	if (ret)
		return ret;
	/* the lane's chain is of this thread, and its addresses place as
	 * they did */
	if (l->tid == tid && l->last != UINT32_MAX && l->raw_gen == c->gen)
		d = raw_shared(l, c);
	ops_delta_count(h, n, d);
	if (d == n && l->raw_n == n) {
		*id = l->last;
		return 1;
	}
	if (d)
		first_anon = l->first_anon < d ? l->first_anon : UINT32_MAX;
	/* the new frames from the root to the first anonymous one, when
	 * the kept ones have none: a stack without is the table's */
	p = h->delta_recs.data + h->delta_recs.len;
	looked = n - d;
	while (first_anon == UINT32_MAX && looked > 0) {
		f = raw_frame_at(h, c, --looked, &p);
		h->delta_recs.len = (size_t)(p - h->delta_recs.data);
		if (!f)
			return -EINVAL;
		h->chain_frames[looked] = *f;
		if (f->kind == OPS_FRAME_ANON)
			first_anon = n - 1 - looked;
	}
	if (first_anon == UINT32_MAX)
		return raw_place_rest(h, c, n - d, &p);
	space = !l->space_ok || l->space != c->space;
	def = h->raw_defs.data;
	end = raw_record(h, p, nl, c, d, looked, space, &def);
	/* the definitions made stand when a frame fails, without the
	 * record, and the lane is as it was */
	p = raw_defs_first(p, end ? end : p, h->raw_defs.data, def);
	h->delta_recs.len = (size_t)(p - h->delta_recs.data);
	if (!end)
		return -EINVAL;
	/* the root's end stays where it is: only the new addresses move */
	memcpy(l->raw + OPS_STACK_MAX_FRAMES - n, c->addrs,
	       (n - d) * sizeof(*l->raw));
	l->tid = tid;
	l->raw_n = n;
	l->raw_user = n - c->nr_kernel;
	l->raw_cut = !!(c->flags & OPS_STACK_TRUNCATED);
	l->raw_gen = c->gen;
	l->first_anon = first_anon;
	l->space = c->space;
	l->space_ok = true;
	/* the reader's lane has no placed frames of this record's */
	l->path_n = 0;
	ret = ops_delta_end(w, l, p, n, d, id);
	return ret ? ret : 1;
}
