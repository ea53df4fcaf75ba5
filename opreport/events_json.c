// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * --event=alloc|lock --format=json: schema "opjit-events" version 1, and
 * for a differential report "opjit-events-diff" version 1, documented in
 * opreport/JSON.md, events.schema.json and events_diff.schema.json.  A document of
 * its own, not "opjit-report": its rows are weighted stacks, not samples
 * of code, and a script must not mistake one for the other.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "events.h"
#include "out.h"

/* the units of weight and count: one set of keys for both events, so
 * that one schema (and one script) reads either */
static const char *const ev_units[2][2] = {
	{ "nanoseconds", "contentions" },
	{ "bytes", "objects" },
};

/* "frames":[...] of a folded stack, ';' never inside a frame */
static void json_frames(FILE *f, const char *s)
{
	fputs("\"frames\":[", f);
	for (bool first = true; *s; first = false) {
		size_t len = strcspn(s, ";");
		char frame[len + 1];

		memcpy(frame, s, len);
		frame[len] = '\0';
		if (!first)
			fputc(',', f);
		out_json_str(f, frame);
		s += len;
		if (*s)
			s++;
	}
	fputc(']', f);
}

static void json_head(FILE *f, const char *schema, bool alloc)
{
	fprintf(f,
		"{\"schema\":\"%s\",\"version\":1,\"event\":\"%s\","
		"\"units\":{\"weight\":\"%s\",\"count\":\"%s\"},",
		schema, alloc ? "alloc" : "lock", ev_units[alloc][0],
		ev_units[alloc][1]);
}

int events_json(FILE *f, const char *session_dir, const struct ev_row *rows,
		size_t n, bool alloc)
{
	uint64_t weight = 0, count = 0;

	for (size_t i = 0; i < n; i++) {
		weight += rows[i].weight;
		count += rows[i].count;
	}
	json_head(f, "opjit-events", alloc);
	fputs("\"session\":{\"dir\":", f);
	out_json_str(f, session_dir);
	fprintf(f,
		"},\"total\":{\"weight\":%" PRIu64 ",\"count\":%" PRIu64
		"},\"stacks\":[",
		weight, count);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",{" : "{", f);
		json_frames(f, rows[i].stack);
		fprintf(f,
			",\"weight\":%" PRIu64 ",\"count\":%" PRIu64
			",\"percent\":%.4f}",
			rows[i].weight, rows[i].count,
			100.0 * (double)rows[i].weight /
				(double)(weight ? weight : 1));
	}
	fputs("]}\n", f);
	return ferror(f) ? -EIO : 0;
}

int events_json_diff(FILE *f, const struct ev_diff *d, bool alloc)
{
	static const char *const side[2] = { "baseline", "profile" };

	json_head(f, "opjit-events-diff", alloc);
	for (int k = 0; k < 2; k++) {
		fprintf(f, "\"%s\":{\"session\":{\"dir\":", side[k]);
		out_json_str(f, d->dir[k]);
		fprintf(f,
			"},\"total\":{\"weight\":%" PRIu64
			",\"count\":%" PRIu64 "}},",
			d->weight[k], d->count[k]);
	}
	fputs("\"stacks\":[", f);
	for (size_t i = 0; i < d->nr; i++) {
		const struct ev_diff_row *r = &d->rows[i];

		fputs(i ? ",\n{" : "\n{", f);
		json_frames(f, r->stack);
		for (int k = 0; k < 2; k++)
			fprintf(f,
				",\"%s\":{\"weight\":%" PRIu64
				",\"count\":%" PRIu64 ",\"percent\":%.4f}",
				side[k], r->weight[k], r->count[k],
				r->percent[k]);
		fprintf(f, ",\"change\":%.4f,\"status\":\"%s\"}", r->change,
			ev_diff_status(r));
	}
	fputs("]}\n", f);
	return ferror(f) ? -EIO : 0;
}
