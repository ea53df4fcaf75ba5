// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * bench_anon_session DIR PROCESSES SAMPLES: write a session whose
 * PROCESSES processes each ran SAMPLES samples of JIT code, at random
 * addresses over a 10,000-function perf map archived with each, for
 * timing and sizing opreport's anonymous path on more samples than a
 * real recording gives in reasonable time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <opjit/samples.h>

#define FUNCTIONS 10000
#define BASE UINT64_C(0x7f0000000000)
#define STRIDE 0x100u

static int fail(const char *what, struct ops_writer *w)
{
	fprintf(stderr, "bench_anon_session: %s: %s\n", what,
		w ? ops_writer_error(w) : "out of memory");
	return 1;
}

/* A map of FUNCTIONS functions at PATH; 0, or 1 said. */
static int write_map(const char *path)
{
	FILE *f = fopen(path, "w");
	unsigned long i;

	if (!f) {
		fprintf(stderr, "bench_anon_session: %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	for (i = 0; i < FUNCTIONS; i++)
		fprintf(f, "%" PRIx64 " 80 JS:*fn_%lu /app/bench.js:%lu\n",
			BASE + i * STRIDE, i, i);
	if (fclose(f)) {
		fprintf(stderr, "bench_anon_session: %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ops_session_info info = { .event = "cpu-clock",
					 .frequency = 4000,
					 .clock = "CLOCK_MONOTONIC",
					 .start_ns = 1000000000,
					 .command_line =
						 "bench_anon_session" };
	struct ops_range range = { BASE, BASE + FUNCTIONS * STRIDE };
	unsigned long procs, samples, p, i;
	char map[4096];
	uint32_t *ids;
	uint64_t t = 1000000000, x = 88172645463325252ull;
	struct ops_writer *w = NULL;

	if (argc != 4 || !(procs = strtoul(argv[2], NULL, 10)) ||
	    !(samples = strtoul(argv[3], NULL, 10))) {
		fprintf(stderr,
			"usage: bench_anon_session DIR PROCESSES SAMPLES\n");
		return 2;
	}
	snprintf(map, sizeof(map), "%s.maps", argv[1]);
	if (mkdir(map, 0755) && errno != EEXIST) {
		fprintf(stderr, "bench_anon_session: %s: %s\n", map,
			strerror(errno));
		return 1;
	}
	ids = calloc(procs, sizeof(*ids));
	if (!ids || ops_writer_open(&w, argv[1], &info))
		return fail("cannot create the session", w);
	for (p = 0; p < procs; p++) {
		struct ops_process proc = { .tgid = (uint32_t)(4000 + p),
					    .nspid = (uint32_t)(4000 + p),
					    .comm = "node",
					    .exe = "/usr/bin/node",
					    .ranges = &range,
					    .nr_ranges = 1 };

		/* the map a perf-map writer leaves, named as the handler
		 * looks for it */
		snprintf(map, sizeof(map), "%s.maps/perf-%lu.map", argv[1],
			 4000 + p);
		if (write_map(map))
			return 1;
		if (ops_writer_process(w, &proc, &ids[p]) ||
		    ops_writer_archive_map(w, ids[p], map, UINT64_MAX))
			return fail("a process", w);
		remove(map);
	}
	for (i = 0; i < samples; i++)
		for (p = 0; p < procs; p++) {
			uint64_t fn, off;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			fn = x % FUNCTIONS;
			off = (x >> 32) % 0x80;
			t += 250000;
			if (ops_writer_anon(w, ids[p], t,
					    BASE + fn * STRIDE + off,
					    (uint32_t)(4000 + p)))
				return fail("a sample", w);
			if ((i * procs + p) % 1000000 == 999999 &&
			    ops_writer_flush(w))
				return fail("a flush", w);
		}
	if (ops_writer_close(w, t))
		return fail("cannot close the session", NULL);
	snprintf(map, sizeof(map), "%s.maps", argv[1]);
	rmdir(map);
	free(ids);
	return 0;
}
