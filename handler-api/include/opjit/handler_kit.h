/* SPDX-License-Identifier: MIT */
/*
 * What every handler would otherwise write again, as inline code beside
 * opjit/anon_handler.h and opjit/anon_handler_claim.h (MIT: include it,
 * or copy it into a handler's tree).  Not part of the ABI: a handler
 * built with any version of it loads into every 1.x host.
 *
 *   struct opjit_kit_syms   symbols whose pointers stay valid until
 *                           opjit_kit_syms_free(), names copied in, found
 *                           by address
 *   opjit_kit_resolve()     the batch walk: a symbol or a reason for each
 *                           sample
 *   struct opjit_kit_err    a state's last error, for last_error()
 *   OPJIT_KIT_ENTRY(table)  the entry point, handing each host a table of
 *                           its own minor
 *
 * A perf map handler is then its line parser plus about forty lines
 * (tests/handlers/kit_handler.c).  Everything here is reentrant: a state
 * holds all that changes, as the ABI's concurrency rule asks.
 */
#ifndef OPJIT_HANDLER_KIT_H
#define OPJIT_HANDLER_KIT_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opjit/anon_handler.h>

/* ---- the symbol store ---- */

#define OPJIT_KIT_CHUNK 512	   /* symbols a chunk */
#define OPJIT_KIT_TEXT (64u << 10) /* bytes a block of names */

struct opjit_kit_chunk {
	struct opjit_kit_chunk *next;
	size_t used;
	struct opjit_symbol sym[OPJIT_KIT_CHUNK];
};

struct opjit_kit_text {
	struct opjit_kit_text *next;
	size_t used, cap;
	char buf[];
};

struct opjit_kit_entry {
	const struct opjit_symbol *sym;
	size_t seq; /* order of adding: the later of two at one start wins */
};

/* Zero it to start.  Symbols live in chunks that never move, so a
 * pointer opjit_kit_syms_add() returned stays valid until the store is
 * freed, as resolve() must promise until release(). */
struct opjit_kit_syms {
	struct opjit_kit_chunk *chunks; /* newest first */
	struct opjit_kit_text *text;
	struct opjit_kit_entry *index; /* by start, after _index() */
	size_t nr, nr_index;
};

static inline const char *opjit_kit_strdup(struct opjit_kit_syms *s,
					   const char *str, size_t len)
{
	struct opjit_kit_text *t = s->text;
	char *p;

	if (!t || t->cap - t->used < len + 1) {
		size_t cap = len + 1 > OPJIT_KIT_TEXT ? len + 1
						      : OPJIT_KIT_TEXT;

		t = (struct opjit_kit_text *)malloc(sizeof(*t) + cap);
		if (!t)
			return NULL;
		t->used = 0;
		t->cap = cap;
		t->next = s->text;
		s->text = t;
	}
	p = t->buf + t->used;
	memcpy(p, str, len);
	p[len] = '\0';
	t->used += len + 1;
	return p;
}

/* Add [START, START+SIZE) named by the NAME_LEN bytes at NAME (copied),
 * from FILE (copied, or NULL) at LINE.  The symbol, or NULL when out of
 * memory. */
static inline const struct opjit_symbol *
opjit_kit_syms_add(struct opjit_kit_syms *s, uint64_t start, uint64_t size,
		   const char *name, size_t name_len, const char *file,
		   uint32_t line)
{
	struct opjit_kit_chunk *c = s->chunks;
	struct opjit_symbol *sym;
	const char *n, *f = NULL;

	if (!c || c->used == OPJIT_KIT_CHUNK) {
		c = (struct opjit_kit_chunk *)calloc(1, sizeof(*c));
		if (!c)
			return NULL;
		c->next = s->chunks;
		s->chunks = c;
	}
	n = opjit_kit_strdup(s, name, name_len);
	if (file)
		f = opjit_kit_strdup(s, file, strlen(file));
	if (!n || (file && !f))
		return NULL;
	sym = &c->sym[c->used++];
	memset(sym, 0, sizeof(*sym));
	sym->struct_size = OPJIT_SYMBOL_SIZE_1_0;
	sym->name = n;
	sym->start = start;
	sym->size = size;
	sym->file = f;
	sym->line = line;
	s->nr++;
	return sym;
}

