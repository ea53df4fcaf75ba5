/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The trim of an archived perf map at a clean stop (FORMAT.md, maps). */
#ifndef OPS_MAP_TRIM_INTERNAL_H
#define OPS_MAP_TRIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes_internal.h"

/*
 * Append to OUT the lines of perf map TEXT (LEN bytes) that a report
 * needs, in their order and byte for byte: each entry ("START SIZE NAME",
 * hex, as perf map readers take it) whose range [START, START + SIZE),
 * at least one byte, holds one of ADDRS (N of them, ascending); the first
 * entry, by which a reader recognises the map; and every line that is not
 * an entry, so that a reader still counts it as it would in the original.
 * 0 or -ENOMEM.
 */
int ops_perfmap_trim(const char *text, size_t len, const uint64_t *addrs,
		     size_t n, struct ops_buf *out);

#endif
