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

#include "jitlog_internal.h"

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

/* Under LOG's table lock: create the file and write the table. */
static int observe(struct opjit_jitlog *log)
{
	size_t i;
	int rc;

	if (log->observing)
		return 0;
	rc = opjit_jl_file_open(log);
	for (i = 0; i < log->cap_live && !rc; i++) {
		const struct opjit_jl_live *l = log->live[i];

		if (!l)
			continue;
		rc = opjit_jl_write(log, l->rec, l->mlen);
		if (!rc)
			rc = opjit_jl_write(log, l->rec + l->mlen, l->llen);
	}
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
			pthread_mutex_lock(&log->table_lock);
			if (st == OPJIT_JITLOG_ATTACH ||
			    st == OPJIT_JITLOG_OBSERVING)
				observe(log);
			else
				unobserve(log);
			pthread_mutex_unlock(&log->table_lock);
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
			pthread_mutex_lock(&log->table_lock);
			rc = observe(log);
			pthread_mutex_unlock(&log->table_lock);
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
	for (i = 0; i < log->cap_live; i++)
		free(log->live[i]);
	free(log->live);
	log->live = NULL;
	log->cap_live = 0;
	log->observing = false;
}

/* Put L as the code of ID, freeing what was there. */
static int table_set(struct opjit_jitlog *log, uint64_t id,
		     struct opjit_jl_live *l)
{
	if (id > log->cap_live) {
		size_t cap = log->cap_live ? log->cap_live * 2 : 256;
		struct opjit_jl_live **g;

		while (cap < id)
			cap *= 2;
		g = realloc(log->live, cap * sizeof(*g));
		if (!g)
			return -ENOMEM;
		memset(g + log->cap_live, 0,
		       (cap - log->cap_live) * sizeof(*g));
		log->live = g;
		log->cap_live = cap;
	}
	free(log->live[id - 1]);
	log->live[id - 1] = l;
	return 0;
}

/* C's records, the method's at time MT (kept from its load when C moves)
 * and the load's at LT. */
static struct opjit_jl_live *live_new(const struct opjit_jitlog_code *c,
				      const struct opjit_jl_live *was,
				      uint64_t mt, uint64_t lt)
{
	size_t mlen = was ? was->mlen : opjit_jl_method_len(c);
	size_t llen = opjit_jl_load_len(c);
	struct opjit_jl_live *l = malloc(sizeof(*l) + mlen + llen);

	if (!l)
		return NULL;
	l->mlen = mlen;
	l->llen = llen;
	if (was)
		memcpy(l->rec, was->rec, mlen);
	else
		opjit_jl_put_method(l->rec, c, mt);
	opjit_jl_put_load(l->rec + mlen, c, lt);
	return l;
}

int opjit_jl_attach_load(struct opjit_jitlog *log,
			 const struct opjit_jitlog_code *c, uint64_t t)
{
	struct opjit_jl_live *l = live_new(c, NULL, t, t);
	int rc;

	if (!l)
		return -ENOMEM;
	pthread_mutex_lock(&log->table_lock);
	rc = table_set(log, c->id, l);
	if (rc)
		free(l);
	else if (log->observing) {
		rc = opjit_jl_write(log, l->rec, l->mlen);
		if (!rc)
			rc = opjit_jl_write(log, l->rec + l->mlen, l->llen);
	}
	pthread_mutex_unlock(&log->table_lock);
	return rc;
}

int opjit_jl_attach_move(struct opjit_jitlog *log,
			 const struct opjit_jitlog_code *c, uint64_t old_addr,
			 uint64_t t)
{
	unsigned char unload[64];
	struct opjit_jl_live *l;
	int rc;

	pthread_mutex_lock(&log->table_lock);
	if (c->id > log->cap_live || !log->live[c->id - 1]) {
		pthread_mutex_unlock(&log->table_lock);
		return -EINVAL; /* no live code of that id */
	}
	l = live_new(c, log->live[c->id - 1], t, t);
	rc = l ? table_set(log, c->id, l) : -ENOMEM;
	if (!rc && log->observing) {
		opjit_jl_put_unload(unload, c->id, old_addr, t);
		rc = opjit_jl_write(log, unload, opjit_jl_unload_len());
		if (!rc)
			rc = opjit_jl_write(log, l->rec + l->mlen, l->llen);
	}
	pthread_mutex_unlock(&log->table_lock);
	return rc;
}

int opjit_jl_attach_unload(struct opjit_jitlog *log,
			   const struct opjit_jitlog_code *c, uint64_t t)
{
	unsigned char unload[64];
	int rc = 0;

	pthread_mutex_lock(&log->table_lock);
	if (c->id <= log->cap_live) {
		free(log->live[c->id - 1]);
		log->live[c->id - 1] = NULL;
	}
	if (log->observing) {
		opjit_jl_put_unload(unload, c->id, c->addr, t);
		rc = opjit_jl_write(log, unload, opjit_jl_unload_len());
	}
	pthread_mutex_unlock(&log->table_lock);
	return rc;
}
