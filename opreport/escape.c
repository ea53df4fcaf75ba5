// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The one escape for names a report prints (escape.h): a name is another
 * user's text, and must neither break a line nor drive the terminal.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"

/* Length of the valid UTF-8 sequence at P (lead byte >= 0x80), or 0. */
static size_t utf8_len(const unsigned char *p, uint32_t *cp)
{
	size_t n, i;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, *cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, *cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, *cp = p[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (p[i] & 0x3f);
	}
	return n;
}

/*
 * Bytes at P a terminal could take as a control: C0 controls and DEL
 * (one byte), C1 controls written in UTF-8 (U+0080..U+009F, two bytes),
 * and any byte of invalid UTF-8 (an 8-bit terminal reads 0x9b as CSI).
 * Returns how many bytes to escape at P, or 0 and in *KEEP how many to
 * copy as they are.
 */
static size_t escape_span(const unsigned char *p, size_t *keep)
{
	uint32_t cp;
	size_t n;

	*keep = 1;
	if (p[0] < 0x20 || p[0] == 0x7f)
		return 1;
	if (p[0] < 0x80)
		return 0;
	n = utf8_len(p, &cp);
	if (!n)
		return 1;
	if (cp >= 0x80 && cp <= 0x9f)
		return n;
	*keep = n;
	return 0;
}

size_t escape_text(char *dst, size_t cap, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 0, esc, keep, i, n;
	char tmp[5];

	for (; s && *p; p += esc ? esc : keep) {
		esc = escape_span(p, &keep);
		for (i = 0; i < (esc ? esc : keep); i++) {
			if (!esc)
				tmp[0] = (char)p[i], tmp[1] = '\0';
			else if (p[i] == '\n' || p[i] == '\t' || p[i] == '\r')
				snprintf(tmp, sizeof(tmp), "\\%c",
					 p[i] == '\n'	? 'n'
					 : p[i] == '\t' ? 't'
							: 'r');
			else
				snprintf(tmp, sizeof(tmp), "\\x%02x", p[i]);
			for (n = 0; tmp[n]; n++, len++)
				if (len + 1 < cap)
					dst[len] = tmp[n];
		}
	}
	if (cap)
		dst[len < cap ? len : cap - 1] = '\0';
	return len;
}

bool escape_needed(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t keep;

	for (; *p; p += keep)
		if (escape_span(p, &keep))
			return true;
	return false;
}
