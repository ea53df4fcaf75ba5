// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Every failure is reported once: profile_build() and
 * anon_handlers_load() are run with their Nth allocation failing, for
 * every N up to the number a whole run makes.  A run that fails must
 * leave exactly one line in the diagnostics sink, and one that goes on
 * at most one (a warning that something is missing).  Linked with
 * -Wl,--wrap= for malloc, calloc, realloc, strdup and strndup, so the
 * allocations of the report, the loader and the session reader can be
 * made to fail; libbfd's and libc's own cannot.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "anon_handlers.h"
#include "callgraph.h"
#include "diag.h"
#include "profile.h"
#include "report.h"
#include "spec.h"
#include "check_run.h"
#include "wrap_alloc.h"
#include "self_offset.h"

char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

static bool armed;
static unsigned long nr_allocs, fail_at;
static void *failed_from; /* the caller of the allocation that failed */

static bool fail_now(void *caller)
{
	if (!armed || ++nr_allocs != fail_at)
		return false;
	failed_from = caller;
	return true;
}

void *__wrap_malloc(size_t n)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
	return fail_now(__builtin_return_address(0)) ? NULL
						     : __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fail_now(__builtin_return_address(0)) ? NULL
						     : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
	return fail_now(__builtin_return_address(0)) ? NULL
						     : __real_strndup(s, n);
}

/* What the sink got. */
struct seen {
	char first[512];
	int n;
};

static void collect(const char *line, void *ctx)
{
	struct seen *s = ctx;

	if (!s->n++)
		snprintf(s->first, sizeof(s->first), "%s", line);
}

/* Arm the allocator to fail the FAILth allocation from now on (0:
 * none), with the lines going to SEEN. */
static void arm(unsigned long fail, struct seen *seen)
{
	memset(seen, 0, sizeof(*seen));
	diag_set_sink(collect, seen);
	nr_allocs = 0;
	fail_at = fail;
	failed_from = NULL;
	armed = true;
}

static void disarm(void)
{
	armed = false;
	diag_set_sink(NULL, NULL);
}

/* Whether a run that returned RET with the lines SEEN after its FAILth
 * allocation failed reported it once; says why not on stderr.  (The
 * allocation is named by its offset in this binary: addr2line -f.) */
static bool reported_once(unsigned long fail, int ret, const struct seen *seen)
{
	Dl_info di = { 0 };

	if (ret ? seen->n == 1 : seen->n <= 1)
		return true;
	dladdr(failed_from, &di);
	fprintf(stderr,
		"allocation %lu (at %#lx): returned %d, %d lines: %s\n", fail,
		(unsigned long)((char *)failed_from - (char *)di.dli_fbase),
		ret, seen->n, seen->first);
	return false;
}

#define FN __attribute__((noinline, used))

void nm_leaf(void);
void nm_caller(void);

volatile unsigned long nm_sink;

FN void nm_leaf(void)
{
	nm_sink = nm_sink * 3 + 1;
}

FN void nm_caller(void)
{
	nm_leaf();
	nm_sink ^= 5;
}

#define JIT_BASE 0x7e0000000000ull

/*
 * A session with a bit of everything a profile reads: an ELF image (this
 * test), the kernel with its symbols, two processes' anonymous samples
 * (one that fakejit claims, with inlined code, and one left to buckets,
 * a sample outside its ranges), and, with STACKS, call chains through
 * all of them.
 */
