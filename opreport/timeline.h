/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The timeline: a session's samples per time bucket (the recorder's time
 * slice, 100 ms) and process, for --format=timeline-csv and
 * timeline-json and for the html page's density strip.
 */
#ifndef OPREPORT_TIMELINE_H
#define OPREPORT_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ops_session;
struct report;

struct timeline_proc {
	const char *name; /* the command, or the executable's base name */
	uint32_t tgid;	  /* 0: not known (histograms not separated) */
};

struct timeline_cell {
	uint64_t bucket; /* from the session's start, in buckets */
	uint32_t proc;	 /* index in procs */
	uint64_t samples;
};

/* The samples that know their thread (anonymous ones, and counted ones
 * of a session recorded per thread), per thread. */
struct timeline_tcell {
	uint64_t bucket;
	uint32_t proc; /* index in procs */
	uint32_t tid;
	uint64_t samples;
};

struct timeline {
	uint64_t bucket_ns;
	uint64_t len_ns; /* the session's length, 0 when not known */
	struct timeline_proc *procs;
	uint32_t nr_procs;
	size_t cap_procs;
	struct timeline_cell *cells; /* sorted by (bucket, proc) */
	size_t nr_cells, cap_cells;
	/* the samples of cells that know their thread again, by thread;
	 * sorted by (bucket, proc, tid) */
	struct timeline_tcell *tcells;
	size_t nr_tcells, cap_tcells;
	/* a process has samples of more than one thread: only then do
	 * rows by thread say more than rows by process */
	bool threads;
	/* --separate=thread: the exports split each cell into its
	 * threads' rows and one of the samples without a thread */
	bool by_thread;
	uint64_t threadless; /* samples of cells that no thread holds */
	uint64_t untimed;    /* flat samples with no time */
};

/* The flat samples of S (its window, if --time set one): counted ones
 * from the time slices, anonymous ones each at its time; by thread
 * those that know theirs.  Names are
 * interned in R's pool.  0 or -ENOMEM (not reported). */
int timeline_build(struct timeline *t, struct ops_session *s,
		   struct report *r);
void timeline_free(struct timeline *t);

/* time_s,process,tgid,samples lines (and a tid column, by thread), or
 * one JSON object (opreport.1). */
int timeline_write_csv(FILE *f, const struct timeline *t,
		       const struct report *r);
int timeline_write_json(FILE *f, const struct timeline *t);

#endif
