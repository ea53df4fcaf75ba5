/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * For tests linked with -Wl,--wrap=malloc and the like, which count or
 * fail allocations: the wrappers they define and the real functions.
 */
#ifndef OPJIT_TEST_WRAP_ALLOC_H
#define OPJIT_TEST_WRAP_ALLOC_H

#include <stddef.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);

#endif
