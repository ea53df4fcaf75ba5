// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The stack table of samples.hist and its counts (FORMAT.md, STACKS and
 * STACK_COUNTS).  The table is a tree of frames, so that a stack that
 * differs from a known one in its leaf alone costs one node: JIT code
 * gives a new leaf address at almost every sample.  A sample's stack is
 * found from the root: the part it shares with its thread's stack before
 * by comparing frames, the rest a node at a time from an index of the
 * nodes met lately, whose size is bounded: a node it forgot is stored
 * again.  Nothing is kept per whole stack, which JIT code makes new at
 * almost every sample too.
 * Counts share the histogram's table, marked by OPS_STACK_CTX.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/hash.h>

#include "writer_internal.h"

/* Tags of a frame record: 0 continues the previous frame's place. */
#define TAG_SAME 0
#define TAG_ANON 1
#define TAG_UNKNOWN 2
#define TAG_IMAGE 3

/* -EINVAL for a stack the writer cannot take, else whether it has a
 * frame in anonymous memory (a JIT sample's stack, which goes to
 * anon.samples with its time): one walk of its frames for both. */
static int stack_check(const struct ops_writer *w, const struct ops_stack *st)
{
	bool anon = false;
	uint32_t i;

	if (!st->frames || !st->nr_frames ||
	    st->nr_frames > OPS_STACK_MAX_FRAMES ||
	    st->nr_kernel > st->nr_frames)
		return -EINVAL;
	for (i = 0; i < st->nr_frames; i++) {
		const struct ops_frame *f = &st->frames[i];

		if (!ops_frame_valid(&w->hist, f))
			return -EINVAL;
		anon |= f->kind == OPS_FRAME_ANON;
	}
	return anon;
}

uint8_t *ops_stack_frame_encode(uint8_t *p, const struct ops_frame *f,
				const struct ops_frame *prev, uint32_t base)
{
	if (prev && prev->kind == f->kind &&
	    (f->kind != OPS_FRAME_IMAGE || prev->image == f->image)) {
		p += ops_varint_encode(p, base + TAG_SAME);
		return p +
		       ops_varint_encode(
			       p, ops_zigzag((int64_t)(f->addr - prev->addr)));
	}
	p += ops_varint_encode(
		p, base + (f->kind == OPS_FRAME_ANON ? TAG_ANON
			   : f->kind == OPS_FRAME_UNKNOWN
				   ? TAG_UNKNOWN
				   : (uint64_t)TAG_IMAGE + f->image));
	return p + ops_varint_encode(p, f->addr);
}

int ops_stack_record_put(struct ops_buf *out, const uint8_t *key, size_t len,
			 uint32_t id)
{
	uint8_t head[OPS_VARINT_MAX];
	struct ops_cur c;
	uint32_t parent;
	size_t used;
	int ret;

	ops_cur_init(&c, key, len);
	parent = ops_cur_varint32(&c);
	used = len - ops_cur_left(&c);
	/* the distance back, which stays small as the table grows */
	ret = ops_buf_put(out, head,
			  ops_varint_encode(head,
					    parent ? id + 1 - parent : 0));
	return ret ? ret : ops_buf_put(out, key + used, len - used);
}

static bool frame_eq(const struct ops_frame *a, const struct ops_frame *b)
{
	return a->addr == b->addr && a->kind == b->kind &&
	       a->image == b->image;
}

/* The index's hash of a node: that of its parent's (PARENT_HASH, or the
 * seed at a root), then its frame F and node flags FLAGS.  It names the
 * whole path from the root, not the parent's id, so that the slots of a
 * stack's nodes are known before any is found, and are all fetched at
 * once (stack_nodes). */
static uint64_t path_hash(uint64_t parent_hash, const struct ops_frame *f,
			  uint8_t flags)
{
	return oputil_hash_word64(
		oputil_hash_word64(parent_hash,
				   (uint64_t)f->image << 16 |
					   (uint64_t)f->kind << 8 | flags),
		f->addr);
}

