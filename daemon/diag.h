/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Where oprofiled's diagnostics go.  Each line the recorder has for the
 * user (a warning, why something failed, the summary) goes through
 * diag(), whole, without the command's name or a newline; the sink adds
 * both ("oprofiled: " and stderr, the default).  A test may collect them.
 */
#ifndef OPROFILED_DIAG_H
#define OPROFILED_DIAG_H

#include <stdarg.h>

/* Receives each line; CTX as given to diag_set_sink(). */
typedef void (*diag_sink_fn)(const char *line, void *ctx);

/* Send the lines to FN from now on; NULL restores the default. */
void diag_set_sink(diag_sink_fn fn, void *ctx);

/* One line for the user, printf-style. */
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vdiag(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
