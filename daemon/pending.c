// SPDX-License-Identifier: GPL-3.0-or-later
#include "pending.h"

#include <errno.h>
#include <stdlib.h>

int pending_init(struct pending *p, size_t cap)
{
	p->v = calloc(cap, sizeof(*p->v));
	if (!p->v)
		return -ENOMEM;
	p->cap = cap;
	p->head = p->n = 0;
	return 0;
}

void pending_free(struct pending *p)
{
	free(p->v);
	p->v = NULL;
	p->cap = p->n = 0;
}

bool pending_push(struct pending *p, const struct pending_sample *s,
		  struct pending_sample *evicted)
{
	bool full = p->n == p->cap;

	if (full) {
		*evicted = p->v[p->head];
		p->head = (p->head + 1) % p->cap;
		p->n--;
	}
	p->v[(p->head + p->n) % p->cap] = *s;
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
