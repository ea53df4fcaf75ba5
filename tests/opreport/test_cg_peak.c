// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A call graph's memory grows with its distinct stacks, not with the
 * samples on them: profile_build() of a JIT process's -g session with N
 * samples on 64 stacks, then with 4N on the same stacks, must not reach
 * a heap peak higher by more than PER_SAMPLE_MAX bytes for each sample
 * added.  The peak is that of the bytes live in the blocks allocated
 * and freed while the session is opened and profile_build() runs
 * (their usable sizes, which glibc's allocator and ASan's both give):
 * the allocator is wrapped at link time, as in test_nomem.c.  The
 * frames are left to the process's bucket (no handler claims it),
 * which names them, as a timeless handler (perfmap) does, one
 * (process, address) at a time.
 *
 * The samples of a stack in a time slice are one entry of the input;
 * before, each sample was one (40 bytes), each of its slots had a name
 * (4 bytes) and a frame handed to the naming (32 bytes), and the bound
 * failed at 189.5 bytes a sample.
 *
 * A JIT's recursion (node's fib.js) gives most samples a stack of their
 * own, a few new nodes below the stacks before: there the memory is
 * the distinct stacks', and the second bound is on what each costs.
 * profile_build() of a session of N samples each with its own stack
 * (16 anonymous frames, one of two return addresses each, picked by
 * the bits of the sample's number, root side first), then of 4N: at
 * most PER_STACK_MAX bytes of peak a stack added.  Before the graph
 * read the session's tree in place of a copy of its own, put a
 * sample's slots together when asked rather than keep them, and freed
 * each stage's input once the next had it, this was 373 bytes; now
 * 214.
 *
 * The same stacks named by a handler whose names depend on the time
 * (a good build of the loader tests' fake handler, which names them all
 * "alpha:hi", without lines) are handed to it a part at a time: the
 * bound holds there too.  Before, all of a process's frames were handed
 * over at once, 32 bytes each, and the bound failed at 272 bytes a
 * stack.
 */
#define _GNU_SOURCE
#include <check.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon_handlers.h"
#include "callgraph.h"
#include "diag.h"
#include "profile.h"
#include "report.h"
#include "spec.h"
#include "check_run.h"
#include "wrap_alloc.h"

/* bytes of heap a sample added may cost at the peak: the session's
 * decoded stack samples of the process (16 bytes each), which the graph
 * reads; an input entry (40 bytes) and its slots' names (4 bytes each)
 * a sample, and the naming's frames a slot, made it about 190 */
#define PER_SAMPLE_MAX 24
#define STACKS 64
#define N 20000
/* bytes of heap a sample with a stack of its own may cost at the peak */
#define PER_STACK_MAX 235
#define RECURSION 16

void __real_free(void *p);
void __wrap_free(void *p);

static bool armed;
/* bytes live in blocks counted since armed (blocks from before that are
 * freed take it down, below 0 even), and its highest */
static long long live, peak;

static void gained(void *p)
{
	if (armed && p) {
		live += (long long)malloc_usable_size(p);
		if (live > peak)
			peak = live;
	}
}

void *__wrap_malloc(size_t n)
{
	void *p = __real_malloc(n);

	gained(p);
	return p;
}

void *__wrap_calloc(size_t n, size_t m)
{
	void *p = __real_calloc(n, m);

	gained(p);
	return p;
}

void *__wrap_realloc(void *q, size_t n)
{
	size_t was = q && armed ? malloc_usable_size(q) : 0;
	void *p = __real_realloc(q, n);

	if (p) {
		live -= (long long)was;
		gained(p);
	}
	return p;
}

void __wrap_free(void *p)
{
	if (armed && p)
		live -= (long long)malloc_usable_size(p);
	__real_free(p);
}

#define JIT_BASE 0x7e0000000000ull
/* where the fake handler names code, and the comm it claims */
#define FAKE_BASE 0x2000ull
#define FAKE_COMM "any"

/* A JIT process of /usr/bin/jitted defined in W as PROC: pid PID,
 * named COMM, with an anonymous range at BASE. */
static void jitted_process(struct ops_writer *w, uint32_t pid, uint64_t base,
			   const char *comm, uint32_t *proc)
{
	struct ops_range jrange = { base, base + 0x1000 };
	struct ops_process jp = { .tgid = pid,
				  .nspid = pid,
				  .comm = comm,
				  .exe = "/usr/bin/jitted",
				  .ranges = &jrange,
				  .nr_ranges = 1 };

	ck_assert_int_eq(ops_writer_process(w, &jp, proc), 0);
}

/* A session in DIR, as INFO says, with the JIT process both writers
 * below sample: pid 43, /usr/bin/jitted (APP) and an anonymous range at
 * BASE (PROC), named COMM. */
static struct ops_writer *jitted_open(const char *dir,
				      const struct ops_session_info *info,
				      uint64_t base, const char *comm,
				      uint32_t *app, uint32_t *proc)
{
	struct ops_image img = { .kind = OPS_IMAGE_FILE,
				 .path = "/usr/bin/jitted" };
	struct ops_writer *w;

	ck_assert_int_eq(ops_writer_open(&w, dir, info), 0);
	ck_assert_int_eq(ops_writer_image(w, &img, app), 0);
	jitted_process(w, 43, base, comm, proc);
	return w;
}

/* A session of one JIT process whose NR samples are spread over
 * STACKS stacks of 8 frames, 4 anonymous ones (3 distinct addresses, a
 * recursion's return address twice) below 4 of a file, and over the
 * same 5 s. */
static void session_write(const char *dir, uint32_t nr)
{
	struct ops_session_info info = { .event = "cpu-clock",
					 .frequency = 4000,
					 .separate = OPS_SEPARATE_PROCESS,
					 .callgraph_depth = 16 };
	struct ops_frame fr[8];
	struct ops_stack st = { fr, 8, 0, 0 };
	uint32_t app, proc, ids[STACKS], k, i;
	struct ops_writer *w;

	w = jitted_open(dir, &info, JIT_BASE, "jitted", &app, &proc);
	for (k = 0; k < STACKS; k++) {
		fr[0] = (struct ops_frame){ OPS_FRAME_ANON, 0,
					    JIT_BASE + 0x1000 * k + 0x10 };
		fr[1] = (struct ops_frame){ OPS_FRAME_ANON, 0,
					    JIT_BASE + 0x1000 * k + 0x80 };
		fr[2] = fr[1];
		fr[3] = (struct ops_frame){
			OPS_FRAME_ANON, 0, JIT_BASE + 0x100 * (k % 8) + 0x40
		};
		for (i = 4; i < 8; i++)
			fr[i] = (struct ops_frame){ OPS_FRAME_IMAGE, app,
						    0x1000 + 0x100 * i +
							    (k % 4) };
		ck_assert_int_eq(ops_writer_stack(w, &st, &ids[k]), 0);
	}
	/* N samples' time however many there are: the time slices, and so
	 * each stack's counts by slice, stay the same */
	for (i = 0; i < nr; i++)
		ck_assert_int_eq(
			ops_writer_anon_stack(w, proc,
					      1000000 + 250000ull * N * i / nr,
					      ids[(i * 7) % STACKS], 43),
			0);
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
}

/* A session of NPROC JIT processes, the p-th pid 43 + p named COMMS[p],
 * whose NR samples, taken in turn from each, have each a stack of its
 * own, as a recursion's do: below a file's frame and the recursion's
 * entry, RECURSION frames each at one of two return addresses (bit k of
 * the sample's number, from the root), then a leaf at one of 16
 * addresses, all from BASE; written as the recorder writes a JIT's
 * stacks, each its thread's stack before plus what differs. */
static void session_write_distinct(const char *dir, uint32_t nr, uint64_t base,
				   const char *const *comms, uint32_t nproc)
{
	struct ops_session_info info = { .event = "cpu-clock",
					 .frequency = 4000,
					 .separate = OPS_SEPARATE_PROCESS,
					 .callgraph_depth = 32,
					 .stack_deltas = true };
	struct ops_frame fr[RECURSION + 3];
	struct ops_stack st = { fr, RECURSION + 3, 0, 0 };
	uint32_t app, proc[2], id, k, i;
	struct ops_writer *w;

	ck_assert_uint_le(nproc, 2);
	w = jitted_open(dir, &info, base, comms[0], &app, &proc[0]);
	for (k = 1; k < nproc; k++)
		jitted_process(w, 43 + k, base, comms[k], &proc[k]);
	for (i = 0; i < nr; i++) {
		uint32_t pid = 43 + i % nproc;

		/* leaf first: the leaf, the recursion's frames, its entry,
		 * the file's frame at the root */
		fr[0] = (struct ops_frame){ OPS_FRAME_ANON, 0,
					    base + 0x10 * (i % 16) };
		for (k = 0; k < RECURSION; k++)
			fr[RECURSION - k] = (struct ops_frame){
				OPS_FRAME_ANON, 0,
				base + 0x200 +
					((i / 16) >> k & 1 ? 0x80 : 0x40)
			};
		fr[RECURSION + 1] =
			(struct ops_frame){ OPS_FRAME_ANON, 0, base + 0x400 };
		fr[RECURSION + 2] =
			(struct ops_frame){ OPS_FRAME_IMAGE, app, 0x1234 };
		ck_assert_int_eq(ops_writer_stack_of(w, &st, pid, &id), 0);
		ck_assert_int_eq(
			ops_writer_anon_stack(w, proc[i % nproc],
					      1000000 + 250000ull * N * i / nr,
					      id, pid),
			0);
	}
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
}

/* Each of the NR samples of each of the NPROC processes of COMMS (as
 * session_write_distinct() writes them) passes through a frame of its
 * process named as the fake handler names it ("alpha:hi"), or, for the
 * process whose handler fails ("badlater"), its bucket's; no frame of a
 * process is named otherwise. */
static void all_named(const struct callgraph *cg, uint32_t nr,
		      const char *const *comms, uint32_t nproc)
{
	bool seen[2] = { false, false };
	uint32_t p;
	size_t i;

	for (i = 0; i < cg->nr_nodes; i++) {
		const struct cg_node *n = &cg->nodes[i];
		bool bucket;
		char tgid[32];

		if (n->kind != ROW_ANON && n->kind != ROW_JIT)
			continue;
		for (p = 0; p < nproc; p++) {
			snprintf(tgid, sizeof(tgid), "tgid:%u", 43 + p);
			if (strstr(n->image, tgid))
				break;
		}
		ck_assert_msg(p < nproc, "a frame of no process: %s",
			      n->image);
		bucket = !strcmp(comms[p], "badlater");
		ck_assert_msg(
			n->kind == (bucket ? ROW_ANON : ROW_JIT) &&
				!strcmp(n->sym->name,
					bucket ? "(no symbols)" : "alpha:hi"),
			"a frame of %s named %s", n->image, n->sym->name);
		ck_assert_uint_eq(n->total, nr / nproc);
		seen[p] = true;
	}
	for (p = 0; p < nproc; p++)
		ck_assert_msg(seen[p], "no frame of process %u", 43 + p);
}

/* The heap's peak while a session of NR samples (each with a stack of
 * its own when DISTINCT) is opened and profile_build() makes OPTS's
 * call graph of it, above what was held before; with HS, the stacks'
 * frames are the fake handler's, in NPROC processes named COMMS. */
static size_t build_peak(const struct opreport_opts *opts, uint32_t nr,
			 bool distinct, struct anon_handlers *hs,
			 const char *const *comms, uint32_t nproc)
{
	char dir[] = "/tmp/opjit-cgpeak-XXXXXX", cmd[64];
	struct profile *prof = NULL;
	struct ops_session *s;
	struct report r;
	char err[256];
	int ret;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	if (distinct && hs)
		session_write_distinct(dir, nr, FAKE_BASE, comms, nproc);
	else if (distinct)
		session_write_distinct(dir, nr, JIT_BASE,
				       (const char *const[]){ "jitted" }, 1);
	else
		session_write(dir, nr);
	/* from the session's open: its stack table is the report's too */
	live = peak = 0;
	armed = true;
	ck_assert_int_eq(
		ops_session_open(&s, dir, NULL, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(report_init(&r, opts), 0);
	r.has_stacks = callgraph_session_has_stacks(s);
	ret = profile_build(&prof, &r, s, hs);
	armed = false;
	ck_assert_int_eq(ret, 0);
	ck_assert_ptr_nonnull(r.cg);
	ck_assert_uint_eq(r.cg->total, nr);
	if (hs)
		all_named(r.cg, nr, comms, nproc);
	profile_free(prof);
	report_release(&r);
	ops_session_close(s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	return (size_t)peak;
}

/* The loader tests' fake handler "alpha", run in this process, where
 * the allocator is watched. */
static struct anon_handlers *fake_loaded(void)
{
	const char *names[] = { "alpha" };
	struct anon_handlers *hs = NULL;

	anon_handlers_isolate(&(struct anon_isolation){ .none = 1 });
	ck_assert_int_eq(anon_handlers_load(&hs, names, 1, FAKE_DIR), 0);
	return hs;
}

static void grows_by(enum opreport_format format, bool callgraph,
		     bool distinct, bool named)
{
	struct opreport_opts o = { .format = format,
				   .callgraph = callgraph,
				   .anon_samples = true };
	int most = distinct ? PER_STACK_MAX : PER_SAMPLE_MAX;
	const char *fake_comm = FAKE_COMM;
	struct anon_handlers *hs = named ? fake_loaded() : NULL;
	size_t small, big;
	double per;

	o.demangle = DEMANGLE_NONE;
	o.spec = profile_spec_new();
	ck_assert_ptr_nonnull(o.spec);
	small = build_peak(&o, N, distinct, hs, &fake_comm, 1);
	big = build_peak(&o, 4 * N, distinct, hs, &fake_comm, 1);
	anon_handlers_free(hs);
	profile_spec_free(o.spec);
	per = big > small ? (double)(big - small) / (3 * N) : 0;
	ck_assert_msg(per <= most,
		      "peak %zu bytes for %u samples, %zu for %u: %.1f bytes "
		      "a sample added (at most %d)",
		      small, N, big, 4 * N, per, most);
}

START_TEST(callgraph_text)
{
	grows_by(OUT_TEXT, true, false, false);
}
END_TEST

START_TEST(folded)
{
	grows_by(OUT_FOLDED, false, false, false);
}
END_TEST

START_TEST(distinct_callgraph_text)
{
	grows_by(OUT_TEXT, true, true, false);
}
END_TEST

START_TEST(distinct_folded)
{
	grows_by(OUT_FOLDED, false, true, false);
}
END_TEST

START_TEST(distinct_named_by_time)
{
	grows_by(OUT_FOLDED, false, true, true);
}
END_TEST

/* The frames of NPROC processes named COMMS by the fake handler, more
 * than one part of them: a folded graph of 4N samples. */
static void named_in_parts(const char *const *comms, uint32_t nproc)
{
	struct opreport_opts o = { .format = OUT_FOLDED,
				   .anon_samples = true };
	struct anon_handlers *hs = fake_loaded();

	o.demangle = DEMANGLE_NONE;
	o.spec = profile_spec_new();
	ck_assert_ptr_nonnull(o.spec);
	build_peak(&o, 4 * N, true, hs, comms, nproc);
	anon_handlers_free(hs);
	profile_spec_free(o.spec);
}

/* A handler that fails once a part of the frames was named: every frame
 * of the process is its bucket, those named before the failure too. */
START_TEST(failed_in_a_later_part)
{
	named_in_parts((const char *const[]){ "badlater" }, 1);
}
END_TEST

/* Two processes' samples written in turn, each process's frames given
 * to its handler in parts: each keeps its own names, and a process
 * whose handler fails in a later part leaves the other's as they are.
 * (The graph's input keeps a process's samples together, so a part
 * never meets another process's samples here.) */
START_TEST(two_processes_in_parts)
{
	named_in_parts((const char *const[]){ FAKE_COMM, FAKE_COMM }, 2);
	named_in_parts((const char *const[]){ "badlater", FAKE_COMM }, 2);
	named_in_parts((const char *const[]){ FAKE_COMM, "badlater" }, 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cg_peak");
	TCase *tc = tcase_create("profile_build");

	tcase_add_test(tc, callgraph_text);
	tcase_add_test(tc, folded);
	tcase_add_test(tc, distinct_callgraph_text);
	tcase_add_test(tc, distinct_folded);
	tcase_add_test(tc, distinct_named_by_time);
	tcase_add_test(tc, failed_in_a_later_part);
	tcase_add_test(tc, two_processes_in_parts);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
