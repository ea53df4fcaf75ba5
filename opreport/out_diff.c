// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A differential profile in each format.  Text keeps OProfile's order:
 * the baseline's samples and %, the profile's, then the change, image
 * and symbol.  Folded is the two-count input of a differential flame
 * graph (difffolded.pl's: "stack BASE PROFILE").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "out.h"
#include "strpool.h"
#include "table.h"

#define W_SAMPLES 9
#define W_PERCENT 9
#define W_CHANGE 10
#define W_IMAGE 25

static const char *change_text(const struct diff_row *row, char *buf,
			       size_t len)
{
	snprintf(buf, len, "%+.4f", row->change);
	return buf;
}

static void text_header(FILE *f, const struct diff *d)
{
	static const char *const what[2] = { "baseline", "profile" };
	int s;

	for (s = 0; s < 2; s++)
		fprintf(f, "%-9s %s: %" PRIu64 " samples\n", what[s],
			out_safe(d->side[s]->pool, d->side[s]->session_dir),
			d->side[s]->total);
	fprintf(f,
		"change: the profile's %% minus the baseline's, in points\n\n");
}

static const struct table_col diff_cols[] = {
	{ W_SAMPLES, false }, { W_PERCENT, false }, { W_SAMPLES, false },
	{ W_PERCENT, false }, { W_CHANGE, false },  { W_IMAGE, true },
	{ 0, false },
};

/* The row's cells; without symbols the image is the last column. */
static int diff_cells(const struct report *r, const struct diff_row *row,
		      const char **cell)
{
	const char *status = diff_status(row);
	char buf[64];
	unsigned c = 0;
	int s;

	for (s = 0; s < 2; s++) {
		cell[c++] = strpool_printf(r->pool, "%" PRIu64, row->count[s]);
		cell[c++] = strpool_printf(r->pool, "%.4f", row->percent[s]);
	}
	cell[c++] =
		strpool_intern(r->pool, change_text(row, buf, sizeof(buf)));
	if (!row->symbol)
		cell[c++] = strpool_printf(r->pool, "%s%s%s",
					   out_safe(r->pool, row->image),
					   status ? " " : "",
					   status ? status : "");
	else {
		cell[c++] = out_safe(r->pool, row->image);
		cell[c++] = strpool_printf(r->pool, "%s%s%s",
					   out_safe(r->pool, row->symbol),
					   status ? "  " : "",
					   status ? status : "");
	}
	while (c--)
		if (!cell[c])
			return -ENOMEM;
	return 0;
}

static int diff_text(FILE *f, const struct diff *d)
{
	static const char *const heading[] = { "samples",    "%",
					       "samples",    "%",
					       "change",     "image name",
					       "symbol name" };
	const struct report *r = d->side[1];
	unsigned n = r->want_syms ? 7 : 6;
	const char *cell[7];
	struct table *t;
	size_t i;
	int err = 0;

	if (!r->opts->no_header)
		text_header(f, d);
	t = table_new(diff_cols, n);
	if (!t)
		return -ENOMEM;
	if (!r->opts->no_header)
		err = table_row(t, "", heading);
	for (i = 0; i < d->nr_rows && !err; i++) {
		err = diff_cells(r, &d->rows[i], cell);
		if (!err)
			err = table_row(t, "", cell);
	}
	if (!err)
		table_print(t, f, out_line_limit(f, r));
	table_free(t);
	return err;
}

static int diff_csv(FILE *f, const struct diff *d)
{
	const struct report *r = d->side[1];
	char buf[64];
	size_t i;
	int s;

	fprintf(f,
		"base samples,base %%,samples,%%,change,kind,image,%s"
		"status\n",
		r->want_syms ? "symbol," : "");
	for (i = 0; i < d->nr_rows; i++) {
		const struct diff_row *row = &d->rows[i];
		const char *status = diff_status(row);

		for (s = 0; s < 2; s++)
			fprintf(f, "%" PRIu64 ",%.4f,", row->count[s],
				row->percent[s]);
		fprintf(f, "%s,", change_text(row, buf, sizeof(buf)));
		out_csv_field(f, r, out_kind_name(row->kind), false);
		out_csv_field(f, r, row->image, false);
		if (r->want_syms)
			out_csv_field(f, r, row->symbol, false);
		out_csv_field(f, r, status ? status : "", true);
	}
	return 0;
}

static void json_side(FILE *f, const char *key, uint64_t samples,
		      double percent)
{
	fprintf(f, "\"%s\":{\"samples\":%" PRIu64 ",\"percent\":%.4f},", key,
		samples, percent);
}

static int diff_json(FILE *f, const struct diff *d)
{
	static const char *const what[2] = { "baseline", "profile" };
	size_t i;
	int s;

	fputs("{\"diff\":{", f);
	for (s = 0; s < 2; s++) {
		fprintf(f, "\"%s\":{\"session\":", what[s]);
		out_json_str(f, d->side[s]->session_dir);
		fprintf(f, ",\"samples\":%" PRIu64 "},", d->side[s]->total);
	}
	fputs("\"rows\":[", f);
	for (i = 0; i < d->nr_rows; i++) {
		const struct diff_row *row = &d->rows[i];

		fputs(i ? ",\n{\"kind\":" : "\n{\"kind\":", f);
		out_json_str(f, out_kind_name(row->kind));
		fputs(",\"image\":", f);
		out_json_str(f, row->image);
		fputs(",\"symbol\":", f);
		out_json_str(f, row->symbol);
		fputc(',', f);
		for (s = 0; s < 2; s++)
			json_side(f, what[s], row->count[s], row->percent[s]);
		fprintf(f, "\"change\":%.4f,\"status\":", row->change);
		out_json_str(f, diff_status(row) ? diff_status(row) : "both");
		fputc('}', f);
	}
	fputs("]}}\n", f);
	return 0;
}

/* Both sides' stacks, merged by text: "stack BASE PROFILE". */
static int diff_folded(FILE *f, const struct diff *d)
{
	struct out_folded_line *l[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 }, i = 0, j = 0;
	int ret;

	ret = out_folded_lines(d->side[0], &l[0], &n[0]);
	if (!ret)
		ret = out_folded_lines(d->side[1], &l[1], &n[1]);
	while (!ret && (i < n[0] || j < n[1])) {
		int c = i == n[0]   ? 1
			: j == n[1] ? -1
				    : strcmp(l[0][i].text, l[1][j].text);

		fprintf(f, "%s %" PRIu64 " %" PRIu64 "\n",
			c <= 0 ? l[0][i].text : l[1][j].text,
			c <= 0 ? l[0][i].count : 0,
			c >= 0 ? l[1][j].count : 0);
		i += c <= 0;
		j += c >= 0;
	}
	out_folded_lines_free(l[0], n[0]);
	out_folded_lines_free(l[1], n[1]);
	return ret;
}

int out_diff(FILE *f, const struct diff *d)
{
	const struct opreport_opts *o = d->side[1]->opts;
	int ret = o->format == OUT_JSON	    ? diff_json(f, d)
		  : o->format == OUT_CSV    ? diff_csv(f, d)
		  : o->format == OUT_FOLDED ? diff_folded(f, d)
					    : diff_text(f, d);

	if (ret)
		return ret;
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
