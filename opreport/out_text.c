// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * OProfile's text layout: the image summary with dependent images
 * indented under each application, or the symbol list with its fixed
 * columns (a value wider than its column is followed by one space).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "out.h"
#include "strpool.h"

#define W_VMA 17
#define W_SAMPLES 9
#define W_PERCENT 9
#define W_LINENR 28
#define W_IMAGE 25
#define W_APP 25

static void col(FILE *f, const char *text, int width)
{
	int len = (int)strlen(text);

	fprintf(f, "%s%*s", text, len >= width ? 1 : width - len, "");
}

void out_text_header(FILE *f, const struct report *r)
{
	const struct ops_session_info *in = r->info;
	char date[64];

	if (r->opts->no_header)
		return;
	fprintf(f, "Counted %s events%s",
		in->event ? out_safe(r->pool, in->event) : "unknown",
		out_event_desc(in->event));
	if (in->frequency)
		fprintf(f, " at %" PRIu64 " Hz\n", in->frequency);
	else
		fprintf(f, " every %" PRIu64 " events\n", in->period);
	out_date(r, date, sizeof(date));
	fprintf(f, "Session: %s, recorded %s, command: %s%s\n",
		out_safe(r->pool, r->session_dir), date,
		in->command_line ? out_safe(r->pool, in->command_line) :
				   "unknown",
		in->stop_ns ? "" : " (did not stop cleanly)");
}

/* "name (tgid:N) (cpu:N)" for a file or kernel image of a separated
 * profile; anonymous and JIT labels already name their process. */
static const char *display(const struct report *r, const char *path,
			   enum row_kind kind, uint32_t tgid, int32_t cpu)
{
	const char *name = out_safe(r->pool, report_image_name(r, path));
	char buf[64] = "";
	size_t len = 0;

	if (tgid && (kind == ROW_FILE || kind == ROW_KERNEL))
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					" (tgid:%u)", tgid);
	if (cpu >= 0)
		snprintf(buf + len, sizeof(buf) - len, " (cpu:%d)", cpu);
	if (!buf[0])
		return name;
	name = strpool_printf(r->pool, "%s%s", name, buf);
	return name ? name : path;
}

static void summary_heading(FILE *f, const struct report *r,
			    const char *indent)
{
	const char *ev = r->info->event ? out_safe(r->pool, r->info->event) :
					  "samples";

	if (strlen(ev) > 17)
		fprintf(f, "%s%.14s...|\n", indent, ev);
	else
		fprintf(f, "%s%s|\n", indent, ev);
	fprintf(f, "%s  samples|      %%|\n", indent);
	fprintf(f, "%s------------------\n", indent);
}

static bool has_dependents(const struct report_app *app)
{
	return app->nr_images > 1 ||
	       (app->nr_images == 1 &&
		app->images[0].first->image != app->app);
}

static void summary(FILE *f, const struct report *r)
{
	size_t i, k;

	summary_heading(f, r, "");
	for (i = 0; i < r->nr_apps; i++) {
		const struct report_app *app = &r->apps[i];

		fprintf(f, "%9" PRIu64 " %7.4f %s\n", app->count,
			report_percent(r, app->count, 0),
			display(r, app->app, app->kind, app->tgid, app->cpu));
		if (r->opts->exclude_dependent || !has_dependents(app))
			continue;
		summary_heading(f, r, "\t");
		for (k = 0; k < app->nr_images; k++) {
			const struct report_image *img = &app->images[k];

			fprintf(f, "\t%9" PRIu64 " %7.4f %s\n", img->count,
				report_percent(r, img->count, app->count),
				display(r, img->first->image, img->first->kind,
					0, -1));
		}
	}
}

static bool app_column(const struct report *r)
{
	size_t i;

	if (r->opts->merge & MERGE_LIB)
		return false;
	for (i = 0; i < r->nr_rows; i++) {
		const struct report_row *row = &r->rows[i];

		if (row->app && row->app != row->image &&
		    (row->kind == ROW_FILE || row->kind == ROW_KERNEL))
			return true;
	}
	return false;
}

static const char *linenr(const struct report *r, const char *file,
			  uint32_t line)
{
	const char *s;

	if (!file || !line)
		return "(no location information)";
	s = strpool_printf(r->pool, "%s:%u",
			   out_safe(r->pool, out_file_name(r, file)), line);
	return s ? s : "(no location information)";
}

static void symbols(FILE *f, const struct report *r)
{
	const struct opreport_opts *o = r->opts;
	bool vma = o->show_address || o->details, apps = app_column(r);
	size_t i, k;
	char buf[32];

	if (vma)
		col(f, "vma", W_VMA);
	col(f, "samples", W_SAMPLES);
	col(f, "%", W_PERCENT);
	if (o->debug_info)
		col(f, "linenr info", W_LINENR);
	col(f, "image name", W_IMAGE);
	if (apps)
		col(f, "app name", W_APP);
	fprintf(f, "symbol name\n");
	for (i = 0; i < r->nr_rows; i++) {
		const struct report_row *row = &r->rows[i];
		const struct report_sym *s = row->sym;

		if (vma) {
			snprintf(buf, sizeof(buf), "%016" PRIx64,
				 s && s->has_vma ? s->vma : 0);
			col(f, buf, W_VMA);
		}
		snprintf(buf, sizeof(buf), "%" PRIu64, row->count);
		col(f, buf, W_SAMPLES);
		snprintf(buf, sizeof(buf), "%.4f",
			 report_percent(r, row->count, 0));
		col(f, buf, W_PERCENT);
		if (o->debug_info)
			col(f, linenr(r, s ? s->file : NULL, s ? s->line : 0),
			    W_LINENR);
		col(f, display(r, row->image, row->kind, row->tgid, row->cpu),
		    W_IMAGE);
		if (apps)
			col(f, row->app ? out_safe(r->pool,
				report_image_name(r, row->app)) : "", W_APP);
		fprintf(f, "%s\n", s ? out_safe(r->pool, s->name) :
				       "(no symbols)");
		for (k = 0; k < row->nr_details; k++) {
			const struct report_detail *d = &row->details[k];

			snprintf(buf, sizeof(buf), "  %016" PRIx64, d->vma);
			col(f, buf, W_VMA + 2);
			snprintf(buf, sizeof(buf), "%" PRIu64, d->count);
			col(f, buf, W_SAMPLES);
			snprintf(buf, sizeof(buf), "%.4f",
				 report_percent(r, d->count, row->count));
			if (o->debug_info) {
				col(f, buf, W_PERCENT);
				fprintf(f, "%s\n", linenr(r, d->file, d->line));
			} else {
				fprintf(f, "%s\n", buf);
			}
		}
	}
}

int out_text(FILE *f, const struct report *r)
{
	out_text_header(f, r);
	if (r->opts->symbols || r->opts->details)
		symbols(f, r);
	else
		summary(f, r);
	if (r->anon_hidden)
		out_anon_hidden_note(f, r, "\n");
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
