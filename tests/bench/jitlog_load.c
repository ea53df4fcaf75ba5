// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * bench_jitlog_load [N [ROW [cpu]]]: what one code load costs a JIT to
 * tell a profiler, in ns, the median of 5 runs of N loads each, by wall
 * time or (cpu) by the process's CPU time:
 *   jitlog     opjit_jitlog_load() with a name, a file and 4 lines
 *   jitlog, code bytes: the same with OPJIT_JITLOG_OPT_CODE_BYTES, each
 *              load copying its 64 bytes of code into the log, and
 *              its 2048 bytes (a JVM's compiled method and stub hold
 *              about 2 KB on average, as the javamap agent's map of
 *              Hot.java shows; at most 20000 of them)
 *   perf map   one "START SIZE NAME" line with fprintf, then fflush (as
 *              node and the JVM's agents write them, so that a profiler
 *              reading the file sees the line)
 *   jitdump    one JIT_CODE_LOAD record with 64 code bytes (and 2048),
 *              written with fwrite and fflush (perf's jitdump writers)
 *   jitlog, 8 threads: 8 threads loading at once, wall time per load
 *              of all of them (on this machine's cores)
 *   on attach  opjit_jitlog_load() of a log opened on attach that no
 *              profiler observes (only its table in memory; it must
 *              leave no file): into a table that grows into memory
 *              never touched (the cost of first touching a page shows),
 *              warm (into memory that N earlier loads and unloads used,
 *              as once a JIT's code cache has filled), and a load with
 *              its unload
 * ROW runs only the rows whose name holds it.  Files go to a fresh
 * directory under /tmp and are removed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <opjit/jitlog.h>
#include <oputil/clock.h>

static char dir[64];
static unsigned long n = 200000;
/* N pieces of CODE_SIZE bytes of code, for the logs that copy code:
 * the addresses the other rows log are never read */
static unsigned char *code_mem;
static unsigned code_size = 64;
static uint32_t log_flags;
/* what the single-threaded rows are timed by: wall time, or with "cpu"
 * the process's CPU time, which a busy machine's other work does not
 * inflate */
static clockid_t bench_clock = CLOCK_MONOTONIC;

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median5(double *v)
{
	qsort(v, 5, sizeof(*v), cmp);
	return v[2];
}

/* N loads of code like V8's into LOG, each followed by its unload with
 * UNLOAD; the ids in IDS when not NULL. */
static void load_n(struct opjit_jitlog *log, bool unload, uint64_t *ids)
{
	static const struct opjit_jitlog_line lines[] = { { 0, 1 },
							  { 16, 2 },
							  { 32, 3 },
							  { 48, 4 } };
	unsigned long i;

	for (i = 0; i < n; i++) {
		struct opjit_jitlog_code c = {
			.struct_size = sizeof(c),
			.addr = code_mem ? (uintptr_t)code_mem + i * code_size
					 : 0x7f0000000000 + i * code_size,
			.size = code_size,
			.name = "LazyCompile:*fib app.js:6",
			.file = "app.js",
			.lines = lines,
			.nr_lines = 4
		};

		opjit_jitlog_load(log, &c);
		if (unload)
			opjit_jitlog_unload(log, &c);
		if (ids)
			ids[i] = c.id;
	}
}

/* N loads (each followed by its unload with UNLOAD) into a log opened
 * in MODE: ns per load.  WARM first loads and unloads N pieces, untimed,
 * so that the loads timed reuse memory the log already has, as a JIT's
 * do once its code cache has filled.  On attach, nobody observes: the
 * log must leave no file. */
static double jitlog_loads(uint32_t mode, bool unload, bool warm)
{
	struct opjit_jitlog_options o = { .struct_size = sizeof(o),
					  .mode = mode,
					  .flags = log_flags,
					  /* every load's bytes copied */
					  .code_budget =
						  (uint64_t)n * code_size };
	struct opjit_jitlog_code c = { .struct_size = sizeof(c),
				       .size = code_size };
	struct opjit_jitlog *log;
	uint64_t t0, t, *ids = NULL;
	char path[128];
	unsigned long i;

	snprintf(path, sizeof(path), "%s/jitlog", dir);
	o.path = path;
	if (opjit_jitlog_open(&o, &log))
		exit(1);
	if (warm) {
		ids = malloc(n * sizeof(*ids));
		if (!ids)
			exit(1);
		load_n(log, false, ids);
		for (i = 0; i < n; i++) {
			c.id = ids[i];
			c.addr = 0x7f0000000000 + i * code_size;
			opjit_jitlog_unload(log, &c);
		}
		free(ids);
	}
	t0 = oputil_clock_ns(bench_clock);
	load_n(log, unload, NULL);
	t = oputil_clock_ns(bench_clock) - t0;
	opjit_jitlog_close(log);
	if (mode == OPJIT_JITLOG_ON_ATTACH && !access(path, F_OK))
		exit(1);
	unlink(path);
	return (double)t / (double)n;
}

static double run_jitlog(void)
{
	return jitlog_loads(OPJIT_JITLOG_ALWAYS, false, false);
}

static double run_jitlog_code(void)
{
	double t;

	code_mem = malloc(n * code_size);
	if (!code_mem)
		exit(1);
	/* touched before the clock starts, as a JIT's code is when it is
	 * loaded: the faults of first reading fresh pages are not the
	 * log's */
	memset(code_mem, 0xc3, n * code_size);
	log_flags = OPJIT_JITLOG_OPT_CODE_BYTES;
	t = jitlog_loads(OPJIT_JITLOG_ALWAYS, false, false);
	log_flags = 0;
	free(code_mem);
	code_mem = NULL;
	return t;
}

/* At most 20000 loads: 2 KB each is 40 MB of code and as much log. */
static double run_jitlog_code_2k(void)
{
	unsigned long all = n;
	double t;

	code_size = 2048;
	n = n < 20000 ? n : 20000;
	t = run_jitlog_code();
	n = all;
	code_size = 64;
	return t;
}

static double run_on_attach(void)
{
	return jitlog_loads(OPJIT_JITLOG_ON_ATTACH, false, false);
}

static double run_on_attach_warm(void)
{
	return jitlog_loads(OPJIT_JITLOG_ON_ATTACH, false, true);
}

static double run_on_attach_unload(void)
{
	return jitlog_loads(OPJIT_JITLOG_ON_ATTACH, true, false);
}

static double run_perfmap(void)
{
	char path[128];
	uint64_t t0, t;
	unsigned long i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/perf.map", dir);
	f = fopen(path, "w");
	if (!f)
		exit(1);
	t0 = oputil_clock_ns(bench_clock);
	for (i = 0; i < n; i++) {
		fprintf(f, "%lx %x %s\n", 0x7f0000000000ul + i * 64, 64,
			"LazyCompile:*fib app.js:6");
		fflush(f);
	}
	t = oputil_clock_ns(bench_clock) - t0;
	fclose(f);
	unlink(path);
	return (double)t / (double)n;
}

static double run_jitdump(void)
{
	static const char name[] = "LazyCompile:*fib app.js:6";
	static unsigned char rec[40 + 16 + sizeof(name) + 2048];
	char path[128];
	uint64_t t0, t;
	unsigned long i;
	uint32_t id = 0, size = 40 + 16 + sizeof(name) + code_size;
	FILE *f;

	snprintf(path, sizeof(path), "%s/jit.dump", dir);
	f = fopen(path, "w");
	if (!f)
		exit(1);
	t0 = oputil_clock_ns(bench_clock);
	for (i = 0; i < n; i++) {
		uint64_t ts = oputil_clock_ns(CLOCK_MONOTONIC),
			 addr = 0x7f0000000000 + i * 64;

		memcpy(rec, &id, 4);
		memcpy(rec + 4, &size, 4);
		memcpy(rec + 8, &ts, 8);
		memcpy(rec + 24, &addr, 8);
		memcpy(rec + 32, &addr, 8);
		memcpy(rec + 56, name, sizeof(name));
		fwrite(rec, 1, size, f);
		fflush(f);
	}
	t = oputil_clock_ns(bench_clock) - t0;
	fclose(f);
	unlink(path);
	return (double)t / (double)n;
}

/* At most 20000 loads, as the jitlog row of 2048 bytes. */
static double run_jitdump_2k(void)
{
	unsigned long all = n;
	double t;

	code_size = 2048;
	n = n < 20000 ? n : 20000;
	t = run_jitdump();
	n = all;
	code_size = 64;
	return t;
}

static struct opjit_jitlog *shared;

static void *thread_loads(void *arg)
{
	uint64_t base = (uintptr_t)arg << 32;
	unsigned long i;

	for (i = 0; i < n; i++) {
		struct opjit_jitlog_code c = {
			.struct_size = sizeof(c),
			.addr = base + i * 64,
			.size = 64,
			.name = "LazyCompile:*fib app.js:6"
		};

		opjit_jitlog_load(shared, &c);
	}
	return NULL;
}

static double run_threads(void)
{
	struct opjit_jitlog_options o = { .struct_size = sizeof(o) };
	pthread_t t[8];
	char path[128];
	uint64_t t0, wall;
	uintptr_t k;

	snprintf(path, sizeof(path), "%s/jitlog8", dir);
	o.path = path;
	if (opjit_jitlog_open(&o, &shared))
		exit(1);
	t0 = oputil_clock_ns(CLOCK_MONOTONIC);
	for (k = 0; k < 8; k++)
		pthread_create(&t[k], NULL, thread_loads, (void *)(k + 1));
	for (k = 0; k < 8; k++)
		pthread_join(t[k], NULL);
	wall = oputil_clock_ns(CLOCK_MONOTONIC) - t0;
	opjit_jitlog_close(shared);
	unlink(path);
	return (double)wall / (double)(8 * n);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *what;
		double (*run)(void);
	} ways[] = {
		{ "jitlog: opjit_jitlog_load", run_jitlog },
		{ "jitlog, code bytes: load with 64 bytes", run_jitlog_code },
		{ "jitlog, code bytes: load with 2048 bytes (<= 20000)",
		  run_jitlog_code_2k },
		{ "perf map: fprintf + fflush", run_perfmap },
		{ "jitdump: fwrite + fflush of a CODE_LOAD", run_jitdump },
		{ "jitdump: the same with 2048 bytes (<= 20000)",
		  run_jitdump_2k },
		{ "jitlog, 8 threads at once, wall per load", run_threads },
		{ "jitlog on attach, unobserved: load", run_on_attach },
		{ "jitlog on attach, unobserved: load, warm",
		  run_on_attach_warm },
		{ "jitlog on attach, unobserved: load + unload",
		  run_on_attach_unload },
	};
	const char *only;
	size_t w;
	int k;

	if (argc > 1)
		n = strtoul(argv[1], NULL, 10);
	/* a second argument picks the rows whose name holds it */
	only = argc > 2 && *argv[2] ? argv[2] : NULL;
	if (argc > 3 && !strcmp(argv[3], "cpu"))
		bench_clock = CLOCK_PROCESS_CPUTIME_ID;
	snprintf(dir, sizeof(dir), "/tmp/bench-jitlog.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	printf("ns per code load, median of 5 runs of %lu loads, by %s\n", n,
	       bench_clock == CLOCK_MONOTONIC
		       ? "wall time"
		       : "CPU time (the 8 threads' by wall)");
	for (w = 0; w < sizeof(ways) / sizeof(ways[0]); w++) {
		double v[5];

		if (only && !strstr(ways[w].what, only))
			continue;
		for (k = 0; k < 5; k++)
			v[k] = ways[w].run();
		printf("%-42s %8.1f\n", ways[w].what, median5(v));
	}
	rmdir(dir);
	return 0;
}
