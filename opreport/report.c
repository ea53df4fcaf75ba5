// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "strpool.h"

int report_init(struct report *r, const struct opreport_opts *opts)
{
	memset(r, 0, sizeof(*r));
	r->opts = opts;
	r->pool = strpool_new();
	return r->pool ? 0 : -ENOMEM;
}

void report_release(struct report *r)
{
	size_t i;

	for (i = 0; i < r->nr_rows; i++)
		free(r->rows[i].details);
	for (i = 0; i < r->nr_apps; i++)
		free(r->apps[i].images);
	free(r->apps);
	free(r->rows);
	free(r->hits);
	free(r->naming);
	strpool_free(r->pool);
	memset(r, 0, sizeof(*r));
}

struct report_naming *report_naming_add(struct report *r,
					const struct ops_process *p)
{
	struct report_naming *n;

	if (r->nr_naming == r->cap_naming) {
		size_t cap = r->cap_naming ? r->cap_naming * 2 : 16;

		n = realloc(r->naming, cap * sizeof(*n));
		if (!n)
			return NULL;
		r->naming = n;
		r->cap_naming = cap;
	}
	n = &r->naming[r->nr_naming++];
	*n = (struct report_naming){ .tgid = p->tgid };
	n->comm = strpool_intern(r->pool, p->comm ? p->comm : "?");
	return n->comm ? n : (r->nr_naming--, NULL);
}

int report_add_hit(struct report *r, const struct report_hit *h)
{
	struct report_hit *slot;

	if (r->nr_hits == r->cap_hits) {
		size_t cap = r->cap_hits ? r->cap_hits * 2 : 1024;
		struct report_hit *grown;

		grown = realloc(r->hits, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		r->hits = grown;
		r->cap_hits = cap;
	}
	slot = &r->hits[r->nr_hits++];
	*slot = *h;
	if (r->opts->merge & MERGE_LIB)
		slot->app = NULL;
	if (!r->tgid_separated)
		slot->tgid = 0;
	if (!r->cpu_separated)
		slot->cpu = -1;
	if (!r->tid_separated)
		slot->tid = 0;
	return 0;
}

double report_percent(const struct report *r, uint64_t count, uint64_t parent)
{
	uint64_t denom = r->opts->global_percent ? r->session_total
			 : parent		 ? parent
						 : r->total;

	return denom ? 100.0 * (double)count / (double)denom : 0.0;
}

const char *report_image_name(const struct report *r, const char *path)
{
	const char *base;

	if (!path)
		return "";
	if (r->opts->long_filenames || path[0] != '/')
		return path;
	base = strrchr(path, '/');
	return base[1] ? base + 1 : path;
}

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

static int cmp_ptr(const void *a, const void *b)
{
	return CMP((uintptr_t)a, (uintptr_t)b);
}

/* A JIT's symbols are code objects: a function compiled again, or in
 * another process, is another object with the same name.  Its row is
 * the function's, as in diff, folded and pprof, so JIT symbols group by
 * their (interned) name. */
static bool hit_jit_objects; /* opts->jit_objects of the report folding */

static const void *hit_sym_key(const struct report_hit *h)
{
	return h->kind == ROW_JIT && h->sym && !hit_jit_objects
		       ? (const void *)h->sym->name
		       : (const void *)h->sym;
}

/* The grouping key of rows: pointers of interned strings and symbols. */
static int hit_key_cmp(const struct report_hit *a, const struct report_hit *b)
{
	int c;

	if ((c = CMP(a->kind, b->kind)) || (c = cmp_ptr(a->image, b->image)) ||
	    (c = cmp_ptr(a->app, b->app)) || (c = CMP(a->tgid, b->tgid)) ||
	    (c = CMP(a->cpu, b->cpu)) || (c = CMP(a->tid, b->tid)) ||
	    (c = cmp_ptr(hit_sym_key(a), hit_sym_key(b))))
		return c;
	return 0;
}

static int hit_cmp(const void *pa, const void *pb)
{
	const struct report_hit *a = pa, *b = pb;

	return hit_key_cmp(a, b) ?: CMP(a->vma, b->vma);
}

static int fold_details(struct report_row *row, const struct report_hit *h,
			size_t n)
{
	size_t i, nd = 0;

	row->details = calloc(n, sizeof(*row->details));
	if (!row->details)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct report_detail *d = nd ? &row->details[nd - 1] : NULL;

		if (!d || d->vma != h[i].vma) {
			d = &row->details[nd++];
			d->vma = h[i].vma;
			d->file = h[i].file;
			d->line = h[i].line;
		}
		report_count_add(&d->count, h[i].count);
	}
	row->nr_details = nd;
	return 0;
}

