// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * What resolve() returned, turned into a process's symbol and file
 * tables and per-sample indexes.  The same code runs inside opreport and
 * inside a handler's helper process, so both paths group and refuse
 * alike.  Symbols are told apart by content, not by pointer: the pointer
 * only saves looking at the content again within one batch.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon_handlers.h"
#include "handler_internal.h"

/* Pointer -> index + 1, valid for one batch. */
struct ptr_map {
	const void **key;
	uint32_t *val;
	size_t cap, n;
};

/* Index + 1 of table entries, hashed by content. */
struct idx_set {
	uint32_t *v;
	size_t cap, n;
};

struct handler_collect {
	struct handler_arena **arena;
	struct handler_table t;
	struct ptr_map psym, pfile;
	struct ptr_map pmalformed; /* for the whole process */
	struct idx_set ssym, sfile;
};

static uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x;
	h *= 0x100000001b3ULL;
	h ^= h >> 29;
	return h;
}

static uint64_t str_hash(uint64_t h, const char *s)
{
	if (!s)
		return mix(h, 0x9e3779b97f4a7c15ULL);
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return mix(h, 1);
}

static uint64_t sym_hash(const struct anon_symbol *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = str_hash(h, s->name);
	h = str_hash(h, s->file);
	h = mix(h, s->start);
	h = mix(h, s->size);
	return mix(h, s->line);
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool sym_eq(const struct anon_symbol *a, const struct anon_symbol *b)
{
	return a->start == b->start && a->size == b->size &&
	       a->line == b->line && str_eq(a->name, b->name) &&
	       str_eq(a->file, b->file);
}

static size_t ptr_hash(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x;
}

static int ptr_map_grow(struct ptr_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256, i, j;
	const void **key = calloc(cap, sizeof(*key));
	uint32_t *val = calloc(cap, sizeof(*val));

	if (!key || !val) {
		free(key);
		free(val);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->key[i])
			continue;
		for (j = ptr_hash(m->key[i]) & (cap - 1); key[j];
		     j = (j + 1) & (cap - 1))
			;
		key[j] = m->key[i];
		val[j] = m->val[i];
	}
	free(m->key);
	free(m->val);
	m->key = key;
	m->val = val;
	m->cap = cap;
	return 0;
}

/* The value slot of P (0 when new), or NULL when out of memory. */
static uint32_t *ptr_map_slot(struct ptr_map *m, const void *p)
{
	size_t j;

	if ((m->n + 1) * 2 > m->cap && ptr_map_grow(m) < 0)
		return NULL;
	for (j = ptr_hash(p) & (m->cap - 1); m->key[j];
	     j = (j + 1) & (m->cap - 1))
		if (m->key[j] == p)
			return &m->val[j];
	m->key[j] = p;
	m->val[j] = 0;
	m->n++;
	return &m->val[j];
}

static void ptr_map_clear(struct ptr_map *m)
{
	if (m->n)
		memset(m->key, 0, m->cap * sizeof(*m->key));
	m->n = 0;
}