static inline int opjit_kit_entry_cmp(const void *a, const void *b)
{
	const struct opjit_kit_entry *x = (const struct opjit_kit_entry *)a;
	const struct opjit_kit_entry *y = (const struct opjit_kit_entry *)b;

	if (x->sym->start != y->sym->start)
		return x->sym->start < y->sym->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort what was added for opjit_kit_syms_find(); again after adding
 * more.  0 or -ENOMEM. */
static inline int opjit_kit_syms_index(struct opjit_kit_syms *s)
{
	struct opjit_kit_entry *e;
	struct opjit_kit_chunk *c;
	size_t i, k = s->nr;

	e = (struct opjit_kit_entry *)realloc(s->index, (s->nr ? s->nr : 1) *
								sizeof(*e));
	if (!e)
		return -ENOMEM;
	s->index = e;
	/* newest chunk first: number backwards from the last added */
	for (c = s->chunks; c; c = c->next)
		for (i = c->used; i-- > 0;) {
			k--;
			e[k].sym = &c->sym[i];
			e[k].seq = k;
		}
	qsort(e, s->nr, sizeof(*e), opjit_kit_entry_cmp);
	s->nr_index = s->nr;
	return 0;
}

/* The symbol holding ADDR: of those starting at or below it, the one
 * starting last (the last added of equal starts), if ADDR is inside it
 * (a symbol of size 0 holds its start alone); NULL otherwise. */
static inline const struct opjit_symbol *
opjit_kit_syms_find(const struct opjit_kit_syms *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nr_index;
	const struct opjit_symbol *sym;

	while (lo < hi) { /* the first entry starting above ADDR */
		size_t mid = lo + (hi - lo) / 2;

		if (s->index[mid].sym->start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	sym = s->index[lo - 1].sym;
	if (addr - sym->start < sym->size ||
	    (!sym->size && addr == sym->start))
		return sym;
	return NULL;
}

static inline void opjit_kit_syms_free(struct opjit_kit_syms *s)
{
	while (s->chunks) {
		struct opjit_kit_chunk *c = s->chunks;

		s->chunks = c->next;
		free(c);
	}
	while (s->text) {
		struct opjit_kit_text *t = s->text;

		s->text = t->next;
		free(t);
	}
	free(s->index);
	memset(s, 0, sizeof(*s));
}

/* ---- the batch walk ---- */

/* The symbol for ADDR at TIME (CLOCK_MONOTONIC ns, 0 when the host gave
 * none), or NULL with *REASON (preset to OPJIT_UNRESOLVED_NO_ENTRY) saying
 * why. */
typedef const struct opjit_symbol *(*opjit_kit_lookup)(void *ctx,
						       uint64_t addr,
						       uint64_t time,
						       uint32_t *reason);

/* A lookup for a store whose names do not depend on time (a perf map). */
static inline const struct opjit_symbol *
opjit_kit_syms_lookup(void *ctx, uint64_t addr, uint64_t time,
		      uint32_t *reason)
{
	(void)time;
	(void)reason;
	return opjit_kit_syms_find((const struct opjit_kit_syms *)ctx, addr);
}

/* Whether a host's batch holds 1.0's fields, which a resolve() that
 * walks the batch itself checks first: 0, or -EINVAL with the line in
 * ERR (ERR_SIZE bytes) for last_error() to give. */
static inline int opjit_kit_batch_check(const struct opjit_resolve_batch *b,
					char *err, size_t err_size)
{
	if (b->struct_size >= OPJIT_RESOLVE_BATCH_SIZE_1_0)
		return 0;
	snprintf(err, err_size, "resolve batch of %zu bytes is too small",
		 b->struct_size);
	return -EINVAL;
}

/* resolve() through LOOK: each sample's symbol, or its reason.  Reads
 * and writes only what the batch's struct_size holds.  0, or -EINVAL
 * for a batch smaller than 1.0's. */
static inline int opjit_kit_resolve(struct opjit_resolve_batch *b,
				    opjit_kit_lookup look, void *ctx)
{
	size_t i;

	if (b->struct_size < OPJIT_RESOLVE_BATCH_SIZE_1_0)
		return -EINVAL;
	for (i = 0; i < b->count; i++) {
		uint32_t why = OPJIT_UNRESOLVED_NO_ENTRY;

		b->symbols[i] = look(ctx, b->addrs[i],
				     b->times ? b->times[i] : 0, &why);
		if (!b->symbols[i] && b->reasons)
			b->reasons[i] = why;
	}
	return 0;
}

/* ---- the error buffer ---- */

/* A state's last error, one line; last_error() returns
 * opjit_kit_err_text(). */
struct opjit_kit_err {
	char msg[256];
};

/* Say why (printf style, no newline) and return RC, a negative errno:
 * `return opjit_kit_errf(&st->err, -EIO, "%s: %s", path, strerror(e));` */
static inline int opjit_kit_errf(struct opjit_kit_err *e, int rc,
				 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline int opjit_kit_errf(struct opjit_kit_err *e, int rc,
				 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->msg[strcspn(e->msg, "\n")] = '\0';
	return rc;
}

static inline const char *opjit_kit_err_text(const struct opjit_kit_err *e)
{
	return e->msg[0] ? e->msg : NULL;
}

/* ---- the table per host minor ---- */

/* The size of the table of MINOR. */
static inline size_t opjit_kit_table_size(uint32_t minor)
{
	if (minor >= 5)
		return OPJIT_HANDLER_SIZE_1_5;
	if (minor == 4)
		return OPJIT_HANDLER_SIZE_1_4;
	if (minor == 3)
		return OPJIT_HANDLER_SIZE_1_3;
	return OPJIT_HANDLER_SIZE_1_0;
}

/* TABLE as a host of HOST_MAJOR.HOST_MINOR may take it: NULL for another
 * major; TABLE itself for a host of 1.5 or later (which ignores slots it
 * does not know) or of TABLE's minor or later; else a copy in *OLDER cut
 * to the host's own minor, its later slots gone, as hosts before 1.5
 * refuse a byte set past what they know. */
static inline const struct opjit_handler *
opjit_kit_table_for(const struct opjit_handler *table,
		    struct opjit_handler *older, uint32_t host_major,
		    uint32_t host_minor)
{
	size_t size;

	if (host_major != OPJIT_HANDLER_ABI_MAJOR)
		return NULL;
	if (host_minor >= 5 || host_minor >= table->abi_minor)
		return table;
	size = opjit_kit_table_size(host_minor);
	memset(older, 0, sizeof(*older));
	memcpy(older, table, size);
	older->struct_size = size;
	older->abi_minor = host_minor;
	return older;
}

/* The entry point, for a handler whose table is TABLE (filled as
 * { .struct_size = OPJIT_HANDLER_SIZE, .abi_major =
 * OPJIT_HANDLER_ABI_MAJOR, .abi_minor = OPJIT_HANDLER_ABI_MINOR, ... }).
 * The host calls it once, before anything else. */
#define OPJIT_KIT_ENTRY(table)                                                \
	OPJIT_HANDLER_EXPORT const struct opjit_handler *opjit_handler_entry( \
		uint32_t host_abi_major, uint32_t host_abi_minor)             \
	{                                                                     \
		static struct opjit_handler opjit_kit_older;                  \
                                                                              \
		return opjit_kit_table_for(&(table), &opjit_kit_older,        \
					   host_abi_major, host_abi_minor);   \
	}

#endif
