// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Text a handler hands us is printed as one line of ours, so whatever
 * it holds must not break the line or drive the terminal.
 */
#include "handler_internal.h"

const char *handler_text_clean(const char *s, char *buf, size_t len)
{
	size_t i;

	if (!s)
		return "(null)";
	if (!len)
		return "";
	for (i = 0; s[i] && i + 1 < len; i++) {
		unsigned char c = (unsigned char)s[i];

		buf[i] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
	}
	buf[i] = '\0';
	return buf;
}
