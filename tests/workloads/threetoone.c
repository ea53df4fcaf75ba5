// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * threetoone [SECONDS [RATIO]]: the 3:1 truth.  heavy_work runs the same
 * loop as light_work three times as long (RATIO times: 1 gives 50/50), so
 * a profiler should give them 75% and 25% of the samples (of the two).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LIGHT_ITERATIONS 200000

static volatile uint64_t sink;
static uint64_t ratio = 3;

/* one body, so that an iteration costs the same in both functions */
#define SPIN(n)                                    \
	do {                                       \
		for (uint64_t i = 0; i < (n); i++) \
			sink += i ^ (sink >> 3);   \
	} while (0)

__attribute__((noinline)) static void heavy_work(void)
{
	SPIN(ratio * LIGHT_ITERATIONS);
}

__attribute__((noinline)) static void light_work(void)
{
	SPIN(LIGHT_ITERATIONS);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = 2, end;
	char *tail;

	if (argc > 3) {
		fprintf(stderr, "usage: threetoone [SECONDS [RATIO]]\n");
		return 2;
	}
	if (argc == 3) {
		ratio = strtoull(argv[2], &tail, 10);
		if (*tail || tail == argv[2] || !ratio || ratio > 100) {
			fprintf(stderr, "threetoone: invalid ratio '%s'\n",
				argv[2]);
			return 2;
		}
	}
	if (argc >= 2) {
		seconds = strtod(argv[1], &tail);
		if (*tail || tail == argv[1] || !(seconds > 0)) {
			fprintf(stderr, "threetoone: invalid seconds '%s'\n",
				argv[1]);
			return 2;
		}
	}
	end = now() + seconds;
	while (now() < end) {
		heavy_work();
		light_work();
	}
	return 0;
}
