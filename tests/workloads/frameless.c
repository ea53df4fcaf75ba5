// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * frameless [SECONDS]: a 3:1 call tree whose time is in glibc.  main
 * calls path_a three times for each call of path_b; both call hot, which
 * spends its time in memcpy on a large buffer.  Built -O2 without frame
 * pointers, as distro code is: a frame-pointer walk from memcpy finds
 * neither hot nor the path it came through.  At the end it prints the
 * thread CPU time each path took, the truth a report is compared with:
 *   path_a SECONDS
 *   path_b SECONDS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUF_BYTES (4u << 20)

static char *src, *dst;
static volatile uint64_t sink;

/* global, so that every report names them */
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

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = 2, t, ta = 0, tb = 0;
	char *tail;

	if (argc > 2) {
		fprintf(stderr, "usage: frameless [SECONDS]\n");
		return 2;
	}
	if (argc == 2) {
		seconds = strtod(argv[1], &tail);
		if (*tail || tail == argv[1] || !(seconds > 0)) {
			fprintf(stderr, "frameless: invalid seconds '%s'\n",
				argv[1]);
			return 2;
		}
	}
	src = malloc(BUF_BYTES);
	dst = malloc(BUF_BYTES);
	if (!src || !dst)
		return 1;
	memset(src, 1, BUF_BYTES);
	memset(dst, 2, BUF_BYTES);
	while (ta + tb < seconds) {
		t = clock_s(CLOCK_THREAD_CPUTIME_ID);
		path_a();
		path_a();
		path_a();
		ta += clock_s(CLOCK_THREAD_CPUTIME_ID) - t;
		t = clock_s(CLOCK_THREAD_CPUTIME_ID);
		path_b();
		tb += clock_s(CLOCK_THREAD_CPUTIME_ID) - t;
	}
	printf("path_a %.6f\npath_b %.6f\n", ta, tb);
	free(src);
	free(dst);
	return 0;
}
