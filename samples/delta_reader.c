// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The STACK_DELTAS blocks of samples.hist (FORMAT.md; versions 5 and
 * 6), the mirror of delta_writer.c and raw_writer.c.  The recorder
 * wrote each JIT sample's stack as its lane's stack before plus what
 * differs, as frames or (version 6) as addresses defined earlier in the
 * records; here each is put together and interned by parent and frame,
 * so that a report gets the same tree of nodes as from STACKS blocks,
 * and each delta id names its stack's node.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/hash.h>

#include "reader_internal.h"

/* The fewest bytes a record takes: lane, kept, new frames, kernel. */
#define DELTA_MIN 4
/* A space is a process's id, which the hash keeps to 31 bits. */
#define OPS_DELTA_SPACE_MAX 0x7fffffffu

#define NODE_KERNEL 0x1
#define NODE_CUT 0x2

static uint64_t dnode_hash(uint32_t parent, uint32_t frame, uint32_t flags)
{
	return oputil_hash_word64(oputil_hash_word(OPUTIL_HASH_SEED, parent),
				  (uint64_t)frame << 8 | flags);
}

/* The node of frame F with node flags FLAGS below dnode PARENT (index
 * + 1, 0 at a root), added when new; its index in *OUT.  NULL, or why
 * the record is damage. */
static const char *dnode_intern(struct ops_hist_data *h, uint32_t parent,
				const struct ops_frame *f, uint32_t flags,
				bool *oom, uint32_t *out)
{
	const struct ops_stack_node *up = parent ? &h->dnodes[parent - 1]
						 : NULL;
	struct oputil_idxset_pos pos;
	struct ops_stack_node *nd;
	uint32_t kernel = !!(flags & NODE_KERNEL);
	uint32_t up_kernel = up ? ops_node_kernel(up) : 0;
	uint32_t sflags = up		       ? ops_node_flags(up)
			  : (flags & NODE_CUT) ? OPS_STACK_TRUNCATED
					       : 0;
	uint16_t kernel_cut = (uint16_t)((up_kernel + kernel) << 1 | sflags);
	uint32_t i, frame;

	/* user frames are the outer ones */
	if (up && !kernel && up_kernel)
		return "bad stack delta record";
	if (up && up->depth >= OPS_STACK_MAX_FRAMES)
		return "bad stack delta record";
	frame = ops_hist_frame_intern(h, f);
	if (frame == UINT32_MAX)
		goto nomem;
	/* a node is its frame, its parent and whether it ran in the kernel
	 * (and at a root whether the stack was cut): FLAGS' other bits
	 * are nothing to a reader */
	flags = kernel | (up ? 0 : sflags ? NODE_CUT : 0);
	i = oputil_idxset_find(
		&h->dnode_set, dnode_hash(parent, frame, flags), &pos, k,
		h->dnodes[k].parent == parent && h->dnodes[k].frame == frame &&
			h->dnodes[k].kernel_cut == kernel_cut);
	if (i != OPUTIL_IDXSET_NONE) {
		*out = i;
		return NULL;
	}
	if (h->nr_dnodes == UINT32_MAX - 1 ||
	    oputil_grow(&h->dnodes, &h->cap_dnodes, (size_t)h->nr_dnodes + 1,
			sizeof(*h->dnodes)))
		goto nomem;
	i = h->nr_dnodes;
	if (oputil_idxset_put(&h->dnode_set, &pos, i) < 0)
		goto nomem;
	up = parent ? &h->dnodes[parent - 1] : NULL; /* they may have moved */
	nd = &h->dnodes[i];
	nd->frame = frame;
	nd->parent = parent;
	nd->depth = (uint16_t)(up ? up->depth + 1 : 1);
	nd->kernel_cut = kernel_cut;
	h->nr_dnodes++;
	*out = i;
	return NULL;
nomem:
	*oom = true;
	return "out of memory";
}

/* A frame of lane L's record, below PREV (NULL at a root), into *F:
 * one the lane named lately by its place, or the frame itself
 * (delta_writer.c); either is then the lane's most recent. */
