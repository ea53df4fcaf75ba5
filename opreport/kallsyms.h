/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Kernel symbols from the session's copy of /proc/kallsyms: the kernel's
 * own text symbols, and each module's, told apart by the "[module]"
 * column.
 */
#ifndef OPREPORT_KALLSYMS_H
#define OPREPORT_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

struct kallsyms;

/* Parse a kallsyms text.  Malformed lines are skipped and counted; the
 * first is at *FIRST_BAD (1-based).  0 or -ENOMEM. */
int kallsyms_parse(struct kallsyms **out, const char *buf, size_t len,
		   size_t *nr_bad, size_t *first_bad);

/* Read FILE (may be NULL: no symbols); problems are one warning line. */
int kallsyms_load(struct kallsyms **out, const char *file);
void kallsyms_free(struct kallsyms *ks);

size_t kallsyms_count(const struct kallsyms *ks);

/* The symbol holding ADDR in MODULE (NULL for the kernel itself), or
 * the "(no symbols)" symbol.  Never NULL. */
const struct report_sym *kallsyms_resolve(struct kallsyms *ks,
					  const char *module, uint64_t addr);

#endif
