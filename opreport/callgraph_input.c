// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/hash.h>

#include "callgraph_input.h"

static struct cg_input *input_of(struct callgraph *cg)
{
	if (!cg->in)
		cg->in = calloc(1, sizeof(*cg->in));
	return cg->in;
}

static uint64_t frame_hash(uint32_t parent, const struct cg_raw_frame *fr,
			   bool truncated)
{
	uint64_t h = oputil_hash_word(OPUTIL_HASH_SEED, parent);

	h = oputil_hash_word(h, fr->image);
	h = oputil_hash_word64(h, fr->addr);
	/* FNV's low bits see only the inputs' low bits: mix them */
	return oputil_hash_u64(h ^ truncated);
}

/* Whether stack I is FR below PARENT, cut when TRUNCATED (which only a
 * root says: the others are as their root is). */
static bool stack_is(const struct cg_input *in, uint32_t i, uint32_t parent,
		     const struct cg_raw_frame *fr, bool truncated)
{
	struct cg_raw_frame f = cg_in_frame(in, i);

	return cg_in_parent(in, i) == parent && f.image == fr->image &&
	       f.addr == fr->addr &&
	       (parent != CG_NONE ||
		!(in->flags[i] & CG_IN_TRUNCATED) == !truncated);
}

/* The slot of the callers' from the root down to the list at entry E
 * whose address is ADDR, or CG_NONE. */
static uint32_t caller_slot(const struct cg_input *in, uint32_t e,
			    uint64_t addr)
{
	for (; e != CG_NONE; e = in->cs_prev[e])
		if (in->cs_addr[e] == addr)
			return in->cs_slot[e];
	return CG_NONE;
}

/* Stack N's caller slots: its parent's, and its own address as a caller
 * when it is anonymous and new. */
static int caller_slots(struct cg_input *in, uint32_t n,
			const struct cg_raw_frame *fr)
{
	uint32_t parent = cg_in_parent(in, n);
	uint32_t head = parent == CG_NONE ? CG_NONE : in->cs_head[parent];
	uint64_t addr = cg_lookup_addr(1, fr->addr);
	uint32_t slot = CG_NONE;

	if (fr->image == CG_ANON &&
	    (slot = caller_slot(in, head, addr)) == CG_NONE) {
		if (in->nr_cs >= CG_NONE - 1 ||
		    oputil_grow(&in->cs_addr, &in->cap_cs_addr, in->nr_cs + 1,
				sizeof(*in->cs_addr)) ||
		    oputil_grow(&in->cs_slot, &in->cap_cs_slot, in->nr_cs + 1,
				sizeof(*in->cs_slot)) ||
		    oputil_grow(&in->cs_prev, &in->cap_cs_prev, in->nr_cs + 1,
				sizeof(*in->cs_prev)))
			return -ENOMEM;
		slot = cg_caller_slots(in, parent);
		in->cs_addr[in->nr_cs] = addr;
		in->cs_slot[in->nr_cs] = slot;
		in->cs_prev[in->nr_cs] = head;
		head = (uint32_t)in->nr_cs++;
	}
	in->cs_head[n] = head;
	in->cslot[n] = slot;
	return 0;
}

/* Room for stack N's own arrays; for one of its own (not the table's)
 * its frame and parent too. */
static int stack_room(struct cg_input *in, size_t n)
{
	size_t own = n >= in->nr_table ? n - in->nr_table + 1 : 0;

	if (n >= CG_NONE - 2)
		return -ENOMEM;
	if (own && (oputil_grow(&in->frames, &in->cap_frames, own,
				sizeof(*in->frames)) ||
		    oputil_grow(&in->parent, &in->cap_parent, own,
				sizeof(*in->parent))))
		return -ENOMEM;
	if (oputil_grow(&in->flags, &in->cap_flags, n + 1,
			sizeof(*in->flags)) ||
	    oputil_grow(&in->cs_head, &in->cap_cs_head, n + 1,
			sizeof(*in->cs_head)) ||
	    oputil_grow(&in->cslot, &in->cap_cslot, n + 1,
			sizeof(*in->cslot)) ||
	    oputil_grow(&in->leaf_slot, &in->cap_leaf_slot, n + 1,
			sizeof(*in->leaf_slot)))
		return -ENOMEM;
	return 0;
}

