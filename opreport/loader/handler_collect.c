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
	struct ptr_map pmalformed_inl;
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
	free(c->pmalformed_inl.key);
	free(c->pmalformed_inl.val);
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

/* The table index + 1 of the handler's symbol OS, taken and checked the
 * first time the batch names it. */
static int sym_index(struct handler_collect *c, const struct opjit_symbol *os,
		     uint32_t *idx, char *why, size_t whylen)
{
	struct anon_symbol s;
	bool malformed;
	uint32_t *slot = ptr_map_slot(&c->psym, os), *m;
	int rc;

	if (!slot)
		return nomem(why, whylen);
	if (!*slot) {
		rc = sym_take(os, &s, &malformed, why, whylen);
		if (rc < 0)
			return rc;
		if (sym_intern(c, &s, slot) < 0)
			return nomem(why, whylen);
		if (malformed) {
			m = ptr_map_slot(&c->pmalformed, os);
			if (!m)
				return nomem(why, whylen);
			c->t.malformed += !*m;
			*m = 1;
		}
	}
	*idx = *slot;
	return 0;
}

/* The table index + 1 of file name F, checked the first time. */
static int file_index(struct handler_collect *c, const char *f, uint32_t *idx,
		      char *why, size_t whylen)
{
	uint32_t *slot = ptr_map_slot(&c->pfile, f);

	if (!slot)
		return nomem(why, whylen);
	if (!*slot) {
		if (strnlen(f, HANDLER_MAX_TEXT + 1) > HANDLER_MAX_TEXT) {
			snprintf(why, whylen,
				 "returned a file name longer than %u bytes",
				 HANDLER_MAX_TEXT);
			return -HANDLER_BROKE;
		}
		if (file_intern(c, f, slot) < 0)
			return nomem(why, whylen);
	}
	*idx = *slot;
	return 0;
}

int handler_answer_inl_reserve(struct handler_answer *a, size_t n)
{
	size_t cap = a->cap_inl ? a->cap_inl : 256;
	struct handler_inline *v;

	if (a->len_inl + n <= a->cap_inl)
		return 0;
	while (cap < a->len_inl + n)
		cap *= 2;
	v = realloc(a->inl, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	a->inl = v;
	a->cap_inl = cap;
	return 0;
}

/* Whether this host can honour inline frame F: one whose layout it does
 * not know ends the chain, and counts as a malformed symbol would. */
static bool inline_frame_ok(const struct opjit_inline_frame *f)
{
	return f->struct_size >= OPJIT_INLINE_FRAME_SIZE_1_2 && !f->reserved &&
	       handler_tail_zero(f, OPJIT_INLINE_FRAME_SIZE_1_2,
				 f->struct_size);
}

/* Sample I's inline frames (ABI 1.2), appended to ANS. */
static int inline_take(struct handler_collect *c,
		       const struct opjit_resolve_batch *b, size_t i,
		       struct handler_answer *ans, char *why, size_t whylen)
{
	const struct opjit_inline_frame *f = b->inlined[i];
	uint32_t k, nr = b->nr_inlined[i];
	int rc;

	ans->nr_inl[i] = 0;
	if (!nr || !b->symbols[i])
		return 0;
	if (!f) {
		snprintf(why, whylen, "returned %u inline frames and no array",
			 nr);
		return -HANDLER_BROKE;
	}
	/* the frames nearest the sample say the most */
	if (nr > OPJIT_INLINE_MAX)
		nr = OPJIT_INLINE_MAX;
	if (handler_answer_inl_reserve(ans, nr) < 0)
		return nomem(why, whylen);
	for (k = 0; k < nr; k++) {
		struct handler_inline *hi = &ans->inl[ans->len_inl];

		if (!inline_frame_ok(&f[k])) {
			uint32_t *m = ptr_map_slot(&c->pmalformed_inl, &f[k]);

			if (!m)
				return nomem(why, whylen);
			c->t.malformed_inl += !*m;
			*m = 1;
			break;
		}
		if (!f[k].symbol) {
			snprintf(why, whylen,
				 "returned an inline frame with no symbol");
			return -HANDLER_BROKE;
		}
		rc = sym_index(c, f[k].symbol, &hi->sym, why, whylen);
		hi->file = 0;
		if (!rc && f[k].file)
			rc = file_index(c, f[k].file, &hi->file, why, whylen);
		if (rc < 0)
			return rc;
		hi->line = f[k].line;
		ans->len_inl++;
		ans->nr_inl[i]++;
	}
	return 0;
}

int handler_collect_batch(struct handler_collect *c,
			  const struct opjit_resolve_batch *b,
			  struct handler_answer *ans, char *why, size_t whylen)
{
	size_t i;
	int rc = 0;

	ptr_map_clear(&c->psym);
	ptr_map_clear(&c->pfile);
	ans->len_inl = 0;
	for (i = 0; i < b->count && !rc; i++) {
		ans->sym[i] = 0;
		ans->file[i] = 0;
		ans->line[i] = b->lines[i];
		ans->reason[i] = !b->symbols[i] && b->reasons[i] <
							   ANON_NR_REASONS
					 ? b->reasons[i]
					 : 0;
		if (b->symbols[i])
			rc = sym_index(c, b->symbols[i], &ans->sym[i], why,
				       whylen);
		if (!rc && b->files[i])
			rc = file_index(c, b->files[i], &ans->file[i], why,
					whylen);
		if (!rc)
			rc = inline_take(c, b, i, ans, why, whylen);
	}
	return rc;
}
