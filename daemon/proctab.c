// SPDX-License-Identifier: GPL-3.0-or-later
#include "proctab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jitlog_attach.h"

/* a JIT that maps more separate regions than this is summarised by the
 * ones seen first; the samples themselves are all kept */
#define PROC_MAX_RANGES 65536

int proctab_init(struct proctab *t)
{
	memset(t, 0, sizeof(*t));
	return 0;
}

/* tgid 0 is a task too: keys are tgid + 1, since 0 is not a key */
struct proc *proctab_get(struct proctab *t, uint32_t tgid)
{
	uint64_t v;

	/* a process keeps its tgid until it is removed (proc_reset keeps
	 * it), and removing it forgets it here */
	if (t->hot && t->hot->tgid == tgid)
		return t->hot;
	if (!oputil_u64map_get(&t->map, (uint64_t)tgid + 1, &v))
		return NULL;
	t->hot = (struct proc *)(uintptr_t)v;
	return t->hot;
}

static void proc_release(struct proc *p)
{
	maptab_free(&p->maps);
	free(p->exe);
	free(p->jitdump);
	free(p->ranges);
	if (p->tmpfd >= 0)
		close(p->tmpfd);
	jitlog_attach_forget(p);
}

void proc_reset(struct proc *p)
{
	uint32_t tgid = p->tgid;

	proc_release(p);
	memset(p, 0, sizeof(*p));
	p->tgid = tgid;
	p->kctx = MAPTAB_NO_CTX;
	p->kctx_cpu = -1;
	p->proc_id = PROC_NO_ID;
	p->tmpfd = -1;
}

struct proc *proctab_add(struct proctab *t, uint32_t tgid)
{
	struct proc *p = proctab_get(t, tgid);

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
	if (oputil_u64map_put(&t->map, (uint64_t)tgid + 1, (uintptr_t)p,
			      NULL) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

void proctab_remove(struct proctab *t, struct proc *p)
{
	uint64_t v;

	if (oputil_u64map_get(&t->map, (uint64_t)p->tgid + 1, &v) &&
	    v == (uintptr_t)p)
		oputil_u64map_del(&t->map, (uint64_t)p->tgid + 1, NULL);
	if (t->hot == p)
		t->hot = NULL;
	proc_release(p);
	free(p);
}

void proctab_free(struct proctab *t)
{
	proctab_for_each(t, i, p)
	{
		proc_release(p);
		free(p);
	}
	oputil_u64map_free(&t->map);
	t->hot = NULL;
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
