// SPDX-License-Identifier: GPL-3.0-or-later
#include "pending.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int pending_init(struct pending *p, size_t cap)
{
	p->v = calloc(cap, sizeof(*p->v));
	if (!p->v)
		return -ENOMEM;
	p->cap = cap;
	p->head = p->n = 0;
	p->chains = NULL;
	p->chain_max = 0;
	return 0;
}

int pending_init_chains(struct pending *p, size_t chain_max)
{
	/* untouched pages cost nothing: slots fill only when mappings lag */
	p->chains = calloc(p->cap, chain_max * sizeof(*p->chains));
	if (!p->chains)
		return -ENOMEM;
	p->chain_max = chain_max;
	return 0;
}

void pending_free(struct pending *p)
{
	free(p->v);
	free(p->chains);
	p->chains = NULL;
	p->v = NULL;
	p->cap = p->n = 0;
}

bool pending_push(struct pending *p, const struct pending_sample *s,
		  struct pending_sample *evicted)
{
	bool full = p->n == p->cap;
	size_t slot;

	if (full) {
		*evicted = p->v[p->head];
		p->head = (p->head + 1) % p->cap;
		p->n--;
	}
	slot = (p->head + p->n) % p->cap;
	p->v[slot] = *s;
	if (s->chain && p->chains) {
		uint64_t *dst = p->chains + slot * p->chain_max;
		uint32_t n = s->nr_chain < p->chain_max
				     ? s->nr_chain
				     : (uint32_t)p->chain_max;

		/* a sample pushed back may come from this very slot */
		memmove(dst, s->chain, n * sizeof(*dst));
		p->v[slot].chain = dst;
		p->v[slot].nr_chain = n;
	} else {
		p->v[slot].chain = NULL;
		p->v[slot].nr_chain = 0;
	}
	p->n++;
	return full;
}

bool pending_pop(struct pending *p, struct pending_sample *out)
{
	if (!p->n)
		return false;
	*out = p->v[p->head];
	p->head = (p->head + 1) % p->cap;
	p->n--;
	return true;
}
