// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * jitdemo [--seconds S] [--threads N] [--map-file anon|perf|none]
 *         [--phases 1] [--touch-pages N]
 *
 * A minimal JIT: writes two x86-64 functions, jit_hot and jit_cold, into
 * anonymous memory and runs them, jit_hot doing three times the
 * iterations of jit_cold (the truth is 75/25).  It describes them the way
 * runtimes do, in perf map text in /tmp/anon.<pid> or /tmp/perf-<pid>.map,
 * and leaves the map behind at exit as they do.  For tests it prints
 * "jit-range 0xSTART 0xEND" and one "thread TID" line per worker.
 *
 * --phases 1: each worker runs jit_hot alone for the first half of its
 * CPU time and jit_cold alone for the second, and prints
 * "phase-switch NS", the CLOCK_MONOTONIC time it switched.
 *
 * --touch-pages N: a third function, jit_touch, writes to fresh pages
 * (a page fault each), 64 pages between each worker's rounds until N
 * pages are touched (the rest after the last round); the map names it, and at exit the demo prints
 * "faults jit_touch N", the minor faults its workers took in it
 * (getrusage around each call), the truth of a page-faults profile.
 *
 * At exit it prints "cpu jit_hot NS" and "cpu jit_cold NS": the thread CPU
 * time spent in each, summed over the workers, the truth a profile's
 * split is compared with on a busy machine.  On SIGUSR1 it prints
 * "cpu-so-far HOT_NS COLD_NS", the same sums up to then, so that a
 * profile of part of a long run has its truth too (without --phases).
 */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define COLD_ITERATIONS 1000000u
#define FN_SLOT 64		/* bytes between the two functions */
#define CODE_SIZE (2 * FN_SLOT) /* jit_hot and jit_cold, as printed */
#define TOUCH_CHUNK 64		/* pages jit_touch is given at once */

typedef void (*jit_fn)(void);
typedef void (*jit_touch_fn)(char *pages, long n);

static double seconds = 2;
static int phases;
static jit_fn jit_hot, jit_cold;
static jit_touch_fn jit_touch;
static long touch_pages; /* per worker */
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static double hot_cpu, cold_cpu;	     /* under out_lock */
static long touch_faults;		     /* under out_lock */
static atomic_llong hot_so_far, cold_so_far; /* ns, without --phases */

/* Async-signal-safe: formats with no stdio. */
static void print_so_far(int sig)
{
	long long v[2] = { atomic_load(&hot_so_far),
			   atomic_load(&cold_so_far) };
	char buf[80], digits[24];
	size_t n = 0;

	(void)sig;
	memcpy(buf, "cpu-so-far", 10);
	n = 10;
	for (int i = 0; i < 2; i++) {
		int d = 0;

		do
			digits[d++] = (char)('0' + v[i] % 10);
		while ((v[i] /= 10) > 0);
		buf[n++] = ' ';
		while (d)
			buf[n++] = digits[--d];
	}
	buf[n++] = '\n';
	if (write(STDOUT_FILENO, buf, n) < 0)
		return;
}

/* mov ecx, imm32; 1: dec ecx; jnz 1b; ret */
static size_t emit_loop(unsigned char *p, uint32_t iterations)
{
	static const unsigned char tail[] = { 0xff, 0xc9, 0x75, 0xfc, 0xc3 };

	p[0] = 0xb9;
	memcpy(p + 1, &iterations, 4);
	memcpy(p + 5, tail, sizeof(tail));
	return 5 + sizeof(tail);
}

/* 1: mov byte [rdi], 1; add rdi, 4096; dec rsi; jnz 1b; ret */
static size_t emit_touch(unsigned char *p)
{
	static const unsigned char code[] = {
		0xc6, 0x07, 0x01, /* mov byte [rdi], 1 */
		0x48, 0x81, 0xc7, 0x00, 0x10, 0x00, 0x00, /* add rdi, 4096 */
		0x48, 0xff, 0xce,			  /* dec rsi */
		0x75, 0xf1,				  /* jnz 1b */
		0xc3,					  /* ret */
	};

	memcpy(p, code, sizeof(code));
	return sizeof(code);
}

static long thread_minflt(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_minflt;
}

