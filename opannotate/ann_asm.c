// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * --assembly: each kept symbol, hottest first, as its instructions with
 * the samples of each and their share of the symbol's, the source line
 * above each run of instructions from one line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ann_code.h"
#include "ann_srcfile.h"
#include "annotate.h"
#include "diag.h"
#include "out.h"

/* The most code one symbol is disassembled over: a size beyond it is a
 * lie (or damage), and the annotation keeps to its start. */
#define ANN_SYMBOL_MAX (1u << 20)

/* One line of a symbol's annotation: an instruction, or an address with
 * samples when the code's bytes are unknown. */
struct ann_row {
	uint64_t vma;
	unsigned len;
	uint64_t count;
	const char *text; /* NULL: no disassembly */
	const char *file;
	uint32_t line;
};

bool ann_row_wanted(const struct report *r, const struct report_row *row)
{
	if (!row->sym || !row->nr_details)
		return false;
	if (!report_row_kept(r, row))
		return false;
	return !(r->opts->threshold > 0 &&
		 report_percent(r, row->count, 0) < r->opts->threshold);
}

static double ann_share(uint64_t n, uint64_t of)
{
	return of ? 100.0 * (double)n / (double)of : 0.0;
}

/* Print S with control characters but tab shown as '?': source and
 * names come from outside. */
static void ann_put_clean(FILE *f, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		fputc((unsigned char)s[i] < 0x20 && s[i] != '\t' ? '?' : s[i],
		      f);
}

/* The code range of ROW: its symbol's start and size, else the span
 * of its samples. */
static void ann_range(const struct report_row *row, uint64_t *start,
		      uint64_t *len)
{
	const struct report_sym *sym = row->sym;
	uint64_t lo = row->details[0].vma;
	uint64_t hi = row->details[row->nr_details - 1].vma;

	*start = sym->has_vma && sym->vma <= lo ? sym->vma : lo;
	*len = sym->size ? sym->size : hi - *start + 16;
	if (*len > ANN_SYMBOL_MAX) {
		diag("warning: %s: size %" PRIu64
		     " is past %u bytes; annotating its first %u",
		     sym->name, *len, ANN_SYMBOL_MAX, ANN_SYMBOL_MAX);
		*len = ANN_SYMBOL_MAX;
	}
}

/* The rows of one symbol: instructions with the samples that fall in
 * them, then (or alone, with no code) the sampled addresses that fall
 * in no instruction. */
static int ann_rows_build(const struct report_row *row,
			  const struct ann_code *code, struct ann_row **out,
			  size_t *nr)
{
	size_t n = 0, i, d = 0, cap = code->nr_insns + row->nr_details;
	struct ann_row *rows = calloc(cap ? cap : 1, sizeof(*rows));

	if (!rows)
		return -ENOMEM;
	for (i = 0; i < code->nr_insns; i++) {
		const struct ann_insn *in = &code->insns[i];
		struct ann_row *ar = &rows[n++];

		ar->vma = in->vma;
		ar->len = in->len;
		ar->text = in->text;
		if (code->files) {
			ar->file = code->files[i];
			ar->line = code->lines[i];
		}
		while (d < row->nr_details && row->details[d].vma < in->vma) {
			/* before this instruction and after the last: a
			 * sample inside no instruction */
			const struct report_detail *dt = &row->details[d++];

			rows[n] = rows[n - 1];
			rows[n - 1] = (struct ann_row){ dt->vma,   0,
							dt->count, NULL,
							dt->file,  dt->line };
			ar = &rows[n++];
		}
		while (d < row->nr_details &&
		       row->details[d].vma - in->vma < in->len) {
			ar->count += row->details[d].count;
			if (!ar->file) {
				ar->file = row->details[d].file;
				ar->line = row->details[d].line;
			}
			d++;
		}
	}
	for (; d < row->nr_details; d++) {
		const struct report_detail *dt = &row->details[d];

		rows[n++] = (struct ann_row){ dt->vma, 0,	 dt->count,
					      NULL,    dt->file, dt->line };
	}
	*out = rows;
	*nr = n;
	return 0;
}

/* Whether row I of ROWS is within CONTEXT rows of one with samples. */
static bool ann_near_hot(const struct ann_row *rows, size_t n, size_t i,
			 int context)
{
	size_t lo = i > (size_t)context ? i - (size_t)context : 0;
	size_t hi = i + (size_t)context < n ? i + (size_t)context : n - 1;

	for (; lo <= hi; lo++)
		if (rows[lo].count)
			return true;
	return false;
}

