// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * jitdumpdemo [--seconds S] [--dir DIR] [--perf-map] [--same-name]
 *
 * A minimal JIT that describes its code in perf's jitdump format, the
 * way node --perf-prof and perf's JVMTI agent do: DIR/jit-<pid>.dump
 * (DIR defaults to /tmp), mmapped executable so that the profiler sees
 * it.  Three phases of equal length, each running a hot function three
 * times for every call of a cold one:
 *
 *   1. jd_alpha at A (hot), jd_beta at B (cold);
 *   2. re-JIT: jd_gamma written over jd_alpha at A (the same address,
 *      a new load record), jd_beta still at B;
 *   3. jd_beta moved from B to C (a JIT_CODE_MOVE record).
 *
 * Each load is preceded by a JIT_CODE_DEBUG_INFO record giving its line
 * in a made-up source file, and one unwinding record is written to be
 * skipped.  The header carries wall-clock time, as some writers do; the
 * records carry CLOCK_MONOTONIC.  With --perf-map the same code is also
 * listed in /tmp/perf-<pid>.map, named "map:NAME".  With --same-name the
 * re-JIT of phase 2 is named jd_alpha too (its time still counted as
 * jd_gamma's) and loops 16 more times, so that two generations of one
 * function with different bytes share an address.
 *
 * It measures the CPU time spent in each function and prints "truth NAME
 * PERCENT" (of all JIT time), then "jitdump PATH" and "jit-range 0xA
 * 0xEND".  The dump is left behind, as runtimes leave theirs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ITERATIONS 400000u
#define SLOT 256 /* bytes between the code addresses A, B, C */

enum { F_ALPHA, F_BETA, F_GAMMA, NR_FN };
static const char *const fn_name[NR_FN] = { "jd_alpha", "jd_beta",
					    "jd_gamma" };
static const uint32_t fn_line[NR_FN] = { 10, 20, 30 };
static double spent[NR_FN];

static int dump_fd = -1;
static FILE *map_file;
static int same_name;
static uint64_t next_index = 1;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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

static void put(const void *p, size_t n)
{
	if (write(dump_fd, p, n) != (ssize_t)n) {
		perror("jitdumpdemo: write");
		exit(1);
	}
}

static void put32(uint32_t v)
{
	put(&v, sizeof(v));
}
static void put64(uint64_t v)
{
	put(&v, sizeof(v));
}

static void record_header(uint32_t id, uint32_t size)
{
	put32(id);
	put32(size);
	put64(mono_ns());
}

static void emit_debug(uintptr_t addr, int fn)
{
	static const char file[] = "demo/jit.src";
	uint32_t size = 16 + 16 + 2 * (16 + (uint32_t)sizeof(file));

	record_header(2, size);
	put64(addr);
	put64(2);
	/* the function's first line, and the loop two lines below */
	put64(addr);
	put32(fn_line[fn]);
	put32(0);
	put(file, sizeof(file));
	put64(addr + 5);
	put32(fn_line[fn] + 2);
	put32(0);
	put(file, sizeof(file));
}

static void emit_load(uintptr_t addr, size_t size, int fn)
{
	const char *name = fn_name[fn == F_GAMMA && same_name ? F_ALPHA : fn];
	uint32_t total = 16 + 40 + (uint32_t)strlen(name) + 1 + (uint32_t)size;

	emit_debug(addr, fn);
	record_header(0, total);
	put32((uint32_t)getpid());
	put32((uint32_t)syscall(SYS_gettid));
	put64(addr);
	put64(addr);
	put64(size);
	put64(next_index++);
	put(name, strlen(name) + 1);
	put((const void *)addr, size);
	if (map_file) {
		fprintf(map_file, "%lx %zx map:%s\n", (unsigned long)addr,
			size, name);
		fflush(map_file);
	}
}

static void emit_move(uintptr_t from, uintptr_t to, size_t size,
		      uint64_t index)
{
	record_header(1, 16 + 48);
	put32((uint32_t)getpid());
	put32((uint32_t)syscall(SYS_gettid));
	put64(to);
	put64(from);
	put64(to);
	put64(size);
	put64(index);
	if (map_file) {
		fprintf(map_file, "%lx %zx map:%s\n", (unsigned long)to, size,
			fn_name[F_BETA]);
		fflush(map_file);
	}
}

/* An unwinding record, which a reader skips by its size. */
static void emit_unwind(void)
{
	record_header(4, 16 + 24 + 8);
	put64(8);
	put64(0);
	put64(8);
	put64(0);
}

static void open_dump(const char *dir)
{
	char path[4096];
	struct stat st;
	void *m;

	snprintf(path, sizeof(path), "%s/jit-%d.dump", dir, (int)getpid());
	/* a stale dump of this pid is ours to replace; anything that is
	 * not a regular file is someone else's */
	if (!lstat(path, &st) && S_ISREG(st.st_mode))
		unlink(path);
	dump_fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (dump_fd < 0) {
		fprintf(stderr, "jitdumpdemo: cannot create %s: %s\n", path,
			strerror(errno));
		exit(1);
	}
	put32(0x4A695444u);
	put32(1);
	put32(40);
	put32(62); /* EM_X86_64 */
	put32(0);
	put32((uint32_t)getpid());
	put64(wall_ns());
	put64(0);
	/* what tells a profiler where the dump is */
	m = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_EXEC,
		 MAP_PRIVATE, dump_fd, 0);
	if (m == MAP_FAILED) {
		perror("jitdumpdemo: mmap the dump");
		exit(1);
	}
	printf("jitdump %s\n", path);
}

