// SPDX-License-Identifier: GPL-3.0-or-later
/* The sample path and the records that change the mapping tables. */
#include "recorder.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>

#include <oputil/hash.h>

#include "jitlog_attach.h"
#include "procinfo.h"
#include "record.h"

/* room for about two seconds of samples at 4 kHz */
#define PENDING_CAP 8192
/* a held sample is given up once records this much newer were read */
#define PENDING_HOLD_NS 100000000ull
/* rounds an exited process's table is kept for its late samples */
#define EXIT_GRACE_ROUNDS 3

int recorder_init(struct recorder *r, struct ops_writer *w,
		  const struct recorder_config *cfg)
{
	int err;

	memset(r, 0, sizeof(*r));
	r->w = w;
	r->cfg = *cfg;
	r->kctx_idle = MAPTAB_NO_CTX;
	err = proctab_init(&r->procs);
	if (!err)
		err = imgcache_init(&r->images);
	if (!err)
		err = pending_init(&r->pending, PENDING_CAP);
	if (!err && (cfg->separate & OPS_SEPARATE_THREAD))
		err = recorder_threads_init(r);
	if (!err && cfg->callgraph_depth) {
		/* the kernel adds a context marker or a few to the frames */
		err = pending_init_chains(&r->pending,
					  cfg->callgraph_depth + 16);
		r->addrs = calloc(OPS_STACK_MAX_FRAMES, sizeof(*r->addrs));
		r->placed = calloc(RECORDER_PLACED, sizeof(*r->placed));
		if (!err && (!r->addrs || !r->placed))
			err = -ENOMEM;
		/* recorder_anon() gives each JIT sample's stack with it,
		 * the sample's address its leaf */
		ops_writer_anon_in_stacks(w);
	}
	return err;
}

void recorder_free(struct recorder *r)
{
	proctab_free(&r->procs);
	imgcache_free(&r->images);
	pending_free(&r->pending);
	recorder_threads_free(r);
	free(r->addrs);
	r->addrs = NULL;
	free(r->placed);
	r->placed = NULL;
	free(r->exits);
	r->exits = NULL;
}

int recorder_context(struct recorder *r, uint32_t app, uint32_t image,
		     uint32_t tgid, int32_t cpu, uint32_t tid, uint32_t *ctx)
{
	struct ops_context c = {
		.app = app,
		.image = image,
		.tgid = (r->cfg.separate & OPS_SEPARATE_PROCESS) ? tgid : 0,
		.cpu = (r->cfg.separate & OPS_SEPARATE_CPU) ? cpu : -1,
		.tid = (r->cfg.separate & OPS_SEPARATE_THREAD) ? tid : 0,
		.event = r->event,
	};
	int err = ops_writer_context(r->w, &c, ctx);

	if (err)
		recorder_fail(r, err, true);
	return err;
}

static void recorder_tally_give(struct recorder *r, struct recorder_tally *t)
{
	int err = ops_writer_hist_add(r->w, t->ctx, t->offset, t->count);

	t->count = 0;
	if (err)
		recorder_fail(r, err, true);
}

/* Give the round's counts to the writer: at the end of each round, and
 * before anything reads or flushes the writer's. */
static void recorder_tally_flush(struct recorder *r)
{
	for (uint32_t i = 0; i < r->nr_tally_used; i++) {
		struct recorder_tally *t = &r->tally[r->tally_used[i]];

		if (t->count)
			recorder_tally_give(r, t);
	}
	r->nr_tally_used = 0;
}

static void recorder_hist(struct recorder *r, uint32_t ctx, uint64_t off)
{
	uint32_t slot = (uint32_t)oputil_hash_word64(
				oputil_hash_word(OPUTIL_HASH_SEED, ctx), off) &
			(RECORDER_TALLY - 1);
	struct recorder_tally *t = &r->tally[slot];

	if (t->count && t->ctx == ctx && t->offset == off &&
	    t->count < UINT32_MAX) {
		t->count++;
		return;
	}
	/* another key (or a full count) gives the slot's to the writer */
	if (t->count)
		recorder_tally_give(r, t);
	else
		r->tally_used[r->nr_tally_used++] = (uint16_t)slot;
	*t = (struct recorder_tally){ .offset = off, .ctx = ctx, .count = 1 };
}