static bool edge_eq(const struct ops_stack_edge *e, uint32_t parent,
		    const struct ops_frame *f, uint8_t flags)
{
	return e->parent == parent && e->addr == f->addr &&
	       e->kind == f->kind && e->image == f->image && e->flags == flags;
}

/* The slot of generation T of the node index that holds the node of
 * PARENT with frame F and flags FLAGS, or the empty slot where it
 * would go (linear probing: a generation is at most half full). */
static struct ops_stack_edge *index_probe(struct ops_stack_edge *t,
					  uint64_t hash, uint32_t parent,
					  const struct ops_frame *f,
					  uint8_t flags)
{
	size_t i = hash & (OPS_STACK_INDEX - 1);

	while (t[i].node && !edge_eq(&t[i], parent, f, flags))
		i = (i + 1) & (OPS_STACK_INDEX - 1);
	return &t[i];
}

/* A new generation of the index, in place of the older one.  The nodes
 * of the threads' last stacks go into it: they are found by comparing
 * frames, not in the index, and a thread that returns to a caller and
 * calls again meets them below it. */
static void index_renew(struct ops_hist_writer *h)
{
	struct ops_stack_edge *t;
	uint32_t i;
	size_t d;

	h->index_new ^= 1;
	t = h->index[h->index_new];
	memset(t, 0, OPS_STACK_INDEX * sizeof(*t));
	h->index_nr = 0;
	h->stack_stats.generations++;
	for (i = 0; i < OPS_STACK_LANES; i++) {
		const struct ops_stack_lane *l = &h->lanes[i];

		/* half the generation at most: the rest is for the stacks */
		for (d = 0; d < l->path_n && h->index_nr < h->index_limit / 2;
		     d++) {
			const struct ops_path_step *s = &l->path[d];
			uint32_t parent = d ? l->path[d - 1].node + 1 : 0;
			struct ops_stack_edge *e = index_probe(
				t, s->hash, parent, &s->frame, s->flags);

			if (e->node)
				continue;
			*e = (struct ops_stack_edge){
				s->frame.addr, parent,	      s->frame.image,
				s->node + 1,   s->frame.kind, s->flags
			};
			h->index_nr++;
		}
	}
}

/* Node ID of PARENT, frame F and flags FLAGS into the newer generation
 * of the index; a full one becomes the older, and the older, emptied,
 * the newer: the nodes not met during a whole generation are forgotten,
 * and a stack through one of them is stored again with new ids. */
static void index_put(struct ops_hist_writer *h, uint64_t hash,
		      uint32_t parent, const struct ops_frame *f,
		      uint8_t flags, uint32_t id)
{
	struct ops_stack_edge *e;

	if (h->index_nr >= h->index_limit)
		index_renew(h);
	e = index_probe(h->index[h->index_new], hash, parent, f, flags);
	if (!e->node)
		h->index_nr++;
	*e = (struct ops_stack_edge){ f->addr, parent,	f->image,
				      id + 1,  f->kind, flags };
}

/* The node of PARENT (node id + 1, 0 at a root), frame F and FLAGS in
 * the index, or UINT32_MAX; one found only in the older generation is
 * put in the newer, so that the nodes in use are never forgotten. */
static uint32_t index_find(struct ops_hist_writer *h, uint64_t hash,
			   uint32_t parent, const struct ops_frame *f,
			   uint8_t flags)
{
	const struct ops_stack_edge *e;
	uint32_t id;

	e = index_probe(h->index[h->index_new], hash, parent, f, flags);
	if (e->node)
		return e->node - 1;
	e = index_probe(h->index[h->index_new ^ 1], hash, parent, f, flags);
	if (!e->node)
		return UINT32_MAX;
	/* before the put, which may empty the generation E is in */
	id = e->node - 1;
	index_put(h, hash, parent, f, flags, id);
	return id;
}

/* The node of parent PARENT (node id + 1, 0 at a root) for ST's frame I
 * (leaf first), whose index hash is HASH, in *ID; *FRESH: PARENT was
 * added by this stack, so the node cannot be there yet, and becomes
 * true when the node is added. */
