/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_rusage -o FILE -- COMMAND [ARGS]: run COMMAND and write one line
 * "WALL_S USER_S SYS_S MAXRSS_KB STATUS" to FILE.  The times cover
 * COMMAND and every descendant it waited for, which is what lets the
 * benchmark nest two of these around a recorder and its workload and
 * take the recorder's own CPU time as the difference.  COMMAND keeps our
 * stdin, stdout and stderr; STATUS is its exit code, or 128+signal.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double rusage_seconds(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static double rusage_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int rusage_usage(void)
{
	fprintf(stderr, "usage: bench_rusage -o FILE -- COMMAND [ARGS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *out_path = NULL;
	struct rusage ru;
	double start, wall;
	int status, code, opt;
	pid_t pid;
	FILE *out;

	while ((opt = getopt(argc, argv, "+o:")) != -1) {
		if (opt != 'o')
			return rusage_usage();
		out_path = optarg;
	}
	if (!out_path || optind >= argc)
		return rusage_usage();

	start = rusage_now();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "bench_rusage: cannot fork: %s\n",
			strerror(errno));
		return 125;
	}
	if (pid == 0) {
		execvp(argv[optind], &argv[optind]);
		fprintf(stderr, "bench_rusage: cannot run %s: %s\n",
			argv[optind], strerror(errno));
		_exit(127);
	}
	/* the terminal's ^C is for the command; we only report */
	signal(SIGINT, SIG_IGN);
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr,
				"bench_rusage: cannot wait for %s: %s\n",
				argv[optind], strerror(errno));
			return 125;
		}
	}
	wall = rusage_now() - start;
	code = WIFEXITED(status) ? WEXITSTATUS(status)
				 : 128 + WTERMSIG(status);

	out = fopen(out_path, "w");
	if (!out) {
		fprintf(stderr, "bench_rusage: cannot write %s: %s\n",
			out_path, strerror(errno));
		return 125;
	}
	fprintf(out, "%.6f %.6f %.6f %ld %d\n", wall,
		rusage_seconds(&ru.ru_utime), rusage_seconds(&ru.ru_stime),
		ru.ru_maxrss, code);
	if (fclose(out) != 0) {
		fprintf(stderr, "bench_rusage: cannot write %s: %s\n",
			out_path, strerror(errno));
		return 125;
	}
	return code;
}
