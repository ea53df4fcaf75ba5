/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Memory that lives as long as the report: strings interned so that
 * rows can be grouped by pointer, and small blocks freed all at once.
 */
#ifndef OPREPORT_STRPOOL_H
#define OPREPORT_STRPOOL_H

#include <stddef.h>

struct strpool;

/* NULL when out of memory (not reported). */
struct strpool *strpool_new(void);
void strpool_free(struct strpool *p);

/* Zeroed memory freed with the pool, or NULL (not reported). */
void *strpool_alloc(struct strpool *p, size_t size);

/* The one copy of S in the pool (equal strings, equal pointers), or
 * NULL when out of memory (not reported). */
const char *strpool_intern(struct strpool *p, const char *s);

/* An interned string built like printf, or NULL (not reported). */
const char *strpool_printf(struct strpool *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
