// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Three text views of the call graph model: OProfile's -c layout
 * (callers indented above each symbol, the symbol with its own samples,
 * then "[self]" and its callees indented below), -l --children (the
 * symbol list with the samples under each symbol beside its own, as perf
 * report --children) and the folded stacks that flamegraph.pl and
 * speedscope read.
 *
 * Folded frame names say where the code came from, in the suffixes
 * flamegraph.pl --color=java colours by: "NAME [IMAGE]" for native code
 * of a file, "NAME_[k]" for the kernel ("NAME [MODULE]_[k]" for a
 * module), "NAME [HANDLER]_[j]" for JIT code a handler named and
 * "[anon]_[j]" for anonymous code nobody named.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <opjit/samples.h>

#include "callgraph.h"
#include "out.h"
#include "strpool.h"
#include "table.h"

#define W_SAMPLES 9
#define W_PERCENT 9
#define W_IMAGE 25
#define W_APP 25

static const struct table_col cg_cols[] = {
	{ W_SAMPLES, false }, { W_PERCENT, false }, { W_IMAGE, true },
	{ W_APP, true },      { 0, false },
};
static const struct table_col cols_no_app[] = {
	{ W_SAMPLES, false },
	{ W_PERCENT, false },
	{ W_IMAGE, true },
	{ 0, false },
};
static const char *const heading[] = { "samples", "%", "image name",
				       "app name", "symbol name" };
static const char *const heading_no_app[] = { "samples", "%", "image name",
					      "symbol name" };

static double pct(uint64_t count, uint64_t denom)
{
	return denom ? 100.0 * (double)count / (double)denom : 0.0;
}

static const char *node_name(const struct cg_node *n)
{
	return n->sym && n->sym->name ? n->sym->name : "(no symbols)";
}

/* Names as printed: other users chose them, so through the report's one
 * escape (out_safe), as every text view does. */
static const char *shown_name(const struct report *r, const struct cg_node *n)
{
	return out_safe(r->pool, node_name(n));
}

static const char *shown_image(const struct report *r, const char *image,
			       const char *fallback)
{
	return out_safe(r->pool,
			report_image_name(r, image ? image : fallback));
}

static const char *node_image(const struct report *r, const struct cg_node *n)
{
	const char *name = shown_image(r, n->image, "(unknown)");
	const char *s;

	if (!n->tgid || n->kind == ROW_JIT || n->kind == ROW_ANON)
		return name;
	s = strpool_printf(r->pool, "%s (tgid:%u)", name, n->tgid);
	return s ? s : name;
}

static bool app_column(const struct report *r, const struct callgraph *cg)
{
	size_t i;

	if (r->opts->merge & MERGE_LIB)
		return false;
	for (i = 0; i < cg->nr_nodes; i++) {
		const struct cg_node *n = &cg->nodes[i];

		if (n->app && n->app != n->image &&
		    (n->kind == ROW_FILE || n->kind == ROW_KERNEL))
			return true;
	}
	return false;
}

/* One row: the app column (third of the four before the name) only
 * when some row needs it. */
static int line(struct table *t, const struct report *r, bool apps,
		const char *indent, uint64_t count, double percent,
		const struct cg_node *n, const char *suffix)
{
	const char *cell[5];
	unsigned c = 0;

	cell[c++] = strpool_printf(r->pool, "%" PRIu64, count);
	cell[c++] = strpool_printf(r->pool, "%.4f", percent);
	cell[c++] = node_image(r, n);
	if (apps)
		cell[c++] = n->app ? shown_image(r, n->app, "") : "";
	cell[c++] = *suffix ? strpool_printf(r->pool, "%s%s", shown_name(r, n),
					     suffix)
			    : shown_name(r, n);
	while (c--)
		if (!cell[c])
			return -ENOMEM;
	return table_row(t, indent, cell);
}

static const struct callgraph *arc_sort_cg; /* qsort has no argument */

/* Heaviest first, then by name, so that the output is stable. */
static int arc_count_cmp(const void *pa, const void *pb)
{
	const struct cg_arc *a = pa, *b = pb;
	const struct cg_node *an, *bn;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	an = &arc_sort_cg->nodes[a->from == b->from ? a->to : a->from];
	bn = &arc_sort_cg->nodes[a->from == b->from ? b->to : b->from];
	return strcmp(node_name(an), node_name(bn));
}

