/* SPDX-License-Identifier: MIT */
/*
 * The one growable array: room for NEED elements of SIZE bytes in the
 * array *PP whose capacity is *CAP, doubling from 64 so that appending
 * one at a time costs amortised constant time.
 */
#ifndef OPUTIL_GROW_H
#define OPUTIL_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* PP points to the array's pointer.  0, or -ENOMEM with the array as it
 * was. */
static inline int oputil_grow(void *pp, size_t *cap, size_t need, size_t size)
{
	void **p = (void **)pp;
	size_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (size && n > SIZE_MAX / size)
		return -ENOMEM;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

#endif