/* Stack N, whose frame is FR below PARENT (cut when TRUNCATED, and
 * with FLAGS), set up; its frame and parent in place already. */
static int stack_init(struct cg_input *in, uint32_t n, uint32_t parent,
		      const struct cg_raw_frame *fr, bool truncated,
		      uint8_t flags)
{
	/* a chain cut at its root is cut for every stack below */
	if (parent != CG_NONE)
		truncated = in->flags[parent] & CG_IN_TRUNCATED;
	in->flags[n] = flags | (truncated ? CG_IN_TRUNCATED : 0);
	in->leaf_slot[n] = CG_NONE;
	return caller_slots(in, n, fr);
}

/* Append stack FR below PARENT (cut when TRUNCATED) as id N. */
static int stack_append(struct cg_input *in, uint32_t parent,
			const struct cg_raw_frame *fr, bool truncated)
{
	size_t n = in->nr_stacks;

	if (stack_room(in, n))
		return -ENOMEM;
	in->frames[n - in->nr_table] = *fr;
	in->parent[n - in->nr_table] = parent;
	if (stack_init(in, (uint32_t)n, parent, fr, truncated, 0))
		return -ENOMEM;
	in->nr_stacks++;
	return 0;
}

int callgraph_add_table(struct callgraph *cg, const struct ops_session *s,
			const bool *stopped)
{
	struct cg_input *in = input_of(cg);
	uint32_t n = ops_session_nr_stacks(s), i, parent, flags;

	if (!in)
		return -ENOMEM;
	if (in->nr_stacks)
		return -EINVAL; /* the table's ids are the first */
	in->table = s;
	in->nr_table = n;
	if (n && stack_room(in, n - 1))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct cg_raw_frame fr = cg_raw_frame_of(
			ops_session_stack_top(s, i, &parent, &flags));

		/* the reader has checked that a parent comes first */
		if (stopped[i])
			fr.addr++;
		if (stack_init(in, i, parent, &fr, flags & OPS_STACK_TRUNCATED,
			       stopped[i] ? CG_IN_STOPPED : 0))
			return -ENOMEM;
		in->nr_stacks++;
	}
	return 0;
}

/* The stack of FRAME below PARENT in *ID, found among those
 * callgraph_add_stack added, or added. */
static int stack_intern(struct cg_input *in, uint32_t parent,
			const struct cg_raw_frame *frame, bool truncated,
			uint32_t *id)
{
	struct oputil_idxset_pos pos;
	uint64_t h;
	uint32_t i;

	if (parent != CG_NONE)
		truncated = in->flags[parent] & CG_IN_TRUNCATED;
	h = frame_hash(parent, frame, truncated);
	i = oputil_idxset_find(&in->stack_set, h, &pos, k,
			       in->stack_set.hash[k] == (uint32_t)h &&
				       stack_is(in, k, parent, frame,
						truncated));
	if (i != OPUTIL_IDXSET_NONE) {
		*id = i;
		return 0;
	}
	/* the set's entries are all of in->stacks: none are sparse */
	if (stack_append(in, parent, frame, truncated) ||
	    oputil_idxset_put(&in->stack_set, &pos,
			      (uint32_t)(in->nr_stacks - 1)) < 0)
		return -ENOMEM;
	*id = (uint32_t)(in->nr_stacks - 1);
	return 0;
}

int callgraph_add_stack(struct callgraph *cg,
			const struct cg_raw_frame *frames, size_t n,
			bool truncated, uint32_t *id)
{
	struct cg_input *in = input_of(cg);
	uint32_t parent = CG_NONE;
	int ret = 0;

	*id = CG_NONE;
	if (!in)
		return -ENOMEM;
	/* the kernel gives the leaf first; the tree grows from the root */
	while (n-- > 0 && !ret)
		ret = stack_intern(in, parent, &frames[n], truncated, &parent);
	*id = parent;
	return ret;
}

struct cg_raw_frame callgraph_stack_leaf(const struct callgraph *cg,
					 uint32_t id)
{
	return cg_in_frame(cg->in, id);
}

/* Stack ID is a sample's: note it a leaf, its callers callers, and its
 * slots: its callers', then its leaf's address when no caller has it. */