static bool delta_frame(const struct ops_hist_data *h, struct ops_cur *c,
			struct ops_delta_rlane *l,
			const struct ops_frame *prev, struct ops_frame *f)
{
	uint64_t code = ops_cur_varint(c);
	uint32_t k;

	if (!c->ok)
		return false;
	if (code < OPS_DELTA_MRU) {
		k = (uint32_t)code;
		if (k >= l->nr_mru)
			return false;
		*f = l->mru[k];
	} else {
		if (!ops_hist_stack_frame(h, c, code - OPS_DELTA_MRU, prev, f))
			return false;
		k = OPS_DELTA_MRU; /* not there */
	}
	ops_delta_mru_front(l->mru, &l->nr_mru, k, f);
	return true;
}

/* Lane L's path (and, for a chain, RAW: its addresses), made at its
 * first record: false when out of memory. */
static bool rlane_arrays(struct ops_delta_rlane *l, bool raw)
{
	if (!l->path &&
	    !(l->path = malloc(OPS_STACK_MAX_FRAMES * sizeof(*l->path))))
		return false;
	return !raw || l->raw ||
	       (l->raw = malloc(OPS_STACK_MAX_FRAMES * sizeof(*l->raw)));
}

/* Lane LANE's record of placed frames: the stack of delta id ID into
 * H->delta_node[ID]. */
static const char *delta_placed(struct ops_hist_data *h, struct ops_cur *c,
				uint32_t lane, uint32_t id, bool *oom)
{
	uint32_t keep = ops_cur_varint32(c);
	uint32_t add = ops_cur_varint32(c);
	uint32_t kcut = ops_cur_varint32(c);
	struct ops_delta_rlane *l;
	uint32_t parent, j;
	const char *why;

	if (!c->ok)
		return "bad stack delta record";
	l = &h->dlanes[lane];
	/* the kernel frames are of the new ones, and a cut is a new
	 * root's */
	if (keep > l->n || add > OPS_STACK_MAX_FRAMES - keep ||
	    !(keep + add) || kcut >> 1 > add || (keep && (kcut & 1)))
		return "bad stack delta record";
	if (!rlane_arrays(l, false)) {
		*oom = true;
		return "out of memory";
	}
	parent = keep ? l->path[keep - 1] + 1 : 0;
	for (j = 0; j < add; j++) {
		uint32_t flags = (j >= add - (kcut >> 1) ? NODE_KERNEL : 0) |
				 (!keep && !j && (kcut & 1) ? NODE_CUT : 0);
		struct ops_frame f;

		if (!delta_frame(
			    h, c, l,
			    parent ? &h->frames[h->dnodes[parent - 1].frame]
				   : NULL,
			    &f))
			return "bad stack delta record";
		why = dnode_intern(h, parent, &f, flags, oom,
				   &l->path[keep + j]);
		if (why)
			return why;
		parent = l->path[keep + j] + 1;
	}
	l->n = keep + add;
	l->raw_n = 0;
	h->delta_node[id] = parent - 1;
	return NULL;
}

static uint64_t raw_def_hash(uint32_t space, bool kernel, uint64_t addr)
{
	return oputil_hash_word64(
		oputil_hash_word(OPUTIL_HASH_SEED, space << 1 | kernel), addr);
}

/* The index of the definition of ADDR at a kernel place (KERNEL) or not
 * in SPACE, or OPUTIL_IDXSET_NONE; POS, if not NULL, for a new one. */
static uint32_t raw_def_find(const struct ops_hist_data *h, uint32_t space,
			     bool kernel, uint64_t addr,
			     struct oputil_idxset_pos *pos)
{
	return oputil_idxset_find(
		&h->raw_def_set, raw_def_hash(space, kernel, addr), pos, k,
		h->raw_defs[k].addr == addr && h->raw_defs[k].space == space &&
			h->raw_defs[k].kernel == kernel);
}

/* A definition of a process's address's frame at a user place or a
 * kernel one (KERNEL); a later one replaces it. */
