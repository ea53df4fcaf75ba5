/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_copies ROUNDS: tests/workloads/frameless's call tree (main calls
 * path_a three times for each call of path_b, both call hot, whose time
 * is glibc's memcpy), built the same way (-O2, no frame pointers), but
 * doing a fixed amount of work, ROUNDS times the four copies, so that a
 * recorder's cost with stack copies shows as a longer run.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF_BYTES (1u << 20)

static char *src, *dst;
static volatile uint64_t sink;

void hot(void);
void path_a(void);
void path_b(void);

__attribute__((noinline)) void hot(void)
{
	memcpy(dst, src, BUF_BYTES);
	sink += (uint64_t)dst[sink % BUF_BYTES];
}

__attribute__((noinline)) void path_a(void)
{
	hot();
	sink++; /* work after the call: no tail call */
}

__attribute__((noinline)) void path_b(void)
{
	hot();
	sink++;
}

int main(int argc, char **argv)
{
	unsigned long long n, i;
	char *end;

	if (argc != 2) {
		fprintf(stderr, "usage: bench_copies ROUNDS\n");
		return 2;
	}
	errno = 0;
	n = strtoull(argv[1], &end, 10);
	if (errno || *end || end == argv[1]) {
		fprintf(stderr, "bench_copies: invalid rounds '%s'\n",
			argv[1]);
		return 2;
	}
	src = malloc(BUF_BYTES);
	dst = malloc(BUF_BYTES);
	if (!src || !dst)
		return 1;
	memset(src, 1, BUF_BYTES);
	memset(dst, 2, BUF_BYTES);
	for (i = 0; i < n; i++) {
		path_a();
		path_a();
		path_a();
		path_b();
	}
	printf("%llu\n", (unsigned long long)sink);
	free(src);
	free(dst);
	return 0;
}
