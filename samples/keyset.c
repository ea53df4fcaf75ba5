// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <oputil/hash.h>
#include <oputil/idxset.h>

#include "keyset_internal.h"

/* Eight bytes a step: FNV-1a's byte a step made hashing a stack copy's
 * 128-byte pieces most of what --callgraph=dwarf costs the recorder
 * (8 KiB a sample). */
static uint64_t keyset_hash(const uint8_t *p, size_t n)
{
	uint64_t h = OPUTIL_HASH_SEED ^ n, v;

	for (; n >= sizeof(v); n -= sizeof(v), p += sizeof(v)) {
		memcpy(&v, p, sizeof(v));
		h = oputil_hash_word64(h, v);
	}
	h = oputil_hash_u64(oputil_hash_bytes(h, p, n));
	return h ^ (h >> 29);
}

const uint8_t *ops_keyset_key(const struct ops_keyset *ks, uint32_t id,
			      size_t *len)
{
	const size_t *o = ks->off + (id - ks->base);

	*len = o[1] - o[0];
	return ks->arena.data + o[0];
}

static bool keyset_eq(const struct ops_keyset *ks, uint32_t id,
		      const void *key, size_t len)
{
	size_t n;
	const uint8_t *k = ops_keyset_key(ks, id, &n);

	return n == len && !memcmp(k, key, len);
}

/* KEY stored as key number ks->nr, that number in *ID; the set is not
 * told. */
static int keyset_store(struct ops_keyset *ks, const void *key, size_t len,
			uint32_t *id)
{
	int ret;

	if (ks->nr - ks->base + 2 > ks->cap) {
		uint32_t cap = ks->cap ? ks->cap * 2 : 64;
		size_t *o;

		if (ks->nr >= UINT32_MAX / 2)
			return -ENOSPC;
		o = realloc(ks->off, cap * sizeof(*o));
		if (!o)
			return -ENOMEM;
		ks->off = o;
		ks->cap = cap;
		if (ks->nr == ks->base)
			ks->off[0] = 0;
	}
	ret = ops_buf_put(&ks->arena, key, len);
	if (ret)
		return ret;
	ks->off[ks->nr - ks->base + 1] = ks->arena.len;
	*id = ks->nr++;
	return 0;
}

/* KEY's id, KEY added when not there; FRESH: the caller knows it is not,
 * and the probe compares no key. */
static int keyset_add(struct ops_keyset *ks, const void *key, size_t len,
		      uint32_t *id, bool fresh)
{
	const uint32_t h = (uint32_t)keyset_hash(key, len);
	struct oputil_idxset_pos pos;
	uint32_t i;
	int ret;

	/* room first: once the key is in the arena, the set must take it */
	if (oputil_idxset_reserve(&ks->set, (size_t)ks->nr + 1))
		return -ENOMEM;
	/* keys are long (a whole stack, in the recorder's hot path): their
	 * kept hashes turn almost every other key away unread */
	i = oputil_idxset_find(&ks->set, h, &pos, k,
			       !fresh && ks->set.hash[k] == h &&
				       keyset_eq(ks, k, key, len));
	if (i != OPUTIL_IDXSET_NONE) {
		*id = i;
		return 0;
	}
	ret = keyset_store(ks, key, len, id);
	if (!ret)
		oputil_idxset_put(&ks->set, &pos, *id);
	return ret;
}

int ops_keyset_add(struct ops_keyset *ks, const void *key, size_t len,
		   uint32_t *id)
{
	return keyset_add(ks, key, len, id, false);
}

int ops_keyset_add_new(struct ops_keyset *ks, const void *key, size_t len,
		       uint32_t *id)
{
	return keyset_add(ks, key, len, id, true);
}

int ops_keyset_append(struct ops_keyset *ks, const void *key, size_t len,
		      uint32_t *id)
{
	return keyset_store(ks, key, len, id);
}

void ops_keyset_forget(struct ops_keyset *ks, uint32_t n)
{
	uint32_t i, kept;
	size_t cut;

	if (n <= ks->base || n > ks->nr || ks->set.nr)
		return;
	kept = ks->nr - n;
	cut = ks->off[n - ks->base];
	memmove(ks->arena.data, ks->arena.data + cut, ks->arena.len - cut);
	ks->arena.len -= cut;
	for (i = 0; i <= kept; i++)
		ks->off[i] = ks->off[n - ks->base + i] - cut;
	ks->base = n;
}

void ops_keyset_free(struct ops_keyset *ks)
{
	ops_buf_free(&ks->arena);
	free(ks->off);
	oputil_idxset_free(&ks->set);
	memset(ks, 0, sizeof(*ks));
}
