/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Anonymous samples as report rows.  Each selected process's samples are
 * sorted by address (times kept) and offered to the handlers; a claimed
 * process gives "jit:HANDLER (tgid:N COMM)" rows, one per symbol plus
 * "(unknown)"; an unclaimed one gives "anon (tgid:N range:0xA-0xB)"
 * buckets.  Without --anon-samples they are only counted.
 */
#ifndef OPREPORT_ANON_ROWS_H
#define OPREPORT_ANON_ROWS_H

#include <opjit/samples.h>

#include "anon_handlers.h"
#include "report.h"

/* HANDLERS may be NULL.  Adds the selected samples to r->total and the
 * left-out ones to r->anon_hidden.  0, -ENOMEM, or -EOVERFLOW when the
 * counts cannot be summed (not reported).  A handler that fails has
 * been reported by the loader; its process's samples become buckets. */
int anon_rows_add(struct report *r, struct ops_session *s,
		  struct anon_handlers *handlers);

/* "jit:HANDLER (tgid:N COMM)", interned, or NULL when out of memory
 * (not reported). */
const char *anon_rows_jit_label(struct report *r, const struct ops_process *p,
				const char *handler);

/* Whether the specifications select process P's anonymous samples. */
bool anon_rows_selected(const struct report *r, const struct ops_process *p);

#endif
