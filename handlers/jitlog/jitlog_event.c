// SPDX-License-Identifier: MIT
/* Event samples with their stacks: one record each (FORMAT.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <oputil/clock.h>

#include "jitlog_event.h"
#include "jitlog_internal.h"
#include "jm_format.h"

static unsigned char *ev_put(unsigned char *p, uint64_t v, unsigned n)
{
	memcpy(p, &v, n); /* little-endian: the low N bytes */
	return p + n;
}

int opjit_jl_event(struct opjit_jitlog *log, const struct opjit_jl_event *ev)
{
	size_t wlen, rlen;
	unsigned char *rec, *p;
	int rc;

	if (!log || !ev || !ev->what || ev->nr_frames > 65535 ||
	    (ev->nr_frames && !ev->frames) ||
	    (ev->kind != OPJIT_JL_EVENT_ALLOC &&
	     ev->kind != OPJIT_JL_EVENT_LOCK))
		return -EINVAL;
	wlen = strnlen(ev->what, 1 << 20);
	if (wlen == 1 << 20)
		return -EINVAL;
	rlen = JM_REC_HEADER_SIZE + JM_EVENT_FIXED + wlen +
	       ev->nr_frames * JM_FRAME_SIZE;
	rec = malloc(rlen);
	if (!rec)
		return -ENOMEM;
	p = ev_put(rec, ev->kind, 2);
	p = ev_put(p, 0, 2);
	p = ev_put(p, rlen, 4);
	p = ev_put(p, oputil_clock_ns(CLOCK_MONOTONIC), 8);
	p = ev_put(p, ev->tid, 8);
	p = ev_put(p, ev->value, 8);
	p = ev_put(p, ev->aux, 8);
	p = ev_put(p, wlen, 4);
	p = ev_put(p, ev->nr_frames, 4);
	memcpy(p, ev->what, wlen);
	p += wlen;
	for (size_t i = 0; i < ev->nr_frames; i++) {
		p = ev_put(p, ev->frames[i].method, 8);
		p = ev_put(p, ev->frames[i].location, 4);
	}
	rc = opjit_jl_write(log, rec, rlen);
	free(rec);
	return rc;
}
