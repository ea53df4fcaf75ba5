/* SPDX-License-Identifier: MIT */
/*
 * Where a program's diagnostics go, the one sink of oprofiled and
 * opreport.  A program's internals never print: each line they have for
 * the user (a warning, why something failed, a summary) goes through
 * diag(), whole, without the command's name or a newline.  The sink adds
 * both: "NAME: LINE" on stderr by default, NAME as the command set it
 * once with oputil_diag_set_program() (until then, the name it was
 * started under).  A test may collect the lines instead.
 *
 * The one piece of util/ with state of its own (the program's name and
 * sink), so it is a library, oputil_diag, rather than a header.
 */
#ifndef OPUTIL_DIAG_H
#define OPUTIL_DIAG_H

#include <stdarg.h>

/* Receives each line; CTX as given to oputil_diag_set_sink(). */
typedef void (*oputil_diag_sink_fn)(const char *line, void *ctx);

/* The command's name before each line on stderr; NAME must outlive the
 * program's diagnostics (a string literal). */
void oputil_diag_set_program(const char *name);

/* Send the lines to FN from now on; NULL restores the default. */
void oputil_diag_set_sink(oputil_diag_sink_fn fn, void *ctx);

/* One line for the user, printf-style. */
void oputil_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void oputil_vdiag(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

/* The short names every file of the programs calls. */
typedef oputil_diag_sink_fn diag_sink_fn;
#define diag(...) oputil_diag(__VA_ARGS__)
#define vdiag(fmt, ap) oputil_vdiag(fmt, ap)
#define diag_set_sink(fn, ctx) oputil_diag_set_sink(fn, ctx)

#endif
