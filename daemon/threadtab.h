/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The threads the recorder knows, by tid, with their names: kept only
 * when the session separates threads (--separate=thread).
 */
#ifndef OPROFILED_THREADTAB_H
#define OPROFILED_THREADTAB_H

#include <stdbool.h>
#include <stdint.h>

#include <oputil/u64map.h>

#include "proctab.h"

struct thread {
	uint32_t tid;
	uint32_t tgid;
	bool written; /* its name is in the session (it has samples) */
	char comm[PROC_COMM_MAX];
};

struct threadtab {
	struct oputil_u64map map; /* tid to its struct thread */
	struct thread *hot;	  /* the one found last, or NULL */
};

/* TID's thread, or NULL; the one found last is tried first. */
struct thread *threadtab_get(struct threadtab *t, uint32_t tid);
/* TID's entry, made fresh (not written, no name) when it was not there
 * or belonged to another process than TGID; NULL when out of memory. */
struct thread *threadtab_add(struct threadtab *t, uint32_t tgid, uint32_t tid);
void threadtab_remove(struct threadtab *t, uint32_t tid);
void threadtab_free(struct threadtab *t);

#endif