static void stack_used(struct cg_input *in, uint32_t id)
{
	uint32_t parent = cg_in_parent(in, id),
		 n = cg_caller_slots(in, parent);
	uint32_t head = parent == CG_NONE ? CG_NONE : in->cs_head[parent];
	struct cg_raw_frame fr = cg_in_frame(in, id);
	uint32_t p, leaf = CG_NONE;

	in->flags[id] |= CG_IN_LEAF;
	/* a caller marked has its own callers marked */
	for (p = parent; p != CG_NONE && !(in->flags[p] & CG_IN_CALLER);
	     p = cg_in_parent(in, p))
		in->flags[p] |= CG_IN_CALLER;
	if (fr.image == CG_ANON &&
	    (leaf = caller_slot(in, head, fr.addr)) == CG_NONE)
		leaf = n++;
	in->leaf_slot[id] = leaf;
	if (n > in->max_slots)
		in->max_slots = n;
}

void cg_input_slots(const struct cg_input *in, uint32_t id, uint64_t *addr,
		    uint32_t *weight)
{
	uint32_t parent = cg_in_parent(in, id), leaf = in->leaf_slot[id];
	uint32_t e, p;

	if (addr) {
		for (e = parent == CG_NONE ? CG_NONE : in->cs_head[parent];
		     e != CG_NONE; e = in->cs_prev[e])
			addr[in->cs_slot[e]] = in->cs_addr[e];
		if (leaf != CG_NONE)
			addr[leaf] = cg_in_frame(in, id).addr;
	}
	if (!weight)
		return;
	memset(weight, 0, cg_slots_n(in, id) * sizeof(*weight));
	/* each caller's own slot, as many times as the stack passes it */
	for (p = parent; p != CG_NONE; p = cg_in_parent(in, p))
		if (in->cslot[p] != CG_NONE)
			weight[in->cslot[p]]++;
	if (leaf != CG_NONE)
		weight[leaf]++;
}

void cg_input_named(struct cg_input *in)
{
	/* the callers' addresses; their slots' numbers stay, which the
	 * model's classes compare */
	free(in->cs_addr);
	free(in->cs_prev);
	in->cs_addr = NULL;
	in->cs_prev = NULL;
	in->cap_cs_addr = in->cap_cs_prev = 0;
	oputil_idxset_free(&in->stack_set);
}

void cg_input_classed(struct cg_input *in)
{
	free(in->samples);
	in->samples = NULL;
	in->nr_samples = in->cap_samples = 0;
}

/* CTX's index in IN's contexts, added when new, into *AT. */
static int ctx_intern(struct cg_input *in, const struct cg_raw_ctx *ctx,
		      uint32_t *at)
{
	const struct cg_raw_ctx *v = in->ctxs;
	struct oputil_idxset_pos pos;
	uint64_t h;
	uint32_t i;

	/* a process's samples, and a context's counts, come together */
	if (in->nr_ctxs) {
		i = (uint32_t)in->nr_ctxs - 1;
		if (v[i].app == ctx->app && v[i].proc == ctx->proc &&
		    v[i].tgid == ctx->tgid) {
			*at = i;
			return 0;
		}
	}
	h = oputil_hash_u64(oputil_hash_word(
		oputil_hash_word(oputil_hash_word(OPUTIL_HASH_SEED, ctx->app),
				 ctx->proc),
		ctx->tgid));
	i = oputil_idxset_find(&in->ctx_set, h, &pos, k,
			       v[k].app == ctx->app &&
				       v[k].proc == ctx->proc &&
				       v[k].tgid == ctx->tgid);
	if (i == OPUTIL_IDXSET_NONE) {
		if (in->nr_ctxs >= UINT32_MAX - 1 ||
		    oputil_grow(&in->ctxs, &in->cap_ctxs, in->nr_ctxs + 1,
				sizeof(*in->ctxs)) ||
		    oputil_idxset_put(&in->ctx_set, &pos,
				      (uint32_t)in->nr_ctxs) < 0)
			return -ENOMEM;
		i = (uint32_t)in->nr_ctxs;
		in->ctxs[in->nr_ctxs++] = *ctx;
	}
	*at = i;
	return 0;
}