static const char *raw_define(struct ops_hist_data *h, struct ops_cur *c,
			      bool kernel, bool *oom)
{
	uint32_t space = ops_cur_varint32(c);
	uint64_t addr = ops_cur_varint(c);
	struct oputil_idxset_pos pos;
	struct ops_frame f;
	uint32_t i, frame;

	if (!c->ok || space > OPS_DELTA_SPACE_MAX ||
	    !ops_hist_stack_frame(h, c, ops_cur_varint(c), NULL, &f))
		return "bad stack delta record";
	frame = ops_hist_frame_intern(h, &f);
	if (frame == UINT32_MAX)
		goto nomem;
	i = raw_def_find(h, space, kernel, addr, &pos);
	if (i != OPUTIL_IDXSET_NONE) {
		h->raw_defs[i].frame = frame;
		return NULL;
	}
	if (h->nr_raw_defs == UINT32_MAX - 1 ||
	    oputil_grow(&h->raw_defs, &h->cap_raw_defs,
			(size_t)h->nr_raw_defs + 1, sizeof(*h->raw_defs)) ||
	    oputil_idxset_put(&h->raw_def_set, &pos, h->nr_raw_defs) < 0)
		goto nomem;
	h->raw_defs[h->nr_raw_defs++] =
		(struct ops_raw_def){ addr, space, frame, kernel };
	return NULL;
nomem:
	*oom = true;
	return "out of memory";
}

/* Lane LANE's record of addresses (version 6): the stack of delta id ID
 * into H->delta_node[ID]. */
static const char *delta_raw(struct ops_hist_data *h, struct ops_cur *c,
			     uint32_t lane, uint32_t id, bool *oom)
{
	uint32_t keep = ops_cur_varint32(c);
	uint32_t add = ops_cur_varint32(c);
	uint32_t kflags = ops_cur_varint32(c);
	uint32_t nk = kflags >> 2, parent, j, def;
	struct ops_delta_rlane *l = &h->dlanes[lane];
	uint64_t a;
	const char *why;

	if (!c->ok || keep > l->raw_n || add > OPS_STACK_MAX_FRAMES - keep ||
	    !(keep + add) || nk > add || (keep && (kflags & 1)))
		return "bad stack delta record";
	if (kflags & 2) {
		l->space = ops_cur_varint32(c);
		l->has_space = c->ok && l->space <= OPS_DELTA_SPACE_MAX;
	}
	if (!l->has_space)
		return "bad stack delta record";
	if (!rlane_arrays(l, true))
		goto nomem;
	parent = keep ? l->path[keep - 1] + 1 : 0;
	a = keep ? l->raw[keep - 1] : 0;
	for (j = 0; j < add; j++) {
		bool kernel = j >= add - nk;
		uint32_t flags = (kernel ? NODE_KERNEL : 0) |
				 (!keep && !j && (kflags & 1) ? NODE_CUT : 0);
		struct ops_frame f;

		a += (uint64_t)ops_cur_svarint(c);
		def = c->ok ? raw_def_find(h, l->space, kernel, a, NULL)
			    : OPUTIL_IDXSET_NONE;
		if (def == OPUTIL_IDXSET_NONE)
			return "bad stack delta record";
		f = h->frames[h->raw_defs[def].frame];
		why = dnode_intern(h, parent, &f, flags, oom,
				   &l->path[keep + j]);
		if (why)
			return why;
		l->raw[keep + j] = a;
		parent = l->path[keep + j] + 1;
	}
	l->n = l->raw_n = keep + add;
	h->delta_node[id] = parent - 1;
	return NULL;
nomem:
	*oom = true;
	return "out of memory";
}

/* The definitions, not needed once the file is read. */
static void raw_defs_free(struct ops_hist_data *h)
{
	oputil_idxset_free(&h->raw_def_set);
	free(h->raw_defs);
	h->raw_defs = NULL;
	h->nr_raw_defs = 0;
	h->cap_raw_defs = 0;
}

/* One record: a stack, given the next delta id (*ID, which it
 * advances), or a definition. */
