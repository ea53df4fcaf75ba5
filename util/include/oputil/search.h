/* SPDX-License-Identifier: MIT */
/*
 * One binary search for the whole tree.  Sorted arrays here are searched
 * for "the last entry at or before a key" or "the first entry not before
 * it", with keys of every shape (a field, a pair, a string); both are a
 * partition point, so that is the one primitive.
 */
#ifndef OPUTIL_SEARCH_H
#define OPUTIL_SEARCH_H

#include <stddef.h>

/*
 * The first index in [LO, HI) at which the expression BEFORE is false,
 * or HI.  BEFORE is evaluated with the variable named IDX set to the
 * index being probed; it must be true on a prefix of the range and false
 * on the rest, as "entry IDX sorts before the key" is on a sorted array.
 *
 *	n = oputil_partition(0, t->n, i, t->v[i].start <= addr);
 *	last = n ? &t->v[n - 1] : NULL;	// the last entry at or before addr
 */
#define oputil_partition(lo, hi, idx, before)                               \
	({                                                                  \
		size_t oputil_lo_ = (lo), oputil_hi_ = (hi);                \
		while (oputil_lo_ < oputil_hi_) {                           \
			size_t idx =                                        \
				oputil_lo_ + (oputil_hi_ - oputil_lo_) / 2; \
			if (before)                                         \
				oputil_lo_ = idx + 1;                       \
			else                                                \
				oputil_hi_ = idx;                           \
		}                                                           \
		oputil_lo_;                                                 \
	})

#endif
