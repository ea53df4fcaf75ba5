/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A set of byte strings numbered 0, 1, 2... in insertion order: the
 * writer's deduplication of images and contexts.  The key is the record
 * exactly as it goes on disk, so the bytes serve both jobs.
 */
#ifndef OPS_KEYSET_INTERNAL_H
#define OPS_KEYSET_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <oputil/idxset.h>

#include "bytes_internal.h"

struct ops_keyset {
	struct ops_buf arena; /* the keys from base on, back to back */
	/* key i is arena[off[i - base], off[i - base + 1]) */
	size_t *off;
	uint32_t nr, cap;
	uint32_t base; /* the keys below it are forgotten (appended only) */
	struct oputil_idxset set; /* the ids, found by their key */
};

/* Find KEY or add it; *ID is its number either way. */
int ops_keyset_add(struct ops_keyset *ks, const void *key, size_t len,
		   uint32_t *id);
/* Add KEY, which the caller knows is not in KS (a stack node whose
 * parent the same stack has just added, so that no key names it yet):
 * the probe only looks for a free slot.  A key already there would be
 * added twice. */
int ops_keyset_add_new(struct ops_keyset *ks, const void *key, size_t len,
		       uint32_t *id);
/* Store KEY as the next id without indexing it, for a table whose owner
 * finds its keys another way (the stack writer's nodes): such a keyset
 * is never searched, as it may hold a key twice. */
int ops_keyset_append(struct ops_keyset *ks, const void *key, size_t len,
		      uint32_t *id);
/* Forget the keys of ids below N, of a keyset filled only by
 * ops_keyset_append: their ids stay taken, and the memory of the rest
 * is reused. */
void ops_keyset_forget(struct ops_keyset *ks, uint32_t n);
/* Key ID, which must not be forgotten. */
const uint8_t *ops_keyset_key(const struct ops_keyset *ks, uint32_t id,
			      size_t *len);
void ops_keyset_free(struct ops_keyset *ks);

#endif /* OPS_KEYSET_INTERNAL_H */
