/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A perf_event ring buffer, read in place. */
#ifndef OPROFILED_RING_H
#define OPROFILED_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* PERF_SAMPLE_REGS_USER's mask: x86-64's bp, sp and ip (bits 6, 7, 8 of
 * asm/perf_regs.h), in that order in a sample */
#define RING_STACK_REGS ((1ull << 6) | (1ull << 7) | (1ull << 8))
#define RING_STACK_NR_REGS 3

struct ring {
	int fd;
	int cpu;
	uint32_t event; /* the session's event of its samples (an index) */
	void *base;	/* metadata page, then the data */
	size_t map_size;
	unsigned char *data;
	uint64_t mask;	       /* data size - 1 */
	uint64_t head;	       /* data_head when last snapshot */
	uint64_t tail;	       /* where we read; published by ring_publish */
	unsigned char *bounce; /* a record that wraps, made contiguous */
	const struct perf_event_header *cur; /* peeked record */
};

/* Map DATA_PAGES (a power of two) pages of FD's buffer. */
int ring_open(struct ring *r, int fd, int cpu, size_t data_pages);
void ring_close(struct ring *r);
void ring_snapshot(struct ring *r);
/* The next record before the snapshot, contiguous, or NULL. */
const struct perf_event_header *ring_peek(struct ring *r);
void ring_advance(struct ring *r);
/* Give the space read so far back to the kernel. */
void ring_publish(struct ring *r);

/*
 * Merging the records of many rings oldest first.  A binary heap holds
 * each ring that has a record before its snapshot, keyed by that record's
 * time (then by the ring's place, so equal times come out in CPU order):
 * one record costs O(log CPUs), not a scan of every CPU.
 */
struct ring_merge_slot {
	uint64_t time;
	uint32_t idx;
	struct ring *ring;
};

struct ring_merge {
	struct ring_merge_slot *heap;
	size_t n, cap;
	const struct ring *ring; /* the one whose record FN is given */
};

/* Room for NR_RINGS rings: ring_merge_drain's NR is at most that. */
int ring_merge_init(struct ring_merge *m, size_t nr_rings);
void ring_merge_free(struct ring_merge *m);
/*
 * Snapshot every open ring of RINGS[NR] (base set), hand each record to
 * FN oldest first, then publish what was read.  Records without a time
 * (time 0) come out first, as they did when they arrived.
 */
void ring_merge_drain(struct ring_merge *m, struct ring *rings, size_t nr,
		      void (*fn)(void *arg, const struct perf_event_header *h),
		      void *arg);

#endif
