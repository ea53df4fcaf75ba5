/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The map's event samples (allocations, contended monitor enters) as
 * weighted stacks named with the method table CPU samples are named
 * with: what a report of --event=alloc or --event=lock adds up.  No I/O.
 */
#ifndef OPJIT_JM_EVENTS_H
#define OPJIT_JM_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "jm_resolve.h"

/*
 * One sample: FRAMES[0..N) root first, the event's class last (the
 * allocated class, the monitor's class), each "name" or, when its method
 * knows the line, "name:line" when LINES was asked for.  WEIGHT is what
 * the sample stands for: for an allocation, the bytes it estimates (the
 * sampling interval or the object's size, whichever is larger, as JFR
 * estimates); for a lock, the nanoseconds waited.  The strings live
 * until the callback returns.
 */
typedef int (*jm_event_cb)(void *arg, const char *const *frames, size_t n,
			   uint64_t weight);

/* Each sample of KIND (JM_REC_ALLOC, JM_REC_LOCK) in file order; CB's
 * non-zero return stops the walk and is returned; -ENOMEM. */
int jm_events_walk(struct jm_state *st, unsigned kind, int lines,
		   jm_event_cb cb, void *arg);

/* The weight of EV, as above. */
uint64_t jm_event_weight(const struct jm_event *ev);

#endif
