// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The memory resolved symbols are copied into: handlers free their own
 * state as soon as a process is named, and the report keeps its copies
 * until the end, so one bump allocator freed at once is all it needs.
 */
#include <stdlib.h>
#include <string.h>
#include <oputil/bump.h>

#include "handler_internal.h"

#define ARENA_CHUNK (256u * 1024u)

struct handler_arena {
	struct oputil_bump mem;
};

void *handler_arena_alloc(struct handler_arena **a, size_t size)
{
	if (!*a) {
		*a = malloc(sizeof(**a));
		if (!*a)
			return NULL;
		(*a)->mem = (struct oputil_bump)OPUTIL_BUMP_INIT(ARENA_CHUNK);
	}
	return oputil_bump_alloc(&(*a)->mem, size);
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
	if (!a)
		return;
	oputil_bump_free(&a->mem);
	free(a);
}
