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

#include <oputil/grow.h>
#include <oputil/hash.h>
#include <oputil/idxset.h>
#include <oputil/u64map.h>

#include "anon_handlers.h"
#include "handler_internal.h"

struct handler_collect {
	struct handler_arena **arena;
	struct handler_table t;
	/* the handler's pointer -> table index + 1, for one batch */
	struct oputil_u64map psym, pfile;
	/* pointers already counted as malformed, for the whole process */
	struct oputil_u64map pmalformed, pmalformed_inl;
	/* the table's symbols and files, by content */
	struct oputil_idxset ssym, sfile;
	handler_code_fn code; /* ask each new symbol's code, or NULL */
	void *code_ctx;
};

void handler_collect_code(struct handler_collect *c, handler_code_fn fn,
			  void *ctx)
{
	c->code = fn;
	c->code_ctx = ctx;
}

/* NULL and "" hash apart; the end of one string is marked before the
 * next begins */
static uint64_t str_hash(uint64_t h, const char *s)
{
	if (!s)
		return oputil_hash_word64(h, 0);
	return oputil_hash_word64(oputil_hash_str(h, s), 1);
}

static uint64_t sym_hash(const struct anon_symbol *s)
{
	uint64_t h = OPUTIL_HASH_SEED;

	h = str_hash(h, s->name);
	h = str_hash(h, s->file);
	h = oputil_hash_word64(h, s->start);
	h = oputil_hash_word64(h, s->size);
	/* code loaded anew at one address: another symbol */
	h = oputil_hash_word64(h, s->code_load_ns);
	h = oputil_hash_word64(h, s->code_len);
	return oputil_hash_word64(h, s->line);
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool sym_eq(const struct anon_symbol *a, const struct anon_symbol *b)
{
	return a->start == b->start && a->size == b->size &&
	       a->line == b->line && str_eq(a->name, b->name) &&
	       str_eq(a->file, b->file) && a->code_err == b->code_err &&
	       a->code_load_ns == b->code_load_ns &&
	       a->code_addr == b->code_addr && a->code_len == b->code_len &&
	       (!a->code_len || !memcmp(a->code, b->code, a->code_len));
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
	if (s->code_len > HANDLER_MAX_CODE || (s->code_len && !s->code) ||
	    s->code_err > 0 || s->code_err < -4095) {
		snprintf(why, len,
			 "returned %" PRIu64 " bytes of code for a symbol, "
			 "more than %u or none",
			 s->code_len, HANDLER_MAX_CODE);
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
	oputil_u64map_free(&c->psym);
	oputil_u64map_free(&c->pfile);
	oputil_u64map_free(&c->pmalformed);
	oputil_u64map_free(&c->pmalformed_inl);
	oputil_idxset_free(&c->ssym);
	oputil_idxset_free(&c->sfile);
	free(c);
}

bool handler_tail_zero(const void *p, size_t known, size_t size)
{
	const unsigned char *b = p;
	size_t i;

	if (size > HANDLER_STRUCT_MAX)
		return false;
	for (i = known; i < size; i++)
		if (b[i])
			return false;
	return true;
}

const struct handler_table *handler_collect_table(struct handler_collect *c)
{
	return &c->t;
}

static uint64_t file_hash(const char *f)
{
	return str_hash(OPUTIL_HASH_SEED, f);
}

/* The index + 1 of symbol S in the table, added (copied) when new. */
static int sym_intern(struct handler_collect *c, const struct anon_symbol *s,
		      uint32_t *idx)
{
	struct oputil_idxset_pos pos;
	struct anon_symbol *copy;
	uint32_t i;

	/* room first: once the symbol is in the table, the set must take it */
	if (oputil_idxset_reserve(&c->ssym, c->ssym.nr + 1) < 0)
		return -ENOMEM;
	i = oputil_idxset_find(&c->ssym, sym_hash(s), &pos, k,
			       sym_eq(c->t.sym[k], s));
	if (i != OPUTIL_IDXSET_NONE) {
		*idx = i + 1;
		return 0;
	}
	copy = handler_arena_alloc(c->arena, sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	*copy = *s;
	copy->name = handler_arena_strdup(c->arena, s->name);
	copy->file = s->file ? handler_arena_strdup(c->arena, s->file) : NULL;
	if (s->code_len) {
		uint8_t *code = handler_arena_alloc(c->arena, s->code_len);

		if (!code)
			return -ENOMEM;
		memcpy(code, s->code, s->code_len);
		copy->code = code;
	}
	if (!copy->name || (s->file && !copy->file) ||
	    handler_table_add_sym(&c->t, copy) < 0)
		return -ENOMEM;
	oputil_idxset_put(&c->ssym, &pos, (uint32_t)c->t.nsym - 1);
	*idx = (uint32_t)c->t.nsym;
	return 0;
}

static int file_intern(struct handler_collect *c, const char *f, uint32_t *idx)
{
	struct oputil_idxset_pos pos;
	const char *copy;
	uint32_t i;

	if (oputil_idxset_reserve(&c->sfile, c->sfile.nr + 1) < 0)
		return -ENOMEM;
	i = oputil_idxset_find(&c->sfile, file_hash(f), &pos, k,
			       !strcmp(c->t.file[k], f));
	if (i != OPUTIL_IDXSET_NONE) {
		*idx = i + 1;
		return 0;
	}
	copy = handler_arena_strdup(c->arena, f);
	if (!copy || handler_table_add_file(&c->t, copy) < 0)
		return -ENOMEM;
	oputil_idxset_put(&c->sfile, &pos, (uint32_t)c->t.nfile - 1);
	*idx = (uint32_t)c->t.nfile;
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
	uint64_t *slot = oputil_u64map_ref(&c->psym, (uintptr_t)os, NULL), *m;
	uint32_t i;
	int rc;

	if (!slot)
		return nomem(why, whylen);
	if (!*slot) {
		rc = sym_take(os, &s, &malformed, why, whylen);
		if (rc < 0)
			return rc;
		if (!malformed && c->code) {
			c->code(c->code_ctx, os, &s);
			rc = handler_sym_check(&s, why, whylen);
			if (rc < 0)
				return rc;
		}
		if (sym_intern(c, &s, &i) < 0)
			return nomem(why, whylen);
		*slot = i;
		if (malformed) {
			m = oputil_u64map_ref(&c->pmalformed, (uintptr_t)os,
					      NULL);
			if (!m)
				return nomem(why, whylen);
			c->t.malformed += !*m;
			*m = 1;
		}
	}
	*idx = (uint32_t)*slot;
	return 0;
}

/* The table index + 1 of file name F, checked the first time. */
static int file_index(struct handler_collect *c, const char *f, uint32_t *idx,
		      char *why, size_t whylen)
{
	uint64_t *slot = oputil_u64map_ref(&c->pfile, (uintptr_t)f, NULL);
	uint32_t i;

	if (!slot)
		return nomem(why, whylen);
	if (!*slot) {
		if (strnlen(f, HANDLER_MAX_TEXT + 1) > HANDLER_MAX_TEXT) {
			snprintf(why, whylen,
				 "returned a file name longer than %u bytes",
				 HANDLER_MAX_TEXT);
			return -HANDLER_BROKE;
		}
		if (file_intern(c, f, &i) < 0)
			return nomem(why, whylen);
		*slot = i;
	}
	*idx = (uint32_t)*slot;
	return 0;
}

int handler_answer_inl_reserve(struct handler_answer *a, size_t n)
{
	return oputil_grow(&a->inl, &a->cap_inl, a->len_inl + n,
			   sizeof(*a->inl));
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
			uint64_t *m = oputil_u64map_ref(
				&c->pmalformed_inl, (uintptr_t)&f[k], NULL);

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

	oputil_u64map_clear(&c->psym);
	oputil_u64map_clear(&c->pfile);
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
