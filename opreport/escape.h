/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Names come from other users' files (symbol names in JIT maps and from
 * handlers, image paths, source file names, the recorded command line),
 * so every one a text or CSV report prints, and every warning, goes
 * through this one escape: a newline, tab or carriage return becomes \n,
 * \t or \r, and every other byte a terminal could take as a control (C0
 * controls, DEL, C1 controls written in UTF-8, bytes of invalid UTF-8)
 * becomes \xHH.  Valid UTF-8 text is left as it is, a backslash too.
 * JSON escapes by its own rules.
 */
#ifndef OPREPORT_ESCAPE_H
#define OPREPORT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

/* Write S escaped into DST (at most CAP bytes, terminated when CAP > 0;
 * DST may be NULL when CAP is 0); returns the escaped length. */
size_t escape_text(char *dst, size_t cap, const char *s);

/* Whether S holds anything escape_text would change. */
bool escape_needed(const char *s);

#endif
