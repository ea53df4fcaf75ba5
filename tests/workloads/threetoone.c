// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * threetoone [SECONDS[cpu] [RATIO]]: the 3:1 truth.  heavy_work runs the same
 * loop as light_work three times as long (RATIO times: 1 gives 50/50), so
 * a profiler should give them 75% and 25% of the samples (of the two).
 * SECONDS are of wall time, or with "cpu" after them of the process's
 * own CPU time, so that a test on a busy machine gets the work it counts
 * on, however long that takes.  With OPJIT_WORKLOAD_CPU_FILE set, it writes there, at exit, the CPU
 * time it had in milliseconds: a test on a busy machine judges a count
 * of samples by it, not by SECONDS of wall time.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

static clockid_t clock_id = CLOCK_MONOTONIC;

static double now(void)
{
	struct timespec ts;

	clock_gettime(clock_id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void write_cpu_ms(void)
{
	const char *path = getenv("OPJIT_WORKLOAD_CPU_FILE");
	struct rusage ru;
	FILE *f;

	if (!path || getrusage(RUSAGE_SELF, &ru))
		return;
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return;
	}
	fprintf(f, "%lld\n",
		(long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
			(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000);
	fclose(f);
}

int main(int argc, char **argv)
{
	double seconds = 2, end;
	char *tail;

	if (argc > 3) {
		fprintf(stderr, "usage: threetoone [SECONDS[cpu] [RATIO]]\n");
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
		if (tail != argv[1] && !strcmp(tail, "cpu")) {
			clock_id = CLOCK_PROCESS_CPUTIME_ID;
			tail += 3;
		}
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
	write_cpu_ms();
	return 0;
}
