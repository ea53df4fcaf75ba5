// SPDX-License-Identifier: GPL-3.0-or-later
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <oputil/hash.h>

#include "strpool.h"

struct block {
	struct block *next;
	size_t used, size;
	max_align_t data[];
};

struct strpool {
	struct block *blocks;
	const char **slots; /* open addressing, power-of-two size */
	size_t nr_slots, nr_used;
};

struct strpool *strpool_new(void)
{
	return calloc(1, sizeof(struct strpool));
}

void strpool_free(struct strpool *p)
{
	struct block *b, *next;

	if (!p)
		return;
	for (b = p->blocks; b; b = next) {
		next = b->next;
		free(b);
	}
	free(p->slots);
	free(p);
}

void *strpool_alloc(struct strpool *p, size_t size)
{
	size_t align = sizeof(max_align_t);
	struct block *b = p->blocks;
	void *mem;

	size = (size + align - 1) & ~(align - 1);
	if (!b || b->size - b->used < size) {
		size_t bsize = size > 65536 ? size : 65536;

		b = malloc(sizeof(*b) + bsize);
		if (!b)
			return NULL;
		b->size = bsize;
		b->used = 0;
		b->next = p->blocks;
		p->blocks = b;
	}
	mem = (char *)b->data + b->used;
	b->used += size;
	memset(mem, 0, size);
	return mem;
}

static int grow(struct strpool *p)
{
	size_t n = p->nr_slots ? p->nr_slots * 2 : 256;
	const char **slots = calloc(n, sizeof(*slots));
	size_t i;

	if (!slots)
		return -1;
	for (i = 0; i < p->nr_slots; i++) {
		const char *s = p->slots[i];
		size_t j;

		if (!s)
			continue;
		j = oputil_hash_str(OPUTIL_HASH_SEED, s) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = s;
	}
	free(p->slots);
	p->slots = slots;
	p->nr_slots = n;
	return 0;
}

const char *strpool_intern(struct strpool *p, const char *s)
{
	size_t i, len;
	char *copy;

	if ((p->nr_used + 1) * 2 > p->nr_slots && grow(p))
		return NULL;
	for (i = oputil_hash_str(OPUTIL_HASH_SEED, s) & (p->nr_slots - 1);
	     p->slots[i]; i = (i + 1) & (p->nr_slots - 1))
		if (!strcmp(p->slots[i], s))
			return p->slots[i];
	len = strlen(s) + 1;
	copy = strpool_alloc(p, len);
	if (!copy)
		return NULL;
	memcpy(copy, s, len);
	p->slots[i] = copy;
	p->nr_used++;
	return copy;
}

const char *strpool_printf(struct strpool *p, const char *fmt, ...)
{
	char small[256], *big = NULL;
	const char *ret = NULL;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (len < 0)
		return NULL;
	if ((size_t)len < sizeof(small))
		return strpool_intern(p, small);
	big = malloc((size_t)len + 1);
	if (!big)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(big, (size_t)len + 1, fmt, ap);
	va_end(ap);
	ret = strpool_intern(p, big);
	free(big);
	return ret;
}
