// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * callchain [SECONDS]: a known call tree.  main calls a() three times for
 * each call of b(); both call the one hot() with the same work, so a
 * profiler with call graphs should put 75% of hot's samples under a and
 * 25% under b.  Built with frame pointers and without inlining, so the
 * kernel's frame-pointer walk sees main -> a -> hot and main -> b -> hot.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ITERATIONS 200000

static volatile uint64_t sink;

__attribute__((noinline)) void hot(void);
__attribute__((noinline)) void a(void);
__attribute__((noinline)) void b(void);

__attribute__((noinline)) void hot(void)
{
	for (uint64_t i = 0; i < ITERATIONS; i++)
		sink += i ^ (sink >> 3);
}

/* the calls are not tail calls, so a and b stay on the stack */
__attribute__((noinline)) void a(void)
{
	hot();
	sink++;
}

__attribute__((noinline)) void b(void)
{
	hot();
	sink++;
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

	if (argc > 2) {
		fprintf(stderr, "usage: callchain [SECONDS]\n");
		return 2;
	}
	if (argc == 2) {
		seconds = strtod(argv[1], &tail);
		if (tail == argv[1] || *tail || seconds <= 0) {
			fprintf(stderr, "callchain: bad SECONDS '%s'\n",
				argv[1]);
			return 2;
		}
	}
	end = now() + seconds;
	while (now() < end) {
		a();
		a();
		a();
		b();
	}
	return 0;
}
