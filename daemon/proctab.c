// SPDX-License-Identifier: GPL-3.0-or-later
#include "proctab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROCTAB_BUCKETS 4096
/* a JIT that maps more separate regions than this is summarised by the
 * ones seen first; the samples themselves are all kept */
#define PROC_MAX_RANGES 65536

int proctab_init(struct proctab *t)
{
	t->buckets = calloc(PROCTAB_BUCKETS, sizeof(*t->buckets));
	if (!t->buckets)
		return -ENOMEM;
	t->nr_buckets = PROCTAB_BUCKETS;
	t->n = 0;
	return 0;
}

static size_t proctab_hash(const struct proctab *t, uint32_t tgid)
{
	return (tgid * 2654435761u) & (t->nr_buckets - 1);
}

struct proc *proctab_get(const struct proctab *t, uint32_t tgid)
{
	struct proc *p = t->buckets[proctab_hash(t, tgid)];

	while (p && p->tgid != tgid)
		p = p->next;
	return p;
}

static void proc_release(struct proc *p)
{
	maptab_free(&p->maps);
	free(p->exe);
	free(p->jitdump);
	free(p->ranges);
	if (p->tmpfd >= 0)
		close(p->tmpfd);
}

void proc_reset(struct proc *p)
{
	struct proc *next = p->next;
	uint32_t tgid = p->tgid;

	proc_release(p);
	memset(p, 0, sizeof(*p));
	p->next = next;
	p->tgid = tgid;
	p->kctx = MAPTAB_NO_CTX;
	p->kctx_cpu = -1;
	p->proc_id = PROC_NO_ID;
	p->tmpfd = -1;
}

struct proc *proctab_add(struct proctab *t, uint32_t tgid)
{
	struct proc *p = proctab_get(t, tgid);
	size_t h;

	if (p) {
		proc_reset(p);
		return p;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->tgid = tgid;
	p->tmpfd = -1;
	proc_reset(p);
	h = proctab_hash(t, tgid);
	p->next = t->buckets[h];
	t->buckets[h] = p;
	t->n++;
	return p;
}

void proctab_remove(struct proctab *t, struct proc *p)
{
	struct proc **pp = &t->buckets[proctab_hash(t, p->tgid)];

	while (*pp && *pp != p)
		pp = &(*pp)->next;
	if (*pp) {
		*pp = p->next;
		t->n--;
	}
	proc_release(p);
	free(p);
}

void proctab_free(struct proctab *t)
{
	for (size_t i = 0; i < t->nr_buckets; i++) {
		struct proc *p = t->buckets[i];

		while (p) {
			struct proc *next = p->next;

			proc_release(p);
			free(p);
			p = next;
		}
	}
	free(t->buckets);
	t->buckets = NULL;
	t->nr_buckets = t->n = 0;
}

int proc_add_range(struct proc *p, uint64_t start, uint64_t end)
{
	struct ops_range *v;

	for (uint32_t i = 0; i < p->ident.nr_ranges; i++)
		if (p->ranges[i].start == start && p->ranges[i].end == end)
			return 0;
	if (p->ident.nr_ranges >= PROC_MAX_RANGES)
		return 0;
	if (p->ident.nr_ranges == p->cap_ranges) {
		uint32_t cap = p->cap_ranges ? p->cap_ranges * 2 : 8;

		v = realloc(p->ranges, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->ranges = v;
		p->cap_ranges = cap;
	}
	p->ranges[p->ident.nr_ranges++] = (struct ops_range){ start, end };
	p->ident.ranges = p->ranges;
	p->dirty = true;
	return 0;
}
