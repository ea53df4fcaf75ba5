// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The timeline: flat samples per (time bucket, process).  Counted
 * samples have the time of their slice; anonymous samples their own,
 * put in the slice's bucket, so both kinds line up.  Each is kept by
 * thread too when it has one: an anonymous sample always, a count when
 * the session was recorded per thread (its context's tid).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <opjit/samples.h>
#include <oputil/grow.h>

#include "out.h"
#include "report.h"
#include "strpool.h"
#include "timeline.h"
#include "timerange.h"

static int timeline_proc(struct timeline *t, struct strpool *pool,
			 const char *name, uint32_t tgid, uint32_t *idx)
{
	uint32_t i;

	for (i = 0; i < t->nr_procs; i++)
		if (t->procs[i].tgid == tgid &&
		    !strcmp(t->procs[i].name, name)) {
			*idx = i;
			return 0;
		}
	if (oputil_grow(&t->procs, &t->cap_procs, t->nr_procs + 1,
			sizeof(*t->procs)))
		return -ENOMEM;
	name = strpool_intern(pool, name);
	if (!name)
		return -ENOMEM;
	t->procs[t->nr_procs] = (struct timeline_proc){ name, tgid };
	*idx = t->nr_procs++;
	return 0;
}

static int timeline_add(struct timeline *t, uint64_t bucket, uint32_t proc,
			uint64_t n)
{
	struct timeline_cell *c = t->nr_cells ? &t->cells[t->nr_cells - 1]
					      : NULL;

	/* runs of one process's samples fall in one bucket */
	if (c && c->bucket == bucket && c->proc == proc) {
		c->samples += n;
		return 0;
	}
	if (oputil_grow(&t->cells, &t->cap_cells, t->nr_cells + 1,
			sizeof(*t->cells)))
		return -ENOMEM;
	t->cells[t->nr_cells++] = (struct timeline_cell){ bucket, proc, n };
	return 0;
}

static int timeline_add_thread(struct timeline *t, uint64_t bucket,
			       uint32_t proc, uint32_t tid, uint64_t n)
{
	struct timeline_tcell *c = t->nr_tcells ? &t->tcells[t->nr_tcells - 1]
						: NULL;

	if (c && c->bucket == bucket && c->proc == proc && c->tid == tid) {
		c->samples += n;
		return 0;
	}
	if (oputil_grow(&t->tcells, &t->cap_tcells, t->nr_tcells + 1,
			sizeof(*t->tcells)))
		return -ENOMEM;
	t->tcells[t->nr_tcells++] =
		(struct timeline_tcell){ bucket, proc, tid, n };
	return 0;
}

static int tcell_cmp(const void *a, const void *b)
{
	const struct timeline_tcell *x = a, *y = b;

	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void timeline_merge_threads(struct timeline *t)
{
	size_t i, n = 0;

	if (!t->nr_tcells)
		return;
	qsort(t->tcells, t->nr_tcells, sizeof(*t->tcells), tcell_cmp);
	for (i = 1; i < t->nr_tcells; i++) {
		if (!tcell_cmp(&t->tcells[i], &t->tcells[n]))
			t->tcells[n].samples += t->tcells[i].samples;
		else
			t->tcells[++n] = t->tcells[i];
	}
	t->nr_tcells = n + 1;
}

/* Whether a process has samples of more than one thread. */
static int timeline_multi(struct timeline *t)
{
	uint32_t *first =
		calloc(t->nr_procs ? t->nr_procs : 1, sizeof(*first));
	size_t i;

	if (!first)
		return -ENOMEM;
	for (i = 0; i < t->nr_tcells && !t->threads; i++) {
		uint32_t *f = &first[t->tcells[i].proc];

		/* a thread id is never 0 in a sample: 0 is none yet */
		if (!*f)
			*f = t->tcells[i].tid + 1;
		else if (*f != t->tcells[i].tid + 1)
			t->threads = true;
	}
	free(first);
	return 0;
}

static int cell_cmp(const void *a, const void *b)
{
	const struct timeline_cell *x = a, *y = b;

	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

static void timeline_merge(struct timeline *t)
{
	size_t i, n = 0;

	if (!t->nr_cells)
		return;
	qsort(t->cells, t->nr_cells, sizeof(*t->cells), cell_cmp);
	for (i = 1; i < t->nr_cells; i++) {
		if (t->cells[i].bucket == t->cells[n].bucket &&
		    t->cells[i].proc == t->cells[n].proc)
			t->cells[n].samples += t->cells[i].samples;
		else
			t->cells[++n] = t->cells[i];
	}
	t->nr_cells = n + 1;
}

static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path ? path : "";
}

/* The one process of the anonymous samples that ran PATH (by command
 * name, which the kernel cuts to 15 bytes), or 0: histograms not
 * separated by process keep no process id. */
static uint32_t timeline_tgid(const struct timeline *t, const char *path)
{
	const char *name = base_name(path);
	uint32_t i, tgid = 0;

	for (i = 0; i < t->nr_procs; i++) {
		if (!t->procs[i].tgid || strncmp(t->procs[i].name, name, 15))
			continue;
		if (tgid && tgid != t->procs[i].tgid)
			return 0;
		tgid = t->procs[i].tgid;
	}
	return tgid;
}

/* The counted samples, from the slices in the window; by thread too in
 * a session recorded per thread (a context's tid is 0 otherwise). */
static int timeline_counts(struct timeline *t, struct ops_session *s,
			   struct strpool *pool)
{
	const struct ops_time_count *tc;
	size_t n, i;
	uint32_t proc;
	int ret;

	tc = ops_session_time_counts(s, &n);
	for (i = 0; i < n; i++) {
		const struct ops_context *ctx;
		const struct ops_image *app;

		if (tc[i].kind != OPS_TIME_COUNTS ||
		    !ops_session_slice_in_window(s, &tc[i]))
			continue;
		ctx = ops_session_context(s, tc[i].ctx);
		app = ctx ? ops_session_image(s, ctx->app) : NULL;
		if (!app && ctx)
			app = ops_session_image(s, ctx->image);
		if (!ctx || !app)
			continue;
		ret = timeline_proc(t, pool, base_name(app->path),
				    ctx->tgid ? ctx->tgid
					      : timeline_tgid(t, app->path),
				    &proc);
		if (ret)
			return ret;
		ret = timeline_add(t, tc[i].start_ns / t->bucket_ns, proc,
				   tc[i].count);
		if (!ret && ctx->tid)
			ret = timeline_add_thread(
				t, tc[i].start_ns / t->bucket_ns, proc,
				ctx->tid, tc[i].count);
		if (ret)
			return ret;
	}
	t->untimed = ops_session_untimed(s);
	return 0;
}

/* The anonymous samples, each at its own time (the window is the
 * reader's). */
static int timeline_anon(struct timeline *t, struct ops_session *s,
			 struct strpool *pool)
{
	uint64_t start = ops_session_info(s)->start_ns;
	uint32_t id, nr = ops_session_nr_processes(s), proc;
	int ret = 0;

	for (id = 0; id < nr && !ret; id++) {
		const struct ops_process *p = ops_session_process(s, id);
		const struct ops_anon_sample *smp;
		size_t k, ns = 0;

		if (!p)
			continue;
		ret = timeline_proc(t, pool, p->comm ? p->comm : "", p->tgid,
				    &proc);
		ret = ret ? ret : ops_session_anon(s, id, &smp, &ns);
		for (k = 0; k < ns && !ret; k++) {
			uint64_t at = smp[k].time_ns > start
					      ? smp[k].time_ns - start
					      : 0;

			ret = timeline_add(t, at / t->bucket_ns, proc, 1)
				      ?: timeline_add_thread(t,
							     at / t->bucket_ns,
							     proc, smp[k].tid,
							     1);
		}
		ops_session_anon_release(s, id);
	}
	return ret;
}

/* The samples of cells that no thread holds (counts of a session not
 * recorded per thread). */
static uint64_t timeline_threadless(const struct timeline *t)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < t->nr_cells; i++)
		n += t->cells[i].samples;
	for (i = 0; i < t->nr_tcells; i++)
		n -= t->tcells[i].samples;
	return n;
}

