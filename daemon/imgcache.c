// SPDX-License-Identifier: GPL-3.0-or-later
#include "imgcache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <oputil/hash.h>

struct imgcache_entry {
	struct imgcache_entry *next;
	struct imgcache_key key;
	uint64_t hash;
	uint32_t id;
	char path[];
};

static uint64_t imgcache_hash(const struct imgcache_key *k)
{
	uint64_t h = oputil_hash_str(OPUTIL_HASH_SEED, k->path);

	h = (h ^ k->dev) * 0x100000001b3ull;
	h = (h ^ k->ino) * 0x100000001b3ull;
	return oputil_hash_bytes(h, k->build_id, k->build_id_size);
}

static int imgcache_equal(const struct imgcache_key *a,
			  const struct imgcache_key *b)
{
	return a->dev == b->dev && a->ino == b->ino &&
	       a->build_id_size == b->build_id_size &&
	       !memcmp(a->build_id, b->build_id, a->build_id_size) &&
	       !strcmp(a->path, b->path);
}

int imgcache_init(struct imgcache *c)
{
	c->nr_buckets = 1024;
	c->n = 0;
	c->buckets = calloc(c->nr_buckets, sizeof(*c->buckets));
	return c->buckets ? 0 : -ENOMEM;
}

int imgcache_get(const struct imgcache *c, const struct imgcache_key *key,
		 uint32_t *id)
{
	uint64_t h = imgcache_hash(key);
	struct imgcache_entry *e = c->buckets[h & (c->nr_buckets - 1)];

	for (; e; e = e->next)
		if (e->hash == h && imgcache_equal(&e->key, key)) {
			*id = e->id;
			return 0;
		}
	return -ENOENT;
}

static int imgcache_grow(struct imgcache *c)
{
	size_t nb = c->nr_buckets * 2;
	struct imgcache_entry **b = calloc(nb, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < c->nr_buckets; i++) {
		struct imgcache_entry *e = c->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (nb - 1)];
			b[e->hash & (nb - 1)] = e;
		}
	}
	free(c->buckets);
	c->buckets = b;
	c->nr_buckets = nb;
	return 0;
}

int imgcache_put(struct imgcache *c, const struct imgcache_key *key,
		 uint32_t id)
{
	size_t len = strlen(key->path) + 1;
	struct imgcache_entry *e = malloc(sizeof(*e) + len);
	size_t b;

	if (!e)
		return -ENOMEM;
	if (c->n >= c->nr_buckets && imgcache_grow(c)) {
		free(e);
		return -ENOMEM;
	}
	memcpy(e->path, key->path, len);
	e->key = *key;
	e->key.path = e->path;
	e->hash = imgcache_hash(key);
	e->id = id;
	b = e->hash & (c->nr_buckets - 1);
	e->next = c->buckets[b];
	c->buckets[b] = e;
	c->n++;
	return 0;
}

void imgcache_free(struct imgcache *c)
{
	for (size_t i = 0; i < c->nr_buckets; i++) {
		struct imgcache_entry *e = c->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e);
		}
	}
	free(c->buckets);
	c->buckets = NULL;
	c->nr_buckets = c->n = 0;
}
