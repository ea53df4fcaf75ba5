/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The report model, independent of the output format.  Every source of
 * samples (ELF images, the kernel, anonymous memory and its handlers)
 * adds hits; the report folds them into rows keyed by (image, app,
 * process, cpu, symbol), keeps per-address details for -d, then sorts and
 * filters the rows for the output files.
 *
 * All strings of the model are interned in the report's pool, so equal
 * names are equal pointers; symbols are owned by whoever resolved them
 * and live as long as the report.
 */
#ifndef OPREPORT_REPORT_H
#define OPREPORT_REPORT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <opjit/samples.h>

#include "opreport.h"

struct strpool;
struct callgraph;

enum row_kind { ROW_FILE, ROW_KERNEL, ROW_JIT, ROW_ANON };

struct anon_symbol;

struct report_sym {
	const char *name;
	uint64_t vma;	  /* start, when has_vma */
	uint64_t size;	  /* 0 when unknown */
	const char *file; /* source of the start, NULL when unknown */
	uint32_t line;
	bool has_vma;
	bool referenced;		/* some sample falls in it */
	const struct anon_symbol *anon; /* JIT code: as its handler named it */
};

/* Where a hit's per-address source line comes from when -d -g asks. */
struct report_line_src {
	void (*lines)(void *arg, const uint64_t *vmas, size_t n,
		      const char **files, uint32_t *lines);
	void *arg;
};

struct report_hit {
	enum row_kind kind;
	const char *image;   /* interned: path, or the anon/jit label */
	const char *app;     /* interned: path of the application */
	const char *handler; /* ROW_JIT: the handler that named it */
	uint32_t tgid;	     /* 0 when not separated */
	int32_t cpu;	     /* -1 when not separated */
	uint32_t tid; /* JIT and anonymous samples: 0 unless tid_separated */
	const struct report_sym *sym; /* NULL when symbols are not wanted */
	uint64_t vma;		      /* address of the sample, for -d */
	uint64_t count;
	const char *file; /* source line at vma, when the source knows */
	uint32_t line;
	const struct report_line_src *line_src; /* or NULL */
};

struct report_detail {
	uint64_t vma;
	uint64_t count;
	const char *file;
	uint32_t line;
};

struct report_row {
	enum row_kind kind;
	const char *image;
	const char *app; /* NULL when --merge=lib */
	const char *handler;
	uint32_t tgid;
	int32_t cpu;
	uint32_t tid;	    /* 0: not separated, or a native row (no thread) */
	const char *thread; /* the thread's name, when the session has it */
	const struct report_sym *sym;
	uint64_t count;
	struct report_detail *details; /* sorted by vma, -d only */
	size_t nr_details;
	const struct report_line_src *line_src;
	uint32_t node; /* -c: the call graph node of the row */
};

/* The image summary: applications with their dependent images. */
struct report_image {
	const struct report_row *first; /* image, kind, tgid, cpu */
	uint64_t count;
};

struct report_app {
	const char *app;    /* or the image itself under --merge=lib */
	enum row_kind kind; /* ROW_FILE, or the image's under --merge=lib */
	uint32_t tgid;
	int32_t cpu;
	uint64_t count;
	struct report_image *images;
	size_t nr_images;
};

/* How the anonymous samples of one process came to be named, or why
 * they were not: the handler's reasons per sample, the loader's for the
 * process as a whole. */
enum naming_status {
	NAMING_CLAIMED,	    /* HANDLER named what it could */
	NAMING_UNCLAIMED,   /* no handler claimed the process */
	NAMING_MAP_REFUSED, /* unclaimed: WHY, a trust rule, refused a map */
	NAMING_UNREADABLE,  /* unclaimed: WHY, a handler could not read it */
	NAMING_FAILED,	    /* HANDLER failed and said why on stderr */
	NAMING_NO_HANDLER,  /* --anon-samples without --anon-handler */
};
#define REPORT_NR_REASONS 5 /* anon_reason_text()'s */

