// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Size and scale: thousands of processes stay a handful of files, a
 * realistic anonymous stream costs at most 8 bytes a sample on disk, and
 * 10 million samples decode exactly.  Times are printed, never asserted.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "helpers.h"

#include "check_run.h"

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct ops_writer *writer_must_open(void)
{
	struct ops_session_info info = info_example();
	struct ops_writer *w = NULL;

	ck_assert_int_eq(ops_writer_open(&w, sdir, &info), 0);
	return w;
}

#define NR_PROCS 5000

START_TEST(test_many_processes)
{
	struct ops_writer *w = writer_must_open();
	struct ops_image app = { .path = "/usr/bin/sh" };
	const struct ops_hist_entry *e;
	const struct ops_anon_sample *a;
	uint32_t img, pid, ctx, i, k;
	struct ops_session *s;
	struct warns wr = { 0 };
	struct dirent *de;
	int files = 0;
	DIR *d;
	size_t n;

	ck_assert_int_eq(ops_writer_image(w, &app, &img), 0);
	for (i = 0; i < NR_PROCS; i++) {
		struct ops_process p = { .tgid = 10000 + i,
					 .comm = "sh",
					 .exe = "/usr/bin/sh" };
		struct ops_context c = { img, img, 10000 + i, -1, 0, 0 };

		ck_assert_int_eq(ops_writer_process(w, &p, &pid), 0);
		ck_assert_uint_eq(pid, i);
		ck_assert_int_eq(ops_writer_context(w, &c, &ctx), 0);
		ck_assert_uint_eq(ctx, i);
		for (k = 0; k < 3; k++)
			ck_assert_int_eq(ops_writer_anon(w, pid, i * 10 + k,
							 0x7f00 + k, p.tgid),
					 0);
		ck_assert_int_eq(ops_writer_hist_add(w, ctx, 0x40, i + 1), 0);
		if (i % 1000 == 999)
			ck_assert_int_eq(ops_writer_flush(w), 0);
		if (i % 2 == 0) {
			p.flags = OPS_PROC_EXITED;
			ck_assert_int_eq(ops_writer_process_update(w, pid, &p),
					 0);
		}
	}
	ck_assert_int_eq(ops_writer_close(w, 1), 0);

	d = opendir(sdir);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			files++;
	closedir(d);
	ck_assert_int_eq(files, 3);

	s = session_must_open(sdir, &wr);
	ck_assert_uint_eq(ops_session_nr_processes(s), NR_PROCS);
	e = ops_session_hist(s, &n);
	ck_assert_uint_eq(n, NR_PROCS);
	for (i = 0; i < NR_PROCS; i++) {
		ck_assert_uint_eq(e[i].ctx, i);
		ck_assert_uint_eq(e[i].count, i + 1);
		ck_assert_uint_eq(ops_session_process(s, i)->tgid, 10000 + i);
		ck_assert_uint_eq(ops_session_process(s, i)->flags,
				  i % 2 ? 0 : OPS_PROC_EXITED);
		ck_assert_int_eq(ops_session_anon(s, i, &a, &n), 0);
		ck_assert_uint_eq(n, 3);
		for (k = 0; k < 3; k++) {
			ck_assert_uint_eq(a[k].time_ns, i * 10 + k);
			ck_assert_uint_eq(a[k].addr, 0x7f00 + k);
			ck_assert_uint_eq(a[k].tid, 10000 + i);
		}
	}
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
}
END_TEST

/*
 * A JIT process as the recorder sees it: 3 threads, each sampled at
 * 4 kHz with a little timer jitter, merged in time order; each thread
 * runs in one of 300 compiled methods spread over 4 MiB, mostly the hot
 * few, at an offset within the method.
 */
struct jit_stream {
	uint64_t next[3];
	uint64_t rng;
};

