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

#include <oputil/search.h>

#include "map_trim_internal.h"

bool ops_is_perf_map_name(const char *name)
{
	size_t n = strlen(name);

	return n > 9 && !strncmp(name, "perf-", 5) &&
	       !strcmp(name + n - 4, ".map");
}

static bool is_sep(char c)
{
	return c == ' ' || c == '\t';
}

/* A hex number at *P (0x allowed), then at least one separator. */
static bool take_hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	int d, digits = 0;

	if (end - s >= 2 && s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	for (*v = 0; s < end && (d = ops_hex_digit(*s)) >= 0; s++, digits++) {
		if (*v >> 60)
			return false;
		*v = *v << 4 | (uint64_t)d;
	}
	if (!digits || s == end || !is_sep(*s))
		return false;
	while (s < end && is_sep(*s))
		s++;
	*p = s;
	return true;
}

/* Whether LINE (without its newline) is an entry as perf map readers
 * take it: leading blanks, START, SIZE up to 2^32 - 1, and a name that
 * is not blank and holds no NUL. */
static bool entry_range(const char *p, const char *end, uint64_t *start,
			uint64_t *size)
{
	const char *name;

	while (p < end && is_sep(*p))
		p++;
	if (!take_hex(&p, end, start) || !take_hex(&p, end, size))
		return false;
	name = p;
	while (end > name && (is_sep(end[-1]) || end[-1] == '\r' ||
			      end[-1] == '\v' || end[-1] == '\f'))
		end--;
	return end > name && !memchr(name, '\0', (size_t)(end - name)) &&
	       *size <= UINT32_MAX && *size <= UINT64_MAX - *start;
}

/* Whether one of ADDRS (N, ascending) is in [LO, HI). */
static bool holds_one(const uint64_t *addrs, size_t n, uint64_t lo,
		      uint64_t hi)
{
	size_t i = oputil_partition(0, n, k, addrs[k] < lo);

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
		bool keep = true;

		if (entry_range(p, nl ? nl : end, &start, &size)) {
			keep = first || holds_one(addrs, n, start,
						  start + (size ? size : 1));
			first = false;
		}
		if (keep && ops_buf_put(out, p, (size_t)(next - p)))
			return -ENOMEM;
		p = next;
	}
	return 0;
}
