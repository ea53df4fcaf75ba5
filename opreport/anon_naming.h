/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What became of a process's anonymous samples, or of the anonymous
 * frames of its call chains: how many a handler named and, of the rest,
 * why not.  Both the flat rows and the call graph count through here, so
 * that the summary, the warning on stderr and every output agree.
 */
#ifndef OPREPORT_ANON_NAMING_H
#define OPREPORT_ANON_NAMING_H

#include <stdio.h>

#include <opjit/samples.h>

#include "anon_handlers.h"
#include "report.h"

struct anon_naming_count {
	uint64_t named;
	uint64_t unnamed[REPORT_NR_REASONS]; /* by the handler's reason */
};

/* Count the N names of one batch, name I WEIGHTS[I] times (once each
 * when WEIGHTS is NULL). */
void anon_naming_count(struct anon_naming_count *c,
		       const struct anon_resolved *batch, size_t n,
		       const uint32_t *weights);

/* The K-th reason (K from 0 to REPORT_NR_REASONS - 1) in the order every
 * output gives them: the handler's reasons first, "no reason given"
 * last. */
static inline uint32_t anon_naming_reason(uint32_t k)
{
	return (k + 1) % REPORT_NR_REASONS;
}

/* NM's unnamed counts by reason, in that order: " 100 no entry, 20
 * before load". */
void anon_naming_reasons(FILE *f, const struct report_naming *nm);

/* Record in R what became of the N shown anonymous samples (or frames)
 * of P: CLAIMED is anon_handlers_resolve()'s answer, or 0 when HANDLERS
 * is false; COUNT what the batches named.  Says through diag(), once,
 * how many a handler or a refused map left unnamed.  0 or -ENOMEM (not
 * reported). */
int anon_naming_note(struct report *r, const struct ops_process *p, uint64_t n,
		     int claimed, bool handlers,
		     const struct anon_resolved *res,
		     const struct anon_naming_count *count);

#endif
