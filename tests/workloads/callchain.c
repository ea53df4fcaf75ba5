// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * callchain [SECONDS]: a known call tree for call graphs, for SECONDS of
 * its CPU time (a busy machine makes the run longer, not its profile
 * smaller).  main calls path_a three times for each call of path_b,
 * and both call hot, which does all the work: of hot's samples 75% come
 * through path_a and 25% through path_b.  Built with frame pointers and
 * without sibling calls, so every frame is on the stack a frame-pointer
 * walk sees.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define HOT_ITERATIONS 200000

static volatile uint64_t sink;

/* global, so that nm and every report name them */
void hot(void);
void path_a(void);
void path_b(void);

__attribute__((noinline)) void hot(void)
{
	for (uint64_t i = 0; i < HOT_ITERATIONS; i++)
		sink += i ^ (sink >> 3);
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

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0, end;

	if (seconds <= 0) {
		fprintf(stderr, "usage: callchain [SECONDS]\n");
		return 2;
	}
	end = cpu_now() + seconds;
	while (cpu_now() < end) {
		path_a();
		path_a();
		path_a();
		path_b();
	}
	printf("callchain: done\n");
	return 0;
}
