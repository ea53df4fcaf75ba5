// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "oputil/diag.h"

/* until the command says otherwise, the name it was started under */
static const char *program;

static void to_stderr(const char *line, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "%s: %s\n",
		program ? program : program_invocation_short_name, line);
}

static oputil_diag_sink_fn sink = to_stderr;
static void *sink_ctx;

void oputil_diag_set_program(const char *name)
{
	program = name;
}

void oputil_diag_set_sink(oputil_diag_sink_fn fn, void *ctx)
{
	sink = fn ? fn : to_stderr;
	sink_ctx = fn ? ctx : NULL;
}

void oputil_vdiag(const char *fmt, va_list ap)
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

void oputil_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	oputil_vdiag(fmt, ap);
	va_end(ap);
}
