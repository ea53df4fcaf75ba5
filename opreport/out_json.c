// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * JSON, schema "opjit-report" version 1, documented in opreport/JSON.md.
 * Every key is always present; unknown values are null.  Addresses are
 * hex strings so that 64-bit values survive JavaScript.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <oputil/escape.h>

#include "callgraph.h"
#include "out.h"

#define JSON_VERSION 1

/* S escaped (oputil_escape_json) in pieces that end before a byte that
 * could continue a UTF-8 sequence, so that no sequence is cut. */
void out_json_str(FILE *f, const char *s)
{
	char piece[65], out[sizeof(piece) * 6];
	size_t n, len;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*s) {
		n = strnlen(s, sizeof(piece) - 1);
		while (n > sizeof(piece) - 5 && s[n] &&
		       ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
		memcpy(piece, s, n);
		piece[n] = '\0';
		len = oputil_escape_json(out, sizeof(out), piece);
		fwrite(out, 1, len, f);
		s += n;
	}
	fputc('"', f);
}

static void jkey(FILE *f, const char *key)
{
	out_json_str(f, key);
	fputc(':', f);
}

static void jnum(FILE *f, const char *key, uint64_t v)
{
	jkey(f, key);
	fprintf(f, "%" PRIu64 ",", v);
}

static void jpct(FILE *f, const char *key, double v)
{
	jkey(f, key);
	fprintf(f, "%.4f,", v);
}

static void jskv(FILE *f, const char *key, const char *v)
{
	jkey(f, key);
	out_json_str(f, v);
	fputc(',', f);
}

static void jhex(FILE *f, const char *key, bool known, uint64_t v)
{
	jkey(f, key);
	if (known)
		fprintf(f, "\"0x%" PRIx64 "\",", v);
	else
		fputs("null,", f);
}

static void jsep(FILE *f, uint32_t tgid, int32_t cpu)
{
	jkey(f, "tgid");
	if (tgid)
		fprintf(f, "%u,", tgid);
	else
		fputs("null,", f);
	jkey(f, "cpu");
	if (cpu >= 0)
		fprintf(f, "%d,", cpu);
	else
		fputs("null,", f);
}

/* the thread of a row under --separate=thread; null for a native row
 * (its histogram keeps none) or without it */
static void jtid(FILE *f, uint32_t tid, const char *thread)
{
	jkey(f, "tid");
	if (tid)
		fprintf(f, "%u,", tid);
	else
		fputs("null,", f);
	/* its name, in a session recorded per thread */
	jskv(f, "thread", thread);
}

static void jline(FILE *f, const struct report *r, const char *file,
		  uint32_t line)
{
	jskv(f, "file", line ? file : NULL);
	jkey(f, "line");
	if (line && file)
		fprintf(f, "%u", line);
	else
		fputs("null", f);
}

static void session(FILE *f, const struct report *r)
{
	const struct ops_session_info *in = r->info;

	jkey(f, "session");
	fputc('{', f);
	jskv(f, "dir", r->session_dir);
	jskv(f, "event", in->event);
	jkey(f, "period");
	fprintf(f, in->period ? "%" PRIu64 "," : "null,", in->period);
	jkey(f, "frequency");
	fprintf(f, in->frequency ? "%" PRIu64 "," : "null,", in->frequency);
	jkey(f, "start_unix_ns");
	fprintf(f, "%" PRId64 ",", in->start_unix_ns);
	jskv(f, "command", in->command_line);
	jskv(f, "host", in->host);
	jskv(f, "kernel_release", in->kernel_release);
	jkey(f, "stopped_cleanly");
	fputs(in->stop_ns ? "true" : "false", f);
	fputs("},", f);
}

static void summary(FILE *f, const struct report *r)
{
	size_t i, k;

	jkey(f, "summary");
	fputc('[', f);
	for (i = 0; i < r->nr_apps; i++) {
		const struct report_app *app = &r->apps[i];

		fputs(i ? ",\n{" : "\n{", f);
		jskv(f, "app", app->app);
		jnum(f, "samples", app->count);
		jpct(f, "percent", report_percent(r, app->count, 0));
		jsep(f, app->tgid, app->cpu);
		jkey(f, "images");
		fputc('[', f);
		for (k = 0; k < app->nr_images; k++) {
			const struct report_image *img = &app->images[k];

			fputs(k ? ",{" : "{", f);
			jskv(f, "image", img->first->image);
			jskv(f, "kind", out_kind_name(img->first->kind));
			jskv(f, "handler", img->first->handler);
			jtid(f, img->first->tid, img->first->thread);
			jnum(f, "samples", img->count);
			jpct(f, "percent",
			     report_percent(r, img->count, app->count));
			jkey(f, "global_percent");
			fprintf(f, "%.4f}", report_percent(r, img->count, 0));
		}
		fputs("]}", f);
	}
	fputs("\n],", f);
}

static void details(FILE *f, const struct report *r,
		    const struct report_row *row)
{
	size_t k;

	jkey(f, "details");
	if (!r->opts->details) {
		fputs("null", f);
		return;
	}
	fputc('[', f);
	for (k = 0; k < row->nr_details; k++) {
		const struct report_detail *d = &row->details[k];

		fputs(k ? ",{" : "{", f);
		jhex(f, "vma", true, d->vma);
		jnum(f, "samples", d->count);
		jpct(f, "percent", report_percent(r, d->count, row->count));
		jline(f, r, d->file, d->line);
		fputc('}', f);
	}
	fputc(']', f);
}

