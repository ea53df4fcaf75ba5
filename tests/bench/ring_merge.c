// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * bench_ring_merge: what merging the CPUs' rings costs per record, for a
 * few CPU counts, by oprofiled's merge (a heap) and by the scan of every
 * CPU per record that it replaced, on the same records.  The rings are
 * memfd rings filled by this program in the kernel's place.
 *
 *   bench_ring_merge [RECORDS [CPUS...]]     (default 2000000, 2 8 64)
 *
 * Prints one line per CPU count; exits 1 if the two merges ever hand the
 * records over in a different order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fake_ring.h"
#include "ring.h"

#define PER_ROUND 20000

struct sink {
	uint64_t hash;
	uint64_t n;
};

static void consume(void *arg, const struct perf_event_header *h)
{
	struct sink *s = arg;
	const struct record_sample *r = (const void *)h;

	s->hash = s->hash * 1000003u + r->ip;
	s->n++;
}

/* The merge before the heap: scan every CPU for the oldest record. */
static void scan_drain(struct ring *rings, size_t nr, struct sink *s)
{
	for (size_t i = 0; i < nr; i++)
		ring_snapshot(&rings[i]);
	for (;;) {
		struct ring *best = NULL;
		uint64_t best_t = UINT64_MAX;

		for (size_t i = 0; i < nr; i++) {
			const struct perf_event_header *h;
			uint64_t t;

			if (!rings[i].base || !(h = ring_peek(&rings[i])))
				continue;
			t = record_time(h);
			if (!best || t < best_t) {
				best = &rings[i];
				best_t = t;
			}
		}
		if (!best)
			break;
		consume(s, best->cur);
		ring_advance(best);
	}
	for (size_t i = 0; i < nr; i++)
		ring_publish(&rings[i]);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One round's records, the same for both merges. */
static void fill(struct ring *rings, size_t nr, unsigned seed, uint64_t *t,
		 uint64_t *ip)
{
	for (int k = 0; k < PER_ROUND; k++) {
		size_t cpu = (size_t)rand_r(&seed) % nr;

		*t += 1 + (uint64_t)(rand_r(&seed) % 4);
		if (fake_ring_sample(&rings[cpu], *t, (uint32_t)cpu,
				     (*ip)++)) {
			fprintf(stderr, "bench_ring_merge: ring full\n");
			exit(1);
		}
	}
}

static int bench(size_t nr, long records)
{
	struct ring *rings = calloc(nr, sizeof(*rings));
	struct sink scan = { 0 }, heap = { 0 };
	struct ring_merge m;
	double t_scan = 0, t_heap = 0, t0;
	uint64_t t1 = 1, ip1 = 1, t2 = 1, ip2 = 1;
	long rounds = records / PER_ROUND;
	size_t pages = 1, page = (size_t)sysconf(_SC_PAGESIZE);

	/* room for twice a CPU's share of a round, as the kernel's would */
	while (pages * page <
	       2 * sizeof(struct record_sample) * PER_ROUND / nr)
		pages *= 2;

	if (!rings || ring_merge_init(&m, nr)) {
		fprintf(stderr, "bench_ring_merge: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < nr; i++)
		if (fake_ring_open(&rings[i], (int)i, pages)) {
			perror("bench_ring_merge: memfd ring");
			return 1;
		}
	for (long r = 0; r < rounds; r++) {
		fill(rings, nr, (unsigned)r, &t1, &ip1);
		t0 = now();
		scan_drain(rings, nr, &scan);
		t_scan += now() - t0;
		fill(rings, nr, (unsigned)r, &t2, &ip2);
		t0 = now();
		ring_merge_drain(&m, rings, nr, consume, &heap);
		t_heap += now() - t0;
		if (scan.hash != heap.hash || scan.n != heap.n) {
			fprintf(stderr,
				"bench_ring_merge: %zu CPUs: the heap "
				"and the scan disagree on the order\n",
				nr);
			return 1;
		}
	}
	printf("%4zu CPUs  %9lu records  scan %7.1f ns/record  "
	       "heap %7.1f ns/record\n",
	       nr, (unsigned long)heap.n,
	       heap.n ? t_scan * 1e9 / (double)heap.n : 0.0,
	       heap.n ? t_heap * 1e9 / (double)heap.n : 0.0);
	for (size_t i = 0; i < nr; i++)
		fake_ring_close(&rings[i]);
	ring_merge_free(&m);
	free(rings);
	return 0;
}

int main(int argc, char **argv)
{
	long records = argc > 1 ? atol(argv[1]) : 2000000;
	static const size_t def[] = { 2, 8, 64 };
	int rc = 0;

	if (records < PER_ROUND) {
		fprintf(stderr, "bench_ring_merge: RECORDS is at least %d\n",
			PER_ROUND);
		return 2;
	}
	if (argc > 2) {
		for (int i = 2; i < argc && !rc; i++)
			rc = bench((size_t)atol(argv[i]), records);
	} else {
		for (size_t i = 0; i < sizeof(def) / sizeof(def[0]) && !rc;
		     i++)
			rc = bench(def[i], records);
	}
	return rc;
}
