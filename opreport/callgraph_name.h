/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Naming the call graph's frames: each ELF image's frames in one sorted
 * batch through image_bfd (with -g, DWARF's inline chains and lines),
 * the kernel's through kallsyms, each process's anonymous frames in one
 * sorted (address, time) batch through the handler that claims it.
 *
 * What names a frame, apart from whose stack it is in, is interned: a
 * JIT's samples name the same few functions again and again, and equal
 * names as equal ids is what lets the call graph gather equal samples
 * before it builds their stacks.
 */
#ifndef OPREPORT_CALLGRAPH_NAME_H
#define OPREPORT_CALLGRAPH_NAME_H

#include <stddef.h>
#include <stdint.h>

#include <oputil/idxset.h>

#include "callgraph.h"

/* What names one frame, but for whose stack it is. */
struct cg_named {
	const struct cg_node *proto; /* kind, image, image_id, handler */
	const struct report_sym *sym;
	uint32_t site; /* index in callgraph.sites */
	/* the functions the code was inlined into, nearest caller first,
	 * out to the one whose code it is: inl_n symbols and the sites of
	 * the inlining at cg_names.inl_syms and inl_sites + inl_at */
	uint32_t inl_n;
	size_t inl_at;
};

struct cg_names {
	struct cg_named *named;
	size_t nr_named, cap_named;
	const struct report_sym **inl_syms;
	uint32_t *inl_sites;
	size_t nr_inl, cap_inl_syms, cap_inl_sites;
	/* per stack of the input: the name of its leaf frame, when it is
	 * a sample's leaf, and as a caller, when it is one; CG_NONE for
	 * anonymous frames, which are named per sample */
	uint32_t *leaf_named, *caller_named;
	/* per slot of each sample, samples in order: its name */
	uint32_t *slot_named;
	/* the private tables of the naming */
	struct oputil_idxset named_set, site_set, dwarf_set;
	size_t cap_sites;
	struct dwarf_fn *dwarf_fns;
	size_t nr_dwarf_fns, cap_dwarf_fns;
};

/*
 * Name every frame of CG's input into NM (zeroed): frames in files and
 * the kernel once per distinct (image, address), anonymous ones once per
 * sample slot.  Interns CG's sites, site 0 the unknown one.  0, or a negative
 * errno (not reported): -ENOMEM, or -EINVAL for a frame of an image or
 * process the session does not have.  A handler that fails has been
 * reported by the loader, and its process's frames stay anonymous.
 */
int cg_names_resolve(struct cg_names *nm, struct callgraph *cg,
		     const struct cg_sources *src);

void cg_names_free(struct cg_names *nm);

#endif