static void symbols(FILE *f, const struct report *r)
{
	size_t i;

	jkey(f, "symbols");
	fputc('[', f);
	for (i = 0; i < r->nr_rows; i++) {
		const struct report_row *row = &r->rows[i];
		const struct report_sym *s = row->sym;

		fputs(i ? ",\n{" : "\n{", f);
		jnum(f, "samples", row->count);
		jpct(f, "percent", report_percent(r, row->count, 0));
		jskv(f, "image", row->image);
		jskv(f, "kind", out_kind_name(row->kind));
		jskv(f, "handler", row->handler);
		jskv(f, "app", row->app);
		jsep(f, row->tgid, row->cpu);
		jtid(f, row->tid, row->thread);
		jskv(f, "symbol", s ? s->name : "(no symbols)");
		jhex(f, "vma", s && s->has_vma, s ? s->vma : 0);
		jline(f, r, s ? s->file : NULL, s ? s->line : 0);
		fputc(',', f);
		details(f, r, row);
		fputc('}', f);
	}
	fputs("\n],", f);
}

/* The call graph model as it is: nodes, and unique stacks of node ids
 * root first; null when the session has no call chains. */
static void callgraph(FILE *f, const struct report *r)
{
	const struct callgraph *cg = r->cg;
	size_t i, j;

	jkey(f, "callgraph");
	if (!cg) {
		fputs("null,", f);
		return;
	}
	fputc('{', f);
	jnum(f, "total_samples", cg->total);
	jnum(f, "truncated_samples", cg->truncated);
	jkey(f, "nodes");
	fputc('[', f);
	for (i = 0; i < cg->nr_nodes; i++) {
		const struct cg_node *n = &cg->nodes[i];
		const struct report_sym *s = n->sym;

		fputs(i ? ",\n{" : "\n{", f);
		jnum(f, "id", i);
		jskv(f, "symbol", s && s->name ? s->name : "(no symbols)");
		jskv(f, "image", n->image ? n->image : "(unknown)");
		jskv(f, "kind", out_kind_name(n->kind));
		jskv(f, "handler", n->handler);
		jskv(f, "app", n->app);
		jkey(f, "tgid");
		fprintf(f, n->tgid ? "%u," : "null,", n->tgid);
		jhex(f, "vma", s && s->has_vma, s ? s->vma : 0);
		jnum(f, "self", n->self);
		jkey(f, "total");
		fprintf(f, "%" PRIu64 "}", n->total);
	}
	fputs("\n],", f);
	jkey(f, "stacks");
	fputc('[', f);
	for (i = 0; i < cg->nr_stacks; i++) {
		const struct cg_stack *st = &cg->stacks[i];

		fputs(i ? ",\n{" : "\n{", f);
		jkey(f, "frames");
		fputc('[', f);
		for (j = 0; j < st->depth; j++)
			fprintf(f, j ? ",%u" : "%u", st->frames[j]);
		fputs("],", f);
		if (memchr(st->inlined, 1, st->depth)) {
			bool first = true;

			jkey(f, "inlined");
			fputc('[', f);
			for (j = 0; j < st->depth; j++)
				if (st->inlined[j]) {
					fprintf(f, first ? "%zu" : ",%zu", j);
					first = false;
				}
			fputs("],", f);
		}
		jkey(f, "samples");
		fprintf(f, "%" PRIu64 "}", st->count);
	}
	fputs("\n]},", f);
}

/* "naming": one object a process whose anonymous samples are shown. */
static void naming(FILE *f, const struct report *r)
{
	size_t i;
	uint32_t k;

	jkey(f, "naming");
	fputc('[', f);
	for (i = 0; i < r->nr_naming; i++) {
		const struct report_naming *nm = &r->naming[i];
		bool first = true;

		fputs(i ? ",\n{" : "\n{", f);
		jnum(f, "tgid", nm->tgid);
		jskv(f, "comm", nm->comm);
		jskv(f, "status", out_naming_status(nm->status));
		jskv(f, "handler", nm->handler);
		jskv(f, "why", nm->why);
		jskv(f, "would_claim", nm->would);
		jnum(f, "samples", nm->samples);
		jnum(f, "named", nm->named);
		jkey(f, "unnamed");
		fputc('{', f);
		for (k = 0; k < REPORT_NR_REASONS; k++) {
			if (!nm->unnamed[k])
				continue;
			if (!first)
				fputc(',', f);
			jkey(f, anon_reason_text(k));
			fprintf(f, "%" PRIu64, nm->unnamed[k]);
			first = false;
		}
		fputs("}}", f);
	}
	fputs("],", f);
}

int out_json(FILE *f, const struct report *r)
{
	bool syms = r->opts->symbols || r->opts->details;

	fputc('{', f);
	jskv(f, "schema", "opjit-report");
	jnum(f, "version", JSON_VERSION);
	session(f, r);
	jskv(f, "mode", syms ? "symbols" : "summary");
	jnum(f, "total_samples", r->total);
	jnum(f, "session_samples", r->session_total);
	jnum(f, "percent_base",
	     r->opts->global_percent ? r->session_total : r->total);
	if (syms)
		symbols(f, r);
	else
		summary(f, r);
	callgraph(f, r);
	naming(f, r);
	jkey(f, "anon_hidden");
	fputc('{', f);
	jnum(f, "samples", r->anon_hidden);
	jkey(f, "percent");
	fprintf(f, "%.4f,", report_percent(r, r->anon_hidden, 0));
	jkey(f, "option");
	out_json_str(f, r->anon_hidden ? OUT_ANON_OPTION : NULL);
	fputs("}}\n", f);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
