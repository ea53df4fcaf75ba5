/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The perf_event counters: one ring buffer per CPU, every other counter on
 * that CPU redirected into it, so that a single thread polls a fixed
 * number of buffers however many threads are followed.
 */
#ifndef OPROFILED_COUNTERS_H
#define OPROFILED_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ring.h"

/* events in one session */
#define COUNTERS_MAX_EVENTS 8

struct counters_event {
	uint32_t type;	 /* PERF_TYPE_* */
	uint64_t config; /* PERF_COUNT_* */
	/* sampled every PERIOD events (not at the frequency): a count of
	 * faults or switches in a session that also samples a clock */
	uint64_t period;
};

struct counters_config {
	uint32_t type; /* the first event, when nr_events is 0 */
	uint64_t config;
	/* several events, the first first: each with buffers of its own
	 * (ring.event says whose), the first alone reporting mappings and
	 * tasks */
	struct counters_event events[COUNTERS_MAX_EVENTS];
	uint32_t nr_events;
	uint64_t frequency; /* Hz, or 0 */
	uint64_t period;    /* when frequency is 0 */
	bool exclude_kernel;
	/* when the kernel refuses kernel samples (perf_event_paranoid),
	 * exclude them instead of failing */
	bool kernel_fallback;
	uint16_t callgraph_depth; /* PERF_SAMPLE_CALLCHAIN frames, 0: none */
	uint32_t stack_copy;	  /* PERF_SAMPLE_STACK_USER bytes, 0: none */
};

struct counters {
	struct counters_config cfg;
	bool build_id;	     /* the kernel puts build-ids in MMAP2 */
	bool kernel_refused; /* kernel samples excluded by the fallback */
	int nr_cpus;
	int *cpus;
	uint32_t nr_events; /* at least 1 */
	int failed_event;   /* the event an open failed on */
	size_t nr_rings;    /* nr_cpus * nr_events */
	struct ring *rings; /* [event * nr_cpus + cpu]; fd -1 until opened */
	int *fds;
	size_t nr_fds, cap_fds;
	size_t data_pages;
};

int counters_init(struct counters *c, const struct counters_config *cfg);
/* Open one counter per CPU following PID (-1: every task).  INHERIT
 * follows its future children; ENABLE_ON_EXEC starts it at exec. */
int counters_open_task(struct counters *c, pid_t pid, bool inherit,
		       bool enable_on_exec);
int counters_enable(struct counters *c);
void counters_disable(struct counters *c);
void counters_free(struct counters *c);

#endif
