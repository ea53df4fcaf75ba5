// SPDX-License-Identifier: GPL-3.0-or-later
/* One opjit_symbol per name: the host groups samples by symbol pointer,
 * and one method compiled many times is still one line of the report. */
#include <stdlib.h>
#include <string.h>

#include "jm_resolve.h"

struct jm_sym {
	struct opjit_symbol sym;
	char name[];
};

static size_t syms_hash(const char *s, size_t cap)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h & (cap - 1);
}

static int syms_grow(struct jm_state *st)
{
	size_t cap = st->shash_cap ? st->shash_cap * 2 : 256;
	struct jm_sym **t = calloc(cap, sizeof(*t));

	if (!t)
		return -1;
	for (size_t i = 0; i < st->shash_cap; i++) {
		size_t j;

		if (!st->shash[i])
			continue;
		j = syms_hash(st->shash[i]->name, cap);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = st->shash[i];
	}
	free(st->shash);
	st->shash = t;
	st->shash_cap = cap;
	return 0;
}

const struct opjit_symbol *jm_syms_get(struct jm_state *st, const char *name,
				       const char *file, uint32_t line,
				       uint64_t start, uint64_t size)
{
	struct jm_sym *s;
	size_t j, n;

	if ((st->nr_syms + 1) * 2 > st->shash_cap && syms_grow(st))
		return NULL;
	for (j = syms_hash(name, st->shash_cap); st->shash[j];
	     j = (j + 1) & (st->shash_cap - 1)) {
		s = st->shash[j];
		if (strcmp(s->name, name))
			continue;
		/* first seen inlined, now as code of its own */
		if (!s->sym.start && start) {
			s->sym.start = start;
			s->sym.size = size;
		}
		return &s->sym;
	}
	n = strlen(name);
	s = calloc(1, sizeof(*s) + n + 1);
	if (!s)
		return NULL;
	memcpy(s->name, name, n + 1);
	s->sym.struct_size = OPJIT_SYMBOL_SIZE_1_0;
	s->sym.name = s->name;
	s->sym.start = start;
	s->sym.size = size;
	s->sym.file = file; /* owned by the map, which outlives us */
	s->sym.line = line;
	st->shash[j] = s;
	st->nr_syms++;
	return &s->sym;
}

int jm_syms_for_each(struct jm_state *st, jm_symbol_cb cb, void *arg)
{
	for (size_t i = 0; i < st->shash_cap; i++) {
		int ret;

		if (!st->shash[i])
			continue;
		ret = cb(arg, &st->shash[i]->sym);
		if (ret)
			return ret;
	}
	return 0;
}

void jm_syms_free(struct jm_state *st)
{
	for (size_t i = 0; i < st->shash_cap; i++)
		free(st->shash[i]);
	free(st->shash);
	st->shash = NULL;
	st->shash_cap = st->nr_syms = 0;
}
