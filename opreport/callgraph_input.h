/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The call graph's raw input, as the session gives it: a tree of stacks,
 * each a frame below the stack of its callers, and the samples that name
 * one.  A JIT's stacks repeat, sample after sample, and share their
 * callers, while each sample has its own time: a frame in a file or the
 * kernel is kept (and named) once however many stacks pass through it,
 * and per sample only the anonymous addresses that must be named at its
 * time are.
 *
 * A stack's anonymous frames are its slots, one per distinct address
 * looked up (return address - 1 for a caller): a recursion returns to
 * one address many times, and it is named once a sample.  The slots of
 * the callers are numbered from the root, so that the stacks below a
 * caller agree on the numbers of the slots above it; the leaf's address,
 * when no caller has it, comes last.
 */
#ifndef OPREPORT_CALLGRAPH_INPUT_H
#define OPREPORT_CALLGRAPH_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <oputil/idxset.h>

#include "callgraph.h"

/* cg_input.flags */
#define CG_IN_TRUNCATED 0x1 /* the chain was cut: its root is not the root */
#define CG_IN_LEAF 0x2	    /* the leaf of some sample's stack */
#define CG_IN_CALLER 0x4    /* a caller in some sample's stack */
/* a frame of the session's table that a kernel frame below it stopped:
 * looked up one byte on, as a leaf (profile.c's stopped_addr) */
#define CG_IN_STOPPED 0x8

struct cg_sample_in {
	uint32_t ctx; /* its index in cg_input.ctxs */
	uint32_t stack;
	uint32_t slice; /* its time slice, or CG_NO_SLICE */
	uint64_t time_ns;
	uint64_t count;
};

/* A timeless process's samples of one stack in one time slice, summed
 * (callgraph_sum_sample), with the time of the first. */
struct cg_sum {
	uint32_t stack, slice;
	uint64_t time_ns, count;
};

struct cg_input {
	/* stacks 0 .. nr_table - 1 are the session's table, as it is
	 * (callgraph_add_table): their frames and parents are read from
	 * it, not copied, the larger part of a JIT session's tree; stack
	 * I from nr_table on is frames[I - nr_table] below stack
	 * parent[I - nr_table] (CG_NONE at a root) */
	const struct ops_session *table;
	uint32_t nr_table;
	struct cg_raw_frame *frames;
	uint32_t *parent;
	uint8_t *flags;
	/* stack I as a caller: the slots of the callers from the root down
	 * to it, a list from entry cs_head[I] (CG_NONE: none) back to the
	 * root's, and its own slot, cslot[I] (CG_NONE: not anonymous) */
	uint32_t *cs_head, *cslot;
	/* a CG_IN_LEAF stack's slots (cg_slots_n): the callers' and,
	 * when none of them has the leaf's address, the leaf's; the leaf's
	 * slot is leaf_slot[I] (CG_NONE: not anonymous); their addresses
	 * and weights are put together when asked for (cg_input_slots) */
	uint32_t *leaf_slot;
	size_t nr_stacks, cap_frames, cap_parent, cap_flags, cap_cs_head,
		cap_cslot, cap_leaf_slot;
	uint32_t max_slots;		/* the most slots a leaf stack has */
	struct oputil_idxset stack_set; /* by (parent, frame, truncated) */
	/* list entries: a caller slot's address, its number, the entry of
	 * the slot before */
	uint64_t *cs_addr;
	uint32_t *cs_slot, *cs_prev;
	size_t nr_cs, cap_cs_addr, cap_cs_slot, cap_cs_prev;
	struct cg_sample_in *samples;
	size_t nr_samples, cap_samples;
	/* the samples' contexts, each once: a few, where the samples are
	 * one a JIT sample of a stack of its own */
	struct cg_raw_ctx *ctxs;
	size_t nr_ctxs, cap_ctxs;
	struct oputil_idxset ctx_set;
	/* the slots of all samples: the sum of their stacks' */
	size_t nr_sample_slots;
	/* the process's samples being summed, by (stack, slice) */
	struct cg_sum *sums;
	size_t nr_sums, cap_sums;
	struct oputil_idxset sum_set;
};

/* Stack ID's own frame (its leaf). */
static inline struct cg_raw_frame cg_in_frame(const struct cg_input *in,
					      uint32_t id)
{
	uint32_t parent, flags;
	struct cg_raw_frame fr;

	if (id >= in->nr_table)
		return in->frames[id - in->nr_table];
	fr = cg_raw_frame_of(
		ops_session_stack_top(in->table, id, &parent, &flags));
	if (in->flags[id] & CG_IN_STOPPED)
		fr.addr++;
	return fr;
}

/* The stack of stack ID's callers, CG_NONE at a root. */
static inline uint32_t cg_in_parent(const struct cg_input *in, uint32_t id)
{
	uint32_t parent, flags;

	if (id >= in->nr_table)
		return in->parent[id - in->nr_table];
	ops_session_stack_top(in->table, id, &parent, &flags);
	/* the table's root is UINT32_MAX, which is CG_NONE */
	return parent;
}

/* Whose stack sample SMP's is. */
static inline const struct cg_raw_ctx *
cg_sample_ctx(const struct cg_input *in, const struct cg_sample_in *smp)
{
	return &in->ctxs[smp->ctx];
}

/* The address frame F (leaf first) of a stack is looked up at. */
static inline uint64_t cg_lookup_addr(uint32_t f, uint64_t addr)
{
	return f && addr ? addr - 1 : addr;
}

/* The number of slots the callers from the root down to stack ID have,
 * ID's own included (0 for CG_NONE). */
static inline uint32_t cg_caller_slots(const struct cg_input *in, uint32_t id)
{
	uint32_t e = id == CG_NONE ? CG_NONE : in->cs_head[id];

	return e == CG_NONE ? 0 : in->cs_slot[e] + 1;
}

/* The slots of stack ID, a sample's leaf stack: its callers', and one
 * more when its leaf's address is none of theirs (leaf_slot is then
 * the one after the callers'). */
static inline uint32_t cg_slots_n(const struct cg_input *in, uint32_t id)
{
	uint32_t n = cg_caller_slots(in, cg_in_parent(in, id));

	return in->leaf_slot[id] == n ? n + 1 : n;
}

/* The slots of stack ID, a sample's leaf stack, cg_slots_n() of
 * them: the address each is looked up at into ADDR, and into WEIGHT
 * the frames of the stack each stands for (a recursion returns to one
 * address many times); either may be NULL.  Put together from the
 * callers' list and a walk to the root rather than kept: a JIT's
 * samples have a stack each, and their slots were most of its input. */
void cg_input_slots(const struct cg_input *in, uint32_t id, uint64_t *addr,
		    uint32_t *weight);

/* What only the naming needed, freed once the frames are named. */
void cg_input_named(struct cg_input *in);
/* The samples, freed once they are gathered into classes. */
void cg_input_classed(struct cg_input *in);

void cg_input_free(struct cg_input *in);

#endif
