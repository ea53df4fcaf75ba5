/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_spin ITERATIONS: a CPU-bound C workload that does a fixed amount
 * of work, so that a recorder's cost shows as a longer run.  (The 3:1
 * workloads run for a fixed time, which hides their slowdown.)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* kept out of line so that both profilers see one named function */
static __attribute__((noinline)) uint64_t spin_mix(uint64_t x, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

int main(int argc, char **argv)
{
	unsigned long long n;
	char *end;

	if (argc != 2) {
		fprintf(stderr, "usage: bench_spin ITERATIONS\n");
		return 2;
	}
	errno = 0;
	n = strtoull(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || n == 0) {
		fprintf(stderr, "bench_spin: bad iteration count '%s'\n",
			argv[1]);
		return 2;
	}
	/* printed so that the loop cannot be optimised away */
	printf("%" PRIx64 "\n", spin_mix(88172645463325252ull, n));
	return 0;
}