static void recorder_kernel(struct recorder *r, const struct pending_sample *s)
{
	struct ops_image img = {
		.kind = OPS_IMAGE_KERNEL,
		.path = "[kernel.kallsyms]",
	};
	struct proc *p = proctab_get(&r->procs, s->pid);
	int32_t cpu = (r->cfg.separate & OPS_SEPARATE_CPU) ? s->cpu : -1;
	int err;

	if (!r->has_kernel_image) {
		err = ops_writer_image(r->w, &img, &r->kernel_image);
		if (err) {
			recorder_fail(r, err, true);
			return;
		}
		r->has_kernel_image = true;
	}
	if (r->tctx) {
		uint32_t app = p && p->has_app ? p->app : r->kernel_image;
		uint32_t ctx;

		if (recorder_thread_context(r, app, r->kernel_image,
					    p ? p->tgid : s->pid, cpu, s->tid,
					    &ctx))
			return;
		r->kernel++;
		recorder_hist(r, ctx, s->ip);
		recorder_stack(r, p, s, ctx);
		return;
	}
	if (r->event) {
		/* another event's: the caches below are the first's */
		uint32_t app = p && p->has_app ? p->app : r->kernel_image;
		uint32_t ctx;

		if (recorder_context(r, app, r->kernel_image,
				     p ? p->tgid : s->pid, cpu, 0, &ctx))
			return;
		r->kernel++;
		recorder_hist(r, ctx, s->ip);
		recorder_stack(r, p, s, ctx);
		return;
	}
	if (p) {
		/* made again once exec's new program is known: the first
		 * kernel samples after an exec (in execve itself) come
		 * before the mapping that names it */
		if (p->kctx == MAPTAB_NO_CTX || p->kctx_cpu != cpu ||
		    p->kctx_app != p->has_app) {
			uint32_t app = p->has_app ? p->app : r->kernel_image;

			if (recorder_context(r, app, r->kernel_image, p->tgid,
					     cpu, 0, &p->kctx))
				return;
			p->kctx_cpu = cpu;
			p->kctx_app = p->has_app;
		}
		r->kernel++;
		recorder_hist(r, p->kctx, s->ip);
		recorder_stack(r, p, s, p->kctx);
		return;
	}
	/* the idle task, or a task gone before we knew it: the kernel is
	 * its application */
	if (r->kctx_idle == MAPTAB_NO_CTX || r->kctx_idle_cpu != cpu ||
	    r->kctx_idle_tgid != s->pid) {
		if (recorder_context(r, r->kernel_image, r->kernel_image,
				     s->pid, cpu, 0, &r->kctx_idle))
			return;
		r->kctx_idle_cpu = cpu;
		r->kctx_idle_tgid = s->pid;
	}
	r->kernel++;
	recorder_hist(r, r->kctx_idle, s->ip);
	recorder_stack(r, NULL, s, r->kctx_idle);
}

/* The identity points into the process's own strings, which exec and
 * new ranges replace. */
static void recorder_sync_ident(struct proc *p)
{
	p->ident.comm = p->comm;
	p->ident.exe = p->exe;
	p->ident.ranges = p->ranges;
	p->ident.jitdump = p->jitdump;
}

/* Hand P's identity to the writer; a failure stops recording (kept in
 * r->err, reported by the command). */
static int recorder_write_ident(struct recorder *r, struct proc *p)
{
	int err;

	recorder_sync_ident(p);
	err = ops_writer_process_update(r->w, p->proc_id, &p->ident);
	if (err)
		recorder_fail(r, err, true);
	return err;
}

/* P's program ends (exec or exit): its JIT maps are archived while they
 * are its own, and its identity written as it ends. */
static void recorder_retire(struct recorder *r, struct proc *p)
{
	recorder_archive(r, p);
	recorder_write_ident(r, p);
}

int recorder_anon_note(struct recorder *r, struct proc *p,
		       struct maptab_entry *e)
{
	int err;

	if (p->proc_id == PROC_NO_ID) {
		/* an exited pid may belong to someone else by now */
		if (!p->ident_read && !p->exited)
			procinfo_read(p);
		else if (!p->ident_read)
			procinfo_defaults(p);
		recorder_sync_ident(p);
		err = ops_writer_process(r->w, &p->ident, &p->proc_id);
		if (err) {
			p->proc_id = PROC_NO_ID;
			recorder_fail(r, err, true);
			return -1;
		}
	}
	if (!e->seen) {
		e->seen = 1;
		if (proc_add_range(p, e->start, e->end)) {
			recorder_fail(r, -ENOMEM, false);
			return -1;
		}
	}
	return 0;
}

int recorder_app_context(struct recorder *r, struct proc *p, int32_t cpu,
			 uint32_t tid, uint32_t *ctx)
{
	if (!p->has_app)
		return -ENOENT;
	cpu = (r->cfg.separate & OPS_SEPARATE_CPU) ? cpu : -1;
	return recorder_context(r, p->app, p->app, p->tgid, cpu, tid, ctx);
}

