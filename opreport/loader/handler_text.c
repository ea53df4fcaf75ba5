// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Text a handler hands us is printed as one line of ours, so whatever
 * it holds must not break the line or drive the terminal.
 */
#include <stdio.h>

#include "../diag.h"
#include "handler_internal.h"
#include <oputil/escape.h>

/* A handler that warns once per bad line of a million-line map would
 * bury the report; the first few say what is wrong. */
#define HANDLER_WARN_MAX 20

/* The report's one escape (oputil/escape.h), cut to LEN bytes. */
const char *handler_text_clean(const char *s, char *buf, size_t len)
{
	if (!s)
		return "(null)";
	if (!len)
		return "";
	oputil_escape_text(buf, len, s);
	return buf;
}

void handler_warn(struct anon_handler *h, const char *msg)
{
	char buf[1100];

	h->spoke = true;
	if (h->quiet || h->warnings++ >= HANDLER_WARN_MAX)
		return;
	diag("%s: %s", h->name,
	     handler_text_clean(msg ? msg : "", buf, sizeof(buf)));
}

void handler_warn_end(struct anon_handler *h)
{
	if (h->warnings > HANDLER_WARN_MAX)
		diag("%s: %lu more warnings not shown", h->name,
		     h->warnings - HANDLER_WARN_MAX);
	h->warnings = 0;
}