struct report_naming {
	uint32_t tgid;
	const char *comm;
	enum naming_status status;
	const char *handler; /* NAMING_CLAIMED, NAMING_FAILED */
	const char *why;     /* NAMING_MAP_REFUSED, NAMING_UNREADABLE */
	const char *would;   /* NAMING_UNCLAIMED: a handler not asked that
			      * would have claimed it, or NULL */
	uint64_t samples, named;
	uint64_t unnamed[REPORT_NR_REASONS]; /* NAMING_CLAIMED: by reason */
};

struct timeline;

struct report {
	const struct opreport_opts *opts;
	const char *session_dir;
	const struct ops_session_info *info;
	const struct ops_session *session;
	const struct timeline *tl; /* --format=html: the page's strip */
	struct strpool *pool;
	bool tgid_separated; /* rows carry processes */
	bool cpu_separated;
	bool tid_separated; /* JIT rows carry threads (--separate=thread) */
	/* and native rows too, and the threads have names: the session
	 * was recorded with oprofiled --separate=thread */
	bool thread_names;
	bool want_syms;		/* rows per symbol (-l, -d, -i, -e) */
	uint64_t total;		/* samples of the profile the specs select */
	uint64_t session_total; /* samples of the whole session */
	uint64_t anon_hidden;	/* anonymous samples left out */
	/* a session of several events, in the text header: each one's
	 * name and samples in the whole session, and the one reported */
	const char **event_names;
	uint64_t *event_samples;
	uint32_t nr_events, event_shown;
	struct report_hit *hits;
	size_t nr_hits, cap_hits;
	struct report_row *rows;
	size_t nr_rows;
	struct report_app *apps;
	size_t nr_apps;
	/* the call graph, when the session has one and the output
	 * shows it (-c, folded, pprof, json) */
	const struct callgraph *cg;
	bool has_stacks; /* the session recorded call chains */
	/* one a process whose anonymous samples are shown; under an
	 * output of the call graph alone they come from the call graph
	 * (NAMING_FRAMES), and count frames when the session has call
	 * chains (see report_naming_unit()) */
	struct report_naming *naming;
	size_t nr_naming, cap_naming;
	bool naming_frames;
};

/*
 * Add N samples to *SUM; -EOVERFLOW (and *SUM saturated) when the sum no
 * longer fits, which only damaged counts can make.  The session totals
 * are summed with it and refused on overflow, so that every smaller sum
 * (a row, an image, a detail) fits as well.
 */
static inline int report_count_add(uint64_t *sum, uint64_t n)
{
	if (__builtin_add_overflow(*sum, n, sum)) {
		*sum = UINT64_MAX;
		return -EOVERFLOW;
	}
	return 0;
}

/* 0 or -ENOMEM (not reported). */
int report_init(struct report *r, const struct opreport_opts *opts);
void report_release(struct report *r);

/* Add one hit; its strings must come from r->pool.  0 or -ENOMEM (not
 * reported). */
int report_add_hit(struct report *r, const struct report_hit *h);

/* Fold the hits into rows, resolve per-address lines for -d -g, filter
 * (-i, -e, -t, -x) and sort.  0 or -ENOMEM (not reported). */
int report_finish(struct report *r);

/* Whether -i, -e and -x keep ROW. */
bool report_row_kept(const struct report *r, const struct report_row *row);

/* Sort ROWS as the symbol list is sorted (--sort, -r). */
void report_sort_rows(const struct report *r, struct report_row *rows,
		      size_t n);

/* What the naming counts count: "frame" or "sample". */
static inline const char *report_naming_unit(const struct report *r)
{
	return r->naming_frames && r->has_stacks ? "frame" : "sample";
}

/* A new naming entry for process P, zeroed but for its tgid and comm;
 * NULL out of memory (not reported). */
struct report_naming *report_naming_add(struct report *r,
					const struct ops_process *p);

/* Percent of COUNT against the report's denominator (or PARENT when the
 * percentage is relative to an enclosing entry and not -%). */
double report_percent(const struct report *r, uint64_t count, uint64_t parent);

/* The name a user reads for an image path (-f: the full path). */
const char *report_image_name(const struct report *r, const char *path);

#endif
