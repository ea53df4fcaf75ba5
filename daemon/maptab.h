/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The executable mappings of one process: a sorted array of disjoint
 * ranges, looked up by binary search for every sample.
 */
#ifndef OPROFILED_MAPTAB_H
#define OPROFILED_MAPTAB_H

#include <stddef.h>
#include <stdint.h>

#define MAPTAB_ANON UINT32_MAX	 /* image of anonymous executable memory */
#define MAPTAB_NO_CTX UINT32_MAX /* no context cached yet */

struct maptab_entry {
	uint64_t start, end; /* [start, end) */
	uint64_t pgoff;	     /* file offset that START maps */
	uint32_t image;	     /* writer image id, or MAPTAB_ANON */
	uint32_t ctx;	     /* cached context id, or MAPTAB_NO_CTX */
	int32_t ctx_cpu;     /* the CPU the cached context was made for */
	uint32_t seen;	     /* anonymous range already given to the writer */
};

struct maptab {
	struct maptab_entry *v;
	size_t n, cap;
	size_t hot;   /* the entry found last, tried first; may be stale */
	uint64_t gen; /* new with every change of the mappings, 0: none yet */
};

/* Map [START, END) at file offset PGOFF of IMAGE, replacing whatever
 * overlapped it, as mmap does. */
int maptab_insert(struct maptab *t, uint64_t start, uint64_t end,
		  uint64_t pgoff, uint32_t image);
/* Forget whatever was mapped in [START, END), as a mapping of data
 * over it would. */
int maptab_remove(struct maptab *t, uint64_t start, uint64_t end);
/* The entry that holds ADDR, or NULL.  The one found last is tried
 * before the binary search: a busy process's samples mostly fall in the
 * mapping of the sample before. */
struct maptab_entry *maptab_find(struct maptab *t, uint64_t addr);
int maptab_copy(struct maptab *dst, const struct maptab *src);
void maptab_forget_contexts(struct maptab *t);
void maptab_clear(struct maptab *t);
void maptab_free(struct maptab *t);

static inline uint64_t maptab_offset(const struct maptab_entry *e,
				     uint64_t addr)
{
	return addr - e->start + e->pgoff;
}

#endif