int timeline_build(struct timeline *t, struct ops_session *s, struct report *r)
{
	int ret;

	memset(t, 0, sizeof(*t));
	t->by_thread = r->opts->separate_thread;
	t->bucket_ns = OPS_SLICE_NS;
	t->len_ns = timerange_session_len(s);
	/* the processes of the anonymous samples first: they name the
	 * process of counted samples that have none */
	ret = timeline_anon(t, s, r->pool);
	ret = ret ? ret : timeline_counts(t, s, r->pool);
	if (!ret) {
		timeline_merge(t);
		timeline_merge_threads(t);
		ret = timeline_multi(t);
		t->threadless = timeline_threadless(t);
	}
	return ret;
}

void timeline_free(struct timeline *t)
{
	free(t->procs);
	free(t->cells);
	free(t->tcells);
	memset(t, 0, sizeof(*t));
}

/* One row of the exports: a cell's samples, or by thread those of
 * thread TID (0: the samples of no thread). */
struct timeline_row {
	const struct timeline_cell *c;
	uint32_t tid;
	uint64_t samples;
};

/* The rows of cell C, from *AT of the thread cells (sorted as the cells
 * are): each thread's, then the rest, threadless, when there is a rest.
 * FN is called for each row. */
static void timeline_rows(
	const struct timeline *t, const struct timeline_cell *c, size_t *at,
	void (*fn)(FILE *f, const struct timeline *t, const struct report *r,
		   const struct timeline_row *row, bool first),
	FILE *f, const struct report *r, bool *first)
{
	uint64_t left = c->samples;
	size_t i = *at;

	if (!t->by_thread) {
		fn(f, t, r, &(struct timeline_row){ c, 0, c->samples },
		   *first);
		*first = false;
		return;
	}
	for (; i < t->nr_tcells && t->tcells[i].bucket == c->bucket &&
	       t->tcells[i].proc == c->proc;
	     i++) {
		fn(f, t, r,
		   &(struct timeline_row){ c, t->tcells[i].tid,
					   t->tcells[i].samples },
		   *first);
		*first = false;
		left -= t->tcells[i].samples;
	}
	*at = i;
	if (left) {
		fn(f, t, r, &(struct timeline_row){ c, 0, left }, *first);
		*first = false;
	}
}