static int fold_rows(struct report *r)
{
	size_t i, j;

	hit_jit_objects = r->opts->jit_objects;
	if (r->nr_hits) /* an empty session has no array to sort */
		qsort(r->hits, r->nr_hits, sizeof(*r->hits), hit_cmp);
	r->rows = calloc(r->nr_hits ? r->nr_hits : 1, sizeof(*r->rows));
	if (!r->rows)
		return -ENOMEM;
	for (i = 0; i < r->nr_hits; i = j) {
		const struct report_hit *h = &r->hits[i];
		struct report_row *row = &r->rows[r->nr_rows++];

		row->kind = h->kind;
		row->image = h->image;
		row->app = h->app;
		row->handler = h->handler;
		row->tgid = h->tgid;
		row->cpu = h->cpu;
		row->tid = h->tid;
		row->thread = r->thread_names && h->tid
				      ? ops_session_thread_name(
						r->session, h->tgid, h->tid)
				      : NULL;
		row->sym = h->sym;
		row->line_src = h->line_src;
		for (j = i; j < r->nr_hits; j++) {
			if (hit_key_cmp(h, &r->hits[j]))
				break;
			report_count_add(&row->count, r->hits[j].count);
		}
		if (r->opts->details && fold_details(row, h, j - i))
			return -ENOMEM;
	}
	return 0;
}

struct line_req {
	const struct report_line_src *src;
	uint64_t vma;
	struct report_detail *d;
};

static int line_req_cmp(const void *pa, const void *pb)
{
	const struct line_req *a = pa, *b = pb;

	return cmp_ptr(a->src, b->src) ?: CMP(a->vma, b->vma);
}

/* -d -g: each source gets its unique addresses once, sorted. */
static int resolve_detail_lines(struct report *r)
{
	struct line_req *req = NULL;
	uint64_t *vmas = NULL;
	const char **files = NULL;
	uint32_t *lines = NULL;
	size_t n = 0, i, j, k, nr = 0;
	int ret = -ENOMEM;

	for (i = 0; i < r->nr_rows; i++)
		if (r->rows[i].line_src)
			n += r->rows[i].nr_details;
	if (!n)
		return 0;
	req = calloc(n, sizeof(*req));
	vmas = calloc(n, sizeof(*vmas));
	files = calloc(n, sizeof(*files));
	lines = calloc(n, sizeof(*lines));
	if (!req || !vmas || !files || !lines)
		goto out;
	for (i = 0; i < r->nr_rows; i++) {
		struct report_row *row = &r->rows[i];

		if (!row->line_src)
			continue;
		for (j = 0; j < row->nr_details; j++)
			req[nr++] = (struct line_req){ row->line_src,
						       row->details[j].vma,
						       &row->details[j] };
	}
	qsort(req, nr, sizeof(*req), line_req_cmp);
	for (i = 0; i < nr; i = j) {
		size_t nv = 0;

		for (j = i; j < nr && req[j].src == req[i].src; j++)
			if (!nv || vmas[nv - 1] != req[j].vma)
				vmas[nv++] = req[j].vma;
		memset(files, 0, nv * sizeof(*files));
		memset(lines, 0, nv * sizeof(*lines));
		req[i].src->lines(req[i].src->arg, vmas, nv, files, lines);
		for (k = i, nv = 0; k < j; k++) {
			if (k > i && req[k].vma != req[k - 1].vma)
				nv++;
			req[k].d->file = files[nv];
			req[k].d->line = lines[nv];
		}
	}
	ret = 0;
out:
	free(req);
	free(vmas);
	free(files);
	free(lines);
	return ret;
}

