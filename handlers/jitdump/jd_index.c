// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Which code held an address at a moment.  Each load starts a life of
 * its code at its address; a move ends the life at the old address and
 * starts one at the new.  A later load over the same addresses takes
 * them over from that moment (memory reused by a re-JIT), so within one
 * address segment the newest life that had started by the sample's time
 * is the one that ran.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/hash.h>
#include <oputil/idxset.h>
#include <oputil/search.h>

#include "jitdump.h"

static int life_add(struct jd_index *x, size_t *cap, uint64_t start,
		    uint64_t size, uint64_t from, uint64_t delta,
		    uint32_t code)
{
	struct jd_life *l;

	if (oputil_grow(&x->life, cap, x->nlife + 1, sizeof(*x->life)))
		return -ENOMEM;
	l = &x->life[x->nlife++];
	l->start = start;
	l->end = start + size;
	l->from = from;
	l->to = UINT64_MAX;
	l->delta = delta;
	l->code = code;
	return 0;
}

static const struct jd_dump *sort_dump;

static uint64_t ev_time(const struct jd_dump *d, const struct jd_event *e)
{
	return e->kind == JD_CODE_LOAD ? d->code[e->i].time
				       : d->move[e->i].time;
}

/* Event numbers by time, then file order: writers on several threads
 * may append a little out of order. */
