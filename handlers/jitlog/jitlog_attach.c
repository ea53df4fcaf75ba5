// SPDX-License-Identifier: MIT
/*
 * On attach: while nobody profiles, a log keeps its live code in memory
 * and writes nothing.  The control block below is what a profiler finds
 * and writes (see opjit/jitlog.h); a watcher thread, started with the
 * first log opened on attach and ended with the last one, looks at it
 * every 50 ms, writes each log's table when a profiler attaches and
 * closes the logs when it detaches.  The table is the lock: an event
 * takes it, updates the table and, while observed, writes its records
 * under it, so that a record is never written before the table it
 * follows.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <oputil/clock.h>
#include <oputil/u64map.h>

#include "jitlog_internal.h"
#include "jm_format.h"

#define WATCH_PERIOD_NS 50000000L

__attribute__((visibility(
	"default"))) struct opjit_jitlog_control opjit_jitlog_control = {
	.magic = OPJIT_JITLOG_CONTROL_MAGIC,
	.version = OPJIT_JITLOG_CONTROL_VERSION,
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct opjit_jitlog *reg_logs;
static bool watcher_running;

static uint32_t state_load(void)
{
	return __atomic_load_n(&opjit_jitlog_control.state, __ATOMIC_ACQUIRE);
}

/* The profiler may have moved on meanwhile: only FROM becomes TO. */
static void state_move(uint32_t from, uint32_t to)
{
	__atomic_compare_exchange_n(&opjit_jitlog_control.state, &from, to,
				    false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static int by_id(const void *a, const void *b)
{
	const struct opjit_jl_live *x =
		*(const struct opjit_jl_live *const *)a;
	const struct opjit_jl_live *y =
		*(const struct opjit_jl_live *const *)b;

	return (x->id > y->id) - (x->id < y->id);
}

/* L's method and load records, as frames of LOG's file. */
static int write_live(struct opjit_jitlog *log, const struct opjit_jl_live *l)
{
	int rc = l->mlen ? opjit_jl_write(log, l->rec, l->mlen) : 0;

	if (!rc && l->llen)
		rc = opjit_jl_write(log, l->rec + l->mlen, l->llen);
	return rc;
}

/* An unload record of ID at ADDR, time T, as a frame of LOG's file. */
static int write_unload(struct opjit_jitlog *log, uint64_t id, uint64_t addr,
			uint64_t t)
{
	unsigned char rec[JM_REC_HEADER_SIZE + JM_CODE_UNLOAD_SIZE];

	opjit_jl_put_unload(rec, id, addr, t);
	return opjit_jl_write(log, rec, opjit_jl_unload_len());
}

/* Under LOG's table lock: create the file and write the table, in the
 * order the code was loaded. */
static int observe(struct opjit_jitlog *log)
{
	struct opjit_jl_live **v;
	size_t i, n = 0;
	int rc;

	if (log->observing)
		return 0;
	v = malloc((log->live.nr ? log->live.nr : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < log->live.cap; i++)
		if (log->live.keys[i])
			v[n++] = (struct opjit_jl_live *)(uintptr_t)
					 log->live.vals[i];
	qsort(v, n, sizeof(*v), by_id);
	rc = opjit_jl_file_open(log);
	for (i = 0; i < n && !rc; i++)
		rc = write_live(log, v[i]);
	free(v);
	if (rc) {
		opjit_jl_file_close(log);
		return rc;
	}
	log->observing = true;
	return 0;
}

static void unobserve(struct opjit_jitlog *log)
{
	if (!log->observing)
		return;
	log->observing = false;
	opjit_jl_file_close(log);
}

static void *watch(void *arg)
{
	const struct timespec period = { 0, WATCH_PERIOD_NS };
	struct opjit_jitlog *log;

	(void)arg;
	for (;;) {
		uint32_t st;

		nanosleep(&period, NULL);
		pthread_mutex_lock(&reg_lock);
		if (!reg_logs) {
			watcher_running = false;
			pthread_mutex_unlock(&reg_lock);
			return NULL;
		}
		st = state_load();
		for (log = reg_logs; log; log = log->next) {
			opjit_jl_lock(log);
			if (st == OPJIT_JITLOG_ATTACH ||
			    st == OPJIT_JITLOG_OBSERVING)
				observe(log);
			else
				unobserve(log);
			opjit_jl_unlock(log);
		}
		pthread_mutex_unlock(&reg_lock);
		if (st == OPJIT_JITLOG_ATTACH)
			state_move(st, OPJIT_JITLOG_OBSERVING);
		else if (st == OPJIT_JITLOG_DETACH)
			state_move(st, OPJIT_JITLOG_DETACHED);
	}
}

int opjit_jl_attach_open(struct opjit_jitlog *log)
{
	uint32_t st;
	int rc = 0;

	pthread_mutex_lock(&reg_lock);
	if (!watcher_running) {
		pthread_attr_t attr;
		pthread_t t;

		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		rc = -pthread_create(&t, &attr, watch, NULL);
		pthread_attr_destroy(&attr);
		watcher_running = !rc;
	}
	if (!rc) {
		/* a profiler already observing: write from now on */
		st = state_load();
		if (st == OPJIT_JITLOG_ATTACH ||
		    st == OPJIT_JITLOG_OBSERVING) {
			opjit_jl_lock(log);
			rc = observe(log);
			opjit_jl_unlock(log);
		}
	}
	if (!rc) {
		log->next = reg_logs;
		reg_logs = log;
		__atomic_add_fetch(&opjit_jitlog_control.on_attach_logs, 1,
				   __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&reg_lock);
	return rc;
}

void opjit_jl_attach_close(struct opjit_jitlog *log)
{
	struct opjit_jitlog **pp;
	size_t i;

	pthread_mutex_lock(&reg_lock);
	for (pp = &reg_logs; *pp; pp = &(*pp)->next)
		if (*pp == log) {
			*pp = log->next;
			__atomic_sub_fetch(
				&opjit_jitlog_control.on_attach_logs, 1,
				__ATOMIC_RELEASE);
			break;
		}
	pthread_mutex_unlock(&reg_lock);
	for (i = 0; i < log->live.cap; i++)
		if (log->live.keys[i])
			free((void *)(uintptr_t)log->live.vals[i]);
	oputil_u64map_free(&log->live);
	log->observing = false;
}

/* The live code of ID, or NULL. */
static struct opjit_jl_live *table_get(const struct opjit_jitlog *log,
				       uint64_t id)
{
	uint64_t v;

	return oputil_u64map_get(&log->live, id, &v)
		       ? (struct opjit_jl_live *)(uintptr_t)v
		       : NULL;
}

/* Put L as the code of its id, freeing what was there. */
static int table_set(struct opjit_jitlog *log, struct opjit_jl_live *l)
{
	uint64_t was;
	int rc = oputil_u64map_put(&log->live, l->id, (uintptr_t)l, &was);

	if (rc == 1)
		free((void *)(uintptr_t)was);
	return rc < 0 ? rc : 0;
}

static void table_del(struct opjit_jitlog *log, uint64_t id)
{
	uint64_t was;

	if (oputil_u64map_del(&log->live, id, &was))
		free((void *)(uintptr_t)was);
}

/* C's records at time T (only its method's when METHOD_ONLY); when C
 * moves, its method record is WAS's, kept from its load. */
static struct opjit_jl_live *live_new(const struct opjit_jitlog_code *c,
				      const struct opjit_jl_live *was,
				      bool method_only, uint64_t t)
{
	size_t mlen = was ? was->mlen : c->method ? 0 : opjit_jl_method_len(c);
	size_t llen = method_only ? 0 : opjit_jl_load_len(c);
	struct opjit_jl_live *l = malloc(sizeof(*l) + mlen + llen);

	if (!l)
		return NULL;
	l->id = c->id;
	l->mlen = mlen;
	l->llen = llen;
	if (was)
		memcpy(l->rec, was->rec, mlen);
	else if (mlen)
		opjit_jl_put_method(l->rec, c, t);
	if (llen)
		opjit_jl_put_load(l->rec + mlen, c, t);
	return l;
}

int opjit_jl_attach_put(struct opjit_jitlog *log,
			const struct opjit_jitlog_code *c, bool method_only,
			uint64_t t)
{
	struct opjit_jl_live *l = live_new(c, NULL, method_only, t);
	int rc;

	if (!l)
		return -ENOMEM;
	opjit_jl_lock(log);
	rc = table_set(log, l);
	if (rc)
		free(l);
	else if (log->observing)
		rc = write_live(log, l);
	opjit_jl_unlock(log);
	return rc;
}

int opjit_jl_attach_move(struct opjit_jitlog *log,
			 const struct opjit_jitlog_code *c, uint64_t old_addr,
			 uint64_t t)
{
	struct opjit_jl_live *l;
	int rc;

	opjit_jl_lock(log);
	l = table_get(log, c->id);
	if (!l) {
		opjit_jl_unlock(log);
		return -EINVAL; /* no live code of that id */
	}
	l = live_new(c, l, false, t);
	rc = l ? table_set(log, l) : -ENOMEM;
	if (rc)
		free(l);
	if (!rc && log->observing) {
		rc = write_unload(log, opjit_jl_own(c), old_addr, t);
		if (!rc)
			rc = opjit_jl_write(log, l->rec + l->mlen, l->llen);
	}
	opjit_jl_unlock(log);
	return rc;
}

int opjit_jl_attach_unload(struct opjit_jitlog *log,
			   const struct opjit_jitlog_code *c, uint64_t t)
{
	int rc = 0;

	opjit_jl_lock(log);
	table_del(log, c->id);
	if (log->observing)
		rc = write_unload(log, opjit_jl_own(c), c->addr,
				  t ? t : oputil_clock_ns(CLOCK_MONOTONIC));
	opjit_jl_unlock(log);
	return rc;
}