static void session_write(const char *dir, bool stacks)
{
	struct ops_session_info info = { .event = "cpu-clock",
					 .frequency = 1000,
					 .separate = OPS_SEPARATE_PROCESS,
					 .callgraph_depth = stacks ? 16 : 0 };
	struct ops_image img = { .kind = OPS_IMAGE_FILE };
	struct ops_image kimg = { .kind = OPS_IMAGE_KERNEL,
				  .path = "[kernel.kallsyms]" };
	struct ops_range range = { 0x10000, 0x20000 };
	struct ops_range jrange = { JIT_BASE, JIT_BASE + 0x10000 };
	struct ops_process p = { .tgid = 42,
				 .nspid = 42,
				 .comm = "demo",
				 .exe = "/usr/bin/demo",
				 .ranges = &range,
				 .nr_ranges = 1 };
	struct ops_process jp = { .tgid = 43,
				  .nspid = 43,
				  .comm = "fakejit-inline",
				  .exe = "/usr/bin/fakejit",
				  .ranges = &jrange,
				  .nr_ranges = 1 };
	/* inside each function, past its first byte */
	uint64_t leaf = self_offset((const void *)nm_leaf) + 4;
	uint64_t caller = self_offset((const void *)nm_caller) + 4;
	struct ops_frame fr[3];
	struct ops_stack st = { fr, 0, 0, 0 };
	struct ops_context ctx = { 0, 0, 42, -1, 0, 0 };
	uint32_t app, kernel, c_app, c_kernel, proc, jproc, id, i;
	char exe[512], ksyms[600];
	struct ops_writer *w;
	ssize_t n;
	FILE *f;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	img.path = exe;
	snprintf(ksyms, sizeof(ksyms), "%s.kallsyms", dir);
	f = fopen(ksyms, "w");
	ck_assert_ptr_nonnull(f);
	/* and a module's code, which the kernel's samples can be in */
	fputs("ffffffff81000000 T _stext\nffffffff81000100 T do_work\n"
	      "ffffffff81000200 T do_more\n"
	      "ffffffffc0000100 t mod_fn\t[nfc]\n",
	      f);
	fclose(f);
	ck_assert_int_eq(ops_writer_open(&w, dir, &info), 0);
	ck_assert_int_eq(ops_writer_image(w, &img, &app), 0);
	ck_assert_int_eq(ops_writer_image(w, &kimg, &kernel), 0);
	ctx.app = ctx.image = app;
	ck_assert_int_eq(ops_writer_context(w, &ctx, &c_app), 0);
	ctx.image = kernel;
	ck_assert_int_eq(ops_writer_context(w, &ctx, &c_kernel), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, c_app, leaf, 5), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, c_app, caller, 2), 0);
	ck_assert_int_eq(
		ops_writer_hist_add(w, c_kernel, 0xffffffff81000110, 3), 0);
	ck_assert_int_eq(
		ops_writer_hist_add(w, c_kernel, 0xffffffffc0000110, 1), 0);
	ck_assert_int_eq(ops_writer_process(w, &p, &proc), 0);
	ck_assert_int_eq(ops_writer_process(w, &jp, &jproc), 0);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(ops_writer_anon(w, proc, 1000 + i,
						 0x10010 + 0x100 * (i % 2),
						 42),
				 0);
		ck_assert_int_eq(ops_writer_anon(w, jproc, 1000 + i,
						 JIT_BASE + 0x10 + 0x80 * i,
						 43),
				 0);
	}
	ck_assert_int_eq(ops_writer_anon(w, proc, 2000, 0x30000, 42), 0);
	if (stacks) {
		/* the kernel called from the image */
		fr[0] = (struct ops_frame){ OPS_FRAME_IMAGE, kernel,
					    0xffffffff81000110 };
		fr[1] = (struct ops_frame){ OPS_FRAME_IMAGE, app, leaf + 8 };
		fr[2] = (struct ops_frame){ OPS_FRAME_IMAGE, app, caller + 8 };
		st.nr_frames = 3;
		st.nr_kernel = 1;
		ck_assert_int_eq(ops_writer_stack(w, &st, &id), 0);
		ck_assert_int_eq(ops_writer_stack_add(w, c_kernel, id, 3), 0);
		/* a module's code called from the image */
		fr[0].addr = 0xffffffffc0000110;
		ck_assert_int_eq(ops_writer_stack(w, &st, &id), 0);
		ck_assert_int_eq(ops_writer_stack_add(w, c_kernel, id, 1), 0);
		st.frames = fr + 1;
		st.nr_frames = 2;
		st.nr_kernel = 0;
		ck_assert_int_eq(ops_writer_stack(w, &st, &id), 0);
		ck_assert_int_eq(ops_writer_stack_add(w, c_app, id, 5), 0);
		/* JIT code, with code inlined, called from the image */
		st.frames = fr;
		st.nr_frames = 3;
		fr[0] = (struct ops_frame){ OPS_FRAME_ANON, 0, 0x10010 };
		ck_assert_int_eq(ops_writer_stack(w, &st, &id), 0);
		ck_assert_int_eq(ops_writer_anon_stack(w, proc, 1500, id, 42),
				 0);
		fr[0].addr = JIT_BASE + 0x90;
		ck_assert_int_eq(ops_writer_stack(w, &st, &id), 0);
		ck_assert_int_eq(ops_writer_anon_stack(w, jproc, 1500, id, 43),
				 0);
	}
	ck_assert_int_eq(ops_writer_kernel_symbols(w, ksyms, NULL), 0);
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
	unlink(ksyms);
}

/* The test handler, inside this process so that the allocations of
 * naming through it are this process's. */
static struct anon_handlers *fakejit_load(void)
{
	static const char *const names[] = { "fakejit" };
	struct anon_handlers *hs = NULL;

	anon_handlers_isolate(&(struct anon_isolation){ 1, 1000 });
	ck_assert_int_eq(anon_handlers_load(&hs, names, 1, FAKEJIT_DIR), 0);
	return hs;
}

