// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Why a sample has no name, per process: how many of its anonymous
 * samples a handler named and, of the rest, why not: the handler's
 * reason for each sample, or the loader's for the whole process.
 */
#include <inttypes.h>
#include <string.h>

#include "anon_handlers.h"
#include "anon_naming.h"
#include "out.h"
#include "strpool.h"

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

/* What handler NAME reads, in the words of the line that says it would
 * have claimed a process. */
static const char *would_read(const char *name)
{
	static const struct {
		const char *handler, *what;
	} what[] = {
		{ "jitdump", "its jitdump" },
		{ "jitlog", "its time-stamped map" },
		{ "javamap", "its time-stamped map" },
		{ "pypy", "its PyPy map" },
		{ "pypy-loops", "its PyPy map" },
		{ "perfmap", "its perf map" },
	};
	size_t i;

	for (i = 0; i < sizeof(what) / sizeof(what[0]); i++)
		if (!strcmp(what[i].handler, name))
			return what[i].what;
	return "its map";
}

const char *out_naming_why(const struct report *r,
			   const struct report_naming *nm)
{
	const char *why = NULL;

	switch (nm->status) {
	case NAMING_CLAIMED:
		return "";
	case NAMING_UNCLAIMED:
		if (!nm->would)
			return "no handler claimed the process";
		why = strpool_printf(
			r->pool,
			"no handler claimed the process; %s would "
			"be read by --anon-handler=%s",
			would_read(nm->would), out_safe(r->pool, nm->would));
		break;
	case NAMING_MAP_REFUSED:
		why = strpool_printf(r->pool, "map refused: %s",
				     nm->why ? out_safe(r->pool, nm->why)
					     : "by a trust rule");
		break;
	case NAMING_UNREADABLE:
		why = strpool_printf(r->pool, "map unreadable: %s",
				     out_safe(r->pool, nm->why));
		break;
	case NAMING_FAILED:
		why = strpool_printf(
			r->pool, "handler %s failed (its message is above)",
			nm->handler ? out_safe(r->pool, nm->handler) : "?");
		break;
	case NAMING_NO_HANDLER:
		return "no --anon-handler given";
	}
	return why ? why : out_naming_status(nm->status);
}

void out_naming_line(FILE *f, const struct report *r,
		     const struct report_naming *nm)
{
	const char *unit = report_naming_unit(r);

	fprintf(f, "tgid %u (%s): %" PRIu64 " %s%s, ", nm->tgid,
		out_safe(r->pool, nm->comm), nm->samples, unit,
		nm->samples == 1 ? "" : "s");
	if (nm->status != NAMING_CLAIMED) {
		fprintf(f, "none named: %s", out_naming_why(r, nm));
		return;
	}
	fprintf(f, "%" PRIu64 " named by %s", nm->named,
		out_safe(r->pool, nm->handler));
	if (nm->named < nm->samples)
		fprintf(f, ", %" PRIu64 " unnamed:", nm->samples - nm->named);
	anon_naming_reasons(f, nm);
}

void out_naming_text(FILE *f, const struct report *r)
{
	size_t i;

	if (!r->nr_naming)
		return;
	fprintf(f, "\nnames of anonymous %ss%s, by process:\n",
		report_naming_unit(r),
		r->naming_frames && r->has_stacks ? " in call chains" : "");
	for (i = 0; i < r->nr_naming; i++) {
		out_naming_line(f, r, &r->naming[i]);
		fputc('\n', f);
	}
}
