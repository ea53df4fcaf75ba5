/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * --event=alloc and --event=lock: the JVM's allocation samples and
 * contended monitor enters that the javamap agent logged into its map,
 * which the session archived, as weighted stacks named by the map's own
 * parser (handlers/jitlog/FORMAT.md owns the records).
 */
#ifndef OPREPORT_EVENTS_H
#define OPREPORT_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "opreport.h"

struct ev_row {
	char *stack; /* folded: root first, ';' between frames */
	uint64_t weight, count;
};

/* One stack of either side of a differential report; index 0 is the
 * baseline, 1 the profile. */
struct ev_diff_row {
	const char *stack; /* the side's row's, not a copy */
	uint64_t weight[2], count[2];
	double percent[2], change; /* change: percent[1] - percent[0] */
};

struct ev_diff {
	const struct opreport_opts *o;
	const char *dir[2];
	uint64_t weight[2], count[2];
	struct ev_diff_row *rows; /* largest change first (-r: last) */
	size_t nr;
};

/* events_diff.c: D (with D->o and D->dir set) from both sides' rows;
 * 0 or -ENOMEM.  The rows point into ROWS, which must outlive D. */
int ev_diff_build(struct ev_diff *d, const struct ev_row *rows[2],
		  const size_t nr[2]);
void ev_diff_free(struct ev_diff *d);
/* "both", "new" (not in the baseline) or "gone" (not in the profile) */
const char *ev_diff_status(const struct ev_diff_row *row);
/* D in D->o's format, text, CSV, JSON or folded; 0 or -EIO. */
int events_diff_write(FILE *f, const void *arg);

/* events.c: S as one CSV field, quoted */
void events_csv_str(FILE *f, const char *s);

/* events_pprof.c: ROWS[0..N) as a gzip-compressed profile.proto, with
 * the sample types go tool pprof knows: alloc_objects and alloc_space
 * (ALLOC), or contentions and delay (else). */
int events_pprof(FILE *f, const struct ev_row *rows, size_t n, bool alloc);

/* events_json.c: ROWS[0..N) as an "opjit-events" JSON document
 * (opreport/JSON.md); 0 or -EIO. */
int events_json(FILE *f, const char *session_dir, const struct ev_row *rows,
		size_t n, bool alloc);
/* events_json.c: D as an "opjit-events-diff" document; 0 or -EIO. */
int events_json_diff(FILE *f, const struct ev_diff *d, bool alloc);

/* One session's rows for a page. */
struct ev_page_side {
	const char *dir;
	const struct ev_row *rows;
	size_t nr;
};

/* events_html.c: PROF's rows as out_html.c's page, the flame graph
 * weighted by bytes (ALLOC) or nanoseconds waited; with BASE (or NULL),
 * the differential page against it.  0 or a negative errno. */
int events_html(FILE *f, const struct ev_page_side *prof,
		const struct ev_page_side *base, bool alloc);

/* The report of O->event, written through OUTPUT (or, for a
 * differential pprof, OUTPUT_PAIR: the baseline's file, then the
 * profile's).  0, or a negative errno said once on stderr. */
int events_report(const struct opreport_opts *o,
		  int (*output)(const struct opreport_opts *o,
				int (*write)(FILE *f, const void *arg),
				const void *arg),
		  int (*output_pair)(const struct opreport_opts *o,
				     int (*write)(FILE *f, const void *arg),
				     const void *base_arg,
				     const void *prof_arg));

#endif
