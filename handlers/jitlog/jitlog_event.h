/* SPDX-License-Identifier: MIT */
/*
 * Event samples with their stacks (FORMAT.md, kinds ALLOC and LOCK): what
 * a runtime records beside its code, for opreport's --event=.  Not part
 * of the shared library's API yet: the JVMTI agent links the static
 * library and calls it.
 */
#ifndef OPJIT_JITLOG_EVENT_H
#define OPJIT_JITLOG_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "opjit/jitlog.h"

/* opjit_jl_event.kind */
#define OPJIT_JL_EVENT_ALLOC 16u /* VALUE: object bytes; AUX: interval */
#define OPJIT_JL_EVENT_LOCK 17u	 /* VALUE: ns waited; AUX: threshold */

struct opjit_jl_event {
	unsigned kind;
	uint64_t tid;	  /* the thread's id in the writer's pid namespace */
	uint64_t value;	  /* what the event weighs, by kind */
	uint64_t aux;	  /* by kind */
	const char *what; /* the allocated class, the monitor's class */
	/* innermost first; method ids as opjit_jitlog_method() set them */
	const struct opjit_jitlog_frame *frames;
	size_t nr_frames; /* at most 65535 */
};

/* Log EV, stamped now.  0, -EINVAL for a malformed event, or what
 * writing the log returns. */
int opjit_jl_event(struct opjit_jitlog *log, const struct opjit_jl_event *ev);

#endif
