// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/hash.h>

#include "callgraph_input.h"

/* The anonymous addresses of one stack so far, in a table of
 * generations so that starting the next stack clears nothing. */
#define SEEN_SLOTS (2 * OPS_STACK_MAX_FRAMES)
struct frames_seen {
	uint64_t addr[SEEN_SLOTS];
	uint32_t slot[SEEN_SLOTS];
	uint32_t gen[SEEN_SLOTS];
	uint32_t cur, n; /* this stack's generation, its addresses */
};

/* The slot of this stack with ADDR, or CG_NONE and SLOT noted as the
 * one with ADDR (while the table is at most half full: past that, each
 * address gets a slot of its own). */
static uint32_t seen_slot(struct frames_seen *s, uint64_t addr, uint32_t slot)
{
	size_t h = (size_t)oputil_hash_u64(addr) & (SEEN_SLOTS - 1);

	for (; s->gen[h] == s->cur; h = (h + 1) & (SEEN_SLOTS - 1))
		if (s->addr[h] == addr)
			return s->slot[h];
	if (s->n == SEEN_SLOTS / 2)
		return CG_NONE;
	s->n++;
	s->gen[h] = s->cur;
	s->addr[h] = addr;
	s->slot[h] = slot;
	return CG_NONE;
}

int cg_path_start(struct cg_path *w, struct cg_input *in, uint32_t id)
{
	struct frames_seen *s = in->seen;

	if (!s && !(s = in->seen = calloc(1, sizeof(*in->seen))))
		return -ENOMEM;
	s->n = 0;
	if (++s->cur == 0) {
		memset(s->gen, 0, sizeof(s->gen));
		s->cur = 1;
	}
	*w = (struct cg_path){ in, id, 0, 0 };
	return 0;
}

bool cg_path_next(struct cg_path *w, uint32_t *stack, uint32_t *f,
		  uint32_t *slot)
{
	const struct cg_raw_frame *fr;

	if (w->stack == CG_NONE)
		return false;
	*stack = w->stack;
	*f = w->f++;
	*slot = CG_NONE;
	fr = &w->in->frames[w->stack];
	if (fr->image == CG_ANON) {
		*slot = seen_slot(w->in->seen, cg_lookup_addr(*f, fr->addr),
				  w->nr_slots);
		if (*slot == CG_NONE)
			*slot = w->nr_slots++;
	}
	w->stack = w->in->parent[w->stack];
	return true;
}

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
	    oputil_grow(&in->slots_at, &in->cap_slots_at, n + 1,
			sizeof(*in->slots_at)) ||
	    oputil_grow(&in->slots_n, &in->cap_slots_n, n + 1,
			sizeof(*in->slots_n)))
		return -ENOMEM;
	in->frames[n] = *fr;
	in->parent[n] = parent;
	/* a chain cut at its root is cut for every stack below */
	in->flags[n] = (parent != CG_NONE ? in->flags[parent] : truncated)
			       ? CG_IN_TRUNCATED
			       : 0;
	in->slots_at[n] = in->slots_n[n] = 0;
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
 * slots. */
static int stack_used(struct cg_input *in, uint32_t id)
{
	struct cg_path w;
	uint32_t st, f, slot, p;
	int ret;

	in->flags[id] |= CG_IN_LEAF;
	/* a caller marked has its own callers marked */
	for (p = in->parent[id];
	     p != CG_NONE && !(in->flags[p] & CG_IN_CALLER); p = in->parent[p])
		in->flags[p] |= CG_IN_CALLER;
	ret = cg_path_start(&w, in, id);
	if (ret)
		return ret;
	if (in->nr_slots >= UINT32_MAX)
		return -ENOMEM;
	in->slots_at[id] = (uint32_t)in->nr_slots;
	while (cg_path_next(&w, &st, &f, &slot)) {
		size_t at = in->slots_at[id] + (size_t)slot;

		if (slot == CG_NONE)
			continue;
		if (slot == in->nr_slots - in->slots_at[id]) {
			if (at >= UINT32_MAX ||
			    oputil_grow(&in->slot_addr, &in->cap_slot_addr,
					at + 1, sizeof(*in->slot_addr)) ||
			    oputil_grow(&in->slot_weight, &in->cap_slot_weight,
					at + 1, sizeof(*in->slot_weight)))
				return -ENOMEM;
			in->slot_addr[at] =
				cg_lookup_addr(f, in->frames[st].addr);
			in->slot_weight[at] = 0;
			in->nr_slots++;
		}
		in->slot_weight[at]++;
	}
	in->slots_n[id] = w.nr_slots;
	return 0;
}

int callgraph_add_samples(struct callgraph *cg, const struct cg_raw_ctx *ctx,
			  uint32_t id, uint64_t time_ns, uint64_t count)
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
		(struct cg_sample_in){ *ctx, id, time_ns, count };
	in->nr_sample_slots += in->slots_n[id];
	return 0;
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
	free(in->slots_at);
	free(in->slots_n);
	oputil_idxset_free(&in->stack_set);
	free(in->slot_addr);
	free(in->slot_weight);
	free(in->samples);
	free(in->seen);
	free(in);
}
