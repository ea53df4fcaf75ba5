// SPDX-License-Identifier: GPL-3.0-or-later
/* The line grammar here is util/include/oputil/perfmap_line.h's as it was
 * before its split into fields and entry check, digit by digit, so that
 * the oracle shares nothing with the trim but the addresses' binary
 * search. */
#include <errno.h>
#include <string.h>

#include "map_trim_ref.h"

static int ref_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool ref_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int d, digits = 0;

	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	while (s < end && (d = ref_hex_digit(*s)) >= 0) {
		if (v >> 60)
			return false;
		v = v << 4 | (uint64_t)d;
		s++;
		digits++;
	}
	if (!digits)
		return false;
	*p = s;
	*out = v;
	return true;
}

static bool ref_sep(const char **p, const char *end)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == *p)
		return false;
	*p = s;
	return true;
}

static bool ref_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool ref_line(const char *p, const char *end, uint64_t *start,
		     uint64_t *size)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (!ref_hex(&p, end, start) || !ref_sep(&p, end) ||
	    !ref_hex(&p, end, size) || !ref_sep(&p, end))
		return false;
	while (end > p && ref_blank(end[-1]))
		end--;
	if (end == p || memchr(p, '\0', (size_t)(end - p)))
		return false;
	return *size <= UINT32_MAX && *size <= UINT64_MAX - *start;
}

int perfmap_trim_ref(const char *text, size_t len, const uint64_t *addrs,
		     size_t n, struct ops_buf *out)
{
	const char *p = text, *end = text + len;
	bool first = true;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;
		uint64_t start, size;
		bool keep = true;

		if (ref_line(p, nl ? nl : end, &start, &size)) {
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