/* TOUCH_CHUNK fresh pages through jit_touch; the faults it took. */
static long touch_chunk(void)
{
	long before, after;
	char *p = mmap(NULL, TOUCH_CHUNK * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("jitdemo: mmap");
		exit(1);
	}
	before = thread_minflt();
	jit_touch(p, TOUCH_CHUNK);
	after = thread_minflt();
	munmap(p, TOUCH_CHUNK * 4096);
	return after - before;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Two phases by the thread's own CPU time, so that a busy machine
 * stretches them alike. */
static void run_phases(void)
{
	double start = cpu_now();
	struct timespec ts;

	while (cpu_now() - start < seconds / 2)
		jit_hot();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	pthread_mutex_lock(&out_lock);
	hot_cpu += cpu_now() - start;
	printf("phase-switch %lld\n",
	       (long long)ts.tv_sec * 1000000000 + ts.tv_nsec);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	while (cpu_now() - start < seconds)
		jit_cold();
	pthread_mutex_lock(&out_lock);
	cold_cpu += cpu_now() - start - seconds / 2;
	pthread_mutex_unlock(&out_lock);
}

static void *worker(void *arg)
{
	double end = now() + seconds;
	double hot = 0, cold = 0, t0, t1, t2;
	long touched = 0, faults = 0;

	pthread_mutex_lock(&out_lock);
	printf("thread %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	if (phases) {
		run_phases();
		return arg;
	}
	while (now() < end) {
		t0 = cpu_now();
		jit_hot();
		t1 = cpu_now();
		jit_cold();
		t2 = cpu_now();
		hot += t1 - t0;
		cold += t2 - t1;
		atomic_fetch_add(&hot_so_far, (long long)((t1 - t0) * 1e9));
		atomic_fetch_add(&cold_so_far, (long long)((t2 - t1) * 1e9));
		if (touched < touch_pages) {
			faults += touch_chunk();
			touched += TOUCH_CHUNK;
		}
	}
	/* all of them, however few rounds a busy machine left time for */
	for (; touched < touch_pages; touched += TOUCH_CHUNK)
		faults += touch_chunk();
	pthread_mutex_lock(&out_lock);
	hot_cpu += hot;
	cold_cpu += cold;
	touch_faults += faults;
	pthread_mutex_unlock(&out_lock);
	return arg;
}

/* The map is created fresh: a stale one of ours is replaced, anyone
 * else's file under that name is refused. */
static int write_map(const char *kind, uintptr_t base)
{
	char path[64];
	struct stat st;
	FILE *f;
	int fd;

	if (!strcmp(kind, "none"))
		return 0;
	if (!strcmp(kind, "anon"))
		snprintf(path, sizeof(path), "/tmp/anon.%d", (int)getpid());
	else
		snprintf(path, sizeof(path), "/tmp/perf-%d.map",
			 (int)getpid());
	if (!lstat(path, &st)) {
		if (st.st_uid != getuid()) {
			fprintf(stderr,
				"jitdemo: %s belongs to uid %u, not "
				"writing a map\n",
				path, (unsigned)st.st_uid);
			return -1;
		}
		unlink(path);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0 || fchmod(fd, 0644) < 0) {
		fprintf(stderr, "jitdemo: cannot create %s: %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -1;
	}
	fprintf(f, "%lx %x jit_hot\n", (unsigned long)base, FN_SLOT);
	fprintf(f, "%lx %x jit_cold\n", (unsigned long)(base + FN_SLOT),
		FN_SLOT);
	if (touch_pages)
		fprintf(f, "%lx %x jit_touch\n",
			(unsigned long)(base + 2 * FN_SLOT), FN_SLOT);
	if (fclose(f)) {
		fprintf(stderr, "jitdemo: cannot write %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, long *threads, const char **map)
{
	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;

		if (!v)
			goto usage;
		if (!strcmp(a, "--seconds")) {
			seconds = strtod(v, &end);
			if (*end || end == v || !(seconds > 0))
				goto usage;
		} else if (!strcmp(a, "--threads")) {
			*threads = strtol(v, &end, 10);
			if (*end || end == v || *threads < 1 || *threads > 256)
				goto usage;
		} else if (!strcmp(a, "--phases")) {
			if (strcmp(v, "0") && strcmp(v, "1"))
				goto usage;
			phases = v[0] == '1';
		} else if (!strcmp(a, "--touch-pages")) {
			touch_pages = strtol(v, &end, 10);
			if (*end || end == v || touch_pages < 1)
				goto usage;
		} else if (!strcmp(a, "--map-file")) {
			if (strcmp(v, "anon") && strcmp(v, "perf") &&
			    strcmp(v, "none"))
				goto usage;
			*map = v;
		} else {
			goto usage;
		}
	}
	return 0;
usage:
	fprintf(stderr, "usage: jitdemo [--seconds S] [--threads N] "
			"[--map-file anon|perf|none] [--phases 1] "
			"[--touch-pages N]\n");
	return -1;
}

int main(int argc, char **argv)
{
	long threads = 1;
	const char *map = "anon";
	unsigned char *code;
	pthread_t *t;

#if !defined(__x86_64__)
	(void)argc;
	(void)argv;
	fprintf(stderr, "jitdemo: writes x86-64 code; this machine is not "
			"x86-64\n");
	return 77;
#endif
	if (parse_args(argc, argv, &threads, &map))
		return 2;
	signal(SIGUSR1, print_so_far);
	code = mmap(NULL, 3 * FN_SLOT, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		fprintf(stderr, "jitdemo: mmap: %s\n", strerror(errno));
		return 1;
	}
	memset(code, 0xcc, 3 * FN_SLOT); /* int3 between the functions */
	emit_loop(code, 3 * COLD_ITERATIONS);
	emit_loop(code + FN_SLOT, COLD_ITERATIONS);
	emit_touch(code + 2 * FN_SLOT);
	if (mprotect(code, 3 * FN_SLOT, PROT_READ | PROT_EXEC)) {
		fprintf(stderr, "jitdemo: mprotect: %s\n", strerror(errno));
		return 1;
	}
	jit_hot = (jit_fn)(uintptr_t)code;
	jit_cold = (jit_fn)(uintptr_t)(code + FN_SLOT);
	jit_touch = (jit_touch_fn)(uintptr_t)(code + 2 * FN_SLOT);
	if (write_map(map, (uintptr_t)code))
		return 1;
	printf("jit-range 0x%lx 0x%lx\n", (unsigned long)(uintptr_t)code,
	       (unsigned long)(uintptr_t)(code + CODE_SIZE));
	fflush(stdout);
	t = calloc(threads, sizeof(*t));
	if (!t)
		return 1;
	for (long i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker, NULL)) {
			fprintf(stderr, "jitdemo: cannot start thread\n");
			return 1;
		}
	for (long i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	free(t);
	printf("cpu jit_hot %.0f\ncpu jit_cold %.0f\n", hot_cpu * 1e9,
	       cold_cpu * 1e9);
	if (touch_pages)
		printf("faults jit_touch %ld\n", touch_faults);
	return 0;
}
