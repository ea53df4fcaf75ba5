// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * pagetouch [SECONDS]: for SECONDS of its own CPU time (default 1), maps
 * fresh anonymous pages and writes one byte to each (a minor fault each,
 * in touch_pages), then spins a while in spin_work, and unmaps them.
 * With OPJIT_WORKLOAD_FAULTS_FILE set it writes there "CPU_MS FAULTS":
 * its CPU time (utime + stime) and the minor faults taken inside
 * touch_pages, from getrusage around each call, the truth a page-faults
 * count is compared with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PAGES 64

static volatile unsigned long sink;

__attribute__((noinline)) static void touch_pages(char *p, long page)
{
	for (int i = 0; i < PAGES; i++)
		((volatile char *)p)[(long)i * page] = (char)i;
}

__attribute__((noinline)) static void spin_work(void)
{
	for (unsigned long i = 0; i < 200000; i++)
		sink += i;
}

static long minflt(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? 0 : ru.ru_minflt;
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), faults = 0;
	double seconds = 1;
	const char *path = getenv("OPJIT_WORKLOAD_FAULTS_FILE");
	struct rusage ru;
	char *tail;

	if (argc > 2) {
		fprintf(stderr, "usage: pagetouch [SECONDS]\n");
		return 2;
	}
	if (argc == 2) {
		seconds = strtod(argv[1], &tail);
		if (*tail || tail == argv[1] || !(seconds > 0)) {
			fprintf(stderr, "pagetouch: invalid seconds '%s'\n",
				argv[1]);
			return 2;
		}
	}
	while (cpu_seconds() < seconds) {
		char *p = mmap(NULL, (size_t)(PAGES * page),
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		long before;

		if (p == MAP_FAILED) {
			perror("pagetouch: mmap");
			return 1;
		}
		before = minflt();
		touch_pages(p, page);
		faults += minflt() - before;
		spin_work();
		munmap(p, (size_t)(PAGES * page));
	}
	if (path && !getrusage(RUSAGE_SELF, &ru)) {
		FILE *f = fopen(path, "w");

		if (!f) {
			perror(path);
			return 1;
		}
		fprintf(f, "%lld %ld\n",
			(long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
					1000 +
				(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) /
					1000,
			faults);
		fclose(f);
	}
	return 0;
}
