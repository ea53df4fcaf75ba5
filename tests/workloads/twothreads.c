// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * twothreads [SECONDS]: two threads, each running a native function of
 * its own until it has had its share of CPU time (its own clock,
 * CLOCK_THREAD_CPUTIME_ID): "tt-alpha" alpha_work for SECONDS (default
 * 2), "tt-beta" beta_work for half as long, so a per-thread profile
 * gives each thread its own function, in proportion to the CPU times
 * it prints at exit, one line a thread:
 *   thread TID NAME FUNCTION CPU_NS
 * The main thread only waits.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

struct worker {
	const char *name, *function;
	void (*work)(void);
	uint64_t want_ns, cpu_ns;
	pid_t tid;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void alpha_work(void)
{
	for (uint64_t i = 0; i < 100000; i++)
		sink += i ^ (sink >> 3);
}

__attribute__((noinline)) static void beta_work(void)
{
	for (uint64_t i = 0; i < 100000; i++)
		sink += i ^ (sink >> 5);
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;

	w->tid = (pid_t)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), w->name);
	while (thread_cpu_ns() < w->want_ns)
		w->work();
	w->cpu_ns = thread_cpu_ns();
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;
	struct worker w[2] = {
		{ "tt-alpha", "alpha_work", alpha_work, 0, 0, 0 },
		{ "tt-beta", "beta_work", beta_work, 0, 0, 0 },
	};
	pthread_t t[2];
	int i;

	if (seconds <= 0) {
		fprintf(stderr, "usage: twothreads [SECONDS]\n");
		return 2;
	}
	w[0].want_ns = (uint64_t)(seconds * 1e9);
	w[1].want_ns = w[0].want_ns / 2;
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker_run, &w[i])) {
			fprintf(stderr, "twothreads: pthread_create failed\n");
			return 1;
		}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 2; i++)
		printf("thread %d %s %s %llu\n", (int)w[i].tid, w[i].name,
		       w[i].function, (unsigned long long)w[i].cpu_ns);
	return 0;
}
