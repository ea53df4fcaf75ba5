// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A perf map names every piece of code a JIT made, and a node process
 * writes thousands of lines before running a line of the user's code,
 * while a session's samples fall in a few of them.  The archived copy
 * keeps those few.  Which entry names an address depends only on the
 * entries that cover it (the later one wins), so a copy with every
 * entry that covers a sampled address names every sample as the whole
 * map does.
 */
#include <errno.h>
#include <string.h>

#include <oputil/perfmap_line.h>
#include <oputil/search.h>

#include "map_trim_internal.h"

bool ops_trim_holds_one(const uint64_t *addrs, size_t n, uint64_t lo,
			uint64_t size)
{
	uint64_t hi = lo + (size ? size : 1);
	size_t i = oputil_partition(0, n, k, addrs[k] < lo);

	if (hi < lo) /* wraps: to the end of the address space */
		return i < n;
	return i < n && addrs[i] < hi;
}

int ops_perfmap_trim(const char *text, size_t len, const uint64_t *addrs,
		     size_t n, struct ops_buf *out)
{
	const char *p = text, *end = text + len;
	bool first = true;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;
		uint64_t start, size;
		const char *name;
		size_t nlen;
		bool keep = true;

		if (oputil_perfmap_line(p, nl ? nl : end, &start, &size, &name,
					&nlen)) {
			keep = first ||
			       ops_trim_holds_one(addrs, n, start, size);
			first = false;
		}
		if (keep && ops_buf_put(out, p, (size_t)(next - p)))
			return -ENOMEM;
		p = next;
	}
	return 0;
}
