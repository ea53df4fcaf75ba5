// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Load time and resolution throughput of the jitdump handler: writes a
 * dump of LOADS code loads (each with a line table and a few code bytes,
 * as node writes them), then re-JITs every tenth function over its own
 * address, draws SAMPLES sorted addresses at random times, claims the
 * dump through the handler's table and resolves them in the host's batch
 * size.  Prints load time and samples per second; checks every name
 * against the rule, so a run at a small size is a correctness test.
 *
 * usage: bench_jitdump_resolve [LOADS [SAMPLES]]
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

#include <opjit/anon_handler.h>

#include "handler_internal.h"

#include "jitdump.h"

#define BASE UINT64_C(0x7f0000000000)
#define STRIDE 0x100u
#define FN_SIZE 0x80u
#define T0 UINT64_C(1000000000000)
#define STEP 1000u /* ns between two loads */
#define BATCH 65536u

static uint64_t loads;

static void bench_warn(const struct opjit_host *host, const char *msg)
{
	(void)host;
	fprintf(stderr, "bench_jitdump_resolve: jitdump: %s\n", msg);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void put_rec(FILE *f, uint32_t id, uint32_t size, uint64_t t)
{
	fwrite(&id, 4, 1, f);
	fwrite(&size, 4, 1, f);
	fwrite(&t, 8, 1, f);
}

static void put_load(FILE *f, uint64_t t, uint64_t addr, uint64_t index,
		     const char *name)
{
	static const char file[] = "/app/src/module.js";
	static const uint8_t code[16] = { 0xc3 };
	uint32_t pid = 1, tid = 1, line = (uint32_t)(index % 1000), z = 0;
	uint64_t size = FN_SIZE, one = 1;

	put_rec(f, JD_CODE_DEBUG_INFO, 16 + 16 + 16 + sizeof(file), t);
	fwrite(&addr, 8, 1, f);
	fwrite(&one, 8, 1, f);
	fwrite(&addr, 8, 1, f);
	fwrite(&line, 4, 1, f);
	fwrite(&z, 4, 1, f);
	fwrite(file, sizeof(file), 1, f);
	put_rec(f, JD_CODE_LOAD,
		(uint32_t)(16 + 40 + strlen(name) + 1 + sizeof(code)), t);
	fwrite(&pid, 4, 1, f);
	fwrite(&tid, 4, 1, f);
	fwrite(&addr, 8, 1, f);
	fwrite(&addr, 8, 1, f);
	fwrite(&size, 8, 1, f);
	fwrite(&index, 8, 1, f);
	fwrite(name, strlen(name) + 1, 1, f);
	fwrite(code, sizeof(code), 1, f);
}

static int write_dump(const char *path)
{
	uint32_t hdr[6] = { JD_MAGIC, 1, 40, 62, 0, 1 };
	uint64_t ts = 0, flags = 0, i;
	char name[64];
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fwrite(hdr, sizeof(hdr), 1, f);
	fwrite(&ts, 8, 1, f);
	fwrite(&flags, 8, 1, f);
	for (i = 0; i < loads; i++) {
		snprintf(name, sizeof(name), "JS:*fn_%" PRIu64, i);
		put_load(f, T0 + i * STEP, BASE + i * STRIDE, i + 1, name);
	}
	for (i = 0; i < loads; i += 10) {
		snprintf(name, sizeof(name), "JS:*rejit_%" PRIu64, i);
		put_load(f, T0 + (loads + i) * STEP, BASE + i * STRIDE,
			 loads + i + 1, name);
	}
	return fclose(f) ? -EIO : 0;
}

/* What the dump says about ADDR at T, into BUF; false when nothing. */
static bool expected(uint64_t addr, uint64_t t, char *buf, size_t len)
{
	uint64_t i = (addr - BASE) / STRIDE, off = (addr - BASE) % STRIDE;

	if (off >= FN_SIZE)
		return false;
	if (i % 10 == 0 && t >= T0 + (loads + i) * STEP)
		snprintf(buf, len, "JS:*rejit_%" PRIu64, i);
	else if (t + JD_EARLY_NS >= T0 + i * STEP)
		snprintf(buf, len, "JS:*fn_%" PRIu64, i);
	else
		return false;
	return true;
}

static void report_bad(uint64_t addr, uint64_t t,
		       const struct opjit_symbol *got, const char *file,
		       uint32_t line, const char *want)
{
	fprintf(stderr,
		"bench_jitdump_resolve: %#" PRIx64 " at %" PRIu64
		": got '%s' (%s:%u), want '%s'\n",
		addr, t, got ? got->name : "(unknown)", file ? file : "-",
		line, want ? want : "(unknown)");
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t rnd(void)
{
	return (uint64_t)rand() << 31 ^ (uint64_t)rand();
}

int main(int argc, char **argv)
{
	uint64_t nsamples = argc > 2 ? strtoull(argv[2], NULL, 0) : 10000000;
	const struct opjit_host host = {
		sizeof(host), 1, 1, bench_warn, 0, handler_trust_open_map
	};
	char path[] = "/tmp/jit-bench-XXXXXX";
	struct opjit_map_candidate cand = { sizeof(cand), path,
					    OPJIT_MAP_JITDUMP, 0 };
	const struct opjit_map_candidate *candp = &cand;
	struct opjit_process proc = { .struct_size = sizeof(proc) };
	const struct opjit_handler *h = NULL;
	const struct opjit_symbol **syms = NULL;
	const char **files = NULL;
	uint64_t *addrs = NULL, *times = NULL, i, bad = 0, named = 0;
	uint32_t *lines = NULL;
	void *state = NULL;
	double t0, t1, tr = 0, tb;
	char want[128];
	int fd, rc = 1;

	loads = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000;
	if (loads == 0 || nsamples == 0) {
		fprintf(stderr, "usage: bench_jitdump_resolve [LOADS "
				"[SAMPLES]]\n");
		return 2;
	}
	fd = mkstemp(path);
	if (fd < 0 || close(fd) < 0 || write_dump(path) < 0) {
		fprintf(stderr, "bench_jitdump_resolve: cannot write %s\n",
			path);
		return 1;
	}
	addrs = malloc(nsamples * sizeof(*addrs));
	times = malloc(nsamples * sizeof(*times));
	syms = malloc(BATCH * sizeof(*syms));
	files = malloc(BATCH * sizeof(*files));
	lines = malloc(BATCH * sizeof(*lines));
	if (!addrs || !times || !syms || !files || !lines) {
		fprintf(stderr, "bench_jitdump_resolve: out of memory\n");
		goto out;
	}
	srand(42);
	for (i = 0; i < nsamples; i++)
		addrs[i] = BASE + rnd() % (loads * STRIDE);
	qsort(addrs, nsamples, sizeof(*addrs), u64_cmp);
	for (i = 0; i < nsamples; i++)
		times[i] = T0 + rnd() % (2 * loads * STEP);

	proc.uid = (uint32_t)geteuid();
	proc.maps = &candp;
	proc.nr_maps = 1;
	h = opjit_handler_entry(OPJIT_HANDLER_ABI_MAJOR,
				OPJIT_HANDLER_ABI_MINOR);
	t0 = now();
	if (!h || h->claim(&host, &proc, &state, want, sizeof(want)) != 1) {
		fprintf(stderr, "bench_jitdump_resolve: %s: not claimed\n",
			path);
		goto out;
	}
	t1 = now();
	for (i = 0; i < nsamples; i += BATCH) {
		uint64_t n = nsamples - i < BATCH ? nsamples - i : BATCH, j;
		struct opjit_resolve_batch b = {
			.struct_size = OPJIT_RESOLVE_BATCH_SIZE_1_0,
			.count = n,
			.addrs = addrs + i,
			.times = times + i,
			.symbols = syms,
			.files = files,
			.lines = lines,
		};

		memset(syms, 0, n * sizeof(*syms));
		memset(files, 0, n * sizeof(*files));
		memset(lines, 0, n * sizeof(*lines));
		tb = now();
		rc = h->resolve(state, &b);
		tr += now() - tb;
		if (rc < 0) {
			rc = 1;
			fprintf(stderr, "bench_jitdump_resolve: resolve: %s\n",
				h->last_error(state));
			goto out;
		}
		for (j = 0; j < n; j++) {
			bool have = expected(addrs[i + j], times[i + j], want,
					     sizeof(want));

			named += syms[j] != NULL;
			if (have != (syms[j] != NULL) ||
			    (have && strcmp(syms[j]->name, want)) ||
			    (have && (!files[j] || !lines[j]) &&
			     ((addrs[i + j] - BASE) / STRIDE + 1) % 1000)) {
				if (!bad++)
					report_bad(addrs[i + j], times[i + j],
						   syms[j], files[j], lines[j],
						   have ? want : NULL);
			}
		}
	}
	printf("dump: %" PRIu64 " code loads read and indexed in %.3f s\n",
	       loads + (loads + 9) / 10, t1 - t0);
	printf("resolve: %" PRIu64 " samples (%" PRIu64 " named) in %.3f s:"
	       " %.0f samples/s\n",
	       nsamples, named, tr, tr > 0 ? (double)nsamples / tr : 0.0);
	rc = 1;
	if (bad) {
		fprintf(stderr,
			"bench_jitdump_resolve: %" PRIu64 " samples "
			"misnamed\n",
			bad);
		goto out;
	}
	rc = 0;
out:
	if (state)
		h->release(state);
	unlink(path);
	free(addrs);
	free(times);
	free(syms);
	free(files);
	free(lines);
	return rc;
}
