// SPDX-License-Identifier: GPL-3.0-or-later
#include "imgcache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <oputil/grow.h>
#include <oputil/hash.h>

static uint64_t imgcache_hash(const struct imgcache_key *k)
{
	uint64_t h = oputil_hash_str(OPUTIL_HASH_SEED, k->path);

	h = oputil_hash_word64(h, k->dev);
	h = oputil_hash_word64(h, k->ino);
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
	memset(c, 0, sizeof(*c));
	return 0;
}

static uint32_t imgcache_find(const struct imgcache *c,
			      const struct imgcache_key *key,
			      struct oputil_idxset_pos *pos)
{
	return oputil_idxset_find(&c->set, imgcache_hash(key), pos, k,
				  imgcache_equal(&c->v[k].key, key));
}

int imgcache_get(const struct imgcache *c, const struct imgcache_key *key,
		 uint32_t *id)
{
	uint32_t i = imgcache_find(c, key, NULL);

	if (i == OPUTIL_IDXSET_NONE)
		return -ENOENT;
	*id = c->v[i].id;
	return 0;
}

int imgcache_put(struct imgcache *c, const struct imgcache_key *key,
		 uint32_t id)
{
	struct oputil_idxset_pos pos;
	struct imgcache_entry *e;
	uint32_t i = imgcache_find(c, key, &pos);
	char *path;

	if (i != OPUTIL_IDXSET_NONE) {
		c->v[i].id = id;
		return 0;
	}
	if (c->n >= OPUTIL_IDXSET_NONE ||
	    oputil_grow(&c->v, &c->cap, c->n + 1, sizeof(*c->v)))
		return -ENOMEM;
	path = strdup(key->path);
	if (!path)
		return -ENOMEM;
	if (oputil_idxset_put(&c->set, &pos, (uint32_t)c->n) < 0) {
		free(path);
		return -ENOMEM;
	}
	e = &c->v[c->n++];
	e->key = *key;
	e->key.path = path;
	e->id = id;
	return 0;
}

void imgcache_free(struct imgcache *c)
{
	for (size_t i = 0; i < c->n; i++)
		free((char *)c->v[i].key.path);
	free(c->v);
	oputil_idxset_free(&c->set);
	memset(c, 0, sizeof(*c));
}
