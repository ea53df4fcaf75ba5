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

/* events_pprof.c: ROWS[0..N) as a gzip-compressed profile.proto, with
 * the sample types go tool pprof knows: alloc_objects and alloc_space
 * (ALLOC), or contentions and delay (else). */
int events_pprof(FILE *f, const struct ev_row *rows, size_t n, bool alloc);

/* events_json.c: ROWS[0..N) as an "opjit-events" JSON document
 * (opreport/JSON.md); 0 or -EIO. */
int events_json(FILE *f, const char *session_dir, const struct ev_row *rows,
		size_t n, bool alloc);

/* events_html.c: ROWS[0..N) as out_html.c's page, the flame graph
 * weighted by bytes (ALLOC) or nanoseconds waited; 0 or a negative errno. */
int events_html(FILE *f, const char *session_dir, const struct ev_row *rows,
		size_t n, bool alloc);

/* The report of O->event, written by WRITE's caller.  0, or a negative
 * errno said once on stderr. */
int events_report(const struct opreport_opts *o,
		  int (*output)(const struct opreport_opts *o,
				int (*write)(FILE *f, const void *arg),
				const void *arg));

#endif
