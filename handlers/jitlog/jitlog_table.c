// SPDX-License-Identifier: MIT
/*
 * On attach, the table of what lives: each live piece of code and each
 * method as an entry holding its records, encoded as they would be
 * written, in one arena, and a map from id to the entry's offset.  An
 * event costs no malloc: entries are appended, a dead one only counts
 * its bytes, and the arena is compacted when the dead outweigh the live.
 * Entries stay in the order they were made, which is an order the log
 * can be written in (a method comes before the code that names it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jitlog_internal.h"

#define ARENA_FIRST (64u << 10)

static size_t entry_size(size_t mlen, size_t llen)
{
	return (sizeof(struct opjit_jl_live) + mlen + llen + 7) & ~(size_t)7;
}

static struct opjit_jl_live *entry_at(const struct opjit_jl_table *t,
				      size_t off)
{
	return (struct opjit_jl_live *)(void *)(t->arena + off);
}

static size_t entry_len(const struct opjit_jl_live *l)
{
	return entry_size(l->mlen, l->llen);
}

/* Whether the entry at OFF is the live one of its id. */
static bool entry_live(const struct opjit_jl_table *t, size_t off)
{
	size_t at;

	return opjit_jl_ids_get(&t->ids, entry_at(t, off)->id, &at) &&
	       at == off;
}

/* Move the live entries to the front, in their order. */
static void compact(struct opjit_jl_table *t)
{
	size_t from = 0, to = 0, n;

	while (from < t->len) {
		n = entry_len(entry_at(t, from));
		if (entry_live(t, from)) {
			if (to != from)
				memmove(t->arena + to, t->arena + from, n);
			/* a live id is in the index: no room to make */
			opjit_jl_ids_put(&t->ids, entry_at(t, to)->id, to);
			to += n;
		}
		from += n;
	}
	t->len = to;
	t->dead = 0;
}

/* Room for N more bytes at the arena's end. */
static int reserve(struct opjit_jl_table *t, size_t n)
{
	size_t cap = t->cap ? t->cap : ARENA_FIRST;
	unsigned char *a;

	/* the dead outweigh the live: reuse their room, which is warm,
	 * before the arena's end, which may never have been touched */
	if (t->dead > t->len / 2 && t->dead >= ARENA_FIRST / 2)
		compact(t);
	if (t->len + n <= t->cap)
		return 0;
	while (cap < t->len + n)
		cap *= 2;
	a = realloc(t->arena, cap);
	if (!a)
		return -ENOMEM;
	opjit_jl_populate(a + t->cap, a + cap);
	t->arena = a;
	t->cap = cap;
	return 0;
}

static void kill_entry(struct opjit_jl_table *t, size_t off)
{
	t->dead += entry_len(entry_at(t, off));
}

int opjit_jl_table_put(struct opjit_jl_table *t,
		       const struct opjit_jitlog_code *c, size_t mlen,
		       size_t llen, bool move, uint64_t time_ns,
		       const struct opjit_jl_live **out)
{
	size_t was_off = 0, off;
	struct opjit_jl_live *l;
	int rc;

	/* a load's id is new: only a move has an entry to replace */
	if (move && !opjit_jl_ids_get(&t->ids, c->id, &was_off))
		return -EINVAL; /* no live code of that id */
	if (move)
		mlen = entry_at(t, was_off)->mlen;
	/* a compaction in reserve() moves the entry a move copies from */
	rc = reserve(t, entry_size(mlen, llen));
	if (rc)
		return rc;
	if (move)
		opjit_jl_ids_get(&t->ids, c->id, &was_off);
	off = t->len;
	rc = opjit_jl_ids_put(&t->ids, c->id, off);
	if (rc)
		return rc;
	l = entry_at(t, off);
	l->id = c->id;
	l->mlen = (uint32_t)mlen;
	l->llen = (uint32_t)llen;
	if (move)
		memcpy(l->rec, entry_at(t, was_off)->rec, mlen);
	else if (mlen)
		opjit_jl_put_method(l->rec, c, mlen, time_ns);
	if (llen)
		opjit_jl_put_load(l->rec + mlen, c, llen, time_ns);
	t->len += entry_len(l);
	if (move)
		kill_entry(t, was_off);
	*out = l;
	return 0;
}

void opjit_jl_table_del(struct opjit_jl_table *t, uint64_t id)
{
	size_t off;

	if (opjit_jl_ids_del(&t->ids, id, &off))
		kill_entry(t, off);
}

int opjit_jl_table_each(const struct opjit_jl_table *t,
			int (*fn)(void *arg, const struct opjit_jl_live *l),
			void *arg)
{
	size_t off;
	int rc = 0;

	for (off = 0; off < t->len && !rc; off += entry_len(entry_at(t, off)))
		if (entry_live(t, off))
			rc = fn(arg, entry_at(t, off));
	return rc;
}

void opjit_jl_table_free(struct opjit_jl_table *t)
{
	free(t->arena);
	opjit_jl_ids_free(&t->ids);
	t->arena = NULL;
	t->len = t->cap = t->dead = 0;
}
