/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Samples whose mapping is not known yet: the record that announces it may
 * sit in another CPU's buffer.  A fixed ring, so that holding them never
 * allocates and never grows.
 */
#ifndef OPROFILED_PENDING_H
#define OPROFILED_PENDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pending_sample {
	uint64_t time, ip;
	uint32_t pid, tid;
	int32_t cpu;
	uint16_t misc;
	uint16_t tries;
	/* the call chain as the kernel gave it (PERF_CONTEXT_* markers
	 * included), or NULL; a held sample's points into the ring */
	const uint64_t *chain;
	uint32_t nr_chain;
	uint32_t event; /* the session's event index (recorder.event) */
	/* PERF_SAMPLE_REGS_USER (bp, sp, ip) and the stack copy, or NULL;
	 * never held: they point into the ring */
	const uint64_t *regs;
	const uint8_t *stack;
	uint32_t stack_size;
};

struct pending {
	struct pending_sample *v;
	size_t cap, head, n;
	uint64_t *chains; /* CHAIN_MAX entries per slot, or NULL */
	size_t chain_max;
};

int pending_init(struct pending *p, size_t cap);
/* Room for a call chain of up to CHAIN_MAX entries in every slot: held
 * samples keep their chains without allocating. */
int pending_init_chains(struct pending *p, size_t chain_max);
void pending_free(struct pending *p);
/* Hold S; when the ring is full the oldest sample is pushed out into
 * *EVICTED and true is returned. */
bool pending_push(struct pending *p, const struct pending_sample *s,
		  struct pending_sample *evicted);
bool pending_pop(struct pending *p, struct pending_sample *out);

#endif