static int ev_cmp(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	uint64_t ti = ev_time(sort_dump, &sort_dump->ev[i]);
	uint64_t tj = ev_time(sort_dump, &sort_dump->ev[j]);

	if (ti != tj)
		return ti < tj ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Lives from the events, each with its start time (or its place in
 * the file, when times do not count). */
static int index_lives(struct jd_index *x, const struct jd_dump *d)
{
	uint32_t *order = NULL;
	/* d->code by code_index, the newest load of each */
	struct oputil_idxset idx = { 0 };
	struct oputil_idxset_pos pos;
	uint32_t *cur = NULL; /* code -> its newest life + 1 */
	size_t cap = 0, i;
	int rc = -ENOMEM;

	order = malloc((d->nev ? d->nev : 1) * sizeof(*order));
	if (!order)
		goto out;
	for (i = 0; i < d->nev; i++)
		order[i] = (uint32_t)i;
	/* most writers append in time order: sort only when needed */
	for (i = 1; i < d->nev && !x->by_address; i++) {
		if (ev_time(d, &d->ev[i - 1]) > ev_time(d, &d->ev[i])) {
			sort_dump = d;
			qsort(order, d->nev, sizeof(*order), ev_cmp);
			break;
		}
	}
	cur = calloc(d->ncode ? d->ncode : 1, sizeof(*cur));
	if (!cur || d->ncode >= OPUTIL_IDXSET_NONE ||
	    oputil_idxset_reserve(&idx, d->ncode))
		goto out;
	for (i = 0; i < d->nev; i++) {
		const struct jd_event *e = &d->ev[order[i]];
		uint64_t t = x->by_address ? i : ev_time(d, e);

		if (e->kind == JD_CODE_LOAD) {
			const struct jd_code *c = &d->code[e->i];

			(void)oputil_idxset_find(&idx,
						 oputil_hash_u64(c->index),
						 &pos, k,
						 d->code[k].index == c->index);
			if (oputil_idxset_put(&idx, &pos, e->i) < 0) {
				rc = -ENOMEM;
				goto out;
			}
			if (!c->size)
				continue;
			rc = life_add(x, &cap, c->addr, c->size, t, 0, e->i);
			if (rc)
				goto out;
			cur[e->i] = (uint32_t)x->nlife;
		} else {
			const struct jd_move *m = &d->move[e->i];
			uint32_t code = oputil_idxset_find(
				&idx, oputil_hash_u64(m->index), NULL, k,
				d->code[k].index == m->index);
			uint64_t size;

			if (code == OPUTIL_IDXSET_NONE) {
				x->unknown_moves++;
				continue;
			}
			if (cur[code])
				x->life[cur[code] - 1].to = t;
			size = m->size ? m->size : d->code[code].size;
			if (!size || m->new_addr + size < m->new_addr)
				continue;
			rc = life_add(x, &cap, m->new_addr, size, t,
				      m->new_addr - d->code[code].addr, code);
			if (rc)
				goto out;
			cur[code] = (uint32_t)x->nlife;
		}
	}
	rc = 0;
out:
	free(order);
	free(cur);
	oputil_idxset_free(&idx);
	return rc;
}

/* The first of the N sorted bounds B not below V. */
static size_t bound_find(const uint64_t *b, size_t n, uint64_t v)
{
	return oputil_partition(0, n, k, b[k] < v);
}

/* Cut the lives' ranges into disjoint segments listing, oldest first,
 * the lives that cover them. */
static int index_segments(struct jd_index *x)
{
	uint64_t *b = NULL;
	uint32_t *cnt = NULL, *fill = NULL;
	size_t nb = 0, i, j, total = 0;
	int rc = -ENOMEM;

	if (!x->nlife)
		return 0;
	b = malloc(2 * x->nlife * sizeof(*b));
	if (!b)
		goto out;
	for (i = 0; i < x->nlife; i++) {
		b[nb++] = x->life[i].start;
		b[nb++] = x->life[i].end;
	}
	qsort(b, nb, sizeof(*b), u64_cmp);
	for (i = 0, j = 0; i < nb; i++)
		if (!j || b[j - 1] != b[i])
			b[j++] = b[i];
	nb = j;
	/* elementary interval k is [b[k], b[k + 1]) */
	cnt = calloc(nb, sizeof(*cnt));
	if (!cnt)
		goto out;
	for (i = 0; i < x->nlife; i++) {
		size_t k = bound_find(b, nb, x->life[i].start);

		for (; k + 1 < nb && b[k] < x->life[i].end; k++) {
			if (++total > JD_MAX_LIST) {
				rc = -E2BIG;
				goto out;
			}
			cnt[k]++;
		}
	}
	x->list = malloc((total ? total : 1) * sizeof(*x->list));
	fill = calloc(nb, sizeof(*fill));
	if (!x->list || !fill)
		goto out;
	x->nlist = total;
	for (i = 0, j = 0; i < nb; i++) {
		fill[i] = (uint32_t)j;
		j += cnt[i];
	}
	/* lives were made in time order: each list comes out sorted */
	for (i = 0; i < x->nlife; i++) {
		size_t k = bound_find(b, nb, x->life[i].start);

		for (; k + 1 < nb && b[k] < x->life[i].end; k++)
			x->list[fill[k]++] = (uint32_t)i;
	}
	x->seg = calloc(nb, sizeof(*x->seg));
	if (!x->seg)
		goto out;
	for (i = 0, j = 0; i + 1 < nb; i++) {
		if (!cnt[i])
			continue;
		x->seg[x->nseg].start = b[i];
		x->seg[x->nseg].end = b[i + 1];
		x->seg[x->nseg].first = (uint32_t)j;
		x->seg[x->nseg].n = cnt[i];
		x->nseg++;
		j += cnt[i];
	}
	rc = 0;
out:
	free(b);
	free(cnt);
	free(fill);
	return rc;
}

int jd_index_build(struct jd_index *x, const struct jd_dump *d,
		   bool by_address)
{
	int rc;

	memset(x, 0, sizeof(*x));
	x->by_address = by_address;
	rc = index_lives(x, d);
	if (!rc)
		rc = index_segments(x);
	if (rc)
		jd_index_free(x);
	return rc;
}

void jd_index_free(struct jd_index *x)
{
	free(x->life);
	free(x->seg);
	free(x->list);
	x->life = NULL;
	x->seg = NULL;
	x->list = NULL;
	x->nlife = x->nseg = x->nlist = 0;
}

size_t jd_index_seg(const struct jd_index *x, uint64_t addr)
{
	/* the first segment that ends after ADDR */
	size_t lo = oputil_partition(0, x->nseg, k, x->seg[k].end <= addr);

	if (lo < x->nseg && x->seg[lo].start <= addr)
		return lo;
	return SIZE_MAX;
}

uint32_t jd_index_life(const struct jd_index *x, size_t seg, uint64_t time)
{
	const struct jd_seg *s = &x->seg[seg];
	const uint32_t *v = x->list + s->first;
	size_t lo;

	if (x->by_address)
		return v[s->n - 1];
	/* the newest life that had started by TIME */
	lo = oputil_partition(0, s->n, k, x->life[v[k]].from <= time);
	if (lo && x->life[v[lo - 1]].to > time)
		return v[lo - 1];
	/* nothing was there (yet, or any more): code whose load record
	 * was stamped just after it began to run */
	if (lo < s->n && x->life[v[lo]].from - time <= JD_EARLY_NS)
		return v[lo];
	return UINT32_MAX;
}

const struct jd_line *jd_line_at(const struct jd_dump *d,
				 const struct jd_index *x, uint32_t l,
				 uint64_t addr)
{
	const struct jd_life *life = &x->life[l];
	const struct jd_code *c = &d->code[life->code];
	const struct jd_line *v = d->lines + c->first_line;
	uint64_t a = addr - life->delta;
	size_t lo;

	if (!c->nlines)
		return NULL;
	lo = oputil_partition(0, c->nlines, k, v[k].addr <= a);
	return lo ? &v[lo - 1] : &v[0];
}
