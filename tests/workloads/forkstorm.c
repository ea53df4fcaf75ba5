// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * forkstorm [N]: N short-lived child processes, then N short-lived
 * threads, each spinning briefly: the churn a recorder must survive.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BATCH 32

static volatile uint64_t sink;

__attribute__((noinline)) static void storm_spin(void)
{
	for (uint64_t i = 0; i < 200000; i++)
		sink += i;
}

static void *storm_thread(void *arg)
{
	storm_spin();
	return arg;
}

static int storm_processes(long n)
{
	pid_t kids[BATCH];

	for (long done = 0; done < n;) {
		int k = 0;

		for (; k < BATCH && done + k < n; k++) {
			kids[k] = fork();
			if (kids[k] < 0) {
				fprintf(stderr, "forkstorm: fork: %s\n",
					strerror(errno));
				return -1;
			}
			if (kids[k] == 0) {
				storm_spin();
				_exit(0);
			}
		}
		for (int i = 0; i < k; i++)
			while (waitpid(kids[i], NULL, 0) < 0 && errno == EINTR)
				;
		done += k;
	}
	return 0;
}

static int storm_threads(long n)
{
	pthread_t t[BATCH];

	for (long done = 0; done < n;) {
		int k = 0, err;

		for (; k < BATCH && done + k < n; k++) {
			err = pthread_create(&t[k], NULL, storm_thread, NULL);
			if (err) {
				fprintf(stderr,
					"forkstorm: pthread_create: "
					"%s\n",
					strerror(err));
				return -1;
			}
		}
		for (int i = 0; i < k; i++)
			pthread_join(t[i], NULL);
		done += k;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long n = 2000;
	char *end;

	if (argc > 2) {
		fprintf(stderr, "usage: forkstorm [N]\n");
		return 2;
	}
	if (argc == 2) {
		n = strtol(argv[1], &end, 10);
		if (*end || end == argv[1] || n < 0) {
			fprintf(stderr, "forkstorm: invalid count '%s'\n",
				argv[1]);
			return 2;
		}
	}
	if (storm_processes(n) || storm_threads(n))
		return 1;
	return 0;
}
