/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A perf_event ring without the kernel: a memfd mapped by ring_open, with
 * the test playing the kernel's part (records written at data_head).
 */
#ifndef TESTS_DAEMON_FAKE_RING_H
#define TESTS_DAEMON_FAKE_RING_H

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record.h"
#include "ring.h"

/* Map a ring of PAGES data pages for CPU; 0 or a negative errno. */
static inline int fake_ring_open(struct ring *r, int cpu, size_t pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int fd = memfd_create("fake-ring", MFD_CLOEXEC);
	int err;

	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)((pages + 1) * page))) {
		close(fd);
		return -1;
	}
	err = ring_open(r, fd, cpu, pages);
	if (err)
		close(fd);
	return err;
}

static inline void fake_ring_close(struct ring *r)
{
	int fd = r->fd;

	ring_close(r);
	close(fd);
}

/* Append LEN bytes of record at the kernel's head, wrapping at the end;
 * 0, or -1 when the reader has not made room. */
static inline int fake_ring_put(struct ring *r, const void *rec, size_t len)
{
	struct perf_event_mmap_page *pg = r->base;
	uint64_t head = pg->data_head, size = r->mask + 1;
	uint64_t off = head & r->mask, first = size - off;

	if (head + len - pg->data_tail > size)
		return -1;
	if (first >= len) {
		memcpy(r->data + off, rec, len);
	} else {
		memcpy(r->data + off, rec, first);
		memcpy(r->data, (const char *)rec + first, len - first);
	}
	__atomic_store_n(&pg->data_head, head + len, __ATOMIC_RELEASE);
	return 0;
}

/* A sample at TIME on CPU, its IP a tag the test can follow. */
static inline int fake_ring_sample(struct ring *r, uint64_t time, uint32_t cpu,
				   uint64_t ip)
{
	struct record_sample s = {
		.h = { .type = PERF_RECORD_SAMPLE, .size = sizeof(s) },
		.ip = ip,
		.pid = 1,
		.tid = 1,
		.time = time,
		.cpu = cpu,
	};

	return fake_ring_put(r, &s, sizeof(s));
}

#endif
