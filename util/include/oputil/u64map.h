/* SPDX-License-Identifier: MIT */
/*
 * A map from 64-bit keys to 64-bit values (or pointers), for the tables
 * that key by an id or an address: open addressing with linear probing,
 * at most half full, and deletion that moves later entries back over the
 * hole, so that a long-lived table of churning code needs no tombstones.
 * Key 0 is not a key.  Not thread-safe: its owner locks.
 */
#ifndef OPUTIL_U64MAP_H
#define OPUTIL_U64MAP_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

/* A key and its value side by side: one cache line holds both. */
struct oputil_u64map_slot {
	uint64_t key; /* 0: an empty slot */
	uint64_t val;
};

struct oputil_u64map {
	struct oputil_u64map_slot *slots;
	size_t cap; /* a power of two, or 0 */
	size_t nr;
};

static inline size_t oputil_u64map_home(const struct oputil_u64map *m,
					uint64_t key)
{
	/* hashed even for ids handed out in order: in order they would
	 * make one run of slots as long as the table, and a deletion walks
	 * its run to the end */
	return (size_t)oputil_hash_u64(key) & (m->cap - 1);
}

/* KEY's slot, or the empty slot where it would go. */
static inline size_t oputil_u64map_slot(const struct oputil_u64map *m,
					uint64_t key)
{
	size_t i = oputil_u64map_home(m, key);

	while (m->slots[i].key && m->slots[i].key != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* Whether KEY is in M; its value in *VAL if so (VAL may be NULL). */
static inline bool oputil_u64map_get(const struct oputil_u64map *m,
				     uint64_t key, uint64_t *val)
{
	size_t i;

	if (!m->cap || !key)
		return false;
	i = oputil_u64map_slot(m, key);
	if (!m->slots[i].key)
		return false;
	if (val)
		*val = m->slots[i].val;
	return true;
}

static inline int oputil_u64map_grow(struct oputil_u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i;
	struct oputil_u64map n = { calloc(cap, sizeof(*n.slots)), cap, m->nr };

	if (!n.slots)
		return -ENOMEM;
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			n.slots[oputil_u64map_slot(&n, m->slots[i].key)] =
				m->slots[i];
	free(m->slots);
	*m = n;
	return 0;
}

/* Room for EXTRA more keys without growing: the puts that follow cannot
 * fail, so a caller may put in the middle of a change it cannot undo.
 * 0 or -ENOMEM. */
static inline int oputil_u64map_reserve(struct oputil_u64map *m, size_t extra)
{
	while ((m->nr + extra) * 2 > m->cap)
		if (oputil_u64map_grow(m))
			return -ENOMEM;
	return 0;
}

/* Set KEY to VAL: 0 when KEY is new, 1 when it had a value, which is
 * then in *OLD (OLD may be NULL), -EINVAL for key 0, or -ENOMEM. */
static inline int oputil_u64map_put(struct oputil_u64map *m, uint64_t key,
				    uint64_t val, uint64_t *old)
{
	size_t i;
	int had;

	if (!key)
		return -EINVAL;
	if ((m->nr + 1) * 2 > m->cap && oputil_u64map_grow(m))
		return -ENOMEM;
	i = oputil_u64map_slot(m, key);
	had = m->slots[i].key != 0;
	if (had && old)
		*old = m->slots[i].val;
	if (!had) {
		m->slots[i].key = key;
		m->nr++;
	}
	m->slots[i].val = val;
	return had;
}

/* KEY's value, to read and set in place: one probe where a get and then
 * a put would take two.  KEY is added with value 0 when new, and then
 * *ADDED is set (ADDED may be NULL).  NULL for key 0 or out of memory.
 * The pointer holds until the map next changes. */
static inline uint64_t *oputil_u64map_ref(struct oputil_u64map *m,
					  uint64_t key, bool *added)
{
	size_t i;

	if (added)
		*added = false;
	if (!key || ((m->nr + 1) * 2 > m->cap && oputil_u64map_grow(m)))
		return NULL;
	i = oputil_u64map_slot(m, key);
	if (!m->slots[i].key) {
		m->slots[i].key = key;
		m->slots[i].val = 0;
		m->nr++;
		if (added)
			*added = true;
	}
	return &m->slots[i].val;
}

/* Remove KEY; whether it was there, and its value in *VAL. */
static inline bool oputil_u64map_del(struct oputil_u64map *m, uint64_t key,
				     uint64_t *val)
{
	size_t mask = m->cap - 1, i, j, home;

	if (!m->cap || !key || !m->slots[i = oputil_u64map_slot(m, key)].key)
		return false;
	if (val)
		*val = m->slots[i].val;
	m->slots[i].key = 0;
	m->nr--;
	for (j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
		home = oputil_u64map_home(m, m->slots[j].key);
		/* J may move to I unless its home lies in (I, J] */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			m->slots[j].key = 0;
			i = j;
		}
	}
	return true;
}

/* Empty, keeping the memory: for a map filled again and again. */
static inline void oputil_u64map_clear(struct oputil_u64map *m)
{
	if (m->nr)
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
	m->nr = 0;
}

static inline void oputil_u64map_free(struct oputil_u64map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->nr = 0;
}

#endif