static int stack_node(struct ops_writer *w, const struct ops_stack *st,
		      uint32_t i, uint32_t parent, uint64_t hash, bool *fresh,
		      uint32_t *id)
{
	struct ops_hist_writer *h = &w->hist;
	const struct ops_frame *f = &st->frames[i];
	uint8_t rec[4 * OPS_VARINT_MAX], *p = rec;
	uint8_t flags = ops_stack_node_flags(st, i);
	uint32_t nr = h->stacks.nr;
	int ret;

	if (!h->exact) {
		*id = *fresh ? UINT32_MAX
			     : index_find(h, hash, parent, f, flags);
		if (*id != UINT32_MAX) {
			h->stack_stats.cached++;
			return 0;
		}
	}
	p += ops_varint_encode(p, parent);
	p += ops_varint_encode(p, flags);
	p = ops_stack_frame_encode(p, f, parent ? &st->frames[i + 1] : NULL,
				   0);
	if (!h->exact) {
		ret = ops_keyset_append(&h->stacks, rec, (size_t)(p - rec),
					id);
	} else if (*fresh) {
		ret = ops_keyset_add_new(&h->stacks, rec, (size_t)(p - rec),
					 id);
	} else {
		h->stack_stats.lookups++;
		ret = ops_keyset_add(&h->stacks, rec, (size_t)(p - rec), id);
	}
	if (ret)
		return ret;
	if (h->stacks.nr > nr) {
		*fresh = true;
		h->stack_stats.added++;
		/* an existing node's frame is in these sets already */
		if (f->kind == OPS_FRAME_ANON &&
		    oputil_u64map_put(&h->aframes, f->addr, 0, NULL) ==
			    -ENOMEM)
			return -ENOMEM;
		if (i < st->nr_kernel && f->kind == OPS_FRAME_IMAGE &&
		    oputil_u64map_put(&h->kframes, f->addr,
				      (uint64_t)f->image + 1, NULL) == -ENOMEM)
			return -ENOMEM;
	}
	if (!h->exact)
		index_put(h, hash, parent, f, flags, *id);
	return 0;
}

/* The index hashes of ST's nodes below the D it shares with lane L's
 * path into the path, and their slots fetched into the cache: a lookup
 * in an index as large as the nodes of a recursion misses the cache
 * (the workload ran in between), and the misses of a stack's dozen new
 * levels, each waited for in turn, were most of the recorder's time. */
static void path_fetch(const struct ops_hist_writer *h,
		       struct ops_stack_lane *l, const struct ops_stack *st,
		       uint32_t d)
{
	uint64_t hash = d ? l->path[d - 1].hash : OPUTIL_HASH_SEED;
	uint32_t i;

	for (i = st->nr_frames - d; i-- > 0; d++) {
		size_t slot;

		hash = path_hash(hash, &st->frames[i],
				 ops_stack_node_flags(st, i));
		l->path[d].hash = hash;
		slot = hash & (OPS_STACK_INDEX - 1);
		__builtin_prefetch(&h->index[h->index_new][slot]);
		__builtin_prefetch(&h->index[h->index_new ^ 1][slot]);
	}
}

/* The node of stack ST's leaf, its nodes added where new, outermost
 * first.  A thread's stacks come in runs that share their outer frames
 * (a deep recursion, an event loop): the part shared with the thread's
 * last stack is its nodes, found without hashing a record each (node
 * running JS in two threads: 24.1 frames of 30.7 a sample, against
 * 21.4 with the last stack of any thread).  Below it, a node is looked
 * for in the index, and once one is new every node below it is too,
 * and is added without a search.
 *
 * The index is bounded, not the table: a recursive JIT workload makes
 * new stacks for as long as it runs (node fib.js: 3.3 new nodes a
 * sample, 250,000 in 20 s), and an index of them all made each lookup
 * a few cache misses in a table that grew with the run, most of the
 * recorder's time (3.5 of 6 us a sample at 20 s).  So a node that no
 * stack met during a whole generation of the index is forgotten, and a
 * stack through it is stored again with new ids: equal stacks may have
 * two ids, which every reader takes as the same stack (FORMAT.md). */
