/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the two halves of the call graph's naming share: callgraph_name.c
 * names the frames in files and the kernel and interns every name;
 * callgraph_anon.c names the anonymous frames, each sample's at its
 * time, through the handlers.  Private to them.
 *
 * The functions that can fail return -ENOMEM (-EINVAL for a frame the
 * session cannot name) and report nothing: the caller does.  What a
 * handler did wrong the loader has said.
 */
#ifndef OPREPORT_CALLGRAPH_NAME_PRIV_H
#define OPREPORT_CALLGRAPH_NAME_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include <oputil/idxset.h>

#include "callgraph_name.h"

/* A distinct address looked up in an image (frames in files and the
 * kernel) or a process (anonymous frames), with how many frames are
 * there, where they go once the addresses are sorted, and its index
 * from before. */
struct key_addr {
	uint32_t key, idx;
	uint64_t addr;
	size_t n, at;
};

/* The distinct (key, address) pairs, in the order they were met. */
struct key_addrs {
	struct key_addr *v;
	size_t n, cap;
	struct oputil_idxset set;
};

struct name_ctx {
	struct cg_names *nm;
	struct callgraph *cg;
	const struct cg_sources *src;
	uint32_t *image_named; /* where resolve_image puts the names */
};

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* The index in A of (KEY, ADDR) in *ID, added when new; one more frame
 * counted there. */
int key_addr_of(struct key_addrs *a, uint32_t key, uint64_t addr,
		uint32_t *id);

/* A's pairs sorted by (key, address), its set gone. */
void key_addrs_sort(struct key_addrs *a);

/* The name, in *ID, of a frame of PROTO in symbol SYM at site AT (NULL:
 * not known), inlined into the N functions INL (nearest caller first),
 * the K-th at site INL_AT[k]. */
int named_intern(struct name_ctx *nc, const struct cg_node *proto,
		 const struct report_sym *sym, const struct cg_site *at,
		 const struct report_sym *const *inl,
		 const struct cg_site *inl_at, uint32_t n, uint32_t *id);

/* A node prototype (no symbol, no counts) kept as long as the report. */
const struct cg_node *proto_new(struct report *r, const struct cg_node *n);

/*
 * The anonymous frames into NC->nm->slot_named, each sample's slots at
 * its time, through the handler that claims each process; the slots of
 * samples of no known process are UNKNOWN.
 */
int cg_name_anon_slots(struct name_ctx *nc, uint32_t unknown);

#endif
