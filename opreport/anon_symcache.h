/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The report's symbol for each symbol a handler named in one process.
 * A handler hands back equal symbols as equal pointers, batch after
 * batch; the cache turns each into one report symbol, so that a row
 * gathers every sample of its symbol however the batches fell.
 */
#ifndef OPREPORT_ANON_SYMCACHE_H
#define OPREPORT_ANON_SYMCACHE_H

#include "anon_handlers.h"
#include "report.h"

struct anon_symcache;

/* NULL when out of memory (not reported). */
struct anon_symcache *anon_symcache_new(void);
void anon_symcache_free(struct anon_symcache *c);

/* The report symbol of A, made in R's pool the first time; for NULL,
 * "(unknown)".  NULL when out of memory (not reported). */
const struct report_sym *anon_symcache_get(struct anon_symcache *c,
					   struct report *r,
					   const struct anon_symbol *a);

#endif
