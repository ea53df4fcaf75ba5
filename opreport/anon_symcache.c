// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * An open-addressing table keyed by the handler symbol's address, grown
 * at half full.  Batches of one symbol come in runs (samples are sorted
 * by address), so the last hit is kept and asked first.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include <oputil/hash.h>

#include "anon_symcache.h"
#include "strpool.h"

struct slot {
	const struct anon_symbol *key;
	const struct report_sym *sym;
};

struct anon_symcache {
	struct slot *slots;
	size_t cap, n; /* cap: a power of two */
	const struct report_sym *unknown;
	struct slot last;
};

struct anon_symcache *anon_symcache_new(void)
{
	return calloc(1, sizeof(struct anon_symcache));
}

void anon_symcache_free(struct anon_symcache *c)
{
	if (!c)
		return;
	free(c->slots);
	free(c);
}

static struct slot *find(struct slot *slots, size_t cap,
			 const struct anon_symbol *key)
{
	size_t i = (size_t)oputil_hash_u64((uintptr_t)key) & (cap - 1);

	while (slots[i].key && slots[i].key != key)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int grow(struct anon_symcache *c)
{
	size_t cap = c->cap ? c->cap * 2 : 256, i;
	struct slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < c->cap; i++)
		if (c->slots[i].key)
			*find(slots, cap, c->slots[i].key) = c->slots[i];
	free(c->slots);
	c->slots = slots;
	c->cap = cap;
	return 0;
}

static const struct report_sym *make(struct report *r,
				     const struct anon_symbol *a)
{
	struct report_sym *s = strpool_alloc(r->pool, sizeof(*s));

	if (!s)
		return NULL;
	s->name = a->name ? a->name : "(unknown)";
	s->vma = a->start;
	s->size = a->size;
	s->file = a->file;
	s->line = a->line;
	s->has_vma = true;
	s->referenced = true;
	return s;
}

const struct report_sym *anon_symcache_get(struct anon_symcache *c,
					   struct report *r,
					   const struct anon_symbol *a)
{
	struct slot *slot;

	if (!a) {
		if (!c->unknown) {
			struct report_sym *u =
				strpool_alloc(r->pool, sizeof(*u));

			if (u)
				u->name = "(unknown)";
			c->unknown = u;
		}
		return c->unknown;
	}
	if (c->last.key == a)
		return c->last.sym;
	if (2 * (c->n + 1) > c->cap && grow(c))
		return NULL;
	slot = find(c->slots, c->cap, a);
	if (!slot->key) {
		slot->sym = make(r, a);
		if (!slot->sym)
			return NULL;
		slot->key = a;
		c->n++;
	}
	c->last = *slot;
	return slot->sym;
}
