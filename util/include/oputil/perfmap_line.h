/* SPDX-License-Identifier: MIT */
/*
 * One line of the perf map text format, in every dialect real runtimes
 * write:
 *   START SIZE NAME
 * START and SIZE in hex, with or without 0x, any case (the JDK's jcmd
 * writes 0x, .NET writes 16 upper-case digits), after optional spaces
 * or tabs; NAME is the rest of the line and may hold spaces.  The reader
 * of a map and the session's trim of it must agree on what an entry is,
 * so both take it from here.
 */
#ifndef OPUTIL_PERFMAP_LINE_H
#define OPUTIL_PERFMAP_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hex.h"

/* Blanks a line may end in (CRLF files among them). */
static inline bool oputil_perfmap_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* A hex number at *P, advancing it; false on no digits or overflow. */
static inline bool oputil_perfmap_hex(const char **p, const char *end,
				      uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int d, digits = 0;

	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	while (s < end && (d = oputil_hex_digit(*s)) >= 0) {
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

/* Skip spaces and tabs; false when there were none. */
static inline bool oputil_perfmap_sep(const char **p, const char *end)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == *p)
		return false;
	*p = s;
	return true;
}

/*
 * The fields of the line P..END (without its '\n') before its name: its
 * START and SIZE, each after optional (then required) spaces or tabs, and
 * the separator after SIZE.  Where the name starts, or NULL when the line
 * cannot be an entry.  A line that passes is an entry when
 * oputil_perfmap_entry() says so too; oputil_perfmap_line() is the two.
 */
static inline const char *oputil_perfmap_fields(const char *p, const char *end,
						uint64_t *start,
						uint64_t *size)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (!oputil_perfmap_hex(&p, end, start) ||
	    !oputil_perfmap_sep(&p, end) ||
	    !oputil_perfmap_hex(&p, end, size) || !oputil_perfmap_sep(&p, end))
		return NULL;
	return p;
}

/*
 * Whether a line whose fields (START, SIZE) passed oputil_perfmap_fields()
 * with its name at P..END is an entry: SIZE at most 2^32 - 1, START + SIZE
 * not past 2^64, and the name, trailing blanks left out, not blank and
 * holding no NUL.  NUL is the first NUL at or after P, or any pointer at
 * or past END when there is none: a caller that scans a whole map finds
 * them once for every line.  The name's length in *NLEN.
 */
static inline bool oputil_perfmap_entry(const char *p, const char *end,
					uint64_t start, uint64_t size,
					const char *nul, size_t *nlen)
{
	while (end > p && oputil_perfmap_blank(end[-1]))
		end--;
	if (end == p || nul < end)
		return false;
	if (size > UINT32_MAX || size > UINT64_MAX - start)
		return false;
	*nlen = (size_t)(end - p);
	return true;
}

/*
 * Whether the line P..END (without its '\n') is an entry: its START,
 * SIZE (at most 2^32 - 1, and START + SIZE not past 2^64) and NAME, which
 * points into the line, trailing blanks left out, not blank and holding
 * no NUL.
 */
static inline bool oputil_perfmap_line(const char *p, const char *end,
				       uint64_t *start, uint64_t *size,
				       const char **name, size_t *nlen)
{
	const char *nul;

	p = oputil_perfmap_fields(p, end, start, size);
	if (!p)
		return false;
	nul = memchr(p, '\0', (size_t)(end - p));
	if (!oputil_perfmap_entry(p, end, *start, *size, nul ? nul : end,
				  nlen))
		return false;
	*name = p;
	return true;
}

#endif
