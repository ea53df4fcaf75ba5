// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * --format=html: the call graph model as one self-contained page, a
 * flame graph drawn by our own script (html/flame.js, html/flame.css,
 * embedded at build time by html/embed.cmake).  The page asks for
 * nothing: its Content-Security-Policy forbids every request, so a page
 * opened from disk works without a network and leaks nothing.
 *
 * The data is JSON in a <script type="application/json"> block, compact
 * so that the page stays near the folded output's size: a string table,
 * nodes as six integers each (name, kind, image, handler, file, line),
 * stacks ("v":2) as (count, keep, n, n frames...): the first keep frames
 * of the stack before it, then n of its own, root first, each frame
 * node * 2 + 1 when it was inlined into the frame before it.  Stacks are
 * written in the order of their frames, so that each shares most of its
 * callers with the one before: a deep profile (node's stacks are 30
 * frames and more) costs a few frames a stack, and the page builds its
 * tree from the shared part without looking it up again.  ("v":1, the
 * --event page's: (count, depth, frames...).)  Names are other users' text:
 * every string is escaped for JSON and '<', '>' and '&' as \u escapes,
 * so that no name can end the block (</script>) or open a comment.
 *
 * The timeline strip's data is the timeline's cells (timeline.c):
 * "tl":{"bucket_s", "length_s", "procs":[names], "cells":[bucket,
 * proc, samples, ...]}, buckets counted from the session's start,
 * and when a process's samples are of several threads,
 * "threads":[proc, tid, n, n values as in "times", ...] (JIT samples,
 * and counted ones of a session recorded per thread; the rest have no
 * thread).
 * "times" says when each stack's samples ran, for a range dragged on
 * the strip to redraw the graph from them: per stack, in the order of
 * "stacks", n then n values, each a count of the next bucket or, when
 * negative, buckets skipped (from bucket 0).  A stack runs in most
 * buckets or in few, so this costs about a number a (stack, bucket)
 * with samples, where (bucket, count) pairs would cost two; samples
 * counted without a time are the stack's count beyond its buckets'.
 *
 * A differential page (--diff, "{ } { }") is the profile's page with
 * the baseline's graph beside it: the baseline's nodes follow the
 * profile's in "nodes" (one string table for both) and "base":{"title",
 * "total", "stacks"} holds its stacks as "stacks" does, numbering those
 * nodes.  The page matches frames by the path of (name, kind) from the
 * root, as a two-count folded line matches stacks by their text, since
 * addresses and processes change from run to run.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/hash.h>
#include <oputil/idxset.h>

#include "callgraph.h"
#include "out.h"
#include "out_html_page.h"
#include "timeline.h"

static uint64_t html_str_hash(const char *s)
{
	uint64_t h = oputil_hash_str(OPUTIL_HASH_SEED, s);

	return h ^ (h >> 31);
}

long out_html_strtab_add(struct out_html_strtab *t, const char *s)
{
	struct oputil_idxset_pos pos;
	uint32_t i;

	i = oputil_idxset_find(&t->set, html_str_hash(s), &pos, k,
			       !strcmp(t->v[k], s));
	if (i != OPUTIL_IDXSET_NONE)
		return (long)i;
	if (oputil_grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v)) ||
	    oputil_idxset_put(&t->set, &pos, (uint32_t)t->n) < 0)
		return -1;
	t->v[t->n] = s;
	return (long)t->n++;
}

void out_html_strtab_free(struct out_html_strtab *t)
{
	free(t->v);
	oputil_idxset_free(&t->set);
}

/* The index of S in T, where no name is string 0, ""; -1 out of memory. */
static long html_str(struct out_html_strtab *t, const char *s)
{
	return !s || !*s ? 0 : out_html_strtab_add(t, s);
}

/* S as a JSON string that is also safe inside a <script> element. */
void out_html_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f || c == '<' || c == '>' ||
			 c == '&')
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static int html_kind(enum row_kind k)
{
	switch (k) {
	case ROW_FILE:
		return 0;
	case ROW_KERNEL:
		return 1;
	case ROW_JIT:
		return 2;
	case ROW_ANON:
		return 3;
	}
	return 0;
}

static int tcell_by_thread(const void *pa, const void *pb)
{
	const struct timeline_tcell *a =
		*(const struct timeline_tcell *const *)pa;
	const struct timeline_tcell *b =
		*(const struct timeline_tcell *const *)pb;

	if (a->proc != b->proc)
		return a->proc < b->proc ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->bucket < b->bucket ? -1 : a->bucket > b->bucket;
}