static void recorder_anon(struct recorder *r, struct proc *p,
			  struct maptab_entry *e,
			  const struct pending_sample *s)
{
	int err;

	if (recorder_anon_note(r, p, e))
		return;
	r->anon++;
	err = ops_writer_anon_event(r->w, p->proc_id, r->event, s->time, s->ip,
				    s->tid);
	if (err)
		recorder_fail(r, err, true);
}

/* 0 when the sample found its place, -EAGAIN when its mapping is not
 * known (yet). */
static int recorder_resolve(struct recorder *r, const struct pending_sample *s)
{
	struct proc *p = proctab_get(&r->procs, s->pid);
	struct maptab_entry *e;
	uint32_t ctx = MAPTAB_NO_CTX;
	int32_t cpu;

	if (!p)
		return -EAGAIN;
	e = maptab_find(&p->maps, s->ip);
	if (!e)
		return -EAGAIN;
	if (!p->sampled) {
		p->sampled = true;
		r->processes++;
	}
	if (e->image == MAPTAB_ANON) {
		recorder_anon(r, p, e, s);
		recorder_stack(r, p, s, MAPTAB_NO_CTX);
		return 0;
	}
	cpu = (r->cfg.separate & OPS_SEPARATE_CPU) ? s->cpu : -1;
	if (r->tctx) {
		/* a mapping's samples come from all its threads */
		if (recorder_thread_context(r, p->has_app ? p->app : e->image,
					    e->image, p->tgid, cpu, s->tid,
					    &ctx))
			return 0;
	} else if (r->event) {
		/* another event's: the mapping's cached context is the
		 * first's */
		uint32_t app = p->has_app ? p->app : e->image;

		if (recorder_context(r, app, e->image, p->tgid, cpu, 0, &ctx))
			return 0;
	} else if (e->ctx == MAPTAB_NO_CTX || e->ctx_cpu != cpu) {
		uint32_t app = p->has_app ? p->app : e->image;

		if (recorder_context(r, app, e->image, p->tgid, cpu, 0,
				     &e->ctx))
			return 0;
		e->ctx_cpu = cpu;
	}
	if (!r->tctx && !r->event)
		ctx = e->ctx;
	recorder_hist(r, ctx, maptab_offset(e, s->ip));
	recorder_stack(r, p, s, ctx);
	return 0;
}

/* A sample at TIME is counted in the slice of its time, all its counts
 * (flat, stack, copy) in that one, as its anonymous stack sample is by
 * its time.  When TIME is out of the writer's open slice, the counts held
 * back belong to that slice, the next ones to the one at TIME; a sample
 * read late goes back to its own. */
static void recorder_slice(struct recorder *r, uint64_t time)
{
	int err;

	if (time < r->slice_end && time + OPS_SLICE_NS >= r->slice_end)
		return;
	recorder_tally_flush(r);
	err = ops_writer_time(r->w, time, &r->slice_end);
	if (err)
		recorder_fail(r, err, true);
}

static void recorder_sample(struct recorder *r, const struct record_sample *rs)
{
	struct pending_sample s = {
		.time = rs->time, .ip = rs->ip, .pid = rs->pid,
		.tid = rs->tid, .cpu = (int32_t)rs->cpu, .misc = rs->h.misc,
		.event = r->event,
	}, evicted;

	if (r->tctx)
		recorder_thread_sample(r, s.pid, s.tid);
	/* PERF_SAMPLE_CALLCHAIN: nr, then nr entries */
	if (r->cfg.callgraph_depth &&
	    rs->h.size >= sizeof(*rs) + sizeof(uint64_t)) {
		const uint64_t *cc = (const uint64_t *)(rs + 1);
		uint64_t room = (rs->h.size - sizeof(*rs)) / sizeof(*cc) - 1;

		if (cc[0] <= room) {
			s.chain = cc + 1;
			s.nr_chain = (uint32_t)cc[0];
			if (r->cfg.stack_copy)
				recorder_stack_user(&s, cc + 1 + cc[0],
						    room - cc[0]);
		}
	}
	r->samples++;
	recorder_slice(r, s.time);
	switch (rs->h.misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_KERNEL:
	case PERF_RECORD_MISC_GUEST_KERNEL:
	case PERF_RECORD_MISC_HYPERVISOR:
		recorder_kernel(r, &s);
		return;
	}
	if (recorder_resolve(r, &s) != -EAGAIN)
		return;
	/* a held sample keeps its chain, not its copy (it is in the ring) */
	s.regs = NULL;
	s.stack = NULL;
	s.stack_size = 0;
	if (pending_push(&r->pending, &s, &evicted))
		r->unattributed++;
}

