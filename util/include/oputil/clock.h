/* SPDX-License-Identifier: MIT */
/*
 * The time of a clock in nanoseconds.  Samples, map records and process
 * starts are all CLOCK_MONOTONIC nanoseconds; the other clocks are read
 * only to convert to it.
 */
#ifndef OPUTIL_CLOCK_H
#define OPUTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t oputil_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
