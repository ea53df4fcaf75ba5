// SPDX-License-Identifier: GPL-3.0-or-later
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon_naming.h"
#include "diag.h"
#include "strpool.h"

void anon_naming_count(struct anon_naming_count *c,
		       const struct anon_resolved *b, size_t n,
		       const uint32_t *weights)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t w = weights ? weights[i] : 1;

		if (b->syms[i])
			c->named += w;
		else
			c->unnamed[b->reasons[i] < REPORT_NR_REASONS
					   ? b->reasons[i]
					   : 0] += w;
	}
}

/*
 * One line per process whose JIT samples were not all named, with the
 * handler's reasons, so that an "(unknown)" row is never silent:
 * "opreport: tgid 4242 (node): 120 of 5000 JIT samples unnamed: 100 no
 * entry, 20 before load".
 */
void anon_naming_reasons(FILE *f, const struct report_naming *nm)
{
	bool first = true;
	uint32_t i;

	for (i = 0; i < REPORT_NR_REASONS; i++) {
		uint32_t k = anon_naming_reason(i);

		if (!nm->unnamed[k])
			continue;
		fprintf(f, "%s %" PRIu64 " %s", first ? "" : ",",
			nm->unnamed[k], anon_reason_text(k));
		first = false;
	}
}

static void warn_unnamed(const struct report *r,
			 const struct report_naming *nm)
{
	char *why = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&why, &len);

	if (f) {
		anon_naming_reasons(f, nm);
		fclose(f);
	}
	diag("tgid %u (%s): %" PRIu64 " of %" PRIu64 " JIT %ss unnamed:%s",
	     nm->tgid, nm->comm, nm->samples - nm->named, nm->samples,
	     report_naming_unit(r),
	     why ? why : " (reasons lost: out of memory)");
	free(why);
}

int anon_naming_note(struct report *r, const struct ops_process *p, uint64_t n,
		     int claimed, bool handlers,
		     const struct anon_resolved *res,
		     const struct anon_naming_count *count)
{
	struct report_naming *nm = report_naming_add(r, p);

	if (!nm)
		return -ENOMEM;
	nm->samples = n;
	if (claimed == 1) {
		nm->status = NAMING_CLAIMED;
		nm->handler = strpool_intern(r->pool, res->handler);
		nm->named = count->named;
		memcpy(nm->unnamed, count->unnamed, sizeof(nm->unnamed));
	} else if (claimed < 0) {
		nm->status = NAMING_FAILED;
		nm->handler = res->handler
				      ? strpool_intern(r->pool, res->handler)
				      : NULL;
	} else if (res->map_refused) {
		nm->status = NAMING_MAP_REFUSED;
		nm->unnamed[ANON_REASON_MAP_REFUSED] = n;
		nm->why = res->refused_why && res->refused_why[0]
				  ? strpool_intern(r->pool, res->refused_why)
				  : NULL;
	} else if (res->declined_why) {
		nm->status = NAMING_UNREADABLE;
		nm->why = strpool_intern(r->pool, res->declined_why);
	} else {
		nm->status = handlers ? NAMING_UNCLAIMED : NAMING_NO_HANDLER;
		nm->would = res->would ? strpool_intern(r->pool, res->would)
				       : NULL;
	}
	if (nm->named < n &&
	    (nm->status == NAMING_CLAIMED || nm->status == NAMING_MAP_REFUSED))
		warn_unnamed(r, nm);
	return 0;
}
