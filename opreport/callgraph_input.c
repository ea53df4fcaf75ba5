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
	return in->parent[i] == parent && in->frames[i].image == fr->image &&
	       in->frames[i].addr == fr->addr &&
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
static int caller_slots(struct cg_input *in, uint32_t n)
{
	uint32_t parent = in->parent[n];
	uint32_t head = parent == CG_NONE ? CG_NONE : in->cs_head[parent];
	uint64_t addr = cg_lookup_addr(1, in->frames[n].addr);
	uint32_t slot = CG_NONE;

	if (in->frames[n].image == CG_ANON &&
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

/* Append stack FR below PARENT (cut when TRUNCATED) as id N. */
static int stack_append(struct cg_input *in, uint32_t parent,
			const struct cg_raw_frame *fr, bool truncated)
{
	size_t n = in->nr_stacks;

	if (n >= CG_NONE - 2 ||
	    oputil_grow(&in->frames, &in->cap_frames, n + 1,
			sizeof(*in->frames)) ||
	    oputil_grow(&in->parent, &in->cap_parent, n + 1,
			sizeof(*in->parent)) ||
	    oputil_grow(&in->flags, &in->cap_flags, n + 1,
			sizeof(*in->flags)) ||
	    oputil_grow(&in->cs_head, &in->cap_cs_head, n + 1,
			sizeof(*in->cs_head)) ||
	    oputil_grow(&in->cslot, &in->cap_cslot, n + 1,
			sizeof(*in->cslot)) ||
	    oputil_grow(&in->slots_at, &in->cap_slots_at, n + 1,
			sizeof(*in->slots_at)) ||
	    oputil_grow(&in->slots_n, &in->cap_slots_n, n + 1,
			sizeof(*in->slots_n)) ||
	    oputil_grow(&in->leaf_slot, &in->cap_leaf_slot, n + 1,
			sizeof(*in->leaf_slot)))
		return -ENOMEM;
	in->frames[n] = *fr;
	in->parent[n] = parent;
	/* a chain cut at its root is cut for every stack below */
	in->flags[n] = (parent != CG_NONE ? in->flags[parent] & CG_IN_TRUNCATED
					  : truncated)
			       ? CG_IN_TRUNCATED
			       : 0;
	in->slots_at[n] = in->slots_n[n] = 0;
	in->leaf_slot[n] = CG_NONE;
	if (caller_slots(in, (uint32_t)n))
		return -ENOMEM;
	in->nr_stacks++;
	return 0;
}

int callgraph_add_frame(struct callgraph *cg, uint32_t parent,
			const struct cg_raw_frame *frame, bool truncated,
			uint32_t *id)
{
	struct cg_input *in = input_of(cg);

	if (!in || stack_append(in, parent, frame, truncated))
		return -ENOMEM;
	*id = (uint32_t)(in->nr_stacks - 1);
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

const struct cg_raw_frame *callgraph_stack_leaf(const struct callgraph *cg,
						uint32_t id)
{
	return &cg->in->frames[id];
}

/* Stack ID is a sample's: note it a leaf, its callers callers, and its
 * slots: its callers', then its leaf's address when no caller has it. */
static int stack_used(struct cg_input *in, uint32_t id)
{
	uint32_t parent = in->parent[id], n = cg_caller_slots(in, parent);
	uint32_t head = parent == CG_NONE ? CG_NONE : in->cs_head[parent];
	uint64_t addr = in->frames[id].addr;
	size_t at = in->nr_slots;
	uint32_t e, p, leaf = CG_NONE;

	in->flags[id] |= CG_IN_LEAF;
	/* a caller marked has its own callers marked */
	for (p = parent; p != CG_NONE && !(in->flags[p] & CG_IN_CALLER);
	     p = in->parent[p])
		in->flags[p] |= CG_IN_CALLER;
	if (in->frames[id].image == CG_ANON &&
	    (leaf = caller_slot(in, head, addr)) == CG_NONE)
		leaf = n++;
	if (at + n >= UINT32_MAX ||
	    oputil_grow(&in->slot_addr, &in->cap_slot_addr, at + n,
			sizeof(*in->slot_addr)))
		return -ENOMEM;
	for (e = head; e != CG_NONE; e = in->cs_prev[e])
		in->slot_addr[at + in->cs_slot[e]] = in->cs_addr[e];
	if (leaf != CG_NONE)
		in->slot_addr[at + leaf] = addr;
	in->slots_at[id] = (uint32_t)at;
	in->slots_n[id] = n;
	in->leaf_slot[id] = leaf;
	in->nr_slots = at + n;
	return 0;
}

/* Stack T entered (IN true) or left in the walk of cg_input_weigh():
 * the weights of a sample's leaf, then T's own caller slot counted for
 * the stacks below it. */
static void weigh_visit(struct cg_input *in, uint32_t *cnt, uint32_t t,
			bool enter)
{
	uint32_t k, n;

	if (!enter) {
		if (in->cslot[t] != CG_NONE)
			cnt[in->cslot[t]]--;
		return;
	}
	if (in->flags[t] & CG_IN_LEAF) {
		uint32_t *w = in->slot_weight + in->slots_at[t];

		n = cg_caller_slots(in, in->parent[t]);
		for (k = 0; k < in->slots_n[t]; k++)
			w[k] = k < n ? cnt[k] : 0;
		if (in->leaf_slot[t] != CG_NONE)
			w[in->leaf_slot[t]]++;
	}
	if (in->cslot[t] != CG_NONE)
		cnt[in->cslot[t]]++;
}

int cg_input_weigh(struct cg_input *in)
{
	uint32_t *child = NULL, *sib = NULL, *cnt = NULL;
	size_t *todo = NULL, i, n = in->nr_stacks, nt = 0;
	int ret = -ENOMEM;

	if (oputil_grow(&in->slot_weight, &in->cap_slot_weight,
			in->nr_slots ? in->nr_slots : 1,
			sizeof(*in->slot_weight)))
		return -ENOMEM;
	/* the tree walked from each root, each stack's count of every
	 * caller slot held on the way down: no stack is walked to its
	 * root, and each is visited once */
	child = malloc((n + 1) * sizeof(*child));
	sib = malloc((n ? n : 1) * sizeof(*sib));
	cnt = calloc(in->nr_cs + 1, sizeof(*cnt));
	todo = malloc((n ? 2 * n : 1) * sizeof(*todo));
	if (!child || !sib || !cnt || !todo)
		goto out;
	/* child[n] lists the roots */
	for (i = 0; i <= n; i++)
		child[i] = CG_NONE;
	for (i = n; i-- > 0;) {
		uint32_t up = in->parent[i] == CG_NONE ? (uint32_t)n
						       : in->parent[i];

		if (!(in->flags[i] & (CG_IN_LEAF | CG_IN_CALLER)))
			continue; /* no sample's stack passes here */
		sib[i] = child[up];
		child[up] = (uint32_t)i;
	}
	/* stack T to enter is pushed as 2T, to leave as 2T + 1 */
	for (i = child[n]; i != CG_NONE; i = sib[i])
		todo[nt++] = 2 * i;
	while (nt) {
		size_t x = todo[--nt];
		uint32_t t = (uint32_t)(x / 2), c;

		weigh_visit(in, cnt, t, !(x & 1));
		if (x & 1)
			continue;
		todo[nt++] = x + 1;
		for (c = child[t]; c != CG_NONE; c = sib[c])
			todo[nt++] = 2 * (size_t)c;
	}
	ret = 0;
out:
	free(child);
	free(sib);
	free(cnt);
	free(todo);
	return ret;
}

static int add_samples(struct callgraph *cg, const struct cg_raw_ctx *ctx,
		       uint32_t id, uint64_t time_ns, uint32_t slice,
		       uint64_t count)
{
	struct cg_input *in = cg->in;
	int ret;

	if (!count)
		return 0;
	if (!(in->flags[id] & CG_IN_LEAF) && (ret = stack_used(in, id)))
		return ret;
	if (oputil_grow(&in->samples, &in->cap_samples, in->nr_samples + 1,
			sizeof(*in->samples)))
		return -ENOMEM;
	in->samples[in->nr_samples++] =
		(struct cg_sample_in){ *ctx, id, slice, time_ns, count };
	in->nr_sample_slots += in->slots_n[id];
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
	free(in->slots_at);
	free(in->slots_n);
	free(in->leaf_slot);
	free(in->cs_addr);
	free(in->cs_slot);
	free(in->cs_prev);
	oputil_idxset_free(&in->stack_set);
	free(in->slot_addr);
	free(in->slot_weight);
	free(in->samples);
	oputil_idxset_free(&in->sum_set);
	free(in->sums);
	free(in);
}
