// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * --event=alloc|lock --format=html: the page of out_html.c over the
 * weighted stacks, each stack's weight (bytes or nanoseconds) in the
 * place of a sample count, and the unit said in the data so that the
 * page's status line and tooltips name it.  One node a distinct frame
 * name: JIT code of the javamap handler, the class as the leaf.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "events.h"
#include "out.h"

int events_html(FILE *f, const char *session_dir, const struct ev_row *rows,
		size_t n, bool alloc)
{
	struct out_html_strtab t = { 0 };
	char **split = calloc(n ? n : 1, sizeof(*split));
	uint64_t total = 0;
	int ret = -ENOMEM;

	if (!split)
		goto out;
	/* string 0 is "", the handler's name 1; node i is string i + 2 */
	if (oputil_grow(&t.v, &t.cap, 2, sizeof(*t.v)))
		goto out;
	t.v[t.n++] = "";
	t.v[t.n++] = "javamap";
	for (size_t i = 0; i < n; i++) {
		/* the frames as strings of their own, ';' never inside one */
		split[i] = strdup(rows[i].stack);
		if (!split[i])
			goto out;
		for (char *p = split[i], *e;; p = e + 1) {
			bool last;

			e = p + strcspn(p, ";");
			last = !*e;
			*e = '\0';
			if (out_html_strtab_add(&t, p) < 0)
				goto out;
			if (last)
				break;
		}
		total += rows[i].weight;
	}
	out_html_page_start(f);
	fputs("{\"v\":1,\"title\":", f);
	out_html_str(f, session_dir ? session_dir : "");
	fprintf(f,
		",\"event\":\"%s\",\"unit\":\"%s\",\"total\":%" PRIu64
		",\"strings\":[",
		alloc ? "allocations" : "contended monitor enters",
		alloc ? "bytes" : "ns", total);
	for (size_t i = 0; i < t.n; i++) {
		if (i)
			fputc(',', f);
		out_html_str(f, t.v[i]);
	}
	fputs("],\n\"nodes\":[", f);
	/* name, kind (2: JIT), image, handler, file, line */
	for (size_t i = 2; i < t.n; i++)
		fprintf(f, "%s%zu,2,0,1,0,0", i > 2 ? "," : "", i);
	fputs("],\n\"stacks\":[", f);
	for (size_t i = 0; i < n; i++) {
		const char *p = split[i];
		size_t depth = 1;

		for (const char *c = rows[i].stack; *c; c++)
			depth += *c == ';';
		fprintf(f, "%s%" PRIu64 ",%zu", i ? ",\n" : "", rows[i].weight,
			depth);
		for (size_t d = 0; d < depth; d++) {
			size_t len = strlen(p);

			fprintf(f, ",%ld",
				(out_html_strtab_add(&t, p) - 2) * 2);
			p += len + 1;
		}
	}
	fputs("]}", f);
	ret = out_html_page_end(f);
out:
	for (size_t i = 0; split && i < n; i++)
		free(split[i]);
	free(split);
	out_html_strtab_free(&t);
	return ret;
}