static void timeline_csv_row(FILE *f, const struct timeline *t,
			     const struct report *r,
			     const struct timeline_row *row, bool first)
{
	const struct timeline_proc *p = &t->procs[row->c->proc];

	(void)first;
	fprintf(f, "%.3f,", (double)(row->c->bucket * t->bucket_ns) / 1e9);
	out_csv_field(f, r, p->name, false);
	if (p->tgid)
		fprintf(f, "%" PRIu32, p->tgid);
	fprintf(f, ",%" PRIu64, row->samples);
	if (t->by_thread && row->tid)
		fprintf(f, ",%" PRIu32, row->tid);
	else if (t->by_thread)
		fputc(',', f);
	fputc('\n', f);
}

int timeline_write_csv(FILE *f, const struct timeline *t,
		       const struct report *r)
{
	size_t i, at = 0;
	bool first = true;

	fputs(t->by_thread ? "time_s,process,tgid,samples,tid\n"
			   : "time_s,process,tgid,samples\n",
	      f);
	for (i = 0; i < t->nr_cells; i++)
		timeline_rows(t, &t->cells[i], &at, timeline_csv_row, f, r,
			      &first);
	return ferror(f) ? -EIO : 0;
}

static void timeline_json_row(FILE *f, const struct timeline *t,
			      const struct report *r,
			      const struct timeline_row *row, bool first)
{
	(void)r;
	fprintf(f, "%s[%.3f,%" PRIu32 ",%" PRIu64, first ? "" : ",",
		(double)(row->c->bucket * t->bucket_ns) / 1e9, row->c->proc,
		row->samples);
	if (t->by_thread && row->tid)
		fprintf(f, ",%" PRIu32, row->tid);
	else if (t->by_thread)
		fputs(",null", f);
	fputc(']', f);
}

int timeline_write_json(FILE *f, const struct timeline *t)
{
	size_t i, at = 0;
	bool first = true;

	fprintf(f, "{\"bucket_s\":%.3f,\"length_s\":%.3f,\"processes\":[",
		(double)t->bucket_ns / 1e9, (double)t->len_ns / 1e9);
	for (i = 0; i < t->nr_procs; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		out_json_str(f, t->procs[i].name);
		if (t->procs[i].tgid)
			fprintf(f, ",\"tgid\":%" PRIu32, t->procs[i].tgid);
		fputc('}', f);
	}
	fputs("],\"buckets\":[", f);
	for (i = 0; i < t->nr_cells; i++)
		timeline_rows(t, &t->cells[i], &at, timeline_json_row, f, NULL,
			      &first);
	fputs("]}\n", f);
	return ferror(f) ? -EIO : 0;
}
