// SPDX-License-Identifier: GPL-3.0-or-later
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "diag.h"

static void to_stderr(const char *line, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "oprofiled: %s\n", line);
}

static diag_sink_fn sink = to_stderr;
static void *sink_ctx;

void diag_set_sink(diag_sink_fn fn, void *ctx)
{
	sink = fn ? fn : to_stderr;
	sink_ctx = fn ? ctx : NULL;
}

void vdiag(const char *fmt, va_list ap)
{
	char small[512], *line = small;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	/* a longer line is built whole rather than cut: it names a path */
	if (n >= (int)sizeof(small) && vasprintf(&line, fmt, again) < 0)
		line = small;
	va_end(again);
	sink(line, sink_ctx);
	if (line != small)
		free(line);
}

void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(fmt, ap);
	va_end(ap);
}