static void jit_next(struct jit_stream *j, struct ops_anon_sample *out)
{
	uint64_t r, method;
	int t = 0, k;

	for (k = 1; k < 3; k++)
		if (j->next[k] < j->next[t])
			t = k;
	r = mix(j->rng++);
	/* a skewed pick: half the samples in the 10 hottest methods */
	method = r & 1 ? (r >> 8) % 10 : (r >> 8) % 300;
	out->time_ns = j->next[t];
	out->addr = 0x7f3a40000000ull + method * 13981 + (r >> 40) % 2048;
	out->tid = 31000 + (uint32_t)t * 3;
	j->next[t] += 250000 + (r >> 20) % 4000 - 2000;
}

START_TEST(test_bytes_per_sample)
{
	struct ops_writer *w = writer_must_open();
	struct ops_process p = { .tgid = 31000, .comm = "java" };
	struct jit_stream js = { { 5000000000ull, 5000080000ull,
				   5000160000ull },
				 1 };
	struct ops_anon_sample smp;
	const size_t total = 3 * 4000 * 60;
	uint32_t id;
	size_t i, bytes;
	double per;

	ck_assert_int_eq(ops_writer_process(w, &p, &id), 0);
	for (i = 0; i < total; i++) {
		jit_next(&js, &smp);
		ck_assert_int_eq(ops_writer_anon(w, id, smp.time_ns, smp.addr,
						 smp.tid),
				 0);
		if (i % 12000 == 11999)
			ck_assert_int_eq(ops_writer_flush(w), 0);
	}
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
	bytes = file_size(anon);
	per = (double)bytes / (double)total;
	printf("anon.samples: %zu samples in %zu bytes, %.2f bytes/sample\n",
	       total, bytes, per);
	ck_assert_msg(per <= 8.0, "%.2f bytes per sample", per);
}
END_TEST

#define NR_BIG 10000000u

static void big_sample(uint64_t i, struct ops_anon_sample *s)
{
	uint64_t r = mix(i);

	s->time_ns = 1000000000ull + i * 83333 + r % 3000;
	s->addr = 0x7f0000000000ull + (r >> 16) % (4u << 20);
	s->tid = 700 + (uint32_t)(r >> 60) % 3;
}

START_TEST(test_ten_million)
{
	struct ops_writer *w = writer_must_open();
	struct ops_process p = { .tgid = 700, .comm = "node" };
	const struct ops_anon_sample *a;
	struct ops_anon_sample want;
	struct ops_session *s;
	struct warns wr = { 0 };
	double t0, t1;
	uint32_t id;
	size_t i, n;

	ck_assert_int_eq(ops_writer_process(w, &p, &id), 0);
	t0 = now_s();
	for (i = 0; i < NR_BIG; i++) {
		big_sample(i, &want);
		if (ops_writer_anon(w, id, want.time_ns, want.addr, want.tid))
			ck_abort_msg("ops_writer_anon: %s",
				     ops_writer_error(w));
		if (i % 100000 == 99999)
			ck_assert_int_eq(ops_writer_flush(w), 0);
	}
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
	t1 = now_s();
	printf("wrote %u anonymous samples in %.3f s\n", NR_BIG, t1 - t0);

	t0 = now_s();
	s = session_must_open(sdir, &wr);
	ck_assert_int_eq(ops_session_anon(s, id, &a, &n), 0);
	t1 = now_s();
	printf("opened and decoded %zu anonymous samples in %.3f s\n", n,
	       t1 - t0);
	ck_assert_uint_eq(n, NR_BIG);
	for (i = 0; i < n; i++) {
		big_sample(i, &want);
		if (a[i].time_ns != want.time_ns || a[i].addr != want.addr ||
		    a[i].tid != want.tid)
			ck_abort_msg("sample %zu differs", i);
	}
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
}
END_TEST

static Suite *scale_suite(void)
{
	Suite *s = suite_create("samples_scale");
	const struct check_case cases[] = {
		{ "many_processes", test_many_processes },
		{ "bytes_per_sample", test_bytes_per_sample },
		{ "ten_million", test_ten_million },
	};
	SUITE_ADD_CASES(s, cases, session_setup, session_teardown, 240);
	return s;
}

int main(void)
{
	return opjit_check_run(scale_suite());
}
