/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Sorting a process's anonymous samples by (address, time), the order
 * handlers take them in, in place: a JIT-hot process has millions, and
 * qsort's merge sort would hold a second copy of them all.
 */
#ifndef OPREPORT_ANON_SORT_H
#define OPREPORT_ANON_SORT_H

#include <stddef.h>

#include <opjit/samples.h>

/* Introsort: quicksort, with heapsort below a depth limit so that no
 * session, however crafted, makes it quadratic. */
void anon_sort(struct ops_anon_sample *v, size_t n);

#endif
