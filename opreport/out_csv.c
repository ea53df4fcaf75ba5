// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * CSV (RFC 4180): one header line, then one line per row of the text
 * report.  The first column says which kind of row it is: "app" and
 * "image" in the summary, "symbol" and "detail" in the symbol list, then,
 * with --anon-handler, "naming": per process, how many anonymous samples
 * were named (symbol "named") and how many not, by reason.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "diag.h"
#include "anon_naming.h"
#include "out.h"

void out_csv_field(FILE *f, const struct report *r, const char *s, bool last)
{
	s = out_safe(r->pool, s);
	if (s && strpbrk(s, ",\"\r\n")) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else if (s) {
		fputs(s, f);
	}
	fputc(last ? '\n' : ',', f);
}

static void num(FILE *f, uint64_t v)
{
	fprintf(f, "%" PRIu64 ",", v);
}

static void pct(FILE *f, double v)
{
	fprintf(f, "%.4f,", v);
}

static void sep(FILE *f, uint32_t tgid, int32_t cpu)
{
	if (tgid)
		fprintf(f, "%u", tgid);
	fputc(',', f);
	if (cpu >= 0)
		fprintf(f, "%d", cpu);
	fputc(',', f);
}

/* --separate=thread: the tid column, empty for a row with no thread (a
 * native one, whose histogram keeps none). */
static void tid(FILE *f, const struct report *r, uint32_t v,
		const char *thread)
{
	if (!r->tid_separated)
		return;
	if (v)
		fprintf(f, "%u", v);
	fputc(',', f);
	/* a session recorded per thread: the thread's name */
	if (r->thread_names)
		out_csv_field(f, r, thread, false);
}

static const char *tid_heading(const struct report *r)
{
	return r->thread_names	  ? "tid,thread,"
	       : r->tid_separated ? "tid,"
				  : "";
}

static void summary(FILE *f, const struct report *r)
{
	size_t i, k;

	fprintf(f, "row,samples,percent,tgid,cpu,%skind,handler,app,image\n",
		tid_heading(r));
	for (i = 0; i < r->nr_apps; i++) {
		const struct report_app *app = &r->apps[i];

		fputs("app,", f);
		num(f, app->count);
		pct(f, report_percent(r, app->count, 0));
		sep(f, app->tgid, app->cpu);
		tid(f, r, 0, NULL);
		fputs(",,", f);
		out_csv_field(f, r, app->app, false);
		out_csv_field(f, r, "", true);
		for (k = 0; k < app->nr_images; k++) {
			const struct report_image *img = &app->images[k];

			fputs("image,", f);
			num(f, img->count);
			pct(f, report_percent(r, img->count, app->count));
			sep(f, img->first->tgid, img->first->cpu);
			tid(f, r, img->first->tid, img->first->thread);
			out_csv_field(f, r, out_kind_name(img->first->kind),
				      false);
			out_csv_field(f, r, img->first->handler, false);
			out_csv_field(f, r, app->app, false);
			out_csv_field(f, r, img->first->image, true);
		}
	}
}

static void symbols(FILE *f, const struct report *r)
{
	char vma[32], line[16];
	size_t i, k;

	fprintf(f,
		"row,samples,percent,vma,file,line,tgid,cpu,%skind,handler,app,image,symbol\n",
		tid_heading(r));
	for (i = 0; i < r->nr_rows; i++) {
		const struct report_row *row = &r->rows[i];
		const struct report_sym *s = row->sym;

		fputs("symbol,", f);
		num(f, row->count);
		pct(f, report_percent(r, row->count, 0));
		snprintf(vma, sizeof(vma), "0x%" PRIx64, s ? s->vma : 0);
		out_csv_field(f, r, s && s->has_vma ? vma : "", false);
		snprintf(line, sizeof(line), "%u", s ? s->line : 0);
		out_csv_field(f, r, s && s->line ? s->file : NULL, false);
		out_csv_field(f, r, s && s->line ? line : NULL, false);
		sep(f, row->tgid, row->cpu);
		tid(f, r, row->tid, row->thread);
		out_csv_field(f, r, out_kind_name(row->kind), false);
		out_csv_field(f, r, row->handler, false);
		out_csv_field(f, r, row->app, false);
		out_csv_field(f, r, row->image, false);
		out_csv_field(f, r, s ? s->name : "(no symbols)", true);
		for (k = 0; k < row->nr_details; k++) {
			const struct report_detail *d = &row->details[k];

			fputs("detail,", f);
			num(f, d->count);
			pct(f, report_percent(r, d->count, row->count));
			snprintf(vma, sizeof(vma), "0x%" PRIx64, d->vma);
			out_csv_field(f, r, vma, false);
			snprintf(line, sizeof(line), "%u", d->line);
			out_csv_field(f, r, d->line ? d->file : NULL, false);
			out_csv_field(f, r, d->line ? line : NULL, false);
			sep(f, row->tgid, row->cpu);
			tid(f, r, row->tid, row->thread);
			out_csv_field(f, r, out_kind_name(row->kind), false);
			out_csv_field(f, r, row->handler, false);
			out_csv_field(f, r, row->app, false);
			out_csv_field(f, r, row->image, false);
			out_csv_field(f, r, s ? s->name : "(no symbols)",
				      true);
		}
	}
}

/* One "naming" row of process NM: COUNT of its anonymous samples, with
 * STATUS in the image column and WHAT became of them in the symbol
 * column. */
static void naming_row(FILE *f, const struct report *r,
		       const struct report_naming *nm, uint64_t count,
		       enum row_kind kind, const char *what)
{
	fputs("naming,", f);
	num(f, count);
	pct(f, report_percent(r, count, nm->samples));
	fputs(",,,", f);
	sep(f, nm->tgid, -1);
	tid(f, r, 0, NULL);
	out_csv_field(f, r, out_kind_name(kind), false);
	out_csv_field(f, r, nm->handler, false);
	out_csv_field(f, r, nm->comm, false);
	out_csv_field(f, r, out_naming_status(nm->status), false);
	out_csv_field(f, r, what, true);
}

/* Per process, as in the text report's block: the samples named, and
 * those not with the reason, one row each. */
static void naming(FILE *f, const struct report *r)
{
	size_t i;
	uint32_t k;

	for (i = 0; i < r->nr_naming; i++) {
		const struct report_naming *nm = &r->naming[i];

		if (nm->status != NAMING_CLAIMED) {
			naming_row(f, r, nm, nm->samples, ROW_ANON,
				   out_naming_why(r, nm));
			continue;
		}
		naming_row(f, r, nm, nm->named, ROW_JIT, "named");
		for (k = 0; k < REPORT_NR_REASONS; k++) {
			uint32_t reason = anon_naming_reason(k);

			if (nm->unnamed[reason])
				naming_row(f, r, nm, nm->unnamed[reason],
					   ROW_ANON, anon_reason_text(reason));
		}
	}
}

int out_csv(FILE *f, const struct report *r)
{
	if (r->opts->symbols || r->opts->details)
		symbols(f, r);
	else
		summary(f, r);
	if (r->opts->nr_anon_handlers &&
	    (r->opts->symbols || r->opts->details))
		naming(f, r);
	/* a note line would break the table: the command says it on
	 * stderr */
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
