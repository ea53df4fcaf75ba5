// SPDX-License-Identifier: GPL-3.0-or-later
#include "threadtab.h"

#include <stdlib.h>
#include <string.h>

/* tid 0 is never kept (the idle task is no thread of a process), so the
 * tid is the key as it is */
struct thread *threadtab_get(struct threadtab *t, uint32_t tid)
{
	uint64_t v;

	if (t->hot && t->hot->tid == tid)
		return t->hot;
	if (!tid || !oputil_u64map_get(&t->map, tid, &v))
		return NULL;
	t->hot = (struct thread *)(uintptr_t)v;
	return t->hot;
}

struct thread *threadtab_add(struct threadtab *t, uint32_t tgid, uint32_t tid)
{
	struct thread *th = threadtab_get(t, tid);

	if (!tid)
		return NULL;
	if (th && th->tgid == tgid)
		return th;
	if (!th) {
		th = malloc(sizeof(*th));
		if (!th)
			return NULL;
		if (oputil_u64map_put(&t->map, tid, (uintptr_t)th, NULL) < 0) {
			free(th);
			return NULL;
		}
	}
	/* a new thread, or a tid that another process now uses */
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->tgid = tgid;
	t->hot = th;
	return th;
}

void threadtab_remove(struct threadtab *t, uint32_t tid)
{
	struct thread *th = threadtab_get(t, tid);

	if (!th)
		return;
	oputil_u64map_del(&t->map, tid, NULL);
	if (t->hot == th)
		t->hot = NULL;
	free(th);
}

void threadtab_free(struct threadtab *t)
{
	for (size_t i = 0; i < t->map.cap; i++)
		if (t->map.slots[i].key)
			free((void *)(uintptr_t)t->map.slots[i].val);
	oputil_u64map_free(&t->map);
	t->hot = NULL;
}
