// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * --separate=thread: each thread's histograms under contexts of its own,
 * and the names of the threads that have samples (FORMAT.md,
 * CONTEXT_THREADS and THREADS).
 */
#include "recorder.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/hash.h>

#include "procinfo.h"

int recorder_threads_init(struct recorder *r)
{
	r->tctx = malloc(RECORDER_TCTX * sizeof(*r->tctx));
	if (!r->tctx)
		return -ENOMEM;
	for (size_t i = 0; i < RECORDER_TCTX; i++)
		r->tctx[i].ctx = MAPTAB_NO_CTX;
	return 0;
}

void recorder_threads_free(struct recorder *r)
{
	threadtab_free(&r->threads);
	free(r->tctx);
	r->tctx = NULL;
}

/* Threads interleave on a mapping sample by sample, so one context
 * cached in the mapping, as without threads, would miss at every
 * sample: a direct-mapped cache by the whole key costs a hash and a
 * compare, the writer's lookup an encoding and a probe. */
int recorder_thread_context(struct recorder *r, uint32_t app, uint32_t image,
			    uint32_t tgid, int32_t cpu, uint32_t tid,
			    uint32_t *ctx)
{
	uint64_t h = oputil_hash_word64(
		oputil_hash_word(oputil_hash_word(OPUTIL_HASH_SEED, image),
				 tid),
		(uint64_t)app << 32 | tgid);
	struct recorder_tctx *c;
	int err;

	h = oputil_hash_word(h, (uint32_t)cpu);
	c = &r->tctx[h & (RECORDER_TCTX - 1)];
	if (c->ctx != MAPTAB_NO_CTX && c->app == app && c->image == image &&
	    c->tgid == tgid && c->tid == tid && c->cpu == cpu &&
	    c->event == r->event) {
		*ctx = c->ctx;
		return 0;
	}
	err = recorder_context(r, app, image, tgid, cpu, tid, ctx);
	if (err)
		return err;
	*c =
		(struct recorder_tctx){ app, image, tgid,    tid,
					cpu, *ctx,  r->event };
	return 0;
}

static void thread_write(struct recorder *r, struct thread *t)
{
	int err;

	if (!t->comm[0])
		return;
	err = ops_writer_thread(r->w, t->tgid, t->tid, t->comm);
	if (err)
		recorder_fail(r, err, true);
	t->written = true;
}

void recorder_thread_sample(struct recorder *r, uint32_t tgid, uint32_t tid)
{
	struct thread *t = threadtab_get(&r->threads, tid);

	if (t && t->written && t->tgid == tgid)
		return;
	if (!tid)
		return; /* the idle task */
	if (!t || t->tgid != tgid) {
		struct proc *p;

		t = threadtab_add(&r->threads, tgid, tid);
		if (!t) {
			recorder_fail(r, -ENOMEM, false);
			return;
		}
		/* a thread that ran before the recording and was not
		 * scanned: its name now, or its process's */
		if (procinfo_thread_comm((pid_t)tgid, (pid_t)tid, t->comm)) {
			p = proctab_get(&r->procs, tgid);
			if (p)
				memcpy(t->comm, p->comm, sizeof(t->comm));
		}
	}
	thread_write(r, t);
}

void recorder_thread_comm(struct recorder *r, uint32_t tgid, uint32_t tid,
			  const char *comm, size_t len)
{
	struct thread *t = threadtab_add(&r->threads, tgid, tid);

	if (!t) {
		if (tid)
			recorder_fail(r, -ENOMEM, false);
		return;
	}
	len = strnlen(comm, len);
	if (len > sizeof(t->comm) - 1)
		len = sizeof(t->comm) - 1;
	memcpy(t->comm, comm, len);
	t->comm[len] = '\0';
	/* a rename after its first sample: the session keeps the last */
	if (t->written)
		thread_write(r, t);
}

void recorder_thread_fork(struct recorder *r, uint32_t tgid, uint32_t tid,
			  uint32_t ptid)
{
	struct thread *parent = threadtab_get(&r->threads, ptid);
	char comm[PROC_COMM_MAX] = "";
	struct thread *t;

	/* the kernel copies the creator's comm to the new task */
	if (parent)
		memcpy(comm, parent->comm, sizeof(comm));
	t = threadtab_add(&r->threads, tgid, tid);
	if (!t) {
		if (tid)
			recorder_fail(r, -ENOMEM, false);
		return;
	}
	memcpy(t->comm, comm, sizeof(comm));
}

void recorder_thread_exit(struct recorder *r, uint32_t tid)
{
	threadtab_remove(&r->threads, tid);
}

void recorder_scan_threads(struct recorder *r, pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	if (!r->tctx)
		return;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return; /* gone: its threads' samples read /proc or fall back */
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		struct thread *t;

		if (*end || tid <= 0 || tid > INT32_MAX)
			continue;
		t = threadtab_add(&r->threads, (uint32_t)pid, (uint32_t)tid);
		if (!t) {
			recorder_fail(r, -ENOMEM, false);
			break;
		}
		procinfo_thread_comm(pid, (pid_t)tid, t->comm);
	}
	closedir(d);
}
