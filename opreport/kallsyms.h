/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Kernel symbols from the session's copy of /proc/kallsyms: the kernel's
 * own text symbols, and each module's, told apart by the "[module]"
 * column.  The copy of /proc/modules says where each module ends.
 */
#ifndef OPREPORT_KALLSYMS_H
#define OPREPORT_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

struct kallsyms;

/* Parse a kallsyms text.  Malformed lines are skipped and counted; the
 * first is at *FIRST_BAD (1-based), for the caller to say.  0 or -ENOMEM
 * (not reported). */
int kallsyms_parse(struct kallsyms **out, const char *buf, size_t len,
		   size_t *nr_bad, size_t *first_bad);

/* Bound each module's last symbol by the module's end, from a
 * /proc/modules text ("NAME SIZE REFS DEPS STATE ADDR").  Malformed lines
 * are counted as kallsyms_parse does. */
void kallsyms_parse_modules(struct kallsyms *ks, const char *buf, size_t len,
			    size_t *nr_bad, size_t *first_bad);

/* Read FILE and MODULES of the session in DIR (either may be NULL: no
 * symbols, no bounds); problems, a missing FILE included, are one
 * warning line each (reported).  0 or -ENOMEM (not reported). */
int kallsyms_load(struct kallsyms **out, const char *dir, const char *file,
		  const char *modules);
void kallsyms_free(struct kallsyms *ks);

size_t kallsyms_count(const struct kallsyms *ks);

/* The symbol holding ADDR in MODULE (NULL for the kernel itself), or
 * the "(no symbols)" symbol.  Never NULL. */
const struct report_sym *kallsyms_resolve(struct kallsyms *ks,
					  const char *module, uint64_t addr);

/* The symbol holding ADDR, a sample the recorder filed under the kernel
 * (perf_event tells no module apart): the kernel's own, else a
 * module's, its module's name in *MODULE (NULL otherwise, valid while KS
 * is), else the "(no symbols)" symbol.  0 or -ENOMEM (not reported). */
int kallsyms_resolve_kernel(struct kallsyms *ks, uint64_t addr,
			    const struct report_sym **sym,
			    const char **module);

#endif
