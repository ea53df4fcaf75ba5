// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <oputil/hash.h>

#include "keyset_internal.h"

static uint64_t keyset_hash(const uint8_t *p, size_t n)
{
	uint64_t h = oputil_hash_bytes(OPUTIL_HASH_SEED, p, n);

	return h ^ (h >> 29);
}

const uint8_t *ops_keyset_key(const struct ops_keyset *ks, uint32_t id,
			      size_t *len)
{
	*len = ks->off[id + 1] - ks->off[id];
	return ks->arena.data + ks->off[id];
}

static int keyset_grow_table(struct ops_keyset *ks)
{
	uint32_t cap = ks->tcap ? ks->tcap * 2 : 64, i, mask = cap - 1;
	uint32_t *t = calloc(cap, sizeof(*t));
	const uint8_t *k;
	size_t n;

	if (!t || cap < ks->tcap)
		goto nomem;
	for (i = 0; i < ks->nr; i++) {
		uint64_t h;

		k = ops_keyset_key(ks, i, &n);
		h = keyset_hash(k, n);
		while (t[h & mask])
			h++;
		t[h & mask] = i + 1;
	}
	free(ks->table);
	ks->table = t;
	ks->tcap = cap;
	return 0;
nomem:
	free(t);
	return -ENOMEM;
}

int ops_keyset_add(struct ops_keyset *ks, const void *key, size_t len,
		   uint32_t *id)
{
	uint64_t h = keyset_hash(key, len);
	const uint8_t *k;
	uint32_t slot;
	size_t n;
	int ret;

	if ((uint64_t)ks->nr * 2 + 2 > ks->tcap) {
		ret = keyset_grow_table(ks);
		if (ret)
			return ret;
	}
	for (;; h++) {
		slot = ks->table[h & (ks->tcap - 1)];
		if (!slot)
			break;
		k = ops_keyset_key(ks, slot - 1, &n);
		if (n == len && !memcmp(k, key, len)) {
			*id = slot - 1;
			return 0;
		}
	}
	if (ks->nr + 2 > ks->cap) {
		uint32_t cap = ks->cap ? ks->cap * 2 : 64;
		size_t *o;

		if (ks->nr >= UINT32_MAX / 2)
			return -ENOSPC;
		o = realloc(ks->off, cap * sizeof(*o));
		if (!o)
			return -ENOMEM;
		ks->off = o;
		ks->cap = cap;
		if (!ks->nr)
			ks->off[0] = 0;
	}
	ret = ops_buf_put(&ks->arena, key, len);
	if (ret)
		return ret;
	ks->off[ks->nr + 1] = ks->arena.len;
	ks->table[h & (ks->tcap - 1)] = ks->nr + 1;
	*id = ks->nr++;
	return 0;
}

void ops_keyset_free(struct ops_keyset *ks)
{
	ops_buf_free(&ks->arena);
	free(ks->off);
	free(ks->table);
	memset(ks, 0, sizeof(*ks));
}
