// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Why a sample has no name, per process: how many of its anonymous
 * samples a handler named and, of the rest, why not: the handler's
 * reason for each sample, or the loader's for the whole process.
 */
#include <inttypes.h>

#include "anon_handlers.h"
#include "out.h"

const char *out_naming_status(enum naming_status s)
{
	switch (s) {
	case NAMING_CLAIMED:
		return "claimed";
	case NAMING_UNCLAIMED:
		return "unclaimed";
	case NAMING_MAP_REFUSED:
		return "map refused";
	case NAMING_UNREADABLE:
		return "map unreadable";
	case NAMING_FAILED:
		return "handler failed";
	case NAMING_NO_HANDLER:
		return "no handler";
	}
	return "unclaimed";
}

static void why_none(FILE *f, const struct report *r,
		     const struct report_naming *nm)
{
	switch (nm->status) {
	case NAMING_CLAIMED:
		break;
	case NAMING_UNCLAIMED:
		fputs("no handler claimed the process", f);
		break;
	case NAMING_MAP_REFUSED:
		fprintf(f, "map refused: %s",
			nm->why ? out_safe(r->pool, nm->why)
				: "by a trust rule");
		break;
	case NAMING_UNREADABLE:
		fprintf(f, "map unreadable: %s", out_safe(r->pool, nm->why));
		break;
	case NAMING_FAILED:
		fprintf(f, "handler %s failed (its message is above)",
			nm->handler ? out_safe(r->pool, nm->handler) : "?");
		break;
	case NAMING_NO_HANDLER:
		fputs("no --anon-handler given", f);
		break;
	}
}

void out_naming_text(FILE *f, const struct report *r)
{
	size_t i;
	uint32_t k;

	if (!r->nr_naming)
		return;
	fputs("\nnames of anonymous samples, by process:\n", f);
	for (i = 0; i < r->nr_naming; i++) {
		const struct report_naming *nm = &r->naming[i];
		bool first = true;

		fprintf(f, "tgid %u (%s): %" PRIu64 " sample%s, ", nm->tgid,
			out_safe(r->pool, nm->comm), nm->samples,
			nm->samples == 1 ? "" : "s");
		if (nm->status != NAMING_CLAIMED) {
			fputs("none named: ", f);
			why_none(f, r, nm);
			fputc('\n', f);
			continue;
		}
		fprintf(f, "%" PRIu64 " named by %s", nm->named,
			out_safe(r->pool, nm->handler));
		if (nm->named < nm->samples)
			fprintf(f, ", %" PRIu64 " unnamed:",
				nm->samples - nm->named);
		/* the handler's reasons first, "no reason given" last */
		for (k = 1; k <= REPORT_NR_REASONS; k++) {
			uint32_t reason = k % REPORT_NR_REASONS;

			if (!nm->unnamed[reason])
				continue;
			fprintf(f, "%s %" PRIu64 " %s", first ? "" : ",",
				nm->unnamed[reason], anon_reason_text(reason));
			first = false;
		}
		fputc('\n', f);
	}
}
