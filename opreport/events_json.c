// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * --event=alloc|lock --format=json: schema "opjit-events" version 1,
 * documented in opreport/JSON.md and events.schema.json.  A document of
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

int events_json(FILE *f, const char *session_dir, const struct ev_row *rows,
		size_t n, bool alloc)
{
	uint64_t weight = 0, count = 0;

	for (size_t i = 0; i < n; i++) {
		weight += rows[i].weight;
		count += rows[i].count;
	}
	fputs("{\"schema\":\"opjit-events\",\"version\":1,\"session\":{\"dir\":",
	      f);
	out_json_str(f, session_dir);
	fprintf(f,
		"},\"event\":\"%s\",\"units\":{\"weight\":\"%s\",\"count\":\"%s\"},"
		"\"total\":{\"weight\":%" PRIu64 ",\"count\":%" PRIu64
		"},\"stacks\":[",
		alloc ? "alloc" : "lock", ev_units[alloc][0],
		ev_units[alloc][1], weight, count);
	for (size_t i = 0; i < n; i++) {
		const char *s = rows[i].stack;

		fputs(i ? ",{\"frames\":[" : "{\"frames\":[", f);
		/* the folded stack's frames, ';' never inside one */
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
		fprintf(f,
			"],\"weight\":%" PRIu64 ",\"count\":%" PRIu64
			",\"percent\":%.4f}",
			rows[i].weight, rows[i].count,
			100.0 * (double)rows[i].weight /
				(double)(weight ? weight : 1));
	}
	fputs("]}\n", f);
	return ferror(f) ? -EIO : 0;
}
