// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * --event=alloc|lock --format=html: the page of out_html.c over the
 * weighted stacks, each stack's weight (bytes or nanoseconds) in the
 * place of a sample count, and the unit said in the data so that the
 * page's status line and tooltips name it.  One node a distinct frame
 * name: JIT code of the javamap handler, the class as the leaf.  With a
 * baseline (--diff, "{ } { }"), the differential page: the baseline's
 * stacks in "base", numbering the same nodes, since the page matches
 * frames by their names from the root.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "events.h"
#include "out.h"

/* One side's rows with each stack's frames split into strings of their
 * own, ';' never inside one, added to the page's string table. */
struct ev_html_side {
	const struct ev_page_side *in;
	char **split;
	uint64_t total;
};

static int ev_html_names(struct out_html_strtab *t, struct ev_html_side *s)
{
	size_t n = s->in->nr;

	s->split = calloc(n ? n : 1, sizeof(*s->split));
	if (!s->split)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		s->split[i] = strdup(s->in->rows[i].stack);
		if (!s->split[i])
			return -ENOMEM;
		for (char *p = s->split[i], *e;; p = e + 1) {
			bool last;

			e = p + strcspn(p, ";");
			last = !*e;
			*e = '\0';
			if (out_html_strtab_add(t, p) < 0)
				return -ENOMEM;
			if (last)
				break;
		}
		s->total += s->in->rows[i].weight;
	}
	return 0;
}

/* "stacks" in the page's "v":1 form: (weight, depth, frames...), each
 * frame its node (string - 2) times 2, never inlined. */
static void ev_html_stacks(FILE *f, struct out_html_strtab *t,
			   const struct ev_html_side *s)
{
	fputs("\"stacks\":[", f);
	for (size_t i = 0; i < s->in->nr; i++) {
		const char *p = s->split[i];
		size_t depth = 1;

		for (const char *c = s->in->rows[i].stack; *c; c++)
			depth += *c == ';';
		fprintf(f, "%s%" PRIu64 ",%zu", i ? ",\n" : "",
			s->in->rows[i].weight, depth);
		for (size_t d = 0; d < depth; d++) {
			size_t len = strlen(p);

			fprintf(f, ",%ld",
				(out_html_strtab_add(t, p) - 2) * 2);
			p += len + 1;
		}
	}
	fputc(']', f);
}

static void ev_html_side_free(struct ev_html_side *s)
{
	for (size_t i = 0; s->split && i < s->in->nr; i++)
		free(s->split[i]);
	free(s->split);
}

int events_html(FILE *f, const struct ev_page_side *prof,
		const struct ev_page_side *base, bool alloc)
{
	struct out_html_strtab t = { 0 };
	struct ev_html_side p = { .in = prof }, b = { .in = base };
	int ret = -ENOMEM;

	/* string 0 is "", the handler's name 1; node i is string i + 2 */
	if (oputil_grow(&t.v, &t.cap, 2, sizeof(*t.v)))
		goto out;
	t.v[t.n++] = "";
	t.v[t.n++] = "javamap";
	if (ev_html_names(&t, &p) || (base && ev_html_names(&t, &b)))
		goto out;
	out_html_page_start(f);
	fputs("{\"v\":1,\"title\":", f);
	out_html_str(f, prof->dir ? prof->dir : "");
	fprintf(f,
		",\"event\":\"%s\",\"unit\":\"%s\",\"total\":%" PRIu64
		",\"strings\":[",
		alloc ? "allocations" : "contended monitor enters",
		alloc ? "bytes" : "ns", p.total);
	for (size_t i = 0; i < t.n; i++) {
		if (i)
			fputc(',', f);
		out_html_str(f, t.v[i]);
	}
	fputs("],\n\"nodes\":[", f);
	/* name, kind (2: JIT), image, handler, file, line */
	for (size_t i = 2; i < t.n; i++)
		fprintf(f, "%s%zu,2,0,1,0,0", i > 2 ? "," : "", i);
	fputs("],\n", f);
	ev_html_stacks(f, &t, &p);
	if (base) {
		fputs(",\n\"base\":{\"title\":", f);
		out_html_str(f, base->dir ? base->dir : "");
		fprintf(f, ",\"total\":%" PRIu64 ",\n", b.total);
		ev_html_stacks(f, &t, &b);
		fputc('}', f);
	}
	fputc('}', f);
	ret = out_html_page_end(f);
out:
	ev_html_side_free(&p);
	if (base)
		ev_html_side_free(&b);
	out_html_strtab_free(&t);
	return ret;
}