/* Each thread's buckets: proc, tid, n, then n values as in "times". */
static int html_threads(FILE *f, const struct timeline *t)
{
	const struct timeline_tcell **v;
	size_t i, j, k;

	v = malloc((t->nr_tcells ? t->nr_tcells : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < t->nr_tcells; i++)
		v[i] = &t->tcells[i];
	qsort(v, t->nr_tcells, sizeof(*v), tcell_by_thread);
	fputs(",\"threads\":[", f);
	for (i = 0; i < t->nr_tcells; i = j) {
		uint64_t next = 0, n = 0;

		for (j = i; j < t->nr_tcells && v[j]->proc == v[i]->proc &&
			    v[j]->tid == v[i]->tid;
		     j++) {
			n += 1 + (v[j]->bucket != next);
			next = v[j]->bucket + 1;
		}
		fprintf(f, "%s%" PRIu32 ",%" PRIu32 ",%" PRIu64, i ? "," : "",
			v[i]->proc, v[i]->tid, n);
		for (k = i, next = 0; k < j; k++) {
			if (v[k]->bucket != next)
				fprintf(f, ",-%" PRIu64, v[k]->bucket - next);
			fprintf(f, ",%" PRIu64, v[k]->samples);
			next = v[k]->bucket + 1;
		}
	}
	fputc(']', f);
	free(v);
	return 0;
}

/* The strip's cells, when the report has a timeline.  0 or -ENOMEM. */
static int html_timeline(FILE *f, const struct timeline *t)
{
	size_t i;
	int ret = 0;

	if (!t)
		return 0;
	fprintf(f,
		",\n\"tl\":{\"bucket_s\":%.3f,\"length_s\":%.3f,\"procs\":[",
		(double)t->bucket_ns / 1e9, (double)t->len_ns / 1e9);
	for (i = 0; i < t->nr_procs; i++) {
		if (i)
			fputc(',', f);
		out_html_str(f, t->procs[i].name);
	}
	fputs("],\"cells\":[", f);
	for (i = 0; i < t->nr_cells; i++)
		fprintf(f, "%s%" PRIu64 ",%" PRIu32 ",%" PRIu64, i ? "," : "",
			t->cells[i].bucket, t->cells[i].proc,
			t->cells[i].samples);
	fputc(']', f);
	/* rows by thread, when they say more than by process */
	if (t->threads)
		ret = html_threads(f, t);
	fputc('}', f);
	return ret;
}

/* Each stack's buckets, as the header says, in the order ORDER. */
static void html_times(FILE *f, const struct callgraph *cg,
		       const struct cg_stack *const *order)
{
	size_t i, j;

	fputs(",\n\"times\":[", f);
	for (i = 0; i < cg->nr_stacks; i++) {
		const struct cg_stack *sk = order[i];
		uint32_t next = 0, n = 0;

		/* a count, and a skip before it when buckets are */
		for (j = 0; j < sk->nr_slices; j++) {
			n += 1 + (sk->slices[j].slice != next);
			next = sk->slices[j].slice + 1;
		}
		next = 0;
		fprintf(f, "%s%" PRIu32, i ? ",\n" : "", n);
		for (j = 0; j < sk->nr_slices; j++) {
			const struct cg_slice *sl = &sk->slices[j];

			if (sl->slice != next)
				fprintf(f, ",-%" PRIu32, sl->slice - next);
			fprintf(f, ",%" PRIu64, sl->count);
			next = sl->slice + 1;
		}
	}
	fputc(']', f);
}

/* Graph CG's nodes from OFF on, their strings at NODE_STR. */
static void html_nodes(FILE *f, const struct callgraph *cg,
		       const long *node_str, size_t off)
{
	size_t i;

	for (i = 0; i < cg->nr_nodes; i++) {
		const struct cg_node *n = &cg->nodes[i];
		const long *s = node_str + 4 * i;

		fprintf(f, "%s%ld,%d,%ld,%ld,%ld,%u", i + off ? "," : "", s[0],
			html_kind(n->kind), s[1], s[2], s[3],
			n->sym ? n->sym->line : 0);
	}
}

static int stack_frames_cmp(const void *pa, const void *pb)
{
	const struct cg_stack *a = *(const struct cg_stack *const *)pa;
	const struct cg_stack *b = *(const struct cg_stack *const *)pb;
	uint32_t i;

	for (i = 0; i < a->depth && i < b->depth; i++) {
		uint64_t x = (uint64_t)a->frames[i] * 2 + a->inlined[i];
		uint64_t y = (uint64_t)b->frames[i] * 2 + b->inlined[i];

		if (x != y)
			return x < y ? -1 : 1;
	}
	return a->depth < b->depth ? -1 : a->depth > b->depth;
}

/* Graph CG's stacks in the order of their frames; NULL out of memory. */
static const struct cg_stack **html_order(const struct callgraph *cg)
{
	const struct cg_stack **v;
	size_t i;

	v = malloc((cg->nr_stacks ? cg->nr_stacks : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < cg->nr_stacks; i++)
		v[i] = &cg->stacks[i];
	if (cg->nr_stacks)
		qsort(v, cg->nr_stacks, sizeof(*v), stack_frames_cmp);
	return v;
}

/* Graph CG's stacks in the order ORDER, its nodes numbered from OFF,
 * each as the frames it keeps of the one before and its own. */
static void html_stacks(FILE *f, const struct callgraph *cg,
			const struct cg_stack *const *order, size_t off)
{
	const struct cg_stack *prev = NULL;
	size_t i, j, keep;

	fputs("\"stacks\":[", f);
	for (i = 0; i < cg->nr_stacks; i++) {
		const struct cg_stack *sk = order[i];

		for (keep = 0;
		     prev && keep < sk->depth && keep < prev->depth &&
		     sk->frames[keep] == prev->frames[keep] &&
		     sk->inlined[keep] == prev->inlined[keep];
		     keep++)
			;
		fprintf(f, "%s%" PRIu64 ",%zu,%zu", i ? ",\n" : "", sk->count,
			keep, sk->depth - keep);
		for (j = keep; j < sk->depth; j++)
			fprintf(f, ",%zu",
				(sk->frames[j] + off) * 2 + sk->inlined[j]);
		prev = sk;
	}
	fputc(']', f);
}

/* R's page data; with BASE, a differential page: BASE's nodes follow
 * R's in "nodes", and "base" holds its title, total and stacks. */
static int html_data(FILE *f, const struct report *r, const long *node_str,
		     const struct report *base, const long *base_str,
		     const struct out_html_strtab *st)
{
	const struct callgraph *cg = r->cg;
	const struct cg_stack **order, **base_order = NULL;
	size_t i;
	int ret;

	order = html_order(cg);
	if (base)
		base_order = html_order(base->cg);
	if (!order || (base && !base_order)) {
		ret = -ENOMEM;
		goto out;
	}
	fputs("{\"v\":2,\"title\":", f);
	out_html_str(f, r->session_dir ? r->session_dir : "");
	fputs(",\"event\":", f);
	out_html_str(f, r->info && r->info->event ? r->info->event : "");
	fprintf(f, ",\"total\":%" PRIu64 ",\"strings\":[", cg->total);
	for (i = 0; i < st->n; i++) {
		if (i)
			fputc(',', f);
		out_html_str(f, st->v[i]);
	}
	fputs("],\n\"nodes\":[", f);
	html_nodes(f, cg, node_str, 0);
	if (base)
		html_nodes(f, base->cg, base_str, cg->nr_nodes);
	fputs("],\n", f);
	html_stacks(f, cg, order, 0);
	html_times(f, cg, order);
	ret = html_timeline(f, r->tl);
	if (base) {
		fputs(",\n\"base\":{\"title\":", f);
		out_html_str(f, base->session_dir ? base->session_dir : "");
		fprintf(f, ",\"total\":%" PRIu64 ",\n", base->cg->total);
		html_stacks(f, base->cg, base_order, cg->nr_nodes);
		fputc('}', f);
	}
	fputc('}', f);
out:
	free(order);
	free(base_order);
	return ret;
}
void out_html_page_start(FILE *f)
{
	fputs(out_html_head, f);
	fputs("<style>\n", f);
	fputs(out_html_css, f);
	fputs("</style>\n</head>\n<body>\n", f);
	fputs(out_html_body, f);
	fputs("<script type=\"application/json\" id=\"opjit-data\">", f);
}

int out_html_page_end(FILE *f)
{
	fputs("</script>\n<script>\n", f);
	fputs(out_html_js, f);
	fputs("</script>\n</body>\n</html>\n", f);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

/* Graph CG's nodes' strings into T: NODE_STR gets four indexes a node
 * (name, image, handler, file).  0 or -ENOMEM. */
static int html_node_strs(struct out_html_strtab *t, const struct report *r,
			  long **node_str)
{
	const struct callgraph *cg = r->cg;
	size_t i;
	long *v;

	v = *node_str =
		calloc(4 * (cg->nr_nodes ? cg->nr_nodes : 1), sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < cg->nr_nodes; i++) {
		const struct cg_node *n = &cg->nodes[i];
		long *s = v + 4 * i;

		s[0] = html_str(t, n->sym && n->sym->name ? n->sym->name
							  : "(no symbols)");
		s[1] = html_str(t, n->image ? report_image_name(r, n->image)
					    : "(unknown)");
		s[2] = html_str(t, n->handler);
		s[3] = html_str(t, n->sym ? n->sym->file : NULL);
		if (s[0] < 0 || s[1] < 0 || s[2] < 0 || s[3] < 0)
			return -ENOMEM;
	}
	return 0;
}

int out_html_diff(FILE *f, const struct report *base, const struct report *r)
{
	struct out_html_strtab st = { 0 };
	long *node_str = NULL, *base_str = NULL;
	int ret = -ENOMEM;

	/* index 0: "" and unknown, never looked up */
	if (oputil_grow(&st.v, &st.cap, 1, sizeof(*st.v)))
		goto out;
	st.v[st.n++] = "";
	ret = html_node_strs(&st, r, &node_str);
	if (!ret && base)
		ret = html_node_strs(&st, base, &base_str);
	if (ret)
		goto out;
	out_html_page_start(f);
	ret = html_data(f, r, node_str, base, base_str, &st);
	ret = out_html_page_end(f) ?: ret;
out:
	free(node_str);
	free(base_str);
	out_html_strtab_free(&st);
	return ret;
}

int out_html(FILE *f, const struct report *r)
{
	return out_html_diff(f, NULL, r);
}
