/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The layout of the records oprofiled asks for: samples carry IP, TID,
 * TIME and CPU, and every other record ends with the same TID, TIME and
 * CPU (sample_id_all).
 */
#ifndef OPROFILED_RECORD_H
#define OPROFILED_RECORD_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct record_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

struct record_sample {
	struct perf_event_header h;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

struct record_mmap2 {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		};
		struct {
			uint8_t build_id_size, res1;
			uint16_t res2;
			uint8_t build_id[20];
		};
	};
	uint32_t prot, flags;
	char filename[];
};

struct record_comm {
	struct perf_event_header h;
	uint32_t pid, tid;
	char comm[];
};

struct record_task { /* FORK and EXIT */
	struct perf_event_header h;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct record_lost {
	struct perf_event_header h;
	uint64_t id, lost;
};

struct record_lost_samples {
	struct perf_event_header h;
	uint64_t lost;
};

/* The record's time, for merging the CPUs' buffers in order; 0 when it
 * has none. */
static inline uint64_t record_time(const struct perf_event_header *h)
{
	uint64_t t = 0;

	if (h->type == PERF_RECORD_SAMPLE) {
		if (h->size >= sizeof(struct record_sample))
			memcpy(&t,
			       (const char *)h +
				       offsetof(struct record_sample, time),
			       sizeof(t));
		return t;
	}
	if (h->type >= PERF_RECORD_MAX ||
	    h->size < sizeof(*h) + sizeof(struct record_sample_id))
		return 0;
	memcpy(&t,
	       (const char *)h + h->size - sizeof(struct record_sample_id) +
		       offsetof(struct record_sample_id, time),
	       sizeof(t));
	return t;
}

#endif