/* profile_build() over DIR with O, its FAILth allocation failing. */
static int build_once(const char *dir, const struct opreport_opts *o,
		      bool handlers, unsigned long fail, struct seen *seen)
{
	struct anon_handlers *hs = handlers ? fakejit_load() : NULL;
	struct profile *prof = NULL;
	struct ops_session *s;
	struct report r;
	char err[256];
	int ret;

	ck_assert_int_eq(
		ops_session_open(&s, dir, NULL, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(report_init(&r, o), 0);
	r.has_stacks = callgraph_session_has_stacks(s);
	arm(fail, seen);
	ret = profile_build(&prof, &r, s, hs);
	disarm();
	profile_free(prof);
	report_release(&r);
	ops_session_close(s);
	anon_handlers_free(hs);
	return ret;
}

static void profile_reports_once(struct opreport_opts *o, bool stacks,
				 bool handlers)
{
	char dir[] = "/tmp/opjit-nomem-XXXXXX", cmd[64];
	unsigned long total, n;
	struct seen seen;
	int ret, bad = 0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	session_write(dir, stacks);
	o->demangle = DEMANGLE_NONE;
	o->spec = profile_spec_new();
	ck_assert_ptr_nonnull(o->spec);
	ret = build_once(dir, o, handlers, 0, &seen);
	ck_assert_msg(ret == 0 && seen.n == 0, "without a failure: %d, %s",
		      ret, seen.first);
	total = nr_allocs;
	ck_assert_uint_gt(total, 10);
	for (n = 1; n <= total; n++) {
		ret = build_once(dir, o, handlers, n, &seen);
		bad += !reported_once(n, ret, &seen);
	}
	profile_spec_free(o->spec);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(bad, 0);
}

START_TEST(flat_symbols)
{
	struct opreport_opts o = { .symbols = true, .anon_samples = true };

	profile_reports_once(&o, false, false);
}
END_TEST

START_TEST(details_and_lines)
{
	struct opreport_opts o = { .symbols = true,
				   .details = true,
				   .debug_info = true,
				   .anon_samples = true };

	profile_reports_once(&o, true, false);
}
END_TEST

START_TEST(call_graph)
{
	struct opreport_opts o = { .callgraph = true,
				   .debug_info = true,
				   .anon_samples = true };

	profile_reports_once(&o, true, false);
}
END_TEST

START_TEST(folded_without_call_chains)
{
	struct opreport_opts o = { .format = OUT_FOLDED,
				   .anon_samples = true };

	profile_reports_once(&o, false, false);
}
END_TEST

START_TEST(jit_samples_named)
{
	struct opreport_opts o = { .symbols = true,
				   .details = true,
				   .debug_info = true,
				   .anon_samples = true };

	profile_reports_once(&o, false, true);
}
END_TEST

START_TEST(jit_frames_named)
{
	struct opreport_opts o = { .format = OUT_JSON,
				   .symbols = true,
				   .anon_samples = true };

	profile_reports_once(&o, true, true);
}
END_TEST

START_TEST(loading_handlers)
{
	static const char *const names[] = { "fakejit" };
	struct anon_handlers *hs;
	unsigned long total, n;
	struct seen seen;
	int ret, bad = 0;

	anon_handlers_isolate(&(struct anon_isolation){ 1, 1000 });
	arm(0, &seen);
	ret = anon_handlers_load(&hs, names, 1, FAKEJIT_DIR);
	disarm();
	ck_assert_msg(ret == 0 && seen.n == 0, "without a failure: %d, %s",
		      ret, seen.first);
	anon_handlers_free(hs);
	total = nr_allocs;
	for (n = 1; n <= total; n++) {
		arm(n, &seen);
		ret = anon_handlers_load(&hs, names, 1, FAKEJIT_DIR);
		disarm();
		bad += !reported_once(n, ret, &seen);
		ck_assert(ret ? !hs : !!hs);
		anon_handlers_free(hs);
	}
	ck_assert_int_eq(bad, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nomem");
	TCase *tc = tcase_create("profile_build");
	TCase *tl = tcase_create("anon_handlers_load");

	tcase_add_test(tc, flat_symbols);
	tcase_add_test(tc, details_and_lines);
	tcase_add_test(tc, call_graph);
	tcase_add_test(tc, folded_without_call_chains);
	tcase_add_test(tc, jit_samples_named);
	tcase_add_test(tc, jit_frames_named);
	suite_add_tcase(s, tc);
	tcase_add_test(tl, loading_handlers);
	suite_add_tcase(s, tl);
	return opjit_check_run(s);
}
