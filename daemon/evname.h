/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The event names oprofiled accepts, as perf spells them. */
#ifndef OPROFILED_EVNAME_H
#define OPROFILED_EVNAME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct evname {
	const char *name;
	uint32_t type;	 /* PERF_TYPE_* */
	uint64_t config; /* PERF_COUNT_* */
};

/* The event called NAME, or NULL. */
const struct evname *evname_find(const char *name);
bool evname_is_hardware(const struct evname *ev);
/* List on OUT the events this machine lets the caller sample, probing
 * each with perf_event_open, and say so when none of a kind works. */
void evname_list(FILE *out);

#endif