static void recorder_mmap2(struct recorder *r, const struct record_mmap2 *m)
{
	bool has_build_id = m->h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID;
	char name[4096];
	struct proc *p;
	size_t room;

	if (m->h.size < sizeof(*m) + sizeof(struct record_sample_id) ||
	    !(m->prot & PROT_EXEC) || !m->len || m->addr + m->len < m->addr)
		return;
	room = m->h.size - sizeof(*m) - sizeof(struct record_sample_id);
	if (room >= sizeof(name))
		room = sizeof(name) - 1;
	memcpy(name, m->filename, room);
	name[room] = '\0';
	p = proctab_get(&r->procs, m->pid);
	if (!p)
		p = recorder_proc_new(r, m->pid);
	if (!p)
		return;
	recorder_map(r, p, m->addr, m->addr + m->len, m->pgoff, name,
		     has_build_id ? 0 : makedev(m->maj, m->min),
		     has_build_id ? 0 : m->ino,
		     has_build_id ? m->build_id : NULL,
		     has_build_id ? m->build_id_size : 0);
}

static void recorder_comm(struct recorder *r, const struct record_comm *c)
{
	struct proc *p;
	size_t room;

	if (c->h.size < sizeof(*c) + sizeof(struct record_sample_id))
		return;
	room = c->h.size - sizeof(*c) - sizeof(struct record_sample_id);
	if (r->tctx)
		recorder_thread_comm(r, c->pid, c->tid, c->comm, room);
	p = proctab_get(&r->procs, c->pid);
	if (c->h.misc & PERF_RECORD_MISC_COMM_EXEC) {
		bool sampled = p && !p->exited && p->sampled;

		/* a new program: nothing of the old one survives, and the
		 * old one's JIT maps are its own */
		if (p && p->proc_id != PROC_NO_ID)
			recorder_retire(r, p);
		p = recorder_proc_new(r, c->pid);
		if (!p)
			return;
		p->sampled = sampled;
		p->exec_seen = true;
	} else if (!p || c->pid != c->tid) {
		return;
	}
	if (room > PROC_COMM_MAX - 1)
		room = PROC_COMM_MAX - 1;
	memcpy(p->comm, c->comm, room);
	p->comm[room] = '\0';
}

static void recorder_fork(struct recorder *r, const struct record_task *t)
{
	struct proc *parent, *child;

	if (r->tctx)
		recorder_thread_fork(r, t->pid, t->tid, t->ptid);
	if (t->pid == t->ppid) /* a new thread */
		return;
	child = recorder_proc_new(r, t->pid);
	if (!child)
		return;
	parent = proctab_get(&r->procs, t->ppid);
	if (!parent)
		return;
	/* until it execs, the child runs its parent's code */
	if (maptab_copy(&child->maps, &parent->maps)) {
		recorder_fail(r, -ENOMEM, false);
		return;
	}
	maptab_forget_contexts(&child->maps);
	child->app = parent->app;
	child->has_app = parent->has_app;
	memcpy(child->comm, parent->comm, sizeof(child->comm));
	if (parent->exe)
		child->exe = strdup(parent->exe);
}

static void recorder_exit(struct recorder *r, const struct record_task *t)
{
	struct proc *p;
	struct recorder_exit *v;

	if (r->tctx)
		recorder_thread_exit(r, t->tid);
	if (t->pid != t->tid) /* a thread, not the process */
		return;
	p = proctab_get(&r->procs, t->pid);
	if (!p || p->exited)
		return;
	p->exited = true;
	p->exit_round = r->round;
	if (p->proc_id != PROC_NO_ID) {
		p->ident.flags |= OPS_PROC_EXITED;
		p->dirty = true;
		recorder_archive(r, p);
	}
	if (r->nr_exits == r->cap_exits && r->exits_head) {
		memmove(r->exits, r->exits + r->exits_head,
			(r->nr_exits - r->exits_head) * sizeof(*v));
		r->nr_exits -= r->exits_head;
		r->exits_head = 0;
	}
	if (r->nr_exits == r->cap_exits) {
		size_t cap = r->cap_exits ? r->cap_exits * 2 : 64;

		v = realloc(r->exits, cap * sizeof(*v));
		if (!v) {
			recorder_fail(r, -ENOMEM, false);
			return;
		}
		r->exits = v;
		r->cap_exits = cap;
	}
	r->exits[r->nr_exits++] = (struct recorder_exit){ t->pid, r->round };
}

