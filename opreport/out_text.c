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
#include "table.h"

#define W_VMA 17
#define W_SAMPLES 9
#define W_PERCENT 9
#define W_LINENR 28
#define W_IMAGE 25
#define W_APP 25
#define W_TID 8
#define W_THREAD 16

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
	else if (in->period == 1)
		fprintf(f, ", every one a sample\n");
	else
		fprintf(f, " every %" PRIu64 " events\n", in->period);
	out_date(r, date, sizeof(date));
	fprintf(f, "Session: %s, recorded %s, command: %s%s\n",
		out_safe(r->pool, r->session_dir), date,
		in->command_line ? out_safe(r->pool, in->command_line)
				 : "unknown",
		in->stop_ns ? "" : " (did not stop cleanly)");
	/* OProfile's header has a line per counter: one line here, after
	 * those that scripts read by their place */
	for (uint32_t i = 0; i < r->nr_events; i++) {
		const char *name = out_safe(r->pool, r->event_names[i]);

		fprintf(f, "%s%s %" PRIu64 " samples (",
			i ? ", " : "Events recorded: ", name,
			r->event_samples[i]);
		if (i == r->event_shown)
			fputs("this report)", f);
		else
			fprintf(f, "--event=%s)", name);
	}
	if (r->nr_events)
		fputc('\n', f);
}

/* Up front, not after the table: most of a JIT's profile may be hidden,
 * and the first thing read should say so. */
void out_text_hidden(FILE *f, const struct report *r)
{
	char note[256];

	if (!r->anon_hidden)
		return;
	out_anon_hidden_note(note, sizeof(note), r);
	fprintf(f, "%s\n", note);
}

/* "name (tgid:N) (cpu:N)" for a file or kernel image of a separated
 * profile; anonymous and JIT labels already name their process, and
 * under --separate=thread get "(tid:N)", or "(tid:N NAME)" when the
 * session kept the thread's name. */
static const char *display(const struct report *r, const char *path,
			   enum row_kind kind, uint32_t tgid, int32_t cpu,
			   uint32_t tid, const char *thread)
{
	const char *name = out_safe(r->pool, report_image_name(r, path));
	char buf[320] = "";
	size_t len = 0;

	if (tgid && (kind == ROW_FILE || kind == ROW_KERNEL))
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					" (tgid:%u)", tgid);
	if (cpu >= 0)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					" (cpu:%d)", cpu);
	if (tid && thread)
		snprintf(buf + len, sizeof(buf) - len, " (tid:%u %s)", tid,
			 out_safe(r->pool, thread));
	else if (tid)
		snprintf(buf + len, sizeof(buf) - len, " (tid:%u)", tid);
	if (!buf[0])
		return name;
	name = strpool_printf(r->pool, "%s%s", name, buf);
	return name ? name : path;
}

static void summary_heading(FILE *f, const struct report *r,
			    const char *indent)
{
	const char *ev = r->info->event ? out_safe(r->pool, r->info->event)
					: "samples";

	if (strlen(ev) > 17)
		fprintf(f, "%s%.14s...|\n", indent, ev);
	else
		fprintf(f, "%s%s|\n", indent, ev);
	fprintf(f, "%s  samples|      %%|\n", indent);
	fprintf(f, "%s------------------\n", indent);
}

static bool has_dependents(const struct report_app *app)
{
	return app->nr_images > 1 || (app->nr_images == 1 &&
				      app->images[0].first->image != app->app);
}

/* A summary line: the name last, cut in the middle to keep the line
 * within LIMIT (a terminal's width, or 0).  INDENT is a tab or nothing;
 * a tab takes 8 columns. */
static void summary_line(FILE *f, const char *indent, uint64_t count,
			 double percent, const char *name, int limit)
{
	int used =
		fprintf(f, "%s%9" PRIu64 " %7.4f ", indent, count, percent) +
		(*indent ? 7 : 0);

	if (limit > 0)
		table_put_fitted(f, name,
				 limit - used > TABLE_NAME_MIN
					 ? limit - used
					 : TABLE_NAME_MIN,
				 true);
	else
		fputs(name, f);
	fputc('\n', f);
}

