/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The processes the recorder knows, by tgid. */
#ifndef OPROFILED_PROCTAB_H
#define OPROFILED_PROCTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <opjit/samples.h>
#include <oputil/u64map.h>

#include "maptab.h"

#define PROC_COMM_MAX 16
#define PROC_NO_ID UINT32_MAX

struct jitlog_target;

struct proc {
	uint32_t tgid;
	bool has_app;
	bool exited;
	bool sampled;	 /* counted in the session's processes */
	bool ident_read; /* identity taken from /proc */
	bool dirty;	 /* identity or ranges changed since flush */
	bool archived;
	bool exec_seen; /* the entry began at its exec */
	uint32_t app;	/* image id of the executable */
	uint64_t exit_round;
	struct maptab maps;
	uint64_t maps_given; /* maps.gen when given with a stack copy */
	uint32_t kctx;	     /* cached kernel context */
	int32_t kctx_cpu;
	bool kctx_app; /* made once the program was known */
	char comm[PROC_COMM_MAX];
	/* for processes that ran anonymous code */
	uint32_t proc_id; /* writer's id, PROC_NO_ID until registered */
	struct ops_process ident;
	char *exe;
	struct ops_range *ranges;
	uint32_t cap_ranges;
	int tmpfd;     /* its /tmp, when in another mount namespace */
	char *jitdump; /* the jit-<pid>.dump it mapped */
	/* libopjit-jitlog's control block, when the process maps the
	 * library (jitlog_attach.c) */
	struct jitlog_target *jitlog_target;
	uint8_t jitlog; /* enum jitlog_attach_state */
	uint8_t jitlog_tries;
};

struct proctab {
	struct oputil_u64map map; /* tgid + 1 to its struct proc */
	struct proc *hot;	  /* the one found last, or NULL */
};

int proctab_init(struct proctab *t);
/* TGID's process, or NULL; the one found last is tried first. */
struct proc *proctab_get(struct proctab *t, uint32_t tgid);
/* A fresh entry for TGID, replacing any stale one. */
struct proc *proctab_add(struct proctab *t, uint32_t tgid);
void proctab_remove(struct proctab *t, struct proc *p);
void proctab_free(struct proctab *t);
/* Reset P to a fresh state (a new process with the same tgid). */
void proc_reset(struct proc *p);
/* Note the anonymous range [START, END) once. */
int proc_add_range(struct proc *p, uint64_t start, uint64_t end);

/* The process in slot I of T's map, or NULL. */
static inline struct proc *proctab_slot(const struct proctab *t, size_t i)
{
	return t->map.slots[i].key
		       ? (struct proc *)(uintptr_t)t->map.slots[i].val
		       : NULL;
}

/* Every process; the table must not change during the walk. */
#define proctab_for_each(t, i, p)                 \
	for (size_t i = 0; i < (t)->map.cap; i++) \
		for (struct proc *p = proctab_slot(t, i); p; p = NULL)

#endif