static void ann_asm_text(FILE *f, const struct annotate_opts *o,
			 const struct report *r, const struct report_row *row,
			 const struct ann_code *code,
			 const struct ann_row *rows, size_t n,
			 struct ann_srcfiles *src)
{
	const char *last_file = NULL;
	uint32_t last_line = 0;
	bool gap = false;
	size_t i;

	fprintf(f, "\n%s  [%s]\n", out_safe(r->pool, row->sym->name),
		out_safe(r->pool, row->image));
	fprintf(f, "  %" PRIu64 " samples, %.2f%% of the profile", row->count,
		report_percent(r, row->count, 0));
	if (code->load_ns)
		fprintf(f, ", code loaded at %" PRIu64 " ns", code->load_ns);
	fputc('\n', f);
	if (code->why)
		fprintf(f, "  (no disassembly: %s)\n",
			out_safe(r->pool, code->why));
	for (i = 0; i < n; i++) {
		const struct ann_row *ar = &rows[i];

		if (o->context >= 0 && !ann_near_hot(rows, n, i, o->context)) {
			gap = true;
			continue;
		}
		if (gap)
			fprintf(f, "  ...\n");
		gap = false;
		if (ar->file &&
		    (ar->file != last_file || ar->line != last_line)) {
			const char *s;
			size_t len;

			s = ann_srcfile_line(src, ar->file, ar->line, &len,
					     NULL);
			fprintf(f, "%28s%s:%u", "",
				out_safe(r->pool, ar->file), ar->line);
			if (s) {
				fputs(": ", f);
				ann_put_clean(f, s, len);
			}
			fputc('\n', f);
			last_file = ar->file;
			last_line = ar->line;
		}
		if (ar->count)
			fprintf(f, "%10" PRIu64 " %7.2f%%  ", ar->count,
				ann_share(ar->count, row->count));
		else
			fprintf(f, "%21s", "");
		fprintf(f, "%12" PRIx64 ":  %s\n", ar->vma,
			ar->text ? ar->text : "(no code)");
	}
}

static void ann_asm_json(FILE *f, const struct report *r,
			 const struct report_row *row,
			 const struct ann_code *code,
			 const struct ann_row *rows, size_t n, bool first)
{
	size_t i;

	fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
	out_json_str(f, row->sym->name);
	fprintf(f, ", \"image\": ");
	out_json_str(f, row->image);
	fprintf(f,
		", \"kind\": \"%s\", \"samples\": %" PRIu64
		", \"percent\": %.4f, \"disassembled\": %s",
		out_kind_name(row->kind), row->count,
		report_percent(r, row->count, 0),
		code->nr_insns ? "true" : "false");
	if (code->load_ns)
		fprintf(f, ", \"load_ns\": %" PRIu64, code->load_ns);
	if (code->why) {
		fprintf(f, ", \"why\": ");
		out_json_str(f, code->why);
	}
	fprintf(f, ",\n     \"instructions\": [");
	for (i = 0; i < n; i++) {
		fprintf(f,
			"%s\n      {\"vma\": %" PRIu64
			", \"samples\": %" PRIu64
			", \"percent\": %.4f, \"text\": ",
			i ? "," : "", rows[i].vma, rows[i].count,
			ann_share(rows[i].count, row->count));
		out_json_str(f, rows[i].text);
		fprintf(f, ", \"file\": ");
		out_json_str(f, rows[i].file);
		fprintf(f, ", \"line\": %u}", rows[i].line);
	}
	fprintf(f, "]}");
}

int ann_assembly(FILE *f, const struct annotate_opts *o,
		 const struct report *r)
{
	struct ann_srcfiles *src = ann_srcfiles_new();
	bool first = true;
	size_t i;
	int ret = 0;

	if (!src)
		return -ENOMEM;
	if (o->json)
		fprintf(f, "  \"symbols\": [");
	for (i = 0; i < r->nr_rows && !ret; i++) {
		const struct report_row *row = &r->rows[i];
		struct ann_code code;
		struct ann_row *rows = NULL;
		uint64_t start, len;
		size_t n;

		if (!ann_row_wanted(r, row))
			continue;
		ann_range(row, &start, &len);
		ret = ann_code_get(&code, r, row, start, len);
		if (!ret)
			ret = ann_rows_build(row, &code, &rows, &n);
		if (!ret && o->json)
			ann_asm_json(f, r, row, &code, rows, n, first);
		else if (!ret)
			ann_asm_text(f, o, r, row, &code, rows, n, src);
		first = false;
		free(rows);
		ann_code_release(&code);
	}
	if (o->json)
		fprintf(f, "\n  ]");
	ann_srcfiles_free(src);
	if (!ret && ferror(f))
		ret = -EIO;
	return ret;
}