static void summary(FILE *f, const struct report *r)
{
	int limit = out_line_limit(f, r);
	size_t i, k;

	summary_heading(f, r, "");
	for (i = 0; i < r->nr_apps; i++) {
		const struct report_app *app = &r->apps[i];

		summary_line(f, "", app->count,
			     report_percent(r, app->count, 0),
			     display(r, app->app, app->kind, app->tgid,
				     app->cpu, 0, NULL),
			     limit);
		if (r->opts->exclude_dependent || !has_dependents(app))
			continue;
		summary_heading(f, r, "\t");
		for (k = 0; k < app->nr_images; k++) {
			const struct report_image *img = &app->images[k];

			summary_line(f, "\t", img->count,
				     report_percent(r, img->count, app->count),
				     display(r, img->first->image,
					     img->first->kind, 0, -1,
					     img->first->tid,
					     img->first->thread),
				     limit);
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

/* The -d lines under a symbol keep OProfile's fixed, indented columns. */
static int detail_lines(struct table *t, const struct report *r,
			const struct report_row *row)
{
	char line[512];
	size_t k;
	int err = 0;

	for (k = 0; k < row->nr_details && !err; k++) {
		const struct report_detail *d = &row->details[k];
		char count[32], pct[32];

		snprintf(count, sizeof(count), "%" PRIu64, d->count);
		snprintf(pct, sizeof(pct), "%.4f",
			 report_percent(r, d->count, row->count));
		if (r->opts->debug_info)
			snprintf(line, sizeof(line),
				 "  %016" PRIx64 " %-*s %-*s %s", d->vma,
				 W_SAMPLES - 1, count, W_PERCENT - 1, pct,
				 linenr(r, d->file, d->line));
		else
			snprintf(line, sizeof(line),
				 "  %016" PRIx64 " %-*s %s", d->vma,
				 W_SAMPLES - 1, count, pct);
		err = table_text(t, line);
	}
	return err;
}

enum {
	C_VMA,
	C_SAMPLES,
	C_PERCENT,
	C_LINENR,
	C_TID,
	C_THREAD,
	C_IMAGE,
	C_APP,
	C_SYMBOL,
	NR_C
};

static const struct table_col symbol_cols[NR_C] = {
	[C_VMA] = { W_VMA, false },	    [C_SAMPLES] = { W_SAMPLES, false },
	[C_PERCENT] = { W_PERCENT, false }, [C_LINENR] = { W_LINENR, true },
	[C_TID] = { W_TID, false },	    [C_THREAD] = { W_THREAD, true },
	[C_IMAGE] = { W_IMAGE, true },	    [C_APP] = { W_APP, true },
	[C_SYMBOL] = { 0, false },
};

/* The columns this report shows, in OProfile's order. */
static unsigned symbol_columns(const struct report *r, unsigned *which)
{
	const struct opreport_opts *o = r->opts;
	unsigned n = 0;

	if (o->show_address || o->details)
		which[n++] = C_VMA;
	which[n++] = C_SAMPLES;
	which[n++] = C_PERCENT;
	if (o->debug_info)
		which[n++] = C_LINENR;
	if (r->tid_separated)
		which[n++] = C_TID;
	if (r->thread_names)
		which[n++] = C_THREAD;
	which[n++] = C_IMAGE;
	if (app_column(r))
		which[n++] = C_APP;
	which[n++] = C_SYMBOL;
	return n;
}

static void symbol_cells(const struct report *r, const struct report_row *row,
			 const char **cell)
{
	const struct report_sym *s = row->sym;

	cell[C_VMA] = strpool_printf(r->pool, "%016" PRIx64,
				     s && s->has_vma ? s->vma : 0);
	cell[C_SAMPLES] = strpool_printf(r->pool, "%" PRIu64, row->count);
	cell[C_PERCENT] = strpool_printf(r->pool, "%.4f",
					 report_percent(r, row->count, 0));
	cell[C_LINENR] = linenr(r, s ? s->file : NULL, s ? s->line : 0);
	/* a native row has no thread: its histogram keeps none */
	cell[C_TID] = row->tid ? strpool_printf(r->pool, "%u", row->tid) : "-";
	cell[C_THREAD] = row->thread ? out_safe(r->pool, row->thread) : "-";
	cell[C_IMAGE] = display(r, row->image, row->kind, row->tgid, row->cpu,
				0, NULL);
	cell[C_APP] =
		row->app ? out_safe(r->pool, report_image_name(r, row->app))
			 : "";
	cell[C_SYMBOL] = s ? out_safe(r->pool, s->name) : "(no symbols)";
}

static int symbols(FILE *f, const struct report *r)
{
	static const char *const heading[NR_C] = {
		"vma",	  "samples",	"%",	    "linenr info", "tid",
		"thread", "image name", "app name", "symbol name",
	};
	struct table_col cols[NR_C];
	const char *cell[NR_C], *shown[NR_C];
	unsigned which[NR_C], n, c;
	struct table *t;
	size_t i;
	int err;

	n = symbol_columns(r, which);
	for (c = 0; c < n; c++) {
		cols[c] = symbol_cols[which[c]];
		shown[c] = heading[which[c]];
	}
	t = table_new(cols, n);
	if (!t)
		return -ENOMEM;
	err = table_row(t, "", shown);
	for (i = 0; i < r->nr_rows && !err; i++) {
		symbol_cells(r, &r->rows[i], cell);
		for (c = 0; c < n; c++)
			shown[c] = cell[which[c]] ? cell[which[c]]
						  : "(out of memory)";
		err = table_row(t, "", shown);
		if (!err)
			err = detail_lines(t, r, &r->rows[i]);
	}
	if (!err)
		table_print(t, f, out_line_limit(f, r));
	table_free(t);
	return err;
}

int out_text(FILE *f, const struct report *r)
{
	int err = 0;

	out_text_header(f, r);
	out_text_hidden(f, r);
	if (r->opts->symbols || r->opts->details)
		err = symbols(f, r);
	else
		summary(f, r);
	if (err)
		return err;
	if (r->opts->nr_anon_handlers &&
	    (r->opts->symbols || r->opts->details))
		out_naming_text(f, r);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
