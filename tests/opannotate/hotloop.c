// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * hotloop [ROUNDS]: one function, hot_sum(), whose samples are nearly
 * all in its inner loop; the loop's lines are marked for the test.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static volatile uint64_t hotloop_sink;

__attribute__((noinline)) static uint64_t hot_sum(uint64_t n, uint64_t seed)
{
	uint64_t acc = seed, i;

	for (i = 0; i < n; i++) {			/* HOT-LOOP */
		acc = acc * 6364136223846793005ull + i; /* HOT-LOOP */
		acc ^= acc >> 29;			/* HOT-LOOP */
	}
	return acc;
}

int main(int argc, char **argv)
{
	uint64_t rounds = argc > 1 ? strtoull(argv[1], NULL, 0) : 40;
	uint64_t r;

	for (r = 0; r < rounds; r++)
		hotloop_sink = hot_sum(25000000, r);
	printf("hotloop done %llu\n", (unsigned long long)hotloop_sink);
	return 0;
}
