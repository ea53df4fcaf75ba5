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
 * one address many times, and it is named once a sample.  Slots are
 * numbered from the leaf up, in the order cg_path_next() meets them.
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
	uint64_t time_ns;
	uint64_t count;
};

struct cg_input {
	/* stack I: frames[I] below stack parent[I] (CG_NONE at a root) */
	struct cg_raw_frame *frames;
	uint32_t *parent;
	uint8_t *flags;
	/* a CG_IN_LEAF stack's slots: slot_addr and slot_weight (the
	 * frames each stands for) from slots_at[I], slots_n[I] of them */
	uint32_t *slots_at, *slots_n;
	size_t nr_stacks, cap_frames, cap_parent, cap_flags, cap_slots_at,
		cap_slots_n;
	struct oputil_idxset stack_set; /* by (parent, frame, truncated) */
	uint64_t *slot_addr;
	uint32_t *slot_weight;
	size_t nr_slots, cap_slot_addr, cap_slot_weight;
	struct cg_sample_in *samples;
	size_t nr_samples, cap_samples;
	/* the slots of all samples: the sum of their stacks' nr_slots */
	size_t nr_sample_slots;
	struct frames_seen *seen; /* cg_path's scratch */
};

/* The address frame F (leaf first) of a stack is looked up at. */
static inline uint64_t cg_lookup_addr(uint32_t f, uint64_t addr)
{
	return f && addr ? addr - 1 : addr;
}

/* A walk up a stack from its leaf. */
struct cg_path {
	struct cg_input *in;
	uint32_t stack; /* the next frame's, CG_NONE past the root */
	uint32_t f;	/* its place, 0 the leaf */
	uint32_t nr_slots;
};

/* Start walking stack ID.  -ENOMEM (not reported), or 0. */
int cg_path_start(struct cg_path *w, struct cg_input *in, uint32_t id);

/* The next frame: the stack it is the leaf of in *STACK, its place in
 * *F (0 the leaf) and, when it is anonymous, its slot in *SLOT (else
 * CG_NONE).  False past the root. */
bool cg_path_next(struct cg_path *w, uint32_t *stack, uint32_t *f,
		  uint32_t *slot);

void cg_input_free(struct cg_input *in);

#endif