static bool in_list(char **list, const char *name)
{
	for (; list && *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

static bool row_dependent(const struct report_row *row)
{
	return row->app && (row->kind != ROW_FILE || row->image != row->app);
}

static bool row_kept(const struct report *r, const struct report_row *row)
{
	const struct opreport_opts *o = r->opts;

	if (o->exclude_dependent && row_dependent(row))
		return false;
	if (row->sym && o->include_symbols &&
	    !in_list(o->include_symbols, row->sym->name))
		return false;
	if (row->sym && in_list(o->exclude_symbols, row->sym->name))
		return false;
	return true;
}

static const struct report *sort_report; /* qsort has no argument */

static int str_cmp0(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int row_key_cmp(const struct report_row *a, const struct report_row *b,
		       enum opreport_sort key)
{
	const char *an = a->sym ? a->sym->name : "";
	const char *bn = b->sym ? b->sym->name : "";

	switch (key) {
	case SORT_SAMPLE:
		return CMP(b->count, a->count);
	case SORT_IMAGE:
		return strcmp(report_image_name(sort_report, a->image),
			      report_image_name(sort_report, b->image));
	case SORT_APP:
		return strcmp(report_image_name(sort_report, a->app),
			      report_image_name(sort_report, b->app));
	case SORT_SYMBOL:
		return strcmp(an, bn);
	case SORT_DEBUG:
		return str_cmp0(a->sym ? a->sym->file : NULL,
				b->sym ? b->sym->file : NULL)
			       ?: CMP(a->sym ? a->sym->line : 0,
				      b->sym ? b->sym->line : 0);
	case SORT_VMA:
		return CMP(a->sym && a->sym->has_vma ? a->sym->vma : 0,
			   b->sym && b->sym->has_vma ? b->sym->vma : 0);
	}
	return 0;
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct report_row *a = pa, *b = pb;
	const struct opreport_opts *o = sort_report->opts;
	static const enum opreport_sort ties[] = {
		SORT_SAMPLE, SORT_IMAGE, SORT_APP, SORT_SYMBOL, SORT_VMA,
	};
	size_t i;
	int c = 0;

	for (i = 0; !c && i < o->nr_sort; i++)
		c = row_key_cmp(a, b, o->sort[i]);
	for (i = 0; !c && i < sizeof(ties) / sizeof(ties[0]); i++)
		c = row_key_cmp(a, b, ties[i]);
	c = c ?: CMP(a->tgid, b->tgid) ?: CMP(a->cpu, b->cpu) ?:
		CMP(a->tid, b->tid);
	return o->reverse_sort ? -c : c;
}

static int app_cmp(const void *pa, const void *pb)
{
	const struct report_app *a = pa, *b = pb;
	int c = CMP(b->count, a->count) ?: str_cmp0(a->app, b->app) ?:
		CMP(a->tgid, b->tgid) ?: CMP(a->cpu, b->cpu);

	return sort_report->opts->reverse_sort ? -c : c;
}

static int image_cmp(const void *pa, const void *pb)
{
	const struct report_image *a = pa, *b = pb;
	int c = CMP(b->count, a->count)
			?: strcmp(a->first->image, b->first->image)
			?: CMP(a->first->tid, b->first->tid);

	return sort_report->opts->reverse_sort ? -c : c;
}

static bool below_threshold(const struct report *r, uint64_t count)
{
	return r->opts->threshold > 0 &&
	       report_percent(r, count, 0) < r->opts->threshold;
}

static int summary_key_cmp(const struct report_row *a,
			   const struct report_row *b)
{
	const char *aa = a->app ? a->app : a->image;
	const char *ba = b->app ? b->app : b->image;

	return cmp_ptr(aa, ba) ?: CMP(a->tgid, b->tgid) ?: CMP(a->cpu, b->cpu);
}

static int summary_row_cmp(const void *pa, const void *pb)
{
	const struct report_row *a = pa, *b = pb;

	return summary_key_cmp(a, b) ?: CMP(a->kind, b->kind) ?:
	       cmp_ptr(a->image, b->image) ?: CMP(a->tid, b->tid);
}

/* The image summary groups rows by application, then by image. */
static int build_summary(struct report *r)
{
	size_t i, j, k;

	qsort(r->rows, r->nr_rows, sizeof(*r->rows), summary_row_cmp);
	r->apps = calloc(r->nr_rows ? r->nr_rows : 1, sizeof(*r->apps));
	if (!r->apps)
		return -ENOMEM;
	for (i = 0; i < r->nr_rows; i = j) {
		struct report_app *app = &r->apps[r->nr_apps];

		for (j = i; j < r->nr_rows &&
			    !summary_key_cmp(&r->rows[i], &r->rows[j]);
		     j++)
			;
		app->app = r->rows[i].app ? r->rows[i].app : r->rows[i].image;
		app->kind = r->rows[i].app ? ROW_FILE : r->rows[i].kind;
		app->tgid = r->rows[i].tgid;
		app->cpu = r->rows[i].cpu;
		app->images = calloc(j - i, sizeof(*app->images));
		if (!app->images)
			return -ENOMEM;
		r->nr_apps++;
		for (k = i; k < j; k++) {
			const struct report_row *row = &r->rows[k];
			struct report_image *img =
				app->nr_images
					? &app->images[app->nr_images - 1]
					: NULL;

			/* a thread's rows of a JIT image are its own line */
			if (!img || img->first->image != row->image ||
			    img->first->kind != row->kind ||
			    img->first->tid != row->tid) {
				img = &app->images[app->nr_images++];
				img->first = row;
			}
			report_count_add(&img->count, row->count);
			report_count_add(&app->count, row->count);
		}
	}
	for (i = j = 0; i < r->nr_apps; i++) {
		struct report_app *app = &r->apps[i];
		size_t kept = 0;

		if (below_threshold(r, app->count)) {
			free(app->images);
			continue;
		}
		for (k = 0; k < app->nr_images; k++)
			if (!below_threshold(r, app->images[k].count))
				app->images[kept++] = app->images[k];
		app->nr_images = kept;
		qsort(app->images, app->nr_images, sizeof(*app->images),
		      image_cmp);
		r->apps[j++] = *app;
	}
	r->nr_apps = j;
	qsort(r->apps, r->nr_apps, sizeof(*r->apps), app_cmp);
	return 0;
}

bool report_row_kept(const struct report *r, const struct report_row *row)
{
	return row_kept(r, row);
}

void report_sort_rows(const struct report *r, struct report_row *rows,
		      size_t n)
{
	sort_report = r;
	qsort(rows, n, sizeof(*rows), row_cmp);
}

int report_finish(struct report *r)
{
	size_t i, j;
	int ret;

	ret = fold_rows(r);
	if (ret)
		return ret;
	free(r->hits);
	r->hits = NULL;
	r->nr_hits = r->cap_hits = 0;
	for (i = j = 0; i < r->nr_rows; i++) {
		if (row_kept(r, &r->rows[i]))
			r->rows[j++] = r->rows[i];
		else
			free(r->rows[i].details);
	}
	r->nr_rows = j;
	sort_report = r;
	if (!r->opts->symbols && !r->opts->details)
		return build_summary(r);
	for (i = j = 0; i < r->nr_rows; i++) {
		if (!below_threshold(r, r->rows[i].count))
			r->rows[j++] = r->rows[i];
		else
			free(r->rows[i].details);
	}
	r->nr_rows = j;
	/* lines only for the rows shown: a line lookup can cost a scan of
	 * an image's symbols, so the rows left out must not pay for it */
	if (r->opts->details && r->opts->debug_info) {
		ret = resolve_detail_lines(r);
		if (ret)
			return ret;
	}
	qsort(r->rows, r->nr_rows, sizeof(*r->rows), row_cmp);
	return 0;
}
