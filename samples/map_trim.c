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

/*
 * The first of ADDRS (N, ascending) not below LO, searched outward from
 * AT, the last line's answer: a JIT writes its map mostly in address
 * order (node: 96 lines in 100 above the one before), so the answer is
 * most often where the last one was or a step past it, and a binary
 * search of the whole set for each of 200,000 lines was most of the
 * trim's time.  Galloping keeps a line far from the last at a binary
 * search's cost, twice over.
 */
static size_t trim_seek(const uint64_t *addrs, size_t n, size_t at,
			uint64_t lo)
{
	size_t l, h, step = 1;

	if (at < n && addrs[at] < lo) {
		/* after AT: every address up to L - 1 is below LO */
		l = at + 1;
		while (l + step - 1 < n && addrs[l + step - 1] < lo) {
			l += step;
			step *= 2;
		}
		h = l + step - 1 < n ? l + step - 1 : n;
	} else {
		/* at or before AT: ADDRS[H] is not below LO, or H is N */
		h = at;
		while (h >= step && addrs[h - step] >= lo) {
			h -= step;
			step *= 2;
		}
		l = h >= step ? h - step + 1 : 0;
	}
	return oputil_partition(l, h, k, addrs[k] < lo);
}

int ops_perfmap_trim(const char *text, size_t len, const uint64_t *addrs,
		     size_t n, struct ops_buf *out)
{
	const char *p = text, *end = text + len;
	/* the next NUL from P on (END when none): found once for the whole
	 * map, not once a line, as most maps have none */
	const char *nul = text;
	bool first = true;
	size_t at = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *next = nl ? nl + 1 : end;
		uint64_t start, size, hi;
		const char *name = oputil_perfmap_fields(p, le, &start, &size);
		size_t nlen;
		bool keep = true, entry;

		if (name && !first) {
			/* as ops_trim_holds_one(): at least a byte, to the end
			 * of the address space when it wraps */
			at = trim_seek(addrs, n, at, start);
			hi = start + (size ? size : 1);
			keep = at < n && (hi < start || addrs[at] < hi);
		}
		/* the first entry is kept, and so is every line that is
		 * not an entry: whether this one is, only when it
		 * matters */
		if (name && (first || !keep)) {
			if (nul < name) {
				nul = memchr(name, '\0', (size_t)(end - name));
				nul = nul ? nul : end;
			}
			entry = oputil_perfmap_entry(name, le, start, size,
						     nul, &nlen);
			first = first && !entry;
			keep = keep || !entry;
		}
		if (keep && ops_buf_put(out, p, (size_t)(next - p)))
			return -ENOMEM;
		p = next;
	}
	return 0;
}
