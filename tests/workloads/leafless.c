// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * leafless [SECONDS]: main calls left three times for each call of right;
 * both call leaf, where the time goes.  Built -O1 with frame pointers,
 * gcc still leaves leaf without a frame of its own (it calls nothing),
 * so a frame-pointer walk from leaf skips its caller: main;leaf where
 * the truth is main;left;leaf and main;right;leaf.  At the end it
 * prints the thread CPU time each caller took, the truth a report is
 * compared with:
 *   left SECONDS
 *   right SECONDS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

/* global, so that every report names them */
void leaf(void);
void left(void);
void right(void);

__attribute__((noinline)) void leaf(void)
{
	uint64_t x = sink, i;

	for (i = 0; i < 2000000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

__attribute__((noinline)) void left(void)
{
	leaf();
	sink++; /* work after the call: no tail call */
}

__attribute__((noinline)) void right(void)
{
	leaf();
	sink++;
}

static double clock_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = 2, t, tl = 0, tr = 0;
	char *tail;

	if (argc > 2) {
		fprintf(stderr, "usage: leafless [SECONDS]\n");
		return 2;
	}
	if (argc == 2) {
		seconds = strtod(argv[1], &tail);
		if (*tail || tail == argv[1] || !(seconds > 0)) {
			fprintf(stderr, "leafless: invalid seconds '%s'\n",
				argv[1]);
			return 2;
		}
	}
	while (tl + tr < seconds) {
		t = clock_s();
		left();
		left();
		left();
		tl += clock_s() - t;
		t = clock_s();
		right();
		tr += clock_s() - t;
	}
	printf("left %.6f\nright %.6f\n", tl, tr);
	return 0;
}
