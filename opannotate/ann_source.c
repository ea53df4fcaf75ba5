// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * --source: the samples of the kept symbols by source line, each file
 * hottest first, its text beside the counts when it can be read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "ann_srcfile.h"
#include "annotate.h"
#include "out.h"

struct ann_line {
	const char *file; /* interned: equal names, equal pointers */
	uint32_t line;
	uint64_t count;
};

struct ann_file {
	const char *file;
	uint64_t count;
	struct ann_line *lines; /* into the sorted array, by line */
	size_t nr;
};

static int ann_line_cmp(const void *pa, const void *pb)
{
	const struct ann_line *a = pa, *b = pb;
	int c = strcmp(a->file, b->file);

	return c ?: (a->line > b->line) - (a->line < b->line);
}

static int ann_file_cmp(const void *pa, const void *pb)
{
	const struct ann_file *a = pa, *b = pb;

	return (a->count < b->count) - (a->count > b->count)
		       ?: strcmp(a->file, b->file);
}

/* The samples with a known line, folded by (file, line), and the
 * files they fall in. */
static int ann_lines_collect(const struct report *r, struct ann_line **out,
			     size_t *nr, struct ann_file **files,
			     size_t *nr_files, uint64_t *unknown)
{
	struct ann_line *lines = NULL;
	struct ann_file *fl = NULL;
	size_t n = 0, cap = 0, i, j, k, nf = 0;

	*unknown = 0;
	for (i = 0; i < r->nr_rows; i++) {
		const struct report_row *row = &r->rows[i];

		if (!ann_row_wanted(r, row))
			continue;
		for (j = 0; j < row->nr_details; j++) {
			const struct report_detail *d = &row->details[j];

			if (!d->file || !d->line) {
				*unknown += d->count;
				continue;
			}
			if (oputil_grow(&lines, &cap, n + 1, sizeof(*lines))) {
				free(lines);
				return -ENOMEM;
			}
			lines[n++] = (struct ann_line){ d->file, d->line,
							d->count };
		}
	}
	if (n)
		qsort(lines, n, sizeof(*lines), ann_line_cmp);
	for (i = 0, k = 0; i < n; i = j) {
		lines[k] = lines[i];
		for (j = i + 1; j < n && !ann_line_cmp(&lines[i], &lines[j]);
		     j++)
			report_count_add(&lines[k].count, lines[j].count);
		k++;
	}
	n = k;
	fl = calloc(n ? n : 1, sizeof(*fl));
	if (!fl) {
		free(lines);
		return -ENOMEM;
	}
	for (i = 0; i < n; i = j) {
		struct ann_file *f = &fl[nf++];

		f->file = lines[i].file;
		f->lines = &lines[i];
		for (j = i; j < n && !strcmp(lines[j].file, f->file); j++)
			report_count_add(&f->count, lines[j].count);
		f->nr = j - i;
	}
	qsort(fl, nf, sizeof(*fl), ann_file_cmp);
	*out = lines;
	*nr = n;
	*files = fl;
	*nr_files = nf;
	return 0;
}

/* Whether LINE is within CONTEXT lines of one of F's with samples. */
static bool ann_line_near(const struct ann_file *f, uint32_t line, int context)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		if ((uint64_t)line + (unsigned)context >= f->lines[i].line &&
		    (uint64_t)f->lines[i].line + (unsigned)context >= line)
			return true;
	return false;
}

static void ann_source_text(FILE *f, const struct annotate_opts *o,
			    const struct report *r, const struct ann_file *af,
			    struct ann_srcfiles *src)
{
	uint32_t nr_lines, line, last, k = 0;
	bool gap = false;
	const char *s;
	size_t len;

	fprintf(f, "\n%s\n  %" PRIu64 " samples, %.2f%% of the profile\n",
		out_safe(r->pool, af->file), af->count,
		report_percent(r, af->count, 0));
	ann_srcfile_line(src, af->file, 1, &len, &nr_lines);
	last = af->lines[af->nr - 1].line;
	if (nr_lines > last)
		last = nr_lines;
	for (line = 1; line <= last; line++) {
		uint64_t count = 0;

		while (k < af->nr && af->lines[k].line < line)
			k++;
		if (k < af->nr && af->lines[k].line == line)
			count = af->lines[k].count;
		/* a file that cannot be read shows its sampled lines */
		if ((!nr_lines && !count) ||
		    (o->context >= 0 &&
		     !ann_line_near(af, line, o->context))) {
			gap = nr_lines != 0;
			continue;
		}
		if (gap)
			fprintf(f, "  ...\n");
		gap = false;
		if (count)
			fprintf(f, "%10" PRIu64 " %7.2f%%  ", count,
				report_percent(r, count, 0));
		else
			fprintf(f, "%21s", "");
		fprintf(f, "%6u", line);
		s = ann_srcfile_line(src, af->file, line, &len, NULL);
		if (s) {
			fputs(":  ", f);
			for (size_t i = 0; i < len; i++)
				fputc((unsigned char)s[i] < 0x20 &&
						      s[i] != '\t'
					      ? '?'
					      : s[i],
				      f);
		}
		fputc('\n', f);
	}
}

static void ann_source_json(FILE *f, const struct report *r,
			    const struct ann_file *af, bool first)
{
	size_t i;

	fprintf(f, "%s\n    {\"file\": ", first ? "" : ",");
	out_json_str(f, af->file);
	fprintf(f,
		", \"samples\": %" PRIu64 ", \"percent\": %.4f, \"lines\": [",
		af->count, report_percent(r, af->count, 0));
	for (i = 0; i < af->nr; i++)
		fprintf(f,
			"%s{\"line\": %u, \"samples\": %" PRIu64
			", \"percent\": %.4f}",
			i ? ", " : "", af->lines[i].line, af->lines[i].count,
			report_percent(r, af->lines[i].count, 0));
	fprintf(f, "]}");
}

int ann_source(FILE *f, const struct annotate_opts *o, const struct report *r)
{
	struct ann_srcfiles *src = ann_srcfiles_new();
	struct ann_line *lines = NULL;
	struct ann_file *files = NULL;
	size_t n, nf, i;
	uint64_t unknown;
	int ret;

	if (!src)
		return -ENOMEM;
	ret = ann_lines_collect(r, &lines, &n, &files, &nf, &unknown);
	if (ret)
		goto out;
	if (o->json) {
		fprintf(f, "  \"sources\": [");
		for (i = 0; i < nf; i++)
			ann_source_json(f, r, &files[i], !i);
		fprintf(f, "\n  ],\n  \"samples_without_line\": %" PRIu64,
			unknown);
	} else {
		for (i = 0; i < nf; i++)
			ann_source_text(f, o, r, &files[i], src);
		if (unknown)
			fprintf(f,
				"\n%" PRIu64
				" samples of the annotated symbols have no source line (no debug information)\n",
				unknown);
	}
	if (ferror(f))
		ret = -EIO;
out:
	free(lines);
	free(files);
	ann_srcfiles_free(src);
	return ret;
}
