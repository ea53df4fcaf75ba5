// SPDX-License-Identifier: GPL-3.0-or-later
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "diag.h"

static void to_stderr(const char *line, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "opreport: %s\n", line);
}

static diag_sink_fn sink = to_stderr;
static void *sink_ctx;

void diag_set_sink(diag_sink_fn fn, void *ctx)
{
	sink = fn ? fn : to_stderr;
	sink_ctx = fn ? ctx : NULL;
}

void diag(const char *fmt, ...)
{
	char small[512], *line = small;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	/* a longer line is built whole rather than cut: it names a path */
	if (n >= (int)sizeof(small)) {
		va_start(ap, fmt);
		if (vasprintf(&line, fmt, ap) < 0)
			line = small;
		va_end(ap);
	}
	sink(line, sink_ctx);
	if (line != small)
		free(line);
}
