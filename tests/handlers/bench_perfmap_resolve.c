// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Resolution throughput of the perfmap handler: writes a map of ENTRIES
 * functions (every tenth re-jitted in part, appended at the end as real
 * runtimes do), draws SAMPLES sorted addresses, claims the map through
 * the handler's table and resolves them in the host's batch size.
 * Prints load time and samples per second, and the memory the handler
 * holds once the map is loaded and at its peak while loading, against
 * the map's size; checks every name, so a run at a small size is a
 * correctness test.
 *
 * usage: bench_perfmap_resolve [ENTRIES [SAMPLES]]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <malloc.h>
#include <sys/stat.h>

#include <opjit/anon_handler.h>

#include "handler_internal.h"

#define BASE UINT64_C(0x7f0000000000)
#define STRIDE 0x100u /* one function per STRIDE bytes */
#define FN_SIZE 0x80u /* the rest of the stride is a gap */
#define REJIT_OFF 0x20u
#define REJIT_SIZE 0x20u
#define BATCH 65536u

static void bench_warn(const struct opjit_host *host, const char *msg)
{
	fprintf(stderr, "bench_perfmap_resolve: perfmap: %s\n", msg);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_map(const char *path, uint64_t entries)
{
	FILE *f = fopen(path, "w");
	uint64_t i;

	if (!f)
		return -errno;
	for (i = 0; i < entries; i++)
		fprintf(f,
			"%" PRIx64 " %x LazyCompile:*fn_%" PRIu64
			" /app/src/module_%" PRIu64 ".js:%" PRIu64 "\n",
			BASE + i * STRIDE, FN_SIZE, i, i % 97, i % 1000);
	for (i = 0; i < entries; i += 10)
		fprintf(f, "0x%016" PRIX64 " 0x%x Rejit:fn_%" PRIu64 "\n",
			BASE + i * STRIDE + REJIT_OFF, REJIT_SIZE, i);
	if (fclose(f) != 0)
		return -EIO;
	return 0;
}

/* What the map says about ADDR, into BUF; false when nothing covers it. */
static bool expected(uint64_t addr, char *buf, size_t len)
{
	uint64_t i = (addr - BASE) / STRIDE, off = (addr - BASE) % STRIDE;

	if (off >= FN_SIZE)
		return false;
	if (i % 10 == 0 && off >= REJIT_OFF && off < REJIT_OFF + REJIT_SIZE)
		snprintf(buf, len, "Rejit:fn_%" PRIu64, i);
	else
		snprintf(buf, len,
			 "LazyCompile:*fn_%" PRIu64 " /app/src/module_%" PRIu64
			 ".js:%" PRIu64,
			 i, i % 97, i % 1000);
	return true;
}

static void report_bad(uint64_t addr, const struct opjit_symbol *got,
		       const char *want)
{
	fprintf(stderr,
		"bench_perfmap_resolve: %#" PRIx64 ": got '%s', "
		"want '%s'\n",
		addr, got ? got->name : "(unknown)",
		want ? want : "(unknown)");
}

/* Bytes malloc hands out now. */
static uint64_t heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/* The process's resident set ("VmRSS") or its peak ("VmHWM"), in bytes. */
static uint64_t vm_bytes(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	uint64_t kb = 0;
	size_t n = strlen(key);

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			kb = strtoull(line + n + 1, NULL, 10);
	if (f)
		fclose(f);
	return kb * 1024;
}

/* Make the peak resident set start from the current one. */
static void vm_peak_reset(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");

	if (f) {
		fputs("5", f);
		fclose(f);
	}
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	uint64_t entries = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000;
	uint64_t nsamples = argc > 2 ? strtoull(argv[2], NULL, 0) : 10000000;
	const struct opjit_host host = {
		OPJIT_HOST_SIZE_1_0, 1, 0,
		bench_warn,	     0, handler_trust_open_map
	};
	char path[] = "/tmp/perf-bench-XXXXXX";
	struct opjit_map_candidate cand = { sizeof(cand), path, OPJIT_MAP_PERF,
					    0 };
	const struct opjit_map_candidate *candp = &cand;
	struct opjit_process proc = { .struct_size = sizeof(proc) };
	const struct opjit_handler *pm = NULL;
	const struct opjit_symbol **syms = NULL;
	const char **files = NULL;
	uint64_t *addrs = NULL, *times = NULL, i, bad = 0, named = 0;
	uint32_t *lines = NULL;
	void *state = NULL;
	double t0, t1, tr = 0, tb;
	uint64_t heap0, rss0, held, peak, used;
	struct stat mst;
	char want[128];
	int fd, rc = 1;

	if (entries == 0 || nsamples == 0) {
		fprintf(stderr, "usage: bench_perfmap_resolve [ENTRIES "
				"[SAMPLES]]\n");
		return 2;
	}
	fd = mkstemp(path);
	if (fd < 0 || close(fd) < 0 || write_map(path, entries) < 0) {
		fprintf(stderr, "bench_perfmap_resolve: cannot write %s\n",
			path);
		return 1;
	}
	proc.uid = (uint32_t)geteuid();
	proc.maps = &candp;
	proc.nr_maps = 1;
	pm = opjit_handler_entry(OPJIT_HANDLER_ABI_MAJOR,
				 OPJIT_HANDLER_ABI_MINOR);
	if (stat(path, &mst)) {
		fprintf(stderr, "bench_perfmap_resolve: %s: %s\n", path,
			strerror(errno));
		goto out;
	}
	malloc_trim(0);
	vm_peak_reset();
	heap0 = heap_bytes();
	rss0 = vm_bytes("VmRSS");
	t0 = now();
	if (!pm || pm->claim(&host, &proc, &state, want, sizeof(want)) != 1) {
		fprintf(stderr, "bench_perfmap_resolve: %s: not claimed\n",
			path);
		goto out;
	}
	t1 = now();
	held = heap_bytes() - heap0;
	peak = vm_bytes("VmHWM") - rss0;
	addrs = malloc(nsamples * sizeof(*addrs));
	times = calloc(BATCH, sizeof(*times));
	syms = malloc(BATCH * sizeof(*syms));
	files = malloc(BATCH * sizeof(*files));
	lines = malloc(BATCH * sizeof(*lines));
	if (!addrs || !times || !syms || !files || !lines) {
		fprintf(stderr, "bench_perfmap_resolve: out of memory\n");
		goto out;
	}
	used = heap_bytes() - heap0 - held; /* the bench's own */
	srand(42);
	for (i = 0; i < nsamples; i++)
		addrs[i] = BASE + ((uint64_t)rand() << 16 ^ (uint64_t)rand()) %
					  (entries * STRIDE);
	qsort(addrs, nsamples, sizeof(*addrs), u64_cmp);

	for (i = 0; i < nsamples; i += BATCH) {
		uint64_t n = nsamples - i < BATCH ? nsamples - i : BATCH, j;
		struct opjit_resolve_batch b = {
			.struct_size = OPJIT_RESOLVE_BATCH_SIZE_1_0,
			.count = n,
			.addrs = addrs + i,
			.times = times,
			.symbols = syms,
			.files = files,
			.lines = lines,
		};

		memset(syms, 0, n * sizeof(*syms));
		tb = now();
		rc = pm->resolve(state, &b);
		tr += now() - tb;
		if (rc < 0) {
			rc = 1;
			fprintf(stderr, "bench_perfmap_resolve: resolve: %s\n",
				pm->last_error(state));
			goto out;
		}
		for (j = 0; j < n; j++) {
			bool have = expected(addrs[i + j], want, sizeof(want));

			named += syms[j] != NULL;
			if (have != (syms[j] != NULL) ||
			    (have && strcmp(syms[j]->name, want))) {
				if (!bad++)
					report_bad(addrs[i + j], syms[j],
						   have ? want : NULL);
			}
		}
	}
	printf("map: %" PRIu64 " entries loaded in %.3f s\n",
	       entries + (entries + 9) / 10, t1 - t0);
	printf("memory: map %" PRIu64 " bytes, held after loading %" PRIu64
	       " bytes (%.2fx the map), peak while loading %" PRIu64
	       " bytes (%.2fx), held after resolving %" PRIu64 " bytes\n",
	       (uint64_t)mst.st_size, held, (double)held / (double)mst.st_size,
	       peak, (double)peak / (double)mst.st_size,
	       heap_bytes() - heap0 - used);
	printf("resolve: %" PRIu64 " samples (%" PRIu64 " named) in %.3f s:"
	       " %.0f samples/s\n",
	       nsamples, named, tr, tr > 0 ? (double)nsamples / tr : 0.0);
	rc = 1;
	if (bad) {
		fprintf(stderr,
			"bench_perfmap_resolve: %" PRIu64 " samples "
			"misnamed\n",
			bad);
		goto out;
	}
	rc = 0;
out:
	if (state)
		pm->release(state);
	unlink(path);
	free(addrs);
	free(times);
	free(syms);
	free(files);
	free(lines);
	return rc;
}