void recorder_record(struct recorder *r, const struct perf_event_header *h)
{
	uint64_t t;

	if (r->err)
		return;
	t = record_time(h);
	if (t > r->last_time)
		r->last_time = t;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		if (h->size >= sizeof(struct record_sample))
			recorder_sample(r, (const void *)h);
		break;
	case PERF_RECORD_MMAP2:
		r->round_events++;
		recorder_mmap2(r, (const void *)h);
		break;
	case PERF_RECORD_COMM:
		r->round_events++;
		recorder_comm(r, (const void *)h);
		break;
	case PERF_RECORD_FORK:
		r->round_events++;
		if (h->size >= sizeof(struct record_task))
			recorder_fork(r, (const void *)h);
		break;
	case PERF_RECORD_EXIT:
		r->round_events++;
		if (h->size >= sizeof(struct record_task))
			recorder_exit(r, (const void *)h);
		break;
	case PERF_RECORD_LOST:
		if (h->size >= sizeof(struct record_lost))
			r->lost += ((const struct record_lost *)h)->lost;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (h->size >= sizeof(struct record_lost_samples))
			r->lost +=
				((const struct record_lost_samples *)h)->lost;
		break;
	case PERF_RECORD_THROTTLE:
		r->throttles++;
		break;
	}
}

static void recorder_retry(struct recorder *r, bool final)
{
	size_t n = r->pending.n;
	struct pending_sample s, evicted;
	uint32_t event = r->event;

	while (n-- && !r->err && pending_pop(&r->pending, &s)) {
		r->event = s.event;
		recorder_slice(r, s.time);
		if (recorder_resolve(r, &s) != -EAGAIN)
			continue;
		s.tries++;
		if (final ||
		    (s.tries >= 2 && r->last_time > s.time + PENDING_HOLD_NS))
			r->unattributed++;
		else
			pending_push(&r->pending, &s, &evicted);
	}
	r->event = event;
}

static void recorder_reap(struct recorder *r)
{
	while (r->exits_head < r->nr_exits) {
		struct recorder_exit *x = &r->exits[r->exits_head];
		struct proc *p;

		if (x->round + EXIT_GRACE_ROUNDS > r->round)
			break;
		r->exits_head++;
		p = proctab_get(&r->procs, x->tgid);
		/* the pid may already belong to a new process */
		if (!p || !p->exited || p->exit_round != x->round)
			continue;
		if (p->proc_id != PROC_NO_ID)
			recorder_retire(r, p);
		proctab_remove(&r->procs, p);
	}
	if (r->exits_head == r->nr_exits)
		r->exits_head = r->nr_exits = 0;
}

void recorder_fail(struct recorder *r, int err, bool from_writer)
{
	if (r->err)
		return;
	r->err = err;
	r->err_from_writer = from_writer;
}

void recorder_end_round(struct recorder *r)
{
	recorder_retry(r, false);
	recorder_tally_flush(r);
	jitlog_attach_pending(r);
	r->round++;
	recorder_reap(r);
	r->busy = r->round_events || r->pending.n || r->jitlog_pending ||
		  r->exits_head < r->nr_exits;
	r->round_events = 0;
}

int recorder_flush(struct recorder *r)
{
	struct ops_session_info t;
	int err;

	recorder_tally_flush(r);
	if (r->err)
		return r->err;
	proctab_for_each(&r->procs, i, p)
	{
		if (p->proc_id == PROC_NO_ID || !p->dirty)
			continue;
		p->dirty = false;
		err = recorder_write_ident(r, p);
		if (err)
			return err;
	}
	recorder_totals(r, &t);
	ops_writer_set_totals(r->w, &t);
	err = ops_writer_flush(r->w);
	if (err)
		recorder_fail(r, err, true);
	return err;
}

void recorder_finish(struct recorder *r)
{
	recorder_retry(r, true);
	recorder_tally_flush(r);
	jitlog_attach_settle(r);
	proctab_for_each(&r->procs, i, p)
	{
		if (r->err)
			break;
		recorder_archive(r, p);
	}
	jitlog_attach_detach(r);
}

void recorder_totals(const struct recorder *r, struct ops_session_info *t)
{
	memset(t, 0, sizeof(*t));
	t->samples = r->samples;
	t->samples_lost = r->lost;
	t->samples_unattributed = r->unattributed + r->pending.n;
	t->samples_anon = r->anon;
	t->samples_kernel = r->kernel;
	t->processes = r->processes;
}