static int stack_nodes(struct ops_writer *w, const struct ops_stack *st,
		       uint32_t tid, uint32_t *id)
{
	struct ops_hist_writer *h = &w->hist;
	/* the reference of the tests: one path, as before threads */
	struct ops_stack_lane *l =
		&h->lanes[h->exact ? 0
				   : oputil_hash_u64(tid) &
					     (OPS_STACK_LANES - 1)];
	uint32_t i, d = 0, parent = 0; /* node id + 1, 0 for none */
	bool fresh = false;
	int ret = oputil_grow(&l->path, &l->cap_path, st->nr_frames,
			      sizeof(*l->path));

	if (ret)
		return ret;
	if (!h->index[0] && !h->exact) {
		h->index[0] =
			calloc(2 * OPS_STACK_INDEX, sizeof(*h->index[0]));
		if (!h->index[0])
			return -ENOMEM;
		h->index[1] = h->index[0] + OPS_STACK_INDEX;
		if (!h->index_limit || h->index_limit > OPS_STACK_INDEX / 2)
			h->index_limit = OPS_STACK_INDEX / 2;
	}
	if (l->tid != tid && !h->exact) {
		/* another thread's: it shares little more than the root */
		l->tid = tid;
		l->path_n = 0;
	}
	while (d < st->nr_frames && d < l->path_n &&
	       l->path[d].flags ==
		       ops_stack_node_flags(st, st->nr_frames - 1 - d) &&
	       frame_eq(&l->path[d].frame, &st->frames[st->nr_frames - 1 - d]))
		d++;
	h->stack_stats.shared += d;
	if (d)
		parent = l->path[d - 1].node + 1;
	/* the path is this stack's from here on, whatever fails */
	l->path_n = d;
	if (!h->exact)
		path_fetch(h, l, st, d);
	for (i = st->nr_frames - d; i-- > 0; d++) {
		ret = stack_node(w, st, i, parent, l->path[d].hash, &fresh,
				 id);
		if (ret)
			return ret;
		l->path[d].frame = st->frames[i];
		l->path[d].node = *id;
		l->path[d].flags = ops_stack_node_flags(st, i);
		l->path_n = d + 1;
		parent = *id + 1;
	}
	*id = l->path[st->nr_frames - 1].node;
	h->stack_stats.stacks++;
	h->stack_stats.frames += st->nr_frames;
	return 0;
}

int ops_writer_stack(struct ops_writer *w, const struct ops_stack *st,
		     uint32_t *id)
{
	return ops_writer_stack_of(w, st, 0, id);
}

int ops_writer_stack_of(struct ops_writer *w, const struct ops_stack *st,
			uint32_t tid, uint32_t *id)
{
	int ret, anon;

	if (!w->callgraph)
		return ops_writer_fail(
			w, -EINVAL,
			"%s/samples.hist: stacks in a session opened without call graphs",
			w->dir);
	anon = stack_check(w, st);
	if (anon < 0)
		return ops_writer_fail(
			w, -EINVAL, "%s/samples.hist: invalid stack", w->dir);
	ret = w->hist.deltas && anon ? ops_delta_stack(w, st, tid, id)
				     : stack_nodes(w, st, tid, id);
	if (ret)
		return ops_writer_fail(w, ret,
				       "%s/samples.hist: cannot add stack: %s",
				       w->dir, strerror(-ret));
	return 0;
}

/* Chain C placed whole into W->hist.chain_frames (stack_check() judges
 * the frames): 0, or -ENOMEM. */
static int chain_place_all(struct ops_writer *w, const struct ops_chain *c)
{
	struct ops_frame *f;
	uint32_t i;
	int ret;

	ret = oputil_grow(&w->hist.chain_frames, &w->hist.cap_chain_frames,
			  c->nr, sizeof(*f));
	if (ret)
		return ret;
	for (i = 0; i < c->nr; i++) {
		f = &w->hist.chain_frames[i];
		c->place(c->arg, c->addrs[i], i < c->nr_kernel, f);
	}
	return 0;
}

