/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Where opreport's diagnostics go.  The report's internals never print:
 * each line they have for the user (a warning, or why something failed)
 * goes through diag(), whole, without the command's name or a newline.
 * The command decides where lines go and how they look (opreport.c:
 * "opreport: " and stderr, the default); a test may collect them.
 */
#ifndef OPREPORT_DIAG_H
#define OPREPORT_DIAG_H

#include <stdarg.h>

/* Receives each line; CTX as given to diag_set_sink(). */
typedef void (*diag_sink_fn)(const char *line, void *ctx);

/* Send the lines to FN from now on; NULL restores the default. */
void diag_set_sink(diag_sink_fn fn, void *ctx);

/* One line for the user, printf-style. */
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vdiag(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
