/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The time slices of counted samples: samples.hist keeps each count
 * (flat, stack, stack copy) also split by the 100 ms slice it fell in
 * (FORMAT.md, TIME_SLICES).  The call graph takes a count's samples
 * slice by slice from here, so that each of its stacks knows when its
 * samples ran (the html page's time range), as a JIT's stacks know from
 * their samples' own times.
 */
#ifndef OPREPORT_SLICE_COUNTS_H
#define OPREPORT_SLICE_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#include <oputil/idxset.h>

#include "callgraph.h"

struct ops_session;

/* What a count is of: OPS_TIME_COUNTS (ctx, offset), OPS_TIME_STACKS
 * (ctx, stack) or OPS_TIME_COPIES (0, copy). */
struct slice_key {
	uint32_t kind, ctx;
	uint64_t key;
};

struct slice_count {
	uint32_t slice; /* from the session's start, OPS_SLICE_NS long */
	uint64_t left;	/* samples not yet taken */
};

/* One key's slices: v[first, first + n), in the order of their slices,
 * one entry a slice. */
struct slice_run {
	uint32_t first, n;
};

struct slice_group {
	struct slice_key k;
	struct slice_run r;
};

/* Found by key, not by a binary search of every count sorted: the counts
 * come from the session grouped by slice, and a dwarf recording has a
 * key for each of its ten thousand stack copies, which the report looks
 * up in their order.  A copy's run is at its id; the other keys' in a
 * hash set. */
struct slice_counts {
	struct slice_count *v; /* grouped by key */
	size_t n;
	struct slice_run *copy; /* by copy id (ctx 0) */
	size_t nr_copy;
	struct slice_group *g;
	size_t ng, cap_g;
	struct oputil_idxset set; /* of g, by key */
};

/* The slices of session S in its window.  0 or -ENOMEM (not
 * reported). */
int slice_counts_build(struct slice_counts *t, struct ops_session *s);
void slice_counts_free(struct slice_counts *t);

/* COUNT samples of K into CG, stack ID of CTX: each in its slice while
 * K's slices have samples left, the rest with no slice.  ALSO (or NULL):
 * a count that holds the same samples, taken from in the same slices (a
 * stack copy's samples are also its frame-pointer stack's).  0 or
 * -ENOMEM (not reported). */
int slice_counts_add(struct slice_counts *t, struct callgraph *cg,
		     const struct cg_raw_ctx *ctx, uint32_t id,
		     const struct slice_key *k, const struct slice_key *also,
		     uint64_t count);

#endif