static double now(void)
{
	return (double)mono_ns() / 1e9;
}

/* The truth is CPU time: the profiler's clock only runs while the
 * thread does, and a busy machine takes it off the CPU at random. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void run(unsigned char *hot, int hot_fn, unsigned char *cold,
		double until)
{
	void (*h)(void) = (void (*)(void))hot;
	void (*c)(void) = (void (*)(void))cold;

	while (now() < until) {
		double t0 = cpu_now(), t1;
		int i;

		for (i = 0; i < 3; i++)
			h();
		t1 = cpu_now();
		c();
		spent[hot_fn] += t1 - t0;
		spent[F_BETA] += cpu_now() - t1;
	}
}

int main(int argc, char **argv)
{
	const char *dir = "/tmp";
	double seconds = 3, t, total = 0;
	unsigned char *code, *a, *b, *c;
	size_t len;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--perf-map"))
			map_file = (FILE *)1;
		else if (!strcmp(argv[i], "--same-name"))
			same_name = 1;
		else {
			fprintf(stderr,
				"usage: jitdumpdemo [--seconds S] "
				"[--dir DIR] [--perf-map] [--same-name]\n");
			return 2;
		}
	}
	if (map_file) {
		char path[64];

		snprintf(path, sizeof(path), "/tmp/perf-%d.map",
			 (int)getpid());
		unlink(path);
		map_file = fopen(path, "wx");
		if (!map_file) {
			perror("jitdumpdemo: perf map");
			return 1;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	open_dump(dir);
	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("jitdumpdemo: mmap");
		return 1;
	}
	a = code;
	b = code + SLOT;
	c = code + 2 * SLOT;
	printf("jit-range %p %p\n", (void *)code, (void *)(code + 4096));

	/* 1: alpha at A, beta at B */
	len = emit_loop(a, ITERATIONS);
	emit_load((uintptr_t)a, len, F_ALPHA);
	len = emit_loop(b, ITERATIONS);
	emit_load((uintptr_t)b, len, F_BETA);
	emit_unwind();
	t = now();
	run(a, F_ALPHA, b, t + seconds / 3);

	/* 2: gamma over alpha, at the same address */
	len = emit_loop(a, same_name ? ITERATIONS + 16 : ITERATIONS);
	__builtin___clear_cache((char *)a, (char *)a + len);
	emit_load((uintptr_t)a, len, F_GAMMA);
	run(a, F_GAMMA, b, t + 2 * seconds / 3);

	/* 3: beta moved from B to C; B is left as junk */
	memcpy(c, b, len);
	__builtin___clear_cache((char *)c, (char *)c + len);
	emit_move((uintptr_t)b, (uintptr_t)c, len, 2);
	memset(b, 0xcc, len);
	run(a, F_GAMMA, c, t + seconds);

	record_header(3, 16);
	for (i = 0; i < NR_FN; i++)
		total += spent[i];
	for (i = 0; i < NR_FN; i++)
		printf("truth %s %.2f\n", fn_name[i],
		       total > 0 ? 100.0 * spent[i] / total : 0.0);
	if (map_file)
		fclose(map_file);
	return 0;
}
