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

struct cg_sample_in {
	struct cg_raw_ctx ctx;
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
	/* stack I: frames[I] below stack parent[I] (CG_NONE at a root) */
	struct cg_raw_frame *frames;
	uint32_t *parent;
	uint8_t *flags;
	/* stack I as a caller: the slots of the callers from the root down
	 * to it, a list from entry cs_head[I] (CG_NONE: none) back to the
	 * root's, and its own slot, cslot[I] (CG_NONE: not anonymous) */
	uint32_t *cs_head, *cslot;
	/* a CG_IN_LEAF stack's slots: slot_addr and slot_weight (the
	 * frames each stands for) from slots_at[I], slots_n[I] of them, and
	 * the slot of its leaf, leaf_slot[I] (CG_NONE: not anonymous) */
	uint32_t *slots_at, *slots_n, *leaf_slot;
	size_t nr_stacks, cap_frames, cap_parent, cap_flags, cap_cs_head,
		cap_cslot, cap_slots_at, cap_slots_n, cap_leaf_slot;
	struct oputil_idxset stack_set; /* by (parent, frame, truncated) */
	/* list entries: a caller slot's address, its number, the entry of
	 * the slot before */
	uint64_t *cs_addr;
	uint32_t *cs_slot, *cs_prev;
	size_t nr_cs, cap_cs_addr, cap_cs_slot, cap_cs_prev;
	uint64_t *slot_addr;
	uint32_t *slot_weight;
	size_t nr_slots, cap_slot_addr, cap_slot_weight;
	struct cg_sample_in *samples;
	size_t nr_samples, cap_samples;
	/* the slots of all samples: the sum of their stacks' slots_n */
	size_t nr_sample_slots;
	/* the process's samples being summed, by (stack, slice) */
	struct cg_sum *sums;
	size_t nr_sums, cap_sums;
	struct oputil_idxset sum_set;
};

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

/* Fill every sample's leaf stack's slot_weight, once all samples are
 * in.  0 or -ENOMEM (not reported). */
int cg_input_weigh(struct cg_input *in);

void cg_input_free(struct cg_input *in);

#endif
