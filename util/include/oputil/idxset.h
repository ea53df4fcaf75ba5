/* SPDX-License-Identifier: MIT */
/*
 * A set of entries that live in their owner's array, found by content:
 * interned strings, a batch's symbols, a session's keys and cells, the
 * nodes of a call graph.  The owner keeps the entries, numbered as it
 * added them, because the numbers are what it writes or hands out; the
 * set keeps only where each one is.
 *
 * A slot is an entry's index + 1, four bytes, and a probe reads nothing
 * else before it asks the owner: the recorder probes a table of every
 * (context, offset) it has counted once a sample, and eight-byte slots
 * (index and hash), twice the memory to walk, made that measurably
 * slower.  The hashes are kept by entry instead, in an array indexed like
 * the owner's: an insertion appends to it, growing reads it in order and
 * asks the owner nothing (no callback, no string or stack hashed again),
 * and it costs four bytes an entry rather than four a slot.
 *
 * The equality test is an expression in the candidate's index, as in
 * oputil_partition(), so it is compiled into the probe loop: no callback
 * and no context to fill in.  A find says where the entry would go, so
 * that looking up a key and adding it hashes and probes once.
 *
 * Linear probing, at most half full, a power-of-two capacity; the low 32
 * bits of a hash place its entry, so they must be well mixed (those of
 * oputil/hash.h are).  No deletion: no owner takes entries out of its
 * array.  Not thread-safe: its owner locks.
 */
#ifndef OPUTIL_IDXSET_H
#define OPUTIL_IDXSET_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

#define OPUTIL_IDXSET_NONE UINT32_MAX

struct oputil_idxset {
	uint32_t *idx; /* per slot: its entry's index + 1, 0 when empty */
	size_t cap;    /* of idx: a power of two, or 0 */
	size_t nr;
	uint32_t *hash; /* per entry index: the low 32 bits of its hash */
	size_t cap_hash;
	bool sparse; /* the entries are not just 0 .. nr - 1 */
};

/* Where a find stopped: the slot of the entry it found, or the empty
 * slot the key would take.  Good until the set next changes. */
struct oputil_idxset_pos {
	size_t slot;
	uint32_t hash;
};

/*
 * The index of the entry whose key hashes to KEYHASH and for which the
 * expression EQ is true, or OPUTIL_IDXSET_NONE.  EQ is evaluated with
 * the variable named VAR (a uint32_t, declared here: use a name not
 * otherwise in scope) set to the index of each entry on KEYHASH's probe
 * sequence in turn.  POS, if not NULL, is where the find stopped, for
 * oputil_idxset_put().
 *
 *	i = oputil_idxset_find(&p->set, h, &pos, k, !strcmp(p->str[k], s));
 *	if (i == OPUTIL_IDXSET_NONE)
 *		... append s to p->str, then oputil_idxset_put(&p->set,
 *		    &pos, its index) ...
 */
#define oputil_idxset_find(set, keyhash, pos, var, eq)                  \
	({                                                              \
		const struct oputil_idxset *oputil_s_ = (set);          \
		struct oputil_idxset_pos *oputil_p_ = (pos);            \
		uint32_t oputil_h_ = (uint32_t)(keyhash);               \
		uint32_t oputil_r_ = OPUTIL_IDXSET_NONE, oputil_x_;     \
		size_t oputil_m_ = oputil_s_->cap - 1;                  \
		size_t oputil_i_ = oputil_h_ & oputil_m_;               \
		if (oputil_s_->cap) {                                   \
			for (; (oputil_x_ = oputil_s_->idx[oputil_i_]); \
			     oputil_i_ = (oputil_i_ + 1) & oputil_m_) { \
				uint32_t var = oputil_x_ - 1;           \
				if (eq) {                               \
					oputil_r_ = var;                \
					break;                          \
				}                                       \
			}                                               \
		}                                                       \
		if (oputil_p_) {                                        \
			oputil_p_->slot = oputil_i_;                    \
			oputil_p_->hash = oputil_h_;                    \
		}                                                       \
		oputil_r_;                                              \
	})

/* Room for N entries in all, of indices below N, without growing: 0,
 * or -ENOMEM with the set as it was.  Finds made before do not hold
 * across it. */
static inline int oputil_idxset_reserve(struct oputil_idxset *s, size_t n)
{
	size_t cap = s->cap ? s->cap : 64, i, j;
	uint32_t *idx;

	if (n > s->cap_hash &&
	    oputil_grow(&s->hash, &s->cap_hash, n, sizeof(*s->hash)))
		return -ENOMEM;
	if (n <= s->cap / 2)
		return 0;
	while (cap / 2 < n) {
		if (cap > SIZE_MAX / 2 / sizeof(*idx))
			return -ENOMEM;
		cap *= 2;
	}
	idx = calloc(cap, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	/* the entries move by their kept hashes: the owner is not asked */
	for (i = 0; i < (s->sparse ? s->cap : s->nr); i++) {
		/* entries 0 .. nr - 1 in order read the hashes in order */
		uint32_t x = s->sparse ? s->idx[i] : (uint32_t)i + 1;

		if (!x)
			continue;
		j = s->hash[x - 1] & (cap - 1);
		while (idx[j])
			j = (j + 1) & (cap - 1);
		idx[j] = x;
	}
	free(s->idx);
	s->idx = idx;
	s->cap = cap;
	return 0;
}

/*
 * Make the entry of index IDX (below OPUTIL_IDXSET_NONE) the one at POS,
 * where a find of its key stopped: added when that find found none, in
 * place of the one it found otherwise (a later definition of a key).
 * 0 when added, 1 when it replaced, -ENOMEM with the set as it was.
 */
static inline int oputil_idxset_put(struct oputil_idxset *s,
				    const struct oputil_idxset_pos *pos,
				    uint32_t idx)
{
	size_t i = pos->slot;

	if (idx >= s->cap_hash &&
	    oputil_grow(&s->hash, &s->cap_hash, (size_t)idx + 1,
			sizeof(*s->hash)))
		return -ENOMEM;
	if (s->cap && s->idx[i]) {
		s->idx[i] = idx + 1;
		s->hash[idx] = pos->hash;
		s->sparse = true;
		return 1;
	}
	if ((s->nr + 1) * 2 > s->cap) {
		if (oputil_idxset_reserve(s, s->nr + 1))
			return -ENOMEM;
		i = pos->hash & (s->cap - 1);
		while (s->idx[i])
			i = (i + 1) & (s->cap - 1);
	}
	s->idx[i] = idx + 1;
	s->hash[idx] = pos->hash;
	s->sparse |= idx != s->nr;
	s->nr++;
	return 0;
}

static inline size_t oputil_idxset_count(const struct oputil_idxset *s)
{
	return s->nr;
}

/* Empty, keeping the memory: for a set filled again and again. */
static inline void oputil_idxset_clear(struct oputil_idxset *s)
{
	if (s->nr)
		memset(s->idx, 0, s->cap * sizeof(*s->idx));
	s->nr = 0;
	s->sparse = false;
}

static inline void oputil_idxset_free(struct oputil_idxset *s)
{
	free(s->idx);
	free(s->hash);
	s->idx = s->hash = NULL;
	s->cap = s->nr = s->cap_hash = 0;
	s->sparse = false;
}

#endif
