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

#include "hash.h"

struct oputil_u64map {
	uint64_t *keys; /* 0: an empty slot */
	uint64_t *vals;
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

	while (m->keys[i] && m->keys[i] != key)
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
	if (!m->keys[i])
		return false;
	if (val)
		*val = m->vals[i];
	return true;
}

static inline int oputil_u64map_grow(struct oputil_u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i, j;
	uint64_t *keys = calloc(cap, sizeof(*keys));
	uint64_t *vals = malloc(cap * sizeof(*vals));
	struct oputil_u64map n = { keys, vals, cap, m->nr };

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		j = oputil_u64map_slot(&n, m->keys[i]);
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	*m = n;
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
	had = m->keys[i] != 0;
	if (had && old)
		*old = m->vals[i];
	if (!had) {
		m->keys[i] = key;
		m->nr++;
	}
	m->vals[i] = val;
	return had;
}

/* Remove KEY; whether it was there, and its value in *VAL. */
static inline bool oputil_u64map_del(struct oputil_u64map *m, uint64_t key,
				     uint64_t *val)
{
	size_t mask = m->cap - 1, i, j, home;

	if (!m->cap || !key || !m->keys[i = oputil_u64map_slot(m, key)])
		return false;
	if (val)
		*val = m->vals[i];
	m->keys[i] = 0;
	m->nr--;
	for (j = (i + 1) & mask; m->keys[j]; j = (j + 1) & mask) {
		home = oputil_u64map_home(m, m->keys[j]);
		/* J may move to I unless its home lies in (I, J] */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			m->keys[j] = 0;
			i = j;
		}
	}
	return true;
}

static inline void oputil_u64map_free(struct oputil_u64map *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = m->vals = NULL;
	m->cap = m->nr = 0;
}

#endif
