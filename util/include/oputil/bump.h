/* SPDX-License-Identifier: MIT */
/*
 * A bump allocator: memory handed out in order from chunks, and freed
 * all at once, for what lives as long as its owner (a report's strings,
 * the symbols handlers resolve into).  A request larger than a chunk
 * gets a chunk of its own, put after the one being filled, so that the
 * small requests go on filling it.  Not thread-safe: its owner locks.
 */
#ifndef OPUTIL_BUMP_H
#define OPUTIL_BUMP_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct oputil_bump_chunk {
	struct oputil_bump_chunk *next;
	size_t used, size;
	max_align_t data[];
};

struct oputil_bump {
	struct oputil_bump_chunk *head; /* the chunk being filled */
	size_t chunk;			/* bytes a chunk holds */
};

#define OPUTIL_BUMP_INIT(chunk_bytes) \
	{                             \
		NULL, (chunk_bytes)   \
	}

/* SIZE bytes aligned for any type, not zeroed; NULL when out of
 * memory.  Good until oputil_bump_free(). */
static inline void *oputil_bump_alloc(struct oputil_bump *b, size_t size)
{
	const size_t align = _Alignof(max_align_t);
	struct oputil_bump_chunk *c = b->head;
	void *p;

	if (size > SIZE_MAX - align - sizeof(*c))
		return NULL;
	size = size ? (size + align - 1) / align * align : align;
	if (!c || c->size - c->used < size) {
		size_t cap = size > b->chunk ? size : b->chunk;

		c = (struct oputil_bump_chunk *)malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->size = cap;
		if (b->head && cap > b->chunk) {
			c->next = b->head->next;
			b->head->next = c;
		} else {
			c->next = b->head;
			b->head = c;
		}
	}
	p = (char *)c->data + c->used;
	c->used += size;
	return p;
}

/* Free every chunk; B can be used again. */
static inline void oputil_bump_free(struct oputil_bump *b)
{
	struct oputil_bump_chunk *c = b->head, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	b->head = NULL;
}

#endif
