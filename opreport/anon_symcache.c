// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A map keyed by the handler symbol's address.  Batches of one symbol
 * come in runs (samples are sorted by address), so the last hit is kept
 * and asked first.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include <oputil/u64map.h>

#include "anon_symcache.h"
#include "strpool.h"

struct anon_symcache {
	struct oputil_u64map syms; /* anon_symbol * -> report_sym * */
	const struct report_sym *unknown;
	const struct anon_symbol *last_key;
	const struct report_sym *last_sym;
};

struct anon_symcache *anon_symcache_new(void)
{
	return calloc(1, sizeof(struct anon_symcache));
}

void anon_symcache_free(struct anon_symcache *c)
{
	if (!c)
		return;
	oputil_u64map_free(&c->syms);
	free(c);
}

static const struct report_sym *make(struct report *r,
				     const struct anon_symbol *a)
{
	struct report_sym *s = strpool_alloc(r->pool, sizeof(*s));

	if (!s)
		return NULL;
	/* interned: the report groups JIT rows by name */
	s->name = strpool_intern(r->pool, a->name ? a->name : "(unknown)");
	if (!s->name)
		return NULL;
	s->vma = a->start;
	s->size = a->size;
	s->file = a->file;
	s->line = a->line;
	s->has_vma = true;
	s->referenced = true;
	s->anon = a;
	return s;
}

const struct report_sym *anon_symcache_get(struct anon_symcache *c,
					   struct report *r,
					   const struct anon_symbol *a)
{
	const struct report_sym *sym;
	uint64_t v;

	if (!a) {
		if (!c->unknown) {
			struct report_sym *u =
				strpool_alloc(r->pool, sizeof(*u));

			if (u)
				u->name = strpool_intern(r->pool, "(unknown)");
			c->unknown = u;
		}
		return c->unknown;
	}
	if (c->last_key == a)
		return c->last_sym;
	if (oputil_u64map_get(&c->syms, (uintptr_t)a, &v)) {
		sym = (const struct report_sym *)(uintptr_t)v;
	} else {
		sym = make(r, a);
		if (!sym || oputil_u64map_put(&c->syms, (uintptr_t)a,
					      (uintptr_t)sym, NULL) < 0)
			return NULL;
	}
	c->last_key = a;
	c->last_sym = sym;
	return sym;
}
