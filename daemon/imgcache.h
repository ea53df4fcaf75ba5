/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Images already given to the writer, so that a file is looked at once,
 * when it is first mapped, and never again.
 */
#ifndef OPROFILED_IMGCACHE_H
#define OPROFILED_IMGCACHE_H

#include <stddef.h>
#include <stdint.h>

#include <oputil/idxset.h>

struct imgcache_key {
	const char *path;
	uint64_t dev, ino; /* 0 when the kernel gave a build-id */
	uint8_t build_id[20];
	uint8_t build_id_size;
};

struct imgcache_entry {
	struct imgcache_key key; /* its path owned */
	uint32_t id;
};

struct imgcache {
	struct imgcache_entry *v;
	size_t n, cap;
	struct oputil_idxset set; /* of v, by key */
};

int imgcache_init(struct imgcache *c);
/* 0 and *ID when KEY is known, -ENOENT when not. */
int imgcache_get(const struct imgcache *c, const struct imgcache_key *key,
		 uint32_t *id);
int imgcache_put(struct imgcache *c, const struct imgcache_key *key,
		 uint32_t id);
void imgcache_free(struct imgcache *c);

#endif
