// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The memory resolved symbols are copied into: handlers free their own
 * state as soon as a process is named, and the report keeps its copies
 * until the end, so one bump allocator freed at once is all it needs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "handler_internal.h"

#define ARENA_CHUNK (256u * 1024u)

struct handler_arena {
	struct handler_arena *next;
	size_t used, size;
	max_align_t data[];
};

void *handler_arena_alloc(struct handler_arena **a, size_t size)
{
	const size_t align = sizeof(max_align_t);
	struct handler_arena *c = *a;
	void *p;

	size = (size + align - 1) / align * align;
	if (size == 0)
		size = align;
	if (!c || c->size - c->used < size) {
		size_t cap = size > ARENA_CHUNK ? size : ARENA_CHUNK;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->size = cap;
		/* A big block gets its own chunk; the small ones keep
		 * filling the chunk they were in. */
		if (*a && cap > ARENA_CHUNK) {
			c->next = (*a)->next;
			(*a)->next = c;
		} else {
			c->next = *a;
			*a = c;
		}
	}
	p = (char *)c->data + c->used;
	c->used += size;
	return p;
}

char *handler_arena_strdup(struct handler_arena **a, const char *s)
{
	size_t len = strlen(s) + 1;
	char *p = handler_arena_alloc(a, len);

	if (p)
		memcpy(p, s, len);
	return p;
}

void handler_arena_free(struct handler_arena *a)
{
	while (a) {
		struct handler_arena *next = a->next;

		free(a);
		a = next;
	}
}
