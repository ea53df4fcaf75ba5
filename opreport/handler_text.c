// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Text a handler hands us is printed as one line of ours, so whatever
 * it holds must not break the line or drive the terminal.
 */
#include "handler_internal.h"
#include "escape.h"

/* The report's one escape (escape.h), cut to LEN bytes. */
const char *handler_text_clean(const char *s, char *buf, size_t len)
{
	if (!s)
		return "(null)";
	if (!len)
		return "";
	escape_text(buf, len, s);
	return buf;
}