int ops_writer_chain_of(struct ops_writer *w, const struct ops_chain *c,
			uint32_t tid, uint32_t *id, bool *anon)
{
	struct ops_hist_writer *h = &w->hist;
	struct ops_stack st = { h->chain_frames, c->nr, c->nr_kernel,
				c->flags };
	int ret = 0, a;

	if (!w->callgraph)
		return ops_writer_fail(
			w, -EINVAL,
			"%s/samples.hist: stacks in a session opened without call graphs",
			w->dir);
	if (!c->nr || c->nr > OPS_STACK_MAX_FRAMES || c->nr_kernel > c->nr)
		return ops_writer_fail(
			w, -EINVAL, "%s/samples.hist: invalid stack", w->dir);
	if (h->deltas)
		ret = ops_raw_chain(w, c, tid, id);
	if (ret == 1) {
		*anon = true;
		return 0;
	}
	/* not by the lane's addresses: placed whole, as any stack */
	if (!ret)
		ret = chain_place_all(w, c);
	else if (ret == 2)
		ret = 0;
	st.frames = h->chain_frames;
	a = ret ? ret : stack_check(w, &st);
	if (a < 0)
		return ops_writer_fail(w, a, "%s/samples.hist: %s", w->dir,
				       a == -EINVAL ? "invalid stack"
						    : strerror(-a));
	ret = h->deltas && a ? ops_delta_stack(w, &st, tid, id)
			     : stack_nodes(w, &st, tid, id);
	if (ret)
		return ops_writer_fail(w, ret,
				       "%s/samples.hist: cannot add stack: %s",
				       w->dir, strerror(-ret));
	*anon = a;
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
	    h->stacks_on_disk == h->stacks.nr && !ops_delta_pending(h))
		return 0;
	w->out.len = 0;
	ret = ops_hist_put_defs(w, &h->images, h->images_on_disk, h->images.nr,
				OPS_HIST_IMAGES);
	ret = ret ? ret
		  : ops_hist_put_contexts(w, h->contexts_on_disk,
					  h->contexts.nr);
	ret = ret ? ret : ops_hist_put_stacks(w, h->stacks_on_disk);
	return ops_hist_append(w, ret);
}

int ops_hist_put_stacks(struct ops_writer *w, uint32_t from)
{
	struct ops_hist_writer *h = &w->hist;
	int ret;

	/* a compaction: the blocks the file had, as they were (zlib takes
	 * more time than all the rest of a node's encoding) */
	if (!from && h->blocks_to) {
		ret = ops_buf_put(&w->out, h->stack_blocks.data,
				  h->stack_blocks.len);
		if (ret)
			return ret;
		from = h->blocks_to;
	}
	h->pending_off = w->out.len;
	ret = ops_hist_put_defs(w, &h->stacks, from, h->stacks.nr,
				OPS_HIST_STACKS);
	h->pending_end = w->out.len;
	/* kept only where they continue the blocks kept */
	h->pending_to = !ret && from == h->blocks_to ? h->stacks.nr : 0;
	/* the deltas after the nodes: both name the images before them */
	return ret ? ret : ops_delta_put(w);
}

void ops_hist_stacks_written(struct ops_writer *w, bool written)
{
	struct ops_hist_writer *h = &w->hist;

	ops_copy_written(w, written);
	ops_delta_written(w, written);
	if (!written || h->pending_to <= h->blocks_to) {
		h->pending_to = 0;
		return;
	}
	/* when this fails, the blocks kept stay, and the next compaction
	 * encodes the nodes after them, whose keys are all kept from now
	 * on (no later blocks continue these) */
	if (!ops_buf_put(&h->stack_blocks, w->out.data + h->pending_off,
			 h->pending_end - h->pending_off))
		h->blocks_to = h->pending_to;
	h->pending_to = 0;
	/* the keys of the nodes in the kept blocks are read no more: the
	 * writer keeps only the index and the keys of the nodes not in
	 * them, about a flush's (kept for the whole run, they grew with
	 * it, and so did each sample's cost, in page faults and copies) */
	if (!h->exact)
		ops_keyset_forget(&h->stacks, h->blocks_to);
}

void ops_writer_stack_stats(const struct ops_writer *w,
			    struct ops_stack_stats *stats)
{
	*stats = w->hist.stack_stats;
}
