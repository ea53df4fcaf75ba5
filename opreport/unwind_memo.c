// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The unwinding memo (unwind_memo.h): entries keyed by (layout, ip, sp,
 * bp) in an idxset, each key's entries chained newest first, their
 * reads and frames in two arrays.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/hash.h>
#include <oputil/idxset.h>

#include "unwind_memo.h"

/* Entries of one key tried at most: a key whose reads differ from copy
 * to copy more often than this is not worth checking more of. */
#define MEMO_WAYS 8

/* Bytes of entries, reads and frames remembered at most (their arrays
 * grow by doubling): past it, copies are unwound afresh. */
#define MEMO_MAX_BYTES (64u << 20)

struct memo_entry {
	uint64_t ip, sp, bp;
	uint32_t layout;
	uint32_t older;		/* the key's entry before this one, or NONE */
	size_t reads, nr_reads; /* in m->reads */
	size_t frames, nr_frames; /* in m->frames */
	bool fault;
	int ret;
};

struct unwind_memo {
	struct memo_entry *e;
	size_t nr, cap;
	struct unwind_read *reads;
	size_t nr_reads, cap_reads;
	struct unwind_frame *frames;
	size_t nr_frames, cap_frames;
	struct oputil_idxset set; /* the newest entry of each key */
	size_t hits, misses;
};

struct unwind_memo *unwind_memo_new(void)
{
	return calloc(1, sizeof(struct unwind_memo));
}

void unwind_memo_free(struct unwind_memo *m)
{
	if (!m)
		return;
	free(m->e);
	free(m->reads);
	free(m->frames);
	oputil_idxset_free(&m->set);
	free(m);
}

static uint64_t key_hash(uint32_t layout, const struct ops_stack_copy *c)
{
	uint64_t h = oputil_hash_word64(OPUTIL_HASH_SEED, layout);

	h = oputil_hash_word64(h, c->ip);
	h = oputil_hash_word64(h, c->sp);
	return oputil_hash_word64(h, c->bp);
}

static bool key_eq(const struct memo_entry *e, uint32_t layout,
		   const struct ops_stack_copy *c)
{
	return e->layout == layout && e->ip == c->ip && e->sp == c->sp &&
	       e->bp == c->bp;
}

/* Whether every read of E reads the same in copy C. */
static bool reads_fit(const struct unwind_memo *m, const struct memo_entry *e,
		      const struct ops_stack_copy *c)
{
	const struct unwind_read *r = m->reads + e->reads;
	size_t i;

	for (i = 0; i < e->nr_reads; i++) {
		uint64_t v;
		bool ok = ops_stack_copy_word(c, r[i].addr, &v);

		if (ok != r[i].ok || (ok && v != r[i].value))
			return false;
	}
	return true;
}

bool unwind_memo_find(struct unwind_memo *m, uint32_t layout,
		      const struct ops_stack_copy *c,
		      struct unwind_outcome *out)
{
	uint32_t i = oputil_idxset_find(&m->set, key_hash(layout, c), NULL, k,
					key_eq(&m->e[k], layout, c));
	int ways;

	for (ways = 0; i != OPUTIL_IDXSET_NONE && ways < MEMO_WAYS; ways++) {
		const struct memo_entry *e = &m->e[i];

		if (reads_fit(m, e, c)) {
			*out = (struct unwind_outcome){ m->frames + e->frames,
							e->nr_frames, e->fault,
							e->ret };
			m->hits++;
			return true;
		}
		i = e->older;
	}
	m->misses++;
	return false;
}

int unwind_memo_add(struct unwind_memo *m, uint32_t layout,
		    const struct ops_stack_copy *c,
		    const struct unwind_read *reads, size_t nr,
		    const struct unwind_outcome *o)
{
	struct oputil_idxset_pos pos;
	struct memo_entry *e;
	uint32_t newest;

	if ((m->nr + 1) * sizeof(*m->e) + (m->nr_reads + nr) * sizeof(*reads) +
		    (m->nr_frames + o->nr) * sizeof(*o->frames) >
	    MEMO_MAX_BYTES)
		return 0;
	newest = oputil_idxset_find(&m->set, key_hash(layout, c), &pos, k,
				    key_eq(&m->e[k], layout, c));
	if (oputil_grow(&m->e, &m->cap, m->nr + 1, sizeof(*m->e)) ||
	    oputil_grow(&m->reads, &m->cap_reads, m->nr_reads + nr,
			sizeof(*m->reads)) ||
	    oputil_grow(&m->frames, &m->cap_frames, m->nr_frames + o->nr,
			sizeof(*m->frames)) ||
	    oputil_idxset_put(&m->set, &pos, (uint32_t)m->nr) < 0)
		return -ENOMEM;
	e = &m->e[m->nr++];
	*e = (struct memo_entry){ c->ip,  c->sp,       c->bp, layout,
				  newest, m->nr_reads, nr,    m->nr_frames,
				  o->nr,  o->fault,    o->ret };
	if (nr)
		memcpy(m->reads + m->nr_reads, reads, nr * sizeof(*reads));
	if (o->nr)
		memcpy(m->frames + m->nr_frames, o->frames,
		       o->nr * sizeof(*o->frames));
	m->nr_reads += nr;
	m->nr_frames += o->nr;
	return 0;
}

void unwind_memo_stats(const struct unwind_memo *m, size_t *hits,
		       size_t *misses)
{
	*hits = m ? m->hits : 0;
	*misses = m ? m->misses : 0;
}
