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

static int write_entry(void *log, const struct opjit_jl_live *l)
{
	return write_live(log, l);
}

/* Under LOG's table lock: create the file and write the table, in the
 * order the code was loaded. */
static int observe(struct opjit_jitlog *log)
{
	int rc;

	if (log->observing)
		return 0;
	rc = opjit_jl_file_open(log);
	if (!rc)
		rc = opjit_jl_table_each(&log->table, write_entry, log);
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
	opjit_jl_table_free(&log->table);
	log->observing = false;
}

/*
 * The time of an event, under LOG's table lock.  Unobserved, an event
 * needs none: the table is written when a profiler attaches, each load
 * as code older than the attach, and no sample comes before the attach.
 * C is then flagged so.
 */
static uint64_t event_time(const struct opjit_jitlog *log,
			   struct opjit_jitlog_code *c)
{
	if (log->observing)
		return oputil_clock_ns(CLOCK_MONOTONIC);
	c->flags |= OPJIT_JITLOG_CODE_OLDER;
	return 0;
}

int opjit_jl_attach_put(struct opjit_jitlog *log, struct opjit_jitlog_code *c,
			size_t mlen, size_t llen)
{
	const struct opjit_jl_live *l;
	uint64_t t;
	int rc;

	opjit_jl_lock(log);
	c->id = opjit_jl_new_id(log);
	t = event_time(log, c);
	rc = opjit_jl_table_put(&log->table, c, mlen, llen, false, t, &l);
	if (!rc && log->observing)
		rc = write_live(log, l);
	opjit_jl_unlock(log);
	return rc;
}

int opjit_jl_attach_move(struct opjit_jitlog *log, struct opjit_jitlog_code *c,
			 uint64_t old_addr)
{
	const size_t llen = opjit_jl_load_len(c);
	const struct opjit_jl_live *l;
	uint64_t t;
	int rc;

	opjit_jl_lock(log);
	t = event_time(log, c);
	rc = opjit_jl_table_put(&log->table, c, 0, llen, true, t, &l);
	if (!rc && log->observing) {
		rc = write_unload(log, opjit_jl_own(c), old_addr, t);
		if (!rc)
			rc = opjit_jl_write(log, l->rec + l->mlen, l->llen);
	}
	opjit_jl_unlock(log);
	return rc;
}

int opjit_jl_attach_unload(struct opjit_jitlog *log,
			   const struct opjit_jitlog_code *c)
{
	int rc = 0;

	opjit_jl_lock(log);
	opjit_jl_table_del(&log->table, c->id);
	if (log->observing)
		rc = write_unload(log, opjit_jl_own(c), c->addr,
				  oputil_clock_ns(CLOCK_MONOTONIC));
	opjit_jl_unlock(log);
	return rc;
}