static const char *delta_record(struct ops_hist_data *h, struct ops_cur *c,
				uint32_t *id, bool *oom)
{
	uint32_t kind = ops_cur_varint32(c);
	const char *why;

	if (!c->ok)
		return "bad stack delta record";
	if (kind == OPS_DELTA_DEF_USER || kind == OPS_DELTA_DEF_KERNEL)
		return raw_define(h, c, kind == OPS_DELTA_DEF_KERNEL, oom);
	if (kind >= OPS_DELTA_RAW + OPS_DELTA_LANES)
		return "bad stack delta record";
	why = kind >= OPS_DELTA_RAW
		      ? delta_raw(h, c, kind - OPS_DELTA_RAW, *id, oom)
		      : delta_placed(h, c, kind, *id, oom);
	if (!why)
		(*id)++;
	return why;
}

const char *ops_hist_stack_deltas(struct ops_hist_data *h, const uint8_t *p,
				  size_t len, bool *oom)
{
	struct ops_cur c;
	uint32_t first, n, i, id;
	const char *why;

	ops_cur_init(&c, p, len);
	first = ops_cur_varint32(&c);
	n = ops_cur_varint32(&c);
	if (!c.ok || first != h->nr_deltas)
		return "stack delta ids out of order";
	if (n > ops_cur_left(&c) / DELTA_MIN ||
	    (uint64_t)first + n > UINT32_MAX)
		return "bad stack delta count";
	if (oputil_grow(&h->delta_node, &h->cap_delta_node, (size_t)first + n,
			sizeof(*h->delta_node))) {
		*oom = true;
		return "out of memory";
	}
	/* a block that does not parse is dropped whole, and ends the
	 * file's walk: the nodes it added are left out at the finish */
	for (i = 0, id = first; i < n; i++) {
		why = delta_record(h, &c, &id, oom);
		if (why)
			return why;
	}
	if (ops_cur_left(&c))
		return "trailing bytes in stack delta block";
	h->nr_deltas = id;
	h->dnodes_ok = h->nr_dnodes;
	return NULL;
}

int ops_hist_deltas_finish(struct ops_hist_data *h)
{
	uint32_t base = h->nr_stacks, i;
	struct ops_stack_node *v;

	oputil_idxset_free(&h->dnode_set);
	raw_defs_free(h);
	/* the frames are all known: only their array is kept */
	oputil_idxset_free(&h->frame_set);
	if (!h->dnodes_ok)
		return 0;
	if ((uint64_t)base + h->dnodes_ok > UINT32_MAX)
		return -ENOMEM;
	if (!h->stack_frames &&
	    !(h->stack_frames =
		      malloc(OPS_STACK_MAX_FRAMES * sizeof(*h->stack_frames))))
		return -ENOMEM;
	/* the deltas' nodes are most of a JIT session's: the table's few
	 * go in front of them, where a copy of the deltas' into the table
	 * would hold both for a moment */
	v = realloc(h->dnodes, ((size_t)base + h->dnodes_ok) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memmove(v + base, v, (size_t)h->dnodes_ok * sizeof(*v));
	if (base)
		memcpy(v, h->nodes, (size_t)base * sizeof(*v));
	for (i = base; i < base + h->dnodes_ok; i++)
		if (v[i].parent)
			v[i].parent += base;
	for (i = 0; i < h->nr_deltas; i++)
		h->delta_node[i] += base;
	free(h->nodes);
	h->nodes = v;
	h->nr_stacks = base + h->dnodes_ok;
	h->cap_stacks = h->nr_stacks;
	h->dnodes = NULL;
	h->nr_dnodes = h->dnodes_ok = 0;
	h->cap_dnodes = 0;
	return 0;
}

void ops_hist_deltas_free(struct ops_hist_data *h)
{
	uint32_t i;

	free(h->dnodes);
	free(h->delta_node);
	oputil_idxset_free(&h->dnode_set);
	raw_defs_free(h);
	for (i = 0; i < OPS_DELTA_LANES; i++) {
		free(h->dlanes[i].path);
		free(h->dlanes[i].raw);
	}
	h->dnodes = NULL;
	h->delta_node = NULL;
	memset(h->dlanes, 0, sizeof(h->dlanes));
	h->nr_dnodes = h->dnodes_ok = h->nr_deltas = 0;
	h->cap_dnodes = h->cap_delta_node = 0;
}
