/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A differential profile: two reports built the usual way, the baseline
 * and the profile, joined row by row.  Native code is matched by image
 * and symbol; JIT code by handler, application and symbol name, since
 * its addresses and process ids change from run to run; anonymous
 * buckets by application.  A row on one side only is new or gone.
 */
#ifndef OPREPORT_DIFF_H
#define OPREPORT_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

enum diff_side { DIFF_BASE, DIFF_PROFILE };

struct diff_row {
	enum row_kind kind;
	const char *image;  /* as the user reads it, interned */
	const char *symbol; /* NULL in the image summary (no -l) */
	uint64_t count[2];  /* by enum diff_side */
	double percent[2];
	double change; /* percent[PROFILE] - percent[BASE], points */
};

struct diff {
	const struct report *side[2];
	struct diff_row *rows; /* sorted: the largest change first (-r:
				* the smallest), unless --sort says */
	size_t nr_rows;
};

/* Join BASE and PROFILE, both finished, into D; rows under the
 * threshold on both sides are left out.  0 or -ENOMEM (not reported). */
int diff_build(struct diff *d, const struct report *base,
	       const struct report *profile);
void diff_free(struct diff *d);

/* "new" (baseline has none), "gone" (the profile has none), or NULL. */
const char *diff_status(const struct diff_row *row);

#endif
