/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The trim of an archived perf map or jitdump at a clean stop
 * (FORMAT.md, maps). */
#ifndef OPS_MAP_TRIM_INTERNAL_H
#define OPS_MAP_TRIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes_internal.h"

/* Whether one of ADDRS (N, ascending) is in [LO, LO + SIZE), at least one
 * byte, or from LO to the end of the address space when that wraps. */
bool ops_trim_holds_one(const uint64_t *addrs, size_t n, uint64_t lo,
			uint64_t size);

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

/*
 * Append to OUT the records of jitdump DATA (LEN bytes) that a report
 * needs, byte for byte and in their order, after the header: the loads
 * and moves of code whose range (at least one byte) held one of ADDRS (N,
 * ascending) at its load or after a move, every record of that code (by
 * its code_index), the line table and unwinding table written for a kept
 * load, and every record of another type.  Bytes after the last whole
 * record (cut off, or a size that leads nowhere) are kept as they are.
 * 0, -EINVAL (not a jitdump: nothing appended) or -ENOMEM.
 */
int ops_jitdump_trim(const uint8_t *data, size_t len, const uint64_t *addrs,
		     size_t n, struct ops_buf *out);

#endif
