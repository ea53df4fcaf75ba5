// SPDX-License-Identifier: GPL-3.0-or-later
/* One opjit_symbol per name: the host groups samples by symbol pointer,
 * and one method compiled many times is still one line of the report. */
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/hash.h>

#include "jm_resolve.h"

struct jm_sym {
	struct opjit_symbol sym;
	char name[];
};

const struct opjit_symbol *jm_syms_get(struct jm_state *st, const char *name,
				       const char *file, uint32_t line,
				       uint64_t start, uint64_t size)
{
	struct oputil_idxset_pos pos;
	struct jm_sym *s;
	uint32_t i;
	size_t n;

	i = oputil_idxset_find(&st->sym_set,
			       oputil_hash_str(OPUTIL_HASH_SEED, name), &pos,
			       k, !strcmp(st->syms[k]->name, name));
	if (i != OPUTIL_IDXSET_NONE) {
		s = st->syms[i];
		/* first seen inlined, now as code of its own */
		if (!s->sym.start && start) {
			s->sym.start = start;
			s->sym.size = size;
		}
		return &s->sym;
	}
	if (st->nr_syms >= OPUTIL_IDXSET_NONE ||
	    oputil_grow(&st->syms, &st->cap_syms, st->nr_syms + 1,
			sizeof(*st->syms)))
		return NULL;
	n = strlen(name);
	s = calloc(1, sizeof(*s) + n + 1);
	if (!s)
		return NULL;
	if (oputil_idxset_put(&st->sym_set, &pos, (uint32_t)st->nr_syms) < 0) {
		free(s);
		return NULL;
	}
	memcpy(s->name, name, n + 1);
	s->sym.struct_size = OPJIT_SYMBOL_SIZE_1_0;
	s->sym.name = s->name;
	s->sym.start = start;
	s->sym.size = size;
	s->sym.file = file; /* owned by the map, which outlives us */
	s->sym.line = line;
	st->syms[st->nr_syms++] = s;
	return &s->sym;
}

int jm_syms_for_each(struct jm_state *st, jm_symbol_cb cb, void *arg)
{
	for (size_t i = 0; i < st->nr_syms; i++) {
		int ret = cb(arg, &st->syms[i]->sym);

		if (ret)
			return ret;
	}
	return 0;
}

void jm_syms_free(struct jm_state *st)
{
	for (size_t i = 0; i < st->nr_syms; i++)
		free(st->syms[i]);
	free(st->syms);
	st->syms = NULL;
	st->nr_syms = st->cap_syms = 0;
	oputil_idxset_free(&st->sym_set);
}
