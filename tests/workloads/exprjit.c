// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * exprjit [--on-attach] [--code-bytes] SECONDS: a small JIT that links
 * libopjit-jitlog (on attach: its log is written only while a profiler
 * observes; with --code-bytes, the log keeps its code).  It compiles
 * arithmetic expressions over n into x86-64 loops (n times: acc += n;
 * acc *= 3; once per term, then n--), each line of its made-up source
 * exprs.txt one term, and logs every piece of code it writes: name,
 * size and a line per term.  Three phases of equal length:
 *
 *   1. expr_heavy (six terms) and expr_light (two terms), in turn;
 *   2. re-JIT: expr_heavy is unloaded and expr_other (four terms) is
 *      written over it, at the same address;
 *   3. expr_light moves to a new address.
 *
 * Each phase is SECONDS / 3 of its own CPU time, and starts with a line
 * "phase N" (0 to 2) on stdout.
 * It measures the CPU time spent in each expression and prints "truth
 * NAME PERCENT" of the time spent in all of them.  The log is left in
 * /tmp, as a JIT leaves it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <opjit/jitlog.h>

#define ITERATIONS 200000
#define SLOT 512 /* bytes between the code addresses */
#define MAX_TERMS 8

typedef uint64_t (*expr_fn)(uint64_t n);

struct expr {
	const char *name;
	unsigned terms;
	unsigned char *at;
	struct opjit_jitlog_code code;
	struct opjit_jitlog_line lines[MAX_TERMS + 1];
	uint64_t ns;
};

/* Compile E at AT: xor eax,eax; loop: (add rax,rdi; imul rax,rax,3)
 * per term; dec rdi; jnz loop; ret.  Returns the size. */
static size_t compile(struct expr *e, unsigned char *at, unsigned line0)
{
	static const unsigned char term[] = { 0x48, 0x01, 0xf8, 0x48,
					      0x6b, 0xc0, 0x03 };
	unsigned char *p = at;
	unsigned i;

	*p++ = 0x31;
	*p++ = 0xc0;
	e->lines[0] = (struct opjit_jitlog_line){ 0, line0 };
	for (i = 0; i < e->terms; i++) {
		e->lines[i + 1] =
			(struct opjit_jitlog_line){ (uint32_t)(p - at),
						    line0 + 1 + i };
		memcpy(p, term, sizeof(term));
		p += sizeof(term);
	}
	*p++ = 0x48; /* dec rdi */
	*p++ = 0xff;
	*p++ = 0xcf;
	*p++ = 0x75; /* jnz back to the first term */
	*p = (unsigned char)(int8_t)(2 - (p + 1 - at));
	p++;
	*p++ = 0xc3;
	__builtin___clear_cache((char *)at, (char *)p);
	e->at = at;
	e->code = (struct opjit_jitlog_code){
		.struct_size = sizeof(e->code),
		.addr = (uintptr_t)at,
		.size = (uint64_t)(p - at),
		.name = e->name,
		.file = "exprs.txt",
		.lines = e->lines,
		.nr_lines = e->terms + 1,
	};
	return (size_t)(p - at);
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

static void run(struct expr *e)
{
	uint64_t t0 = cpu_ns();

	sink += ((expr_fn)(void *)e->at)(ITERATIONS);
	e->ns += cpu_ns() - t0;
}

static void check(int rc, const char *what)
{
	if (rc) {
		fprintf(stderr, "exprjit: %s: %s\n", what,
			opjit_jitlog_strerror(rc));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct expr heavy = { .name = "expr_heavy", .terms = 6 };
	struct expr light = { .name = "expr_light", .terms = 2 };
	struct expr other = { .name = "expr_other", .terms = 4 };
	struct expr *all[] = { &heavy, &light, &other };
	bool on_attach = false, code_bytes = false;
	double seconds = 3;
	struct opjit_jitlog_options opts = { .struct_size = sizeof(opts) };
	struct opjit_jitlog *log;
	unsigned char *mem;
	uint64_t end, total = 0;
	int phase;
	size_t i;

	for (i = 1; i < (size_t)argc; i++) {
		if (!strcmp(argv[i], "--on-attach"))
			on_attach = true;
		else if (!strcmp(argv[i], "--code-bytes"))
			code_bytes = true;
		else
			seconds = atof(argv[i]);
	}
	opts.mode = on_attach ? OPJIT_JITLOG_ON_ATTACH : OPJIT_JITLOG_ALWAYS;
	opts.flags = code_bytes ? OPJIT_JITLOG_OPT_CODE_BYTES : 0;
	mem = mmap(NULL, 4 * SLOT, PROT_READ | PROT_WRITE | PROT_EXEC,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("exprjit: mmap");
		return 1;
	}
	check(opjit_jitlog_open(&opts, &log), "cannot open the jit log");
	compile(&heavy, mem, 10);
	check(opjit_jitlog_load(log, &heavy.code), "load");
	compile(&light, mem + SLOT, 20);
	check(opjit_jitlog_load(log, &light.code), "load");
	for (phase = 0; phase < 3; phase++) {
		struct expr *hot = phase ? &other : &heavy;

		/* for a profiler attached by a test to stop between phases */
		printf("phase %d\n", phase);
		fflush(stdout);

		if (phase == 1) {
			check(opjit_jitlog_unload(log, &heavy.code), "unload");
			compile(&other, mem, 30);
			check(opjit_jitlog_load(log, &other.code), "load");
		} else if (phase == 2) {
			uint64_t old = light.code.addr;
			uint64_t id = light.code.id;

			compile(&light, mem + 2 * SLOT, 20);
			light.code.id = id;
			check(opjit_jitlog_move(log, &light.code, old),
			      "move");
		}
		/* by its own CPU time, so that a busy machine still gives
		 * each phase its samples */
		end = cpu_ns() + (uint64_t)(seconds / 3 * 1e9);
		while (cpu_ns() < end) {
			run(hot);
			run(&light);
		}
	}
	check(opjit_jitlog_close(log), "close");
	for (i = 0; i < 3; i++)
		total += all[i]->ns;
	for (i = 0; i < 3; i++)
		printf("truth %s %.2f\n", all[i]->name,
		       100.0 * (double)all[i]->ns / (double)total);
	return 0;
}
