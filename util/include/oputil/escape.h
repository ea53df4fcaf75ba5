/* SPDX-License-Identifier: MIT */
/*
 * The one escape for every name from outside (symbol names in JIT maps
 * and from handlers, image and library paths, source file names, a
 * process's comm, the recorded command line) that any opjit program
 * prints: a name is another user's text, and must neither break a line
 * nor drive a terminal.
 *
 * Text (oputil_escape_text): a newline, tab or carriage return becomes
 * \n, \t or \r, and every other byte a terminal could take as a control
 * (C0 controls, DEL, C1 controls written in UTF-8, any byte of invalid
 * UTF-8: an 8-bit terminal reads 0x9b as CSI) becomes \xHH.  Valid UTF-8
 * text is left as it is, a backslash too.
 *
 * JSON (oputil_escape_json): a JSON string's contents, always valid
 * UTF-8: '"' and '\' escaped, \n \t \r as such, every other control (C0,
 * DEL, C1) as \u00XX, and each byte of invalid UTF-8 as \ufffd (the
 * replacement character).  Valid UTF-8 text is left as it is.
 *
 * Both write into DST (at most CAP bytes, terminated when CAP > 0; DST
 * may be NULL when CAP is 0) and return the escaped length, as snprintf.
 */
#ifndef OPUTIL_ESCAPE_H
#define OPUTIL_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Length of the valid UTF-8 sequence at P (lead byte >= 0x80), or 0;
 * its code point in *CP.  Overlong forms, surrogates and code points
 * past U+10FFFF are invalid. */
static inline size_t oputil_utf8_len(const unsigned char *p, uint32_t *cp)
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
	if ((n == 3 && (*cp < 0x800 || (*cp >= 0xd800 && *cp <= 0xdfff))) ||
	    (n == 4 && (*cp < 0x10000 || *cp > 0x10ffff)))
		return 0;
	return n;
}

/*
 * What to do with the bytes at P: returns how many bytes to escape at P
 * (a control: C0, DEL, a C1 control in UTF-8, with *CP its code point;
 * or one byte of invalid UTF-8, with *CP UINT32_MAX), or 0 and in *KEEP
 * how many to copy as they are.
 */
static inline size_t oputil_escape_span(const unsigned char *p, size_t *keep,
					uint32_t *cp)
{
	size_t n;

	*keep = 1;
	*cp = p[0];
	if (p[0] < 0x20 || p[0] == 0x7f)
		return 1;
	if (p[0] < 0x80)
		return 0;
	n = oputil_utf8_len(p, cp);
	if (!n) {
		*cp = UINT32_MAX;
		return 1;
	}
	if (*cp >= 0x80 && *cp <= 0x9f)
		return n;
	*keep = n;
	return 0;
}

/* Append the NUL-terminated T to DST (CAP bytes) at *LEN. */
static inline void oputil_escape_put(char *dst, size_t cap, size_t *len,
				     const char *t)
{
	for (; *t; t++, (*len)++)
		if (*len + 1 < cap)
			dst[*len] = *t;
}

static inline size_t oputil_escape_text(char *dst, size_t cap, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 0, esc, keep, i;
	char tmp[8];
	uint32_t cp;

	for (; s && *p; p += esc ? esc : keep) {
		esc = oputil_escape_span(p, &keep, &cp);
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
			oputil_escape_put(dst, cap, &len, tmp);
		}
	}
	if (cap)
		dst[len < cap ? len : cap - 1] = '\0';
	return len;
}

/* Whether S holds anything oputil_escape_text would change. */
static inline bool oputil_escape_needed(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t keep;
	uint32_t cp;

	for (; *p; p += keep)
		if (oputil_escape_span(p, &keep, &cp))
			return true;
	return false;
}

/* S escaped into BUF for one line of a message, cut to CAP bytes (a cut
 * escape is still no control): BUF, or "(null)" for NULL. */
static inline const char *oputil_escape(char *buf, size_t cap, const char *s)
{
	if (!s)
		return "(null)";
	oputil_escape_text(buf, cap, s);
	return buf;
}

static inline size_t oputil_escape_json(char *dst, size_t cap, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 0, esc, keep;
	char tmp[8];
	uint32_t cp;

	for (; s && *p; p += esc ? esc : keep) {
		esc = oputil_escape_span(p, &keep, &cp);
		if (esc && cp == UINT32_MAX)
			snprintf(tmp, sizeof(tmp), "\\ufffd");
		else if (esc && (cp == '\n' || cp == '\t' || cp == '\r'))
			snprintf(tmp, sizeof(tmp), "\\%c",
				 cp == '\n'   ? 'n'
				 : cp == '\t' ? 't'
					      : 'r');
		else if (esc)
			snprintf(tmp, sizeof(tmp), "\\u%04x",
				 (unsigned int)cp);
		else if (*p == '"' || *p == '\\')
			snprintf(tmp, sizeof(tmp), "\\%c", *p);
		else {
			size_t i;

			for (i = 0; i < keep; i++)
				tmp[i] = (char)p[i];
			tmp[keep] = '\0';
		}
		oputil_escape_put(dst, cap, &len, tmp);
	}
	if (cap)
		dst[len < cap ? len : cap - 1] = '\0';
	return len;
}

#endif /* OPUTIL_ESCAPE_H */