static int add_samples(struct callgraph *cg, const struct cg_raw_ctx *ctx,
		       uint32_t id, uint64_t time_ns, uint32_t slice,
		       uint64_t count)
{
	struct cg_input *in = cg->in;
	uint32_t c;

	if (!count)
		return 0;
	if (!(in->flags[id] & CG_IN_LEAF))
		stack_used(in, id);
	if (oputil_grow(&in->samples, &in->cap_samples, in->nr_samples + 1,
			sizeof(*in->samples)))
		return -ENOMEM;
	if (ctx_intern(in, ctx, &c))
		return -ENOMEM;
	in->samples[in->nr_samples++] =
		(struct cg_sample_in){ c, id, slice, time_ns, count };
	in->nr_sample_slots += cg_slots_n(in, id);
	return 0;
}

/* The time slice of a sample at TIME_NS, as the timeline puts a sample
 * in its bucket: one before the start in the first. */
static uint32_t slice_of(const struct callgraph *cg, uint64_t time_ns)
{
	uint64_t slice = time_ns > cg->start_ns
				 ? (time_ns - cg->start_ns) / OPS_SLICE_NS
				 : 0;

	return slice < CG_NO_SLICE ? (uint32_t)slice : CG_NO_SLICE - 1;
}

int callgraph_add_samples(struct callgraph *cg, const struct cg_raw_ctx *ctx,
			  uint32_t id, uint64_t time_ns, uint64_t count)
{
	return add_samples(cg, ctx, id, time_ns, slice_of(cg, time_ns), count);
}

int callgraph_sum_sample(struct callgraph *cg, uint32_t id, uint64_t time_ns)
{
	struct cg_input *in = cg->in;
	struct cg_sum *v = in->sums;
	struct oputil_idxset_pos pos;
	uint32_t slice = slice_of(cg, time_ns), i;
	/* FNV's low bits see only the inputs' low bits: mix them */
	uint64_t h = oputil_hash_u64(oputil_hash_word(
		oputil_hash_word(OPUTIL_HASH_SEED, id), slice));

	i = oputil_idxset_find(&in->sum_set, h, &pos, k,
			       v[k].stack == id && v[k].slice == slice);
	if (i != OPUTIL_IDXSET_NONE) {
		v[i].count++;
		return 0;
	}
	if (in->nr_sums >= UINT32_MAX - 1 ||
	    oputil_grow(&in->sums, &in->cap_sums, in->nr_sums + 1,
			sizeof(*in->sums)) ||
	    oputil_idxset_put(&in->sum_set, &pos, (uint32_t)in->nr_sums) < 0)
		return -ENOMEM;
	in->sums[in->nr_sums++] = (struct cg_sum){ id, slice, time_ns, 1 };
	return 0;
}

int callgraph_sum_flush(struct callgraph *cg, const struct cg_raw_ctx *ctx)
{
	struct cg_input *in = cg->in;
	size_t i;
	int ret = 0;

	/* in the order they were met: a class is made at its first
	 * sample, as when each sample is added */
	oputil_idxset_free(&in->sum_set);
	for (i = 0; i < in->nr_sums && !ret; i++)
		ret = add_samples(cg, ctx, in->sums[i].stack,
				  in->sums[i].time_ns, in->sums[i].slice,
				  in->sums[i].count);
	free(in->sums);
	in->sums = NULL;
	in->nr_sums = in->cap_sums = 0;
	return ret;
}

int callgraph_add_counted(struct callgraph *cg, const struct cg_raw_ctx *ctx,
			  uint32_t id, uint32_t slice, uint64_t count)
{
	return add_samples(cg, ctx, id, 0, slice, count);
}

int callgraph_add(struct callgraph *cg, const struct cg_raw_ctx *ctx,
		  const struct cg_raw_frame *frames, size_t n,
		  uint64_t time_ns, uint64_t count, bool truncated)
{
	uint32_t id;

	if (!n || !count)
		return 0;
	return callgraph_add_stack(cg, frames, n, truncated, &id)
		       ?: callgraph_add_samples(cg, ctx, id, time_ns, count);
}

void cg_input_free(struct cg_input *in)
{
	if (!in)
		return;
	free(in->frames);
	free(in->parent);
	free(in->flags);
	free(in->cs_head);
	free(in->cslot);
	free(in->leaf_slot);
	free(in->cs_addr);
	free(in->cs_slot);
	free(in->cs_prev);
	oputil_idxset_free(&in->stack_set);
	free(in->samples);
	free(in->ctxs);
	oputil_idxset_free(&in->ctx_set);
	oputil_idxset_free(&in->sum_set);
	free(in->sums);
	free(in);
}