int handler_table_add_sym(struct handler_table *t, const struct anon_symbol *s)
{
	if (t->nsym == t->capsym) {
		size_t cap = t->capsym ? t->capsym * 2 : 256;
		const struct anon_symbol **v;

		v = realloc(t->sym, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->sym = v;
		t->capsym = cap;
	}
	t->sym[t->nsym++] = s;
	return 0;
}

int handler_table_add_file(struct handler_table *t, const char *f)
{
	if (t->nfile == t->capfile) {
		size_t cap = t->capfile ? t->capfile * 2 : 64;
		const char **v;

		v = realloc(t->file, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->file = v;
		t->capfile = cap;
	}
	t->file[t->nfile++] = f;
	return 0;
}

void handler_table_free(struct handler_table *t)
{
	free(t->sym);
	free(t->file);
	memset(t, 0, sizeof(*t));
}

int handler_sym_check(const struct anon_symbol *s, char *why, size_t len)
{
	if (!s->name) {
		snprintf(why, len, "returned a symbol with no name");
		return -HANDLER_BROKE;
	}
	if (strnlen(s->name, HANDLER_MAX_TEXT + 1) > HANDLER_MAX_TEXT ||
	    (s->file &&
	     strnlen(s->file, HANDLER_MAX_TEXT + 1) > HANDLER_MAX_TEXT)) {
		snprintf(why, len,
			 "returned a symbol text longer than %u "
			 "bytes",
			 HANDLER_MAX_TEXT);
		return -HANDLER_BROKE;
	}
	if (s->size > HANDLER_MAX_SYM_SIZE || s->start + s->size < s->start) {
		snprintf(why, len,
			 "returned a symbol of %" PRIu64 " bytes at "
			 "0x%" PRIx64,
			 s->size, s->start);
		return -HANDLER_BROKE;
	}
	return 0;
}

struct handler_collect *handler_collect_new(struct handler_arena **arena)
{
	struct handler_collect *c = calloc(1, sizeof(*c));

	if (c)
		c->arena = arena;
	return c;
}

void handler_collect_free(struct handler_collect *c)
{
	if (!c)
		return;
	handler_table_free(&c->t);
	free(c->psym.key);
	free(c->psym.val);
	free(c->pfile.key);
	free(c->pfile.val);
	free(c->pmalformed.key);
	free(c->pmalformed.val);
	free(c->ssym.v);
	free(c->sfile.v);
	free(c);
}

const struct handler_table *handler_collect_table(struct handler_collect *c)
{
	return &c->t;
}

static uint64_t file_hash(const char *f)
{
	return str_hash(0xcbf29ce484222325ULL, f);
}

static uint64_t entry_hash(const struct handler_collect *c, bool file,
			   uint32_t idx)
{
	return file ? file_hash(c->t.file[idx - 1])
		    : sym_hash(c->t.sym[idx - 1]);
}

static int idx_set_grow(struct handler_collect *c, struct idx_set *set,
			bool file)
{
	size_t cap = set->cap ? set->cap * 2 : 256, i, j;
	uint32_t *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i < set->cap; i++) {
		if (!set->v[i])
			continue;
		for (j = entry_hash(c, file, set->v[i]) & (cap - 1); v[j];
		     j = (j + 1) & (cap - 1))
			;
		v[j] = set->v[i];
	}
	free(set->v);
	set->v = v;
	set->cap = cap;
	return 0;
}

/* The index + 1 of symbol S in the table, added (copied) when new. */
static int sym_intern(struct handler_collect *c, const struct anon_symbol *s,
		      uint32_t *idx)
{
	struct idx_set *set = &c->ssym;
	struct anon_symbol *copy;
	size_t j;

	if ((set->n + 1) * 2 > set->cap && idx_set_grow(c, set, false) < 0)
		return -ENOMEM;
	for (j = sym_hash(s) & (set->cap - 1); set->v[j];
	     j = (j + 1) & (set->cap - 1))
		if (sym_eq(c->t.sym[set->v[j] - 1], s)) {
			*idx = set->v[j];
			return 0;
		}
	copy = handler_arena_alloc(c->arena, sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	*copy = *s;
	copy->name = handler_arena_strdup(c->arena, s->name);
	copy->file = s->file ? handler_arena_strdup(c->arena, s->file) : NULL;
	if (!copy->name || (s->file && !copy->file) ||
	    handler_table_add_sym(&c->t, copy) < 0)
		return -ENOMEM;
	set->v[j] = (uint32_t)c->t.nsym;
	set->n++;
	*idx = set->v[j];
	return 0;
}

static int file_intern(struct handler_collect *c, const char *f, uint32_t *idx)
{
	struct idx_set *set = &c->sfile;
	const char *copy;
	size_t j;

	if ((set->n + 1) * 2 > set->cap && idx_set_grow(c, set, true) < 0)
		return -ENOMEM;
	for (j = file_hash(f) & (set->cap - 1); set->v[j];
	     j = (j + 1) & (set->cap - 1))
		if (!strcmp(c->t.file[set->v[j] - 1], f)) {
			*idx = set->v[j];
			return 0;
		}
	copy = handler_arena_strdup(c->arena, f);
	if (!copy || handler_table_add_file(&c->t, copy) < 0)
		return -ENOMEM;
	set->v[j] = (uint32_t)c->t.nfile;
	set->n++;
	*idx = set->v[j];
	return 0;
}

/* Only the fields the handler's symbol has.  One whose layout this host
 * cannot honour (too short, the reserved field set, fields set past what
 * it knows) is kept, as "(malformed symbol)"; one with no name or an
 * impossible size is garbage, and fails the batch. */
static int sym_take(const struct opjit_symbol *os, struct anon_symbol *s,
		    bool *malformed, char *why, size_t len)
{
	memset(s, 0, sizeof(*s));
	*malformed =
		os->struct_size <
			OPJIT_SIZE_THROUGH(struct opjit_symbol, size) ||
		(os->struct_size >= OPJIT_SYMBOL_SIZE_1_0 && os->reserved) ||
		!handler_tail_zero(os, OPJIT_SYMBOL_SIZE_1_0, os->struct_size);
	if (*malformed) {
		s->name = "(malformed symbol)";
		return 0;
	}
	s->name = os->name;
	s->start = os->start;
	s->size = os->size;
	if (os->struct_size >= OPJIT_SIZE_THROUGH(struct opjit_symbol, file))
		s->file = os->file;
	if (os->struct_size >= OPJIT_SIZE_THROUGH(struct opjit_symbol, line))
		s->line = os->line;
	return handler_sym_check(s, why, len);
}

static int nomem(char *why, size_t len)
{
	snprintf(why, len, "out of memory");
	return -HANDLER_NOMEM;
}

int handler_collect_batch(struct handler_collect *c,
			  const struct opjit_symbol *const *syms,
			  const char *const *files, const uint32_t *lines,
			  const uint32_t *reasons, size_t n,
			  struct handler_answer *ans, char *why, size_t whylen)
{
	struct anon_symbol s;
	bool malformed;
	size_t i;
	int rc;

	ptr_map_clear(&c->psym);
	ptr_map_clear(&c->pfile);
	for (i = 0; i < n; i++) {
		uint32_t *slot;

		ans->sym[i] = 0;
		ans->file[i] = 0;
		ans->line[i] = lines[i];
		ans->reason[i] = !syms[i] && reasons[i] < ANON_NR_REASONS
					 ? reasons[i]
					 : 0;
		if (syms[i]) {
			slot = ptr_map_slot(&c->psym, syms[i]);
			if (!slot)
				return nomem(why, whylen);
			if (!*slot) {
				rc = sym_take(syms[i], &s, &malformed, why,
					      whylen);
				if (rc < 0)
					return rc;
				if (sym_intern(c, &s, slot) < 0)
					return nomem(why, whylen);
				if (malformed) {
					uint32_t *m = ptr_map_slot(
						&c->pmalformed, syms[i]);

					if (!m)
						return nomem(why, whylen);
					c->t.malformed += !*m;
					*m = 1;
				}
			}
			ans->sym[i] = *slot;
		}
		if (files[i]) {
			slot = ptr_map_slot(&c->pfile, files[i]);
			if (!slot)
				return nomem(why, whylen);
			if (!*slot) {
				if (strnlen(files[i], HANDLER_MAX_TEXT + 1) >
				    HANDLER_MAX_TEXT) {
					snprintf(why, whylen,
						 "returned a "
						 "file name longer than %u "
						 "bytes",
						 HANDLER_MAX_TEXT);
					return -HANDLER_BROKE;
				}
				if (file_intern(c, files[i], slot) < 0)
					return nomem(why, whylen);
			}
			ans->file[i] = *slot;
		}
	}
	return 0;
}