static int sorted_arcs(const struct callgraph *cg, const struct cg_arc *v,
		       size_t n, struct cg_arc **out)
{
	*out = malloc((n ? n : 1) * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	memcpy(*out, v, n * sizeof(**out));
	arc_sort_cg = cg;
	qsort(*out, n, sizeof(**out), arc_count_cmp);
	return 0;
}

/* As OProfile: a caller's share is of all the caller arcs, a callee's
 * (and [self]'s) of [self] and all the callee arcs; under -% both are of
 * the whole profile. */
static int entry(struct table *t, const struct report *r,
		 const struct callgraph *cg, bool apps, uint32_t id)
{
	const struct cg_node *n = &cg->nodes[id];
	bool global = r->opts->global_percent;
	const struct cg_arc *v;
	struct cg_arc *s;
	uint64_t denom;
	size_t nv, i;
	int err = 0;

	v = callgraph_callers(cg, id, &nv);
	if (sorted_arcs(cg, v, nv, &s))
		return -ENOMEM;
	for (i = denom = 0; i < nv; i++)
		denom += s[i].count;
	if (global)
		denom = cg->total;
	for (i = 0; i < nv && !err; i++)
		err = line(t, r, apps, "  ", s[i].count,
			   pct(s[i].count, denom), &cg->nodes[s[i].from], "");
	free(s);
	if (!err)
		err = line(t, r, apps, "", n->self, pct(n->self, cg->total), n,
			   "");
	if (err)
		return err;
	v = callgraph_callees(cg, id, &nv);
	if (sorted_arcs(cg, v, nv, &s))
		return -ENOMEM;
	for (i = 0, denom = n->self; i < nv; i++)
		denom += s[i].count;
	if (global)
		denom = cg->total;
	if (n->self)
		err = line(t, r, apps, "  ", n->self, pct(n->self, denom), n,
			   " [self]");
	for (i = 0; i < nv && !err; i++)
		err = line(t, r, apps, "  ", s[i].count,
			   pct(s[i].count, denom), &cg->nodes[s[i].to], "");
	free(s);
	return err;
}

/* The graph's functions as report rows, counted by their own samples or,
 * BY_TOTAL, by the samples on whose stacks they are; those the filters
 * and the threshold keep, in *NR.  NULL when out of memory. */
static struct report_row *cg_rows(const struct report *r, bool by_total,
				  size_t *nr)
{
	const struct callgraph *cg = r->cg;
	struct report_row *rows;
	size_t i;

	*nr = 0;
	rows = calloc(cg->nr_nodes ? cg->nr_nodes : 1, sizeof(*rows));
	if (!rows)
		return NULL;
	for (i = 0; i < cg->nr_nodes; i++) {
		const struct cg_node *n = &cg->nodes[i];
		struct report_row row = {
			.kind = n->kind,
			.image = n->image,
			.app = n->app,
			.handler = n->handler,
			.tgid = n->tgid,
			.cpu = -1,
			.sym = n->sym,
			.count = by_total ? n->total : n->self,
			.node = (uint32_t)i,
		};

		/* a caller with no samples of its own is an entry too, so
		 * the threshold looks at the samples under it */
		if (r->opts->threshold > 0 &&
		    pct(n->total, cg->total) < r->opts->threshold)
			continue;
		if (report_row_kept(r, &row))
			rows[(*nr)++] = row;
	}
	return rows;
}

#define RULE                                                            \
	"-------------------------------------------------------------" \
	"------------------"

int out_callgraph(FILE *f, const struct report *r)
{
	const struct callgraph *cg = r->cg;
	struct report_row *rows;
	struct table *t;
	size_t i, nr = 0;
	bool apps;
	int ret = 0;

	rows = cg_rows(r, false, &nr);
	if (!rows)
		return -ENOMEM;
	report_sort_rows(r, rows, nr);
	apps = app_column(r, cg);
	out_text_header(f, r);
	out_text_hidden(f, r);
	t = table_new(apps ? cg_cols : cols_no_app, apps ? 5 : 4);
	ret = t ? table_row(t, "", apps ? heading : heading_no_app) : -ENOMEM;
	if (!ret)
		ret = table_text(t, RULE);
	for (i = 0; i < nr && !ret; i++) {
		ret = entry(t, r, cg, apps, rows[i].node);
		if (!ret)
			ret = table_text(t, RULE);
	}
	if (!ret)
		table_print(t, f, out_line_limit(f, r));
	table_free(t);
	free(rows);
	if (ret)
		return ret;
	if (r->opts->nr_anon_handlers)
		out_naming_text(f, r);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

static const struct table_col children_cols[] = {
	{ W_SAMPLES, false }, { W_PERCENT, false }, { W_SAMPLES, false },
	{ W_PERCENT, false }, { W_IMAGE, true },    { W_APP, true },
	{ 0, false },
};
static const char *const children_heading[] = {
	"children", "%", "self", "%", "image name", "app name", "symbol name"
};

/* -l --children: every function of the call graph, with the samples on
 * whose stacks it is (once a stack, under recursion) beside its own,
 * most children first; the percentages are of the graph's samples. */
int out_children(FILE *f, const struct report *r)
{
	const struct callgraph *cg = r->cg;
	struct report_row *rows;
	const char *cell[7];
	struct table *t;
	size_t i, nr = 0;
	unsigned c;
	bool apps;
	int ret;

	rows = cg_rows(r, true, &nr);
	if (!rows)
		return -ENOMEM;
	report_sort_rows(r, rows, nr);
	apps = app_column(r, cg);
	out_text_header(f, r);
	out_text_hidden(f, r);
	t = table_new(children_cols, apps ? 7 : 6);
	ret = -ENOMEM;
	if (!t)
		goto out;
	for (c = 0; c < 7; c++)
		cell[c] = children_heading[c];
	if (!apps)
		cell[5] = children_heading[6];
	ret = table_row(t, "", cell);
	for (i = 0; i < nr && !ret; i++) {
		const struct cg_node *n = &cg->nodes[rows[i].node];

		c = 0;
		cell[c++] = strpool_printf(r->pool, "%" PRIu64, n->total);
		cell[c++] = strpool_printf(r->pool, "%.4f",
					   pct(n->total, cg->total));
		cell[c++] = strpool_printf(r->pool, "%" PRIu64, n->self);
		cell[c++] = strpool_printf(r->pool, "%.4f",
					   pct(n->self, cg->total));
		cell[c++] = node_image(r, n);
		if (apps)
			cell[c++] = n->app ? shown_image(r, n->app, "") : "";
		cell[c++] = shown_name(r, n);
		while (c--)
			if (!cell[c])
				ret = -ENOMEM;
		if (!ret)
			ret = table_row(t, "", cell);
	}
	if (!ret)
		table_print(t, f, out_line_limit(f, r));
	table_free(t);
	if (!ret && r->opts->nr_anon_handlers)
		out_naming_text(f, r);
out:
	free(rows);
	if (ret)
		return ret;
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

/* A name as one folded frame: ';' separates frames and the last space
 * the count, so ';' and line breaks become ':' and '?'. */
static void folded_put_n(char **p, const char *s, size_t len)
{
	char *d = *p;

	for (; len--; s++) {
		unsigned char c = (unsigned char)*s;

		*d++ = c == ';' ? ':' : c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	*p = d;
}

static void folded_put(char **p, const char *s)
{
	folded_put_n(p, s, strlen(s));
}

/* One frame, marked as flamegraph.pl colours it: _[k] kernel, _[j] JIT,
 * _[i] a function inlined into the frame before it; or, for tools that
 * show a frame's text as it is, with the same facts in words. */
static void folded_frame(char **p, const struct report *r,
			 const struct cg_node *n, bool inlined)
{
	bool plain = r->opts->folded_marks == FOLDED_MARKS_NONE;

	if (n->image_id == CG_UNKNOWN) {
		folded_put(p, "[unknown]");
		return;
	}
	switch (n->kind) {
	case ROW_FILE:
		folded_put(p, shown_name(r, n));
		folded_put(p, " [");
		folded_put(p, shown_image(r, n->image, "unknown"));
		folded_put(p, !inlined ? "]" : plain ? ", inlined]" : "]_[i]");
		break;
	case ROW_KERNEL:
		folded_put(p, shown_name(r, n));
		if (n->image && strcmp(n->image, "[kernel.kallsyms]")) {
			/* a module's name once in brackets, however it was
			 * recorded ("ext4" or "[ext4]") */
			size_t len;
			const char *m = ops_image_module_name(
				out_safe(r->pool, n->image), &len);

			folded_put(p, " [");
			folded_put_n(p, m, len);
			folded_put(p, "]");
		} else if (plain) {
			folded_put(p, " [kernel]");
		}
		if (!plain)
			folded_put(p, "_[k]");
		break;
	case ROW_JIT:
		folded_put(p, shown_name(r, n));
		folded_put(p, " [");
		folded_put(p, n->handler ? n->handler : "jit");
		folded_put(p, plain	? (inlined ? ", inlined]" : "]")
			      : inlined ? "]_[i]"
					: "]_[j]");
		break;
	case ROW_ANON:
		folded_put(p, plain ? "[anon]" : "[anon]_[j]");
		break;
	}
}

/* Node N as a folded frame, INLINED or not, made once in R's pool: a
 * node is in many stacks.  NULL when out of memory. */
static const char *folded_text(const struct report *r, const char **cache,
			       const struct cg_node *n, bool inlined)
{
	const char **t = &cache[inlined];
	size_t image;
	char *p;

	if (*t)
		return *t;
	/* a kernel frame shows its module's name as recorded, the others
	 * the image as the report names it: room for either */
	image = n->kind == ROW_KERNEL && n->image
			? strlen(out_safe(r->pool, n->image))
			: strlen(shown_image(r, n->image, "unknown"));
	p = strpool_alloc(r->pool,
			  strlen(shown_name(r, n)) + image +
				  (n->handler ? strlen(n->handler) : 0) + 16);
	if (!p)
		return NULL;
	*t = p;
	folded_frame(&p, r, n, inlined);
	*p = '\0';
	return *t;
}

static int folded_cmp(const void *pa, const void *pb)
{
	const struct out_folded_line *a = pa, *b = pb;

	return strcmp(a->text, b->text);
}

int out_folded_lines(const struct report *r, struct out_folded_line **out,
		     size_t *n)
{
	const struct callgraph *cg = r->cg;
	struct out_folded_line *lines;
	const char **text; /* per node: its frame, called and inlined */
	size_t i, j, nl = 0, nu = 0;
	int ret = -ENOMEM;

	*out = NULL;
	*n = 0;
	lines = calloc(cg->nr_stacks ? cg->nr_stacks : 1, sizeof(*lines));
	text = calloc(2 * (cg->nr_nodes ? cg->nr_nodes : 1), sizeof(*text));
	if (!lines || !text)
		goto fail;
	for (i = 0; i < cg->nr_stacks; i++) {
		const struct cg_stack *st = &cg->stacks[i];
		size_t len = 1;
		char *p;

		for (j = 0; j < st->depth; j++) {
			const char *t = folded_text(r,
						    text + 2 * st->frames[j],
						    &cg->nodes[st->frames[j]],
						    st->inlined[j]);

			if (!t)
				goto fail;
			len += strlen(t) + 1;
		}
		p = lines[nl].text = malloc(len);
		if (!p)
			goto fail;
		lines[nl++].count = st->count;
		for (j = 0; j < st->depth; j++) {
			const char *t =
				text[2 * st->frames[j] + st->inlined[j]];
			size_t k = strlen(t);

			if (j)
				*p++ = ';';
			memcpy(p, t, k);
			p += k;
		}
		*p = '\0';
	}
	free(text);
	/* stacks of different processes can read the same: one line each */
	qsort(lines, nl, sizeof(*lines), folded_cmp);
	for (i = 0; i < nl; i = j) {
		uint64_t count = 0;

		for (j = i; j < nl && !strcmp(lines[i].text, lines[j].text);
		     j++) {
			count += lines[j].count;
			if (j > i)
				free(lines[j].text);
		}
		lines[nu].text = lines[i].text;
		lines[nu++].count = count;
	}
	*out = lines;
	*n = nu;
	return 0;
fail:
	free(text);
	out_folded_lines_free(lines, nl);
	return ret;
}

void out_folded_lines_free(struct out_folded_line *lines, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(lines[i].text);
	free(lines);
}

int out_folded(FILE *f, const struct report *r)
{
	struct out_folded_line *lines;
	size_t i, n;
	int ret = out_folded_lines(r, &lines, &n);

	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		fprintf(f, "%s %" PRIu64 "\n", lines[i].text, lines[i].count);
	out_folded_lines_free(lines, n);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
