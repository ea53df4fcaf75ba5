/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The perf map trim as it was first written, kept as the tests' oracle:
 * each line parsed whole, each entry's range looked up by a binary
 * search of every address. */
#ifndef OPJIT_TESTS_MAP_TRIM_REF_H
#define OPJIT_TESTS_MAP_TRIM_REF_H

#include "map_trim_internal.h"

/* What ops_perfmap_trim() appends for TEXT and ADDRS, the same way: 0 or
 * -ENOMEM. */
int perfmap_trim_ref(const char *text, size_t len, const uint64_t *addrs,
		     size_t n, struct ops_buf *out);

#endif
