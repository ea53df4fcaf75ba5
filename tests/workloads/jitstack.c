// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * jitstack [SECONDS]: JIT code in the middle of the stack, replaced at
 * the same address while the program runs, for SECONDS of its CPU time
 * (a busy machine makes the run longer, not its profile smaller).
 *
 * One page of anonymous memory holds a JIT function that sets up a frame
 * and calls the native hot() (this binary, frame pointers on), so a
 * sample in hot() has the JIT function as its caller.  The program runs
 * in phases: jit_outer_a for 150 ms, then jit_outer_b for 50 ms, then a
 * again...  Each phase writes its own code at the same address (b's
 * bytes differ) and stamps it in a javamap file /tmp/anon.<pid>
 * (handlers/jitlog/FORMAT.md, a DYNAMIC_CODE record with the
 * CLOCK_MONOTONIC time it took over the address).  A profiler that names
 * caller frames by the time of each sample puts about 75% of hot() under
 * jit_outer_a and 25% under jit_outer_b; one that knows only the last
 * name at the address puts them all under one.  It prints "jitstack pid
 * N" first (whose map to remove after the report) and at the end
 * "jitstack ran A NS B NS", the CPU time each version ran: the truth a
 * profile is compared with, since cpu-clock samples count CPU time and a
 * busy machine stretches the phases' wall time unevenly.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jm_build.h"

#define PAGE 4096
#define PHASE_A_NS 150000000ull
#define PHASE_B_NS 50000000ull

typedef void (*jit_fn)(void);

static volatile uint64_t sink;

__attribute__((noinline)) void hot(void);
__attribute__((noinline)) void hot(void)
{
	for (uint64_t i = 0; i < 100000; i++)
		sink += i ^ (sink >> 3);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* push rbp; mov rbp, rsp; [nop for b]; movabs rax, hot; call rax;
 * pop rbp; ret */
static size_t emit_outer(unsigned char *p, bool b)
{
	uint64_t target = (uint64_t)(uintptr_t)hot;
	size_t n = 0;

	p[n++] = 0x55;
	p[n++] = 0x48, p[n++] = 0x89, p[n++] = 0xe5;
	if (b)
		p[n++] = 0x90;
	p[n++] = 0x48, p[n++] = 0xb8;
	memcpy(p + n, &target, 8);
	n += 8;
	p[n++] = 0xff, p[n++] = 0xd0;
	p[n++] = 0x5d;
	p[n++] = 0xc3;
	return n;
}

/* A fresh map: a stale one of ours is replaced, anyone else's refused. */
static int map_open(void)
{
	char path[64];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "/tmp/anon.%d", (int)getpid());
	if (!lstat(path, &st)) {
		if (st.st_uid != getuid()) {
			fprintf(stderr, "jitstack: %s belongs to uid %u\n",
				path, (unsigned)st.st_uid);
			return -1;
		}
		unlink(path);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0 || fchmod(fd, 0644) < 0) {
		fprintf(stderr, "jitstack: cannot create %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	return fd;
}

/* Write what B holds to FD and empty it. */
static int map_flush(int fd, struct jmb *b)
{
	if (write(fd, b->buf, b->len) != (ssize_t)b->len) {
		fprintf(stderr, "jitstack: cannot write the map: %s\n",
			strerror(errno));
		return -1;
	}
	b->len = 0;
	return 0;
}

int main(int argc, char **argv)
{
	double seconds = 2;
	uint64_t ran[2] = { 0, 0 }, end, t, cpu;
	unsigned char *code;
	struct jmb b;
	char *tail;
	int fd, phase = 0;

#if !defined(__x86_64__)
	fprintf(stderr, "jitstack: writes x86-64 code; this machine is not "
			"x86-64\n");
	return 77;
#endif
	if (argc == 2)
		seconds = strtod(argv[1], &tail);
	if (argc > 2 || (argc == 2 && (seconds <= 0 || *tail))) {
		fprintf(stderr, "usage: jitstack [SECONDS]\n");
		return 2;
	}
	code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		fprintf(stderr, "jitstack: mmap: %s\n", strerror(errno));
		return 1;
	}
	fd = map_open();
	if (fd < 0)
		return 1;
	printf("jitstack pid %d\n", (int)getpid());
	fflush(stdout);
	jmb_init(&b, (uint32_t)getpid(), 0);
	/* a real start time: the handler refuses a map older than us */
	jmb_set_start(&b, now_ns());
	if (map_flush(fd, &b))
		return 1;
	end = cpu_ns() + (uint64_t)(seconds * 1e9);
	for (cpu = cpu_ns(); cpu < end; phase ^= 1) {
		uint64_t start, stop, cpu0;
		size_t size;

		if (mprotect(code, PAGE, PROT_READ | PROT_WRITE))
			return 1;
		memset(code, 0xcc, PAGE);
		size = emit_outer(code, phase);
		if (mprotect(code, PAGE, PROT_READ | PROT_EXEC))
			return 1;
		jmb_dynamic(&b, now_ns(), 0, (uint64_t)(uintptr_t)code,
			    (uint32_t)size,
			    phase ? "jit_outer_b" : "jit_outer_a");
		if (map_flush(fd, &b))
			return 1;
		cpu = cpu0 = cpu_ns();
		t = start = now_ns();
		stop = start + (phase ? PHASE_B_NS : PHASE_A_NS);
		while (t < stop && cpu < end) {
			((jit_fn)(uintptr_t)code)();
			t = now_ns();
			cpu = cpu_ns();
		}
		ran[phase] += cpu - cpu0;
	}
	jmb_free(&b);
	close(fd);
	printf("jitstack ran A %llu B %llu\n", (unsigned long long)ran[0],
	       (unsigned long long)ran[1]);
	return 0;
}
