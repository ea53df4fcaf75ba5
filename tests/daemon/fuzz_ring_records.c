// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libFuzzer: any stream of perf records through the daemon's ring reader
 * and recorder, as oprofiled reads them: two CPUs' rings (small, so that
 * records wrap), merged oldest first, each record handed to the recorder,
 * rounds ended, flushed and finished into a session.  Byte 0 picks the
 * recording's options; the rest is records, each taking its size from
 * its own header (cut short at the input's end, padded to 8 bytes as
 * the kernel pads them).  Process ids are moved above any the kernel
 * gives, so that nothing of the machine's own processes is read or
 * attached to.
 */
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opjit/samples.h>

#include "fake_ring.h"
#include "record.h"
#include "recorder.h"

#define RING_PAGES 2
#define NR_RINGS 2
/* above the kernel's PID_MAX_LIMIT (2^22) */
#define FAKE_PID_BASE 0x40000000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void remove_dir(void)
{
	char *slash = strrchr(dir, '/');

	*slash = '\0';
	rmdir(dir);
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void fake_pid(unsigned char *rec, size_t len, size_t off)
{
	uint32_t pid;

	if (off + sizeof(pid) > len)
		return;
	memcpy(&pid, rec + off, sizeof(pid));
	pid = FAKE_PID_BASE | (pid & 0xffffu);
	memcpy(rec + off, &pid, sizeof(pid));
}

/* Every pid and tid the recorder looks at, by the record's layout. */
static void fake_pids(unsigned char *rec, size_t len)
{
	const struct perf_event_header *h = (const void *)rec;

	if (h->type == PERF_RECORD_SAMPLE) {
		fake_pid(rec, len, offsetof(struct record_sample, pid));
		fake_pid(rec, len, offsetof(struct record_sample, tid));
		return;
	}
	fake_pid(rec, len, offsetof(struct record_task, pid));
	fake_pid(rec, len, offsetof(struct record_task, ppid));
	fake_pid(rec, len, offsetof(struct record_task, tid));
	if (len >= sizeof(*h) + sizeof(struct record_sample_id)) {
		fake_pid(rec, len, len - sizeof(struct record_sample_id));
		fake_pid(rec, len, len - sizeof(struct record_sample_id) + 4);
	}
}

static void feed(void *arg, const struct perf_event_header *h)
{
	recorder_record(arg, h);
}

static void drain(struct ring_merge *m, struct ring *rings, struct recorder *r)
{
	ring_merge_drain(m, rings, NR_RINGS, feed, r);
	recorder_end_round(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ops_session_info info = {
		.event = "cpu-clock",
		.frequency = 4000,
		.clock = "CLOCK_MONOTONIC",
	};
	struct recorder_config cfg = { 0 };
	struct ring rings[NR_RINGS] = { 0 };
	unsigned char rec[1 << 16];
	struct ops_writer *w = NULL;
	struct ring_merge m;
	struct recorder r;
	size_t at = 1;
	unsigned n = 0;

	if (!size)
		return 0;
	if (!*dir) {
		/* a session a run: in memory where there is a tmpfs, where
		 * the writer's syncs cost nothing */
		strcpy(dir, access("/dev/shm", W_OK)
				    ? "/tmp/fuzz_ring.XXXXXX"
				    : "/dev/shm/fuzz_ring.XXXXXX");
		if (!mkdtemp(dir))
			abort();
		strcat(dir, "/s");
		atexit(remove_dir);
	}
	info.separate = cfg.separate = data[0] & 3u;
	cfg.callgraph_depth = info.callgraph_depth = data[0] & 4u ? 8 : 0;
	if (ops_writer_open(&w, dir, &info) || recorder_init(&r, w, &cfg) ||
	    ring_merge_init(&m, NR_RINGS))
		abort();
	for (int i = 0; i < NR_RINGS; i++)
		if (fake_ring_open(&rings[i], i, RING_PAGES))
			abort();
	while (at < size) {
		struct perf_event_header h = { 0 };
		size_t len, room = size - at;

		memcpy(&h, data + at, room < sizeof(h) ? room : sizeof(h));
		len = h.size < sizeof(h) ? sizeof(h) : h.size;
		len = (len + 7) & ~(size_t)7;
		if (len > 0xfff8)
			len = 0xfff8;
		memset(rec, 0, len);
		memcpy(rec, data + at, room < len ? room : len);
		((struct perf_event_header *)rec)->size = (uint16_t)len;
		at += room < len ? room : len;
		fake_pids(rec, len);
		/* the record's misc picks its CPU; a full ring is read */
		if (fake_ring_put(&rings[h.misc >> 15], rec, len)) {
			drain(&m, rings, &r);
			if (fake_ring_put(&rings[h.misc >> 15], rec, len))
				continue; /* larger than the ring */
		}
		if (++n % 16 == 0)
			drain(&m, rings, &r);
		if (n % 64 == 0)
			recorder_flush(&r);
	}
	drain(&m, rings, &r);
	recorder_finish(&r);
	recorder_flush(&r);
	ops_writer_finish(w, 1);
	ops_writer_free(w);
	recorder_free(&r);
	ring_merge_free(&m);
	for (int i = 0; i < NR_RINGS; i++)
		fake_ring_close(&rings[i]);
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}
