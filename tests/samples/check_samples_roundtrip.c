// SPDX-License-Identifier: GPL-3.0-or-later
/* What the writer puts in a session, the reader gives back. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

#include "check_run.h"

static struct ops_writer *writer_must_open(const char *dir)
{
	struct ops_session_info info = info_example();
	struct ops_writer *w = NULL;
	int ret = ops_writer_open(&w, dir, &info);

	ck_assert_msg(ret == 0, "ops_writer_open: %s",
		      w ? ops_writer_error(w) : "no writer");
	return w;
}

START_TEST(test_meta)
{
	struct ops_session_info info = info_example(), totals = { 0 };
	const struct ops_session_info *got;
	struct ops_writer *w = NULL;
	struct ops_session *s;
	struct warns wr = { 0 };

	info.command_line = "oprofiled --event=x\n--evil \\n\ttab\x01 end";
	info.host = "";
	info.kernel_excluded = true;
	info.separate = OPS_SEPARATE_PROCESS | OPS_SEPARATE_CPU;
	info.start_unix_ns = -5;
	ck_assert_int_eq(ops_writer_open(&w, sdir, &info), 0);
	totals.samples = 5000000000ull;
	totals.samples_lost = 7;
	totals.samples_unattributed = 3;
	totals.samples_anon = 11;
	totals.samples_kernel = 13;
	totals.processes = 17;
	ops_writer_set_totals(w, &totals);
	ck_assert_int_eq(ops_writer_close(w, 999999999999ull), 0);

	s = session_must_open(sdir, &wr);
	got = ops_session_info(s);
	/* no call graphs: written as the first version */
	ck_assert_uint_eq(got->format_version, OPS_FORMAT_VERSION_FLAT);
	ck_assert_uint_eq(got->callgraph_depth, 0);
	ck_assert_str_eq(got->event, "cpu-clock");
	ck_assert_uint_eq(got->period, 0);
	ck_assert_uint_eq(got->frequency, 4000);
	ck_assert_str_eq(got->clock, "CLOCK_MONOTONIC");
	ck_assert_uint_eq(got->start_ns, info.start_ns);
	ck_assert_uint_eq(got->stop_ns, 999999999999ull);
	ck_assert_int_eq(got->start_unix_ns, -5);
	ck_assert_str_eq(got->host, "");
	ck_assert_str_eq(got->kernel_release, "6.1.0-test");
	ck_assert_str_eq(got->command_line, info.command_line);
	ck_assert_uint_eq(got->separate, 3);
	ck_assert(got->kernel_excluded);
	ck_assert_uint_eq(got->samples, 5000000000ull);
	ck_assert_uint_eq(got->samples_lost, 7);
	ck_assert_uint_eq(got->samples_unattributed, 3);
	ck_assert_uint_eq(got->samples_anon, 11);
	ck_assert_uint_eq(got->samples_kernel, 13);
	ck_assert_uint_eq(got->processes, 17);
	ck_assert_str_eq(ops_session_dir(s), sdir);
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
}
END_TEST

START_TEST(test_meta_unflushed_stop)
{
	struct ops_writer *w = writer_must_open(sdir);
	struct ops_session *s;
	struct warns wr = { 0 };

	/* a session that never stopped cleanly says so with stop 0 */
	ck_assert_int_eq(ops_writer_flush(w), 0);
	s = session_must_open(sdir, &wr);
	ck_assert_uint_eq(ops_session_info(s)->stop_ns, 0);
	ck_assert_str_eq(ops_session_info(s)->host, "testhost");
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
	ops_writer_free(w);
}
END_TEST

static ino_t meta_inode(void)
{
	struct stat st;

	ck_assert_int_eq(stat(meta, &st), 0);
	return st.st_ino;
}

/* A recorder killed after a flush leaves the totals of that flush in
 * samples.hist; session.meta is written at open and at close only. */
START_TEST(test_totals_without_a_clean_stop)
{
	struct ops_session_info t = { .samples = 300,
				      .samples_lost = 2,
				      .samples_unattributed = 3,
				      .samples_anon = 40,
				      .samples_kernel = 50,
				      .processes = 6 };
	struct ops_writer *w = writer_must_open(sdir);
	const struct ops_session_info *got;
	struct ops_session *s;
	struct warns wr = { 0 };
	ino_t ino = meta_inode();
	size_t size;

	ops_writer_set_totals(w, &t);
	ck_assert_int_eq(ops_writer_flush(w), 0);
	t.samples = 1ull << 40;
	t.processes = 7;
	ops_writer_set_totals(w, &t);
	ck_assert_int_eq(ops_writer_flush(w), 0);
	size = file_size(hist);
	/* nothing changed: nothing written */
	ck_assert_int_eq(ops_writer_flush(w), 0);
	ck_assert_uint_eq(file_size(hist), size);
	ck_assert_uint_eq(meta_inode(), ino);

	s = session_must_open(sdir, &wr);
	got = ops_session_info(s);
	ck_assert_uint_eq(got->stop_ns, 0);
	ck_assert_uint_eq(got->samples, 1ull << 40);
	ck_assert_uint_eq(got->samples_lost, 2);
	ck_assert_uint_eq(got->samples_unattributed, 3);
	ck_assert_uint_eq(got->samples_anon, 40);
	ck_assert_uint_eq(got->samples_kernel, 50);
	ck_assert_uint_eq(got->processes, 7);
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
	ops_writer_free(w);
}
END_TEST

START_TEST(test_images)
{
	struct ops_image a = { .kind = OPS_IMAGE_FILE,
			       .path = "/usr/bin/a",
			       .build_id_size = 20 };
	struct ops_image b = { .kind = OPS_IMAGE_FILE,
			       .path = "/opt/b",
			       .size = 12345,
			       .mtime_ns = 1700000000000000001 };
	struct ops_image k = { .kind = OPS_IMAGE_KERNEL,
			       .path = "[kernel.kallsyms]" };
	struct ops_image m = { .kind = OPS_IMAGE_MODULE, .path = "ext4" };
	struct ops_image b2 = b;
	struct ops_writer *w = writer_must_open(sdir);
	uint32_t ia, ib, ik, im, ib2, again;
	const struct ops_image *g;
	struct ops_session *s;
	struct warns wr = { 0 };
	int i;

	for (i = 0; i < 20; i++)
		a.build_id[i] = (uint8_t)(0xa0 + i);
	ck_assert_int_eq(ops_writer_image(w, &a, &ia), 0);
	ck_assert_int_eq(ops_writer_image(w, &b, &ib), 0);
	ck_assert_int_eq(ops_writer_image(w, &k, &ik), 0);
	ck_assert_int_eq(ops_writer_image(w, &m, &im), 0);
	/* the same image gives the same id; a changed binary a new one */
	ck_assert_int_eq(ops_writer_image(w, &a, &again), 0);
	ck_assert_uint_eq(again, ia);
	b2.mtime_ns++;
	ck_assert_int_eq(ops_writer_image(w, &b2, &ib2), 0);
	ck_assert_uint_ne(ib2, ib);
	/* what no image can be */
	b2.build_id_size = OPS_BUILD_ID_MAX + 1;
	ck_assert_int_eq(ops_writer_image(w, &b2, &again), -EINVAL);
	b2.build_id_size = 0;
	b2.kind = 7;
	ck_assert_int_eq(ops_writer_image(w, &b2, &again), -EINVAL);
	b2.kind = OPS_IMAGE_FILE;
	b2.path = NULL;
	ck_assert_int_eq(ops_writer_image(w, &b2, &again), -EINVAL);
	ck_assert_ptr_nonnull(strstr(ops_writer_error(w), "invalid image"));
	ck_assert_int_eq(ops_writer_close(w, 1), 0);

	s = session_must_open(sdir, &wr);
	ck_assert_uint_eq(ops_session_nr_images(s), 5);
	g = ops_session_image(s, ia);
	ck_assert_str_eq(g->path, "/usr/bin/a");
	ck_assert_uint_eq(g->kind, OPS_IMAGE_FILE);
	ck_assert_uint_eq(g->build_id_size, 20);
	ck_assert_mem_eq(g->build_id, a.build_id, 20);
	g = ops_session_image(s, ib);
	ck_assert_str_eq(g->path, "/opt/b");
	ck_assert_uint_eq(g->build_id_size, 0);
	ck_assert_uint_eq(g->size, 12345);
	ck_assert_int_eq(g->mtime_ns, 1700000000000000001);
	ck_assert_int_eq(ops_session_image(s, ib2)->mtime_ns,
			 1700000000000000002);
	ck_assert_uint_eq(ops_session_image(s, ik)->kind, OPS_IMAGE_KERNEL);
	ck_assert_str_eq(ops_session_image(s, ik)->path, "[kernel.kallsyms]");
	ck_assert_uint_eq(ops_session_image(s, im)->kind, OPS_IMAGE_MODULE);
	ck_assert_str_eq(ops_session_image(s, im)->path, "ext4");
	ck_assert_ptr_null(ops_session_image(s, 5));
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
}
END_TEST

START_TEST(test_contexts)
{
	struct ops_image app = { .path = "/usr/bin/app" };
	struct ops_image lib = { .path = "/usr/lib/libc.so.6" };
	struct ops_writer *w = writer_must_open(sdir);
	uint32_t iapp, ilib, c1, c2, c3, again;
	struct ops_context x, y, z;
	const struct ops_context *g;
	struct ops_session *s;
	struct warns wr = { 0 };

	ck_assert_int_eq(ops_writer_image(w, &app, &iapp), 0);
	ck_assert_int_eq(ops_writer_image(w, &lib, &ilib), 0);
	x = (struct ops_context){ iapp, iapp, 0, -1, 0, 0 };
	y = (struct ops_context){ iapp, ilib, 4242, -1, 0, 0 };
	z = (struct ops_context){ iapp, ilib, 4242, 3, 0, 0 };
	ck_assert_int_eq(ops_writer_context(w, &x, &c1), 0);
	ck_assert_int_eq(ops_writer_context(w, &y, &c2), 0);
	ck_assert_int_eq(ops_writer_flush(w), 0);
	ck_assert_int_eq(ops_writer_context(w, &z, &c3), 0);
	ck_assert_int_eq(ops_writer_context(w, &y, &again), 0);
	ck_assert_uint_eq(again, c2);
	/* a context naming an image that was never registered is refused */
	x.image = 99;
	ck_assert_int_eq(ops_writer_context(w, &x, &again), -EINVAL);
	ck_assert_ptr_nonnull(strstr(ops_writer_error(w), "samples.hist"));
	ck_assert_int_eq(ops_writer_close(w, 1), 0);

	s = session_must_open(sdir, &wr);
	ck_assert_uint_eq(ops_session_nr_contexts(s), 3);
	g = ops_session_context(s, c1);
	ck_assert_uint_eq(g->app, iapp);
	ck_assert_uint_eq(g->image, iapp);
	ck_assert_uint_eq(g->tgid, 0);
	ck_assert_int_eq(g->cpu, -1);
	g = ops_session_context(s, c3);
	ck_assert_uint_eq(g->image, ilib);
	ck_assert_uint_eq(g->tgid, 4242);
	ck_assert_int_eq(g->cpu, 3);
	ck_assert_ptr_null(ops_session_context(s, 3));
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
}
END_TEST

/* Two contexts with counts spread over three flushes, checked before
 * and after close (which compacts). */
START_TEST(test_hist_counts)
{
	struct ops_image img = { .path = "/bin/x" };
	struct ops_writer *w = writer_must_open(sdir);
	const struct ops_hist_entry *e;
	struct ops_context c = { 0 };
	uint32_t ii, c0, c1;
	struct ops_session *s;
	struct warns wr = { 0 };
	size_t n;
	int pass;

	ck_assert_int_eq(ops_writer_image(w, &img, &ii), 0);
	c.app = c.image = ii;
	c.cpu = -1;
	ck_assert_int_eq(ops_writer_context(w, &c, &c0), 0);
	c.tgid = 7;
	ck_assert_int_eq(ops_writer_context(w, &c, &c1), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, c1, 0x400, 1), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, c0, 0x1000, 3000000000ull), 0);
	ck_assert_int_eq(ops_writer_flush(w), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, c0, 0x1000, 3000000000ull), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, c0, 0x10, 5), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, c0, UINT64_MAX, 1), 0);
	ck_assert_int_eq(ops_writer_flush(w), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, c0, 0x1000, 1), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, c1, 0x400, 0), 0);
	ck_assert_int_eq(ops_writer_flush(w), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, 2, 0x1000, 1), -EINVAL);

	for (pass = 0; pass < 2; pass++) {
		if (pass == 1)
			ck_assert_int_eq(ops_writer_close(w, 1), 0);
		s = session_must_open(sdir, &wr);
		e = ops_session_hist(s, &n);
		ck_assert_uint_eq(n, 4);
		ck_assert_uint_eq(e[0].ctx, c0);
		ck_assert_uint_eq(e[0].offset, 0x10);
		ck_assert_uint_eq(e[0].count, 5);
		ck_assert_uint_eq(e[1].offset, 0x1000);
		ck_assert_uint_eq(e[1].count, 6000000001ull);
		ck_assert_uint_eq(e[2].offset, UINT64_MAX);
		ck_assert_uint_eq(e[2].count, 1);
		ck_assert_uint_eq(e[3].ctx, c1);
		ck_assert_uint_eq(e[3].offset, 0x400);
		ck_assert_uint_eq(e[3].count, 1);
		ck_assert_int_eq(wr.n, 0);
		ops_session_close(s);
	}
}
END_TEST

/* Many flushes of the same cells: the file is compacted along the way
 * and the totals stay exact. */
START_TEST(test_hist_compaction)
{
	struct ops_image img = { .path = "/bin/x" };
	struct ops_writer *w = writer_must_open(sdir);
	const struct ops_hist_entry *e;
	struct ops_context c = { 0 };
	struct ops_session *s;
	struct warns wr = { 0 };
	uint32_t ii, ci, k;
	size_t n, i;
	int f;

	ck_assert_int_eq(ops_writer_image(w, &img, &ii), 0);
	c.app = c.image = ii;
	ck_assert_int_eq(ops_writer_context(w, &c, &ci), 0);
	for (f = 0; f < 40; f++) {
		for (k = 0; k < 20000; k++)
			ck_assert_int_eq(ops_writer_hist_add(w, ci, k * 16, 1),
					 0);
		ck_assert_int_eq(ops_writer_flush(w), 0);
	}
	/* 800000 delta records were flushed; compaction keeps ~20000 */
	ck_assert_uint_lt(file_size(hist), 20000 * 8 * 4);
	s = session_must_open(sdir, &wr);
	e = ops_session_hist(s, &n);
	ck_assert_uint_eq(n, 20000);
	for (i = 0; i < n; i++) {
		ck_assert_uint_eq(e[i].offset, i * 16);
		ck_assert_uint_eq(e[i].count, 40);
	}
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
	ops_writer_free(w);
}
END_TEST

START_TEST(test_processes)
{
	struct ops_range r1[] = { { 0x7f0000000000, 0x7f0000100000 } };
	struct ops_range r2[] = { { 0x7f0000000000, 0x7f0000100000 },
				  { 0x7f1000000000, 0x7f1000002000 } };
	struct ops_process p = {
		.tgid = 4242,
		.nspid = 7,
		.uid = 1000,
		.flags = OPS_PROC_OTHER_MNTNS,
		.start_ns = 5555,
		.start_unix_ns = 1700000000000000000,
		.comm = "java",
		.exe = "/usr/lib/jvm/bin/java",
		.ranges = r1,
		.nr_ranges = 1,
	};
	struct ops_process q = { .tgid = 1,
				 .nspid = 1,
				 .comm = "init",
				 .exe = "/sbin/init" };
	struct ops_writer *w = writer_must_open(sdir);
	const struct ops_process *g;
	struct ops_session *s;
	struct warns wr = { 0 };
	uint32_t ip, iq;

	ck_assert_int_eq(ops_writer_process(w, &p, &ip), 0);
	ck_assert_int_eq(ops_writer_process(w, &q, &iq), 0);
	ck_assert_uint_ne(ip, iq);
	p.ranges = r2;
	p.nr_ranges = 2;
	p.flags |= OPS_PROC_EXITED;
	ck_assert_int_eq(ops_writer_process_update(w, ip, &p), 0);
	ck_assert_int_eq(ops_writer_process_update(w, 99, &p), -EINVAL);
	ck_assert_int_eq(ops_writer_close(w, 1), 0);

	s = session_must_open(sdir, &wr);
	ck_assert_uint_eq(ops_session_nr_processes(s), 2);
	g = ops_session_process(s, ip);
	ck_assert_uint_eq(g->tgid, 4242);
	ck_assert_uint_eq(g->nspid, 7);
	ck_assert_uint_eq(g->uid, 1000);
	ck_assert_uint_eq(g->flags, OPS_PROC_OTHER_MNTNS | OPS_PROC_EXITED);
	ck_assert_uint_eq(g->start_ns, 5555);
	ck_assert_int_eq(g->start_unix_ns, 1700000000000000000);
	ck_assert_str_eq(g->comm, "java");
	ck_assert_str_eq(g->exe, "/usr/lib/jvm/bin/java");
	ck_assert_uint_eq(g->nr_ranges, 2);
	ck_assert_uint_eq(g->ranges[1].start, 0x7f1000000000);
	ck_assert_uint_eq(g->ranges[1].end, 0x7f1000002000);
	g = ops_session_process(s, iq);
	ck_assert_str_eq(g->comm, "init");
	ck_assert_uint_eq(g->nr_ranges, 0);
	ck_assert_ptr_null(ops_session_process(s, 2));
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
}
END_TEST

#define NR_ANON 30000

/* Three threads, a clock that steps back once and jumps far once, and
 * addresses that wrap: every sample comes back exactly, in order. */
START_TEST(test_anon_stream)
{
	struct ops_process p = { .tgid = 100, .comm = "node", .exe = "/n" };
	struct ops_anon_sample *want = calloc(NR_ANON, sizeof(*want));
	struct ops_writer *w = writer_must_open(sdir);
	const struct ops_anon_sample *got;
	struct ops_session *s;
	struct warns wr = { 0 };
	uint64_t t = 1000000;
	uint32_t id, other;
	size_t n, i;
	int round;

	ck_assert_int_eq(ops_writer_process(w, &p, &id), 0);
	ck_assert_int_eq(ops_writer_process(w, &p, &other), 0);
	srand(1);
	for (i = 0; i < NR_ANON; i++) {
		t += 250000 + (uint64_t)(rand() % 1000);
		want[i].time_ns = t;
		want[i].addr =
			0x7f0000000000ull + (uint64_t)(rand() % (4 << 20));
		want[i].tid = 100 + (uint32_t)(rand() % 3);
	}
	want[100].time_ns -= 1000000;
	want[200].time_ns = UINT64_MAX;
	want[201].addr = UINT64_MAX;
	want[202].addr = 0;
	want[203].tid = UINT32_MAX;
	want[204].tid = 0;
	for (i = 0; i < NR_ANON; i++) {
		ck_assert_int_eq(ops_writer_anon(w, id, want[i].time_ns,
						 want[i].addr, want[i].tid),
				 0);
		if (i % 7000 == 0)
			ck_assert_int_eq(ops_writer_flush(w), 0);
	}
	ck_assert_int_eq(ops_writer_anon(w, 5, 1, 1, 1), -EINVAL);
	ck_assert_int_eq(ops_writer_close(w, 1), 0);

	s = session_must_open(sdir, &wr);
	/* counted without decoding into memory, then decoded, released
	 * and decoded again: the same samples each time */
	ck_assert_int_eq(ops_session_anon_count(s, id, &n), 0);
	ck_assert_uint_eq(n, NR_ANON);
	for (round = 0; round < 2; round++) {
		ck_assert_int_eq(ops_session_anon(s, id, &got, &n), 0);
		ck_assert_uint_eq(n, NR_ANON);
		for (i = 0; i < n; i++) {
			ck_assert_uint_eq(got[i].time_ns, want[i].time_ns);
			ck_assert_uint_eq(got[i].addr, want[i].addr);
			ck_assert_uint_eq(got[i].tid, want[i].tid);
		}
		ck_assert_int_eq(ops_session_anon_count(s, id, &n), 0);
		ck_assert_uint_eq(n, NR_ANON);
		ops_session_anon_release(s, id);
	}
	ck_assert_int_eq(ops_session_anon_count(s, other, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(ops_session_anon_count(s, 2, &n), -ENOENT);
	ck_assert_int_eq(ops_session_anon(s, other, &got, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(ops_session_anon(s, 2, &got, &n), -ENOENT);
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
	free(want);
}
END_TEST

/* The jitdump path is optional: written only when there is one, and
 * read back as NULL from a process without it. */
START_TEST(test_process_jitdump)
{
	struct ops_process p = { .tgid = 7, .comm = "node", .exe = "/n" };
	struct ops_writer *w = writer_must_open(sdir);
	struct ops_session *s;
	struct warns wr = { 0 };
	uint32_t a, b;

	ck_assert_int_eq(ops_writer_process(w, &p, &a), 0);
	p.tgid = 8;
	p.jitdump = "/srv/app/jit-8.dump";
	ck_assert_int_eq(ops_writer_process(w, &p, &b), 0);
	p.jitdump = "/srv/app/jit-8.dump (moved)";
	ck_assert_int_eq(ops_writer_process_update(w, b, &p), 0);
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
	s = session_must_open(sdir, &wr);
	ck_assert_ptr_null(ops_session_process(s, a)->jitdump);
	ck_assert_str_eq(ops_session_process(s, b)->jitdump,
			 "/srv/app/jit-8.dump (moved)");
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
}
END_TEST

START_TEST(test_archive_maps)
{
	struct ops_process p = { .tgid = 4242, .comm = "java" };
	struct ops_writer *w = writer_must_open(sdir);
	char *src = tmp_path(tmp, "perf-4242.map");
	char *big = tmp_path(tmp, "anon.4242");
	char *link = tmp_path(tmp, "perf-1.map");
	const char *text = "7f00 10 hot_loop\n7f10 20 other\n";
	struct timespec ts[2] = { { 1000, 0 }, { 1600000000, 123456789 } };
	const char *const *paths;
	struct stat a, b, c;
	struct ops_session *s;
	struct warns wr = { 0 };
	char *data, name[64], why[256];
	size_t len;
	uint32_t id;
	int fd;

	ck_assert_int_eq(ops_writer_process(w, &p, &id), 0);
	/* a sample in each entry: the trim at the stop keeps both */
	ck_assert_int_eq(ops_writer_anon(w, id, 1, 0x7f18, 4242), 0);
	/* archiving again replaces the copy; the last one is checked */
	file_write(src, "old\n", 4);
	ck_assert_int_eq(ops_writer_archive_map(w, id, src, 1 << 20), 0);
	file_write(src, text, strlen(text));
	ck_assert_int_eq(chown(src, 1234, 5678), 0);
	ck_assert_int_eq(chmod(src, 0640), 0);
	ck_assert_int_eq(utimensat(AT_FDCWD, src, ts, 0), 0);
	ck_assert_int_eq(stat(src, &a), 0);
	ck_assert_int_eq(ops_writer_archive_map(w, id, src, 1 << 20), 0);
	/* too big: refused, and nothing copied */
	file_write(big, text, strlen(text));
	ck_assert_int_eq(ops_writer_archive_map(w, id, big, 10), -EFBIG);
	ck_assert_ptr_nonnull(strstr(ops_writer_error(w), big));
	/* a symlink is not followed */
	ck_assert_int_eq(symlink(src, link), 0);
	ck_assert_int_lt(ops_writer_archive_map(w, id, link, 1 << 20), 0);
	ck_assert_ptr_nonnull(strstr(ops_writer_error(w), "symbolic link"));
	/* no map at all: no failure, and the last one's message stays
	 * (a full disk was once reported as this missing map) */
	ck_assert_int_eq(ops_writer_archive_map(
				 w, id, "/nonexistent/perf-1.map", 1 << 20),
			 -ENOENT);
	ck_assert_ptr_nonnull(strstr(ops_writer_error(w), "symbolic link"));
	ck_assert_int_eq(ops_writer_archive_map(w, 7, src, 1 << 20), -EINVAL);
	ck_assert_int_eq(ops_writer_close(w, 1), 0);

	/* the original is untouched */
	ck_assert_int_eq(stat(src, &b), 0);
	ck_assert_int_eq(a.st_mtim.tv_sec, b.st_mtim.tv_sec);
	ck_assert_int_eq(a.st_mtim.tv_nsec, b.st_mtim.tv_nsec);
	ck_assert_int_eq(a.st_ino, b.st_ino);
	data = file_read(src, &len);
	ck_assert_str_eq(data, text);
	free(data);

	s = session_must_open(sdir, &wr);
	ck_assert_uint_eq(ops_session_archived_maps(s, id, &paths), 1);
	ck_assert_ptr_nonnull(strstr(paths[0], "/maps/0/perf-4242.map.gz"));
	ck_assert_str_eq(ops_archived_map_name(paths[0], name, sizeof(name)),
			 "perf-4242.map");
	ck_assert_int_eq(stat(paths[0], &c), 0);
	ck_assert_uint_eq(c.st_uid, 1234);
	ck_assert_uint_eq(c.st_gid, 5678);
	ck_assert_uint_eq(c.st_mode & 07777, 0640);
	ck_assert_int_eq(c.st_mtim.tv_sec, 1600000000);
	ck_assert_int_eq(c.st_mtim.tv_nsec, 123456789);
	/* compressed, and read back as the original: a descriptor of
	 * memory of the original's size, which cannot be written */
	ck_assert_uint_lt((size_t)c.st_size, 20 + strlen(text) + 20);
	fd = ops_archived_map_fd(open(paths[0], O_RDONLY), paths[0], why,
				 sizeof(why));
	ck_assert_msg(fd >= 0, "%s", why);
	ck_assert_int_eq(fstat(fd, &c), 0);
	ck_assert_int_eq(c.st_size, (off_t)strlen(text));
	ck_assert_int_eq(read(fd, name, sizeof(name)), (ssize_t)strlen(text));
	ck_assert_int_eq(memcmp(name, text, strlen(text)), 0);
	ck_assert_int_lt(pwrite(fd, "x", 1, 0), 0);
	close(fd);
	ck_assert_uint_eq(ops_session_archived_maps(s, 1, &paths), 0);
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
	free(src);
	free(big);
	free(link);
}
END_TEST

/* A map that is not trimmed (a JVM agent's anon map, megabytes) is
 * compressed as it is read, a buffer at a time: the copy of one of
 * several buffers' size, whose bytes repeat at no short distance, reads
 * back as the original, byte for byte, with its mode.  STORED: through
 * ops_writer_archive_stored(), the copy is no smaller than the map. */
static void archive_anon_streamed(bool stored)
{
	enum { N = 300 * 1024 + 17 };
	struct ops_process p = { .tgid = 4343, .comm = "java" };
	struct ops_writer *w = writer_must_open(sdir);
	char *src = tmp_path(tmp, "anon.4343");
	const char *const *paths;
	struct warns wr = { 0 };
	struct ops_session *s;
	uint8_t *orig = malloc(N), *back = malloc(N + 1);
	char why[256];
	uint32_t id, x = 12345;
	struct stat c;
	size_t i;
	int fd;

	ck_assert_ptr_nonnull(orig);
	ck_assert_ptr_nonnull(back);
	for (i = 0; i < N; i++) {
		x = x * 1103515245u + 12345u;
		orig[i] = i % 4096 < 2048 ? (uint8_t)(x >> 16) : (uint8_t)i;
	}
	file_write(src, (const char *)orig, N);
	ck_assert_int_eq(chmod(src, 0604), 0);
	ck_assert_int_eq(ops_writer_process(w, &p, &id), 0);
	ops_writer_archive_stored(w, stored);
	ck_assert_int_eq(ops_writer_archive_map(w, id, src, 1 << 20), 0);
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
	s = session_must_open(sdir, &wr);
	ck_assert_uint_eq(ops_session_archived_maps(s, id, &paths), 1);
	ck_assert_ptr_nonnull(strstr(paths[0], "/maps/0/anon.4343.gz"));
	ck_assert_int_eq(stat(paths[0], &c), 0);
	ck_assert_uint_eq(c.st_mode & 07777, 0604);
	if (stored)
		ck_assert_uint_ge((size_t)c.st_size, N);
	else
		ck_assert_uint_lt((size_t)c.st_size, N);
	fd = ops_archived_map_fd(open(paths[0], O_RDONLY), paths[0], why,
				 sizeof(why));
	ck_assert_msg(fd >= 0, "%s", why);
	ck_assert_int_eq(fstat(fd, &c), 0);
	ck_assert_int_eq(c.st_size, (off_t)N);
	ck_assert_int_eq(pread(fd, back, N + 1, 0), (ssize_t)N);
	ck_assert_int_eq(memcmp(back, orig, N), 0);
	close(fd);
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
	free(orig);
	free(back);
	free(src);
}

START_TEST(test_archive_anon_streamed)
{
	archive_anon_streamed(false);
}
END_TEST

START_TEST(test_archive_anon_stored)
{
	archive_anon_streamed(true);
}
END_TEST

/* An archived copy as older sessions hold it (plain) reads as it is; a
 * damaged compressed one is refused in words. */
START_TEST(test_archive_damage)
{
	static const char gz_hello[] = {
		0x1f,	    (char)0x8b, 8,	    0,	  0,	      0,
		0,	    0,		0,	    3,	  (char)0xcb, 0x48,
		(char)0xcd, (char)0xc9, (char)0xc9, 0x07, 0
	};
	char *plain = tmp_path(tmp, "perf-1.map");
	char *cut = tmp_path(tmp, "perf-2.map.gz");
	char *junk = tmp_path(tmp, "perf-3.map.gz");
	char why[256];
	int fd, in;

	file_write(plain, "a 1 x\n", 6);
	in = open(plain, O_RDONLY);
	ck_assert_int_eq(ops_archived_map_fd(in, plain, why, sizeof(why)), in);
	close(in);
	/* "hello", deflated, with no trailer: cut short */
	file_write(cut, gz_hello, sizeof(gz_hello));
	ck_assert_int_eq(ops_archived_map_fd(open(cut, O_RDONLY), cut, why,
					     sizeof(why)),
			 -EINVAL);
	ck_assert_str_eq(why, "compressed copy cut short");
	file_write(junk, "not gzip at all\n", 16);
	fd = ops_archived_map_fd(open(junk, O_RDONLY), junk, why, sizeof(why));
	ck_assert_int_eq(fd, -EINVAL);
	ck_assert_msg(!strncmp(why, "corrupt compressed copy (", 25), "%s",
		      why);
	free(plain);
	free(cut);
	free(junk);
}
END_TEST

START_TEST(test_kallsyms)
{
	struct ops_writer *w = writer_must_open(sdir);
	char *ks = tmp_path(tmp, "ks"), *mods = tmp_path(tmp, "mods");
	const char *kt = "ffffffff81000000 T _stext\n";
	const char *mt = "ext4 1000000 1 - Live 0xffffffffc0000000\n";
	struct ops_session *s;
	struct warns wr = { 0 };
	char *data;
	size_t len;

	file_write(ks, kt, strlen(kt));
	file_write(mods, mt, strlen(mt));
	ck_assert_int_eq(ops_writer_kernel_symbols(w, ks, mods), 0);
	ck_assert_int_lt(ops_writer_kernel_symbols(w, "/nonexistent/x", NULL),
			 0);
	ck_assert_ptr_nonnull(strstr(ops_writer_error(w), "/nonexistent/x"));
	/* a recorder killed before its stop: the whole copy */
	ck_assert_int_eq(ops_writer_flush(w), 0);
	ops_writer_free(w);
	s = session_must_open(sdir, &wr);
	ck_assert_ptr_nonnull(ops_session_kallsyms(s));
	data = file_read(ops_session_kallsyms(s), &len);
	ck_assert_str_eq(data, kt);
	free(data);
	data = file_read(ops_session_modules(s), &len);
	ck_assert_str_eq(data, mt);
	free(data);
	ops_session_close(s);
	free(ks);
	free(mods);
}
END_TEST

/* /proc files report size 0: the copy must still hold everything.
 * kallsyms is the file that matters and spans many reads; /proc/version
 * stands in where kallsyms is not readable. */
START_TEST(test_kallsyms_proc)
{
	const char *src = access("/proc/kallsyms", R_OK) ? "/proc/version"
							 : "/proc/kallsyms";
	struct ops_writer *w = writer_must_open(sdir);
	struct ops_session *s;
	struct warns wr = { 0 };
	size_t len, n = 0, cap = 1 << 16;
	char *copy, *direct = malloc(cap);
	FILE *f;

	ck_assert_int_eq(ops_writer_kernel_symbols(w, src, NULL), 0);
	/* killed before its stop, so that nothing is trimmed */
	ck_assert_int_eq(ops_writer_flush(w), 0);
	ops_writer_free(w);
	f = fopen(src, "r");
	ck_assert_ptr_nonnull(f);
	for (;;) {
		size_t r = fread(direct + n, 1, cap - n, f);

		n += r;
		if (!r)
			break;
		if (n == cap)
			direct = realloc(direct, cap *= 2);
		ck_assert_ptr_nonnull(direct);
	}
	fclose(f);
	s = session_must_open(sdir, &wr);
	copy = file_read(ops_session_kallsyms(s), &len);
	ck_assert_uint_gt(len, 0);
	ck_assert_uint_eq(len, n);
	ck_assert_mem_eq(copy, direct, n);
	ck_assert_ptr_null(ops_session_modules(s));
	ops_session_close(s);
	free(copy);
	free(direct);
}
END_TEST

/* KALLSYMS as the session's copy after a clean stop with kernel samples
 * at ADDRS (module sample when the name is set). */
struct ksample {
	const char *module;
	uint64_t addr;
};

/* The same, KALLSYMS given as a table the recorder kept
 * (ops_writer_kernel_symbols_kept()) when LIVE, the table as it is now,
 * is set. */
static char *trimmed_from(const char *kallsyms, const char *live,
			  const struct ksample *ks, size_t n)
{
	struct ops_image app = { .kind = OPS_IMAGE_FILE, .path = "/bin/a" };
	struct ops_image kern = { .kind = OPS_IMAGE_KERNEL,
				  .path = "[kernel.kallsyms]" };
	struct ops_writer *w = writer_must_open(sdir);
	char *src = tmp_path(tmp, "ks"), *data;
	uint32_t ia, ik, ctx;
	struct ops_session *s;
	struct warns wr = { 0 };
	size_t i, len;

	file_write(src, kallsyms, strlen(kallsyms));
	if (live) {
		char *now = tmp_path(tmp, "ks-now");
		int fd = open(src, O_RDONLY);

		file_write(now, live, strlen(live));
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(ops_writer_kernel_symbols_kept(w, fd, "kept",
								now, NULL),
				 0);
		close(fd);
		free(now);
	} else {
		ck_assert_int_eq(ops_writer_kernel_symbols(w, src, NULL), 0);
	}
	ck_assert_int_eq(ops_writer_image(w, &app, &ia), 0);
	ck_assert_int_eq(ops_writer_image(w, &kern, &ik), 0);
	/* a file image's offsets are no kernel addresses */
	ck_assert_int_eq(
		ops_writer_context(
			w, &(struct ops_context){ ia, ia, 0, -1, 0, 0 }, &ctx),
		0);
	ck_assert_int_eq(ops_writer_hist_add(w, ctx, 0xffffffff81000000, 9),
			 0);
	for (i = 0; i < n; i++) {
		struct ops_image m = { .kind = OPS_IMAGE_MODULE,
				       .path = ks[i].module };
		uint32_t im = ik;

		if (ks[i].module)
			ck_assert_int_eq(ops_writer_image(w, &m, &im), 0);
		ck_assert_int_eq(
			ops_writer_context(w,
					   &(struct ops_context){ ia, im, 0,
								  -1, 0, 0 },
					   &ctx),
			0);
		ck_assert_int_eq(ops_writer_hist_add(w, ctx, ks[i].addr, 1),
				 0);
	}
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
	s = session_must_open(sdir, &wr);
	ck_assert_ptr_nonnull(ops_session_kallsyms(s));
	data = file_read(ops_session_kallsyms(s), &len);
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
	free(src);
	return data;
}

static char *trimmed(const char *kallsyms, const struct ksample *ks, size_t n)
{
	return trimmed_from(kallsyms, NULL, ks, n);
}

/* A kept table (the recorder's cache of this boot's) lacks the code
 * that comes and goes: at the stop, samples in the kernel's own code are
 * named from it, and a sample anywhere else from the table as it is now,
 * which names the BPF program the kept one lacks.  (LIVE's extra line
 * in the kernel's code shows which table a trim read.) */
START_TEST(test_kallsyms_kept)
{
	const char *kept = "ffffffff81000000 T _stext\n"
			   "ffffffff81000100 t do_work\n"
			   "ffffffff81000200 T _etext\n";
	const char *live = "ffffffff81000000 T _stext\n"
			   "ffffffff81000100 t do_work\n"
			   "ffffffff81000180 t now_only\n"
			   "ffffffff81000200 T _etext\n"
			   "ffffffffc0001000 t bpf_prog_1_x\t[bpf]\n"
			   "ffffffffc0001100 t bpf_prog_2_y\t[bpf]\n";
	const struct ksample core = { NULL, 0xffffffff81000110 };
	const struct ksample both[] = { { NULL, 0xffffffff81000110 },
					{ NULL, 0xffffffffc0001010 } };
	char *got = trimmed_from(kept, live, &core, 1);

	ck_assert_str_eq(got, "ffffffff81000100 t do_work\n"
			      "ffffffff81000200 T _etext\n");
	free(got);
	got = trimmed_from(kept, live, both, 2);
	ck_assert_str_eq(got, "ffffffff81000100 t do_work\n"
			      "ffffffff81000180 t now_only\n"
			      "ffffffff81000200 T _etext\n"
			      "ffffffffc0001000 t bpf_prog_1_x\t[bpf]\n"
			      "ffffffffc0001100 t bpf_prog_2_y\t[bpf]\n");
	free(got);
}
END_TEST

/* At a clean stop the copy keeps the code symbols that hold samples,
 * their aliases and the code symbol after each, per module, in the
 * original order: what opreport needs to name and bound them. */
START_TEST(test_kallsyms_trim)
{
	const char *ks = "ffffffff81000000 T _stext\n"
			 "ffffffff81000100 t do_work\n"
			 "ffffffff81000100 t do_work_alias\n"
			 "ffffffff81000180 d some_data\n"
			 "ffffffff81000200 T schedule\n"
			 "ffffffff81000300 T idle\n"
			 "ffffffff81000400 T unused\n"
			 "ffffffffc0000000 t ext4_read\t[ext4]\n"
			 "ffffffffc0000100 t ext4_write\t[ext4]\n"
			 "ffffffffc0000200 t ext4_sync\t[ext4]\n"
			 "ffffffffc0001000 t xfs_read\t[xfs]\n"
			 "not a kallsyms line\n";
	const struct ksample at[] = {
		{ NULL, 0xffffffff81000104 },	/* do_work */
		{ NULL, 0xffffffff81000310 },	/* idle */
		{ NULL, 0xffffffff80000000 },	/* below every symbol */
		{ "ext4", 0xffffffffc0000110 }, /* ext4_write */
		{ "xfs", 0xffffffffc0000ff0 },	/* below xfs's first */
	};
	char *got = trimmed(ks, at, sizeof(at) / sizeof(at[0]));

	ck_assert_str_eq(got, "ffffffff81000100 t do_work\n"
			      "ffffffff81000100 t do_work_alias\n"
			      "ffffffff81000200 T schedule\n"
			      "ffffffff81000300 T idle\n"
			      "ffffffff81000400 T unused\n"
			      "ffffffffc0000100 t ext4_write\t[ext4]\n"
			      "ffffffffc0000200 t ext4_sync\t[ext4]\n");
	free(got);
}
END_TEST

/* The kernel frames of call graphs keep their symbols too, though no
 * sample's leaf is counted there. */
START_TEST(test_kallsyms_trim_stacks)
{
	const char *ks = "ffffffff81000000 T _stext\n"
			 "ffffffff81000200 T schedule\n"
			 "ffffffff81000300 T idle\n"
			 "ffffffff81000400 T unused\n"
			 "ffffffffc0000000 t ext4_read\t[ext4]\n"
			 "ffffffffc0000100 t ext4_write\t[ext4]\n"
			 "ffffffffc0000200 t ext4_sync\t[ext4]\n";
	struct ops_session_info info = info_example();
	struct ops_image app = { .kind = OPS_IMAGE_FILE, .path = "/bin/a" };
	struct ops_image kern = { .kind = OPS_IMAGE_KERNEL,
				  .path = "[kernel.kallsyms]" };
	struct ops_image ext4 = { .kind = OPS_IMAGE_MODULE, .path = "[ext4]" };
	struct ops_frame f[3] = { { 0 } };
	struct ops_stack st = { .frames = f, .nr_frames = 3, .nr_kernel = 2 };
	char *src = tmp_path(tmp, "ks"), *got;
	uint32_t ia, ik, ie, ctx, id;
	struct ops_session *s;
	struct ops_writer *w;
	struct warns wr = { 0 };
	size_t len;

	info.callgraph_depth = 127;
	ck_assert_int_eq(ops_writer_open(&w, sdir, &info), 0);
	file_write(src, ks, strlen(ks));
	ck_assert_int_eq(ops_writer_kernel_symbols(w, src, NULL), 0);
	ck_assert_int_eq(ops_writer_image(w, &app, &ia), 0);
	ck_assert_int_eq(ops_writer_image(w, &kern, &ik), 0);
	ck_assert_int_eq(ops_writer_image(w, &ext4, &ie), 0);
	ck_assert_int_eq(
		ops_writer_context(
			w, &(struct ops_context){ ia, ia, 0, -1, 0, 0 }, &ctx),
		0);
	/* ext4_write's code, called from schedule, called from /bin/a */
	f[0] = (struct ops_frame){ OPS_FRAME_IMAGE, ie, 0xffffffffc0000108 };
	f[1] = (struct ops_frame){ OPS_FRAME_IMAGE, ik, 0xffffffff81000204 };
	f[2] = (struct ops_frame){ OPS_FRAME_IMAGE, ia, 0x1000 };
	ck_assert_int_eq(ops_writer_stack(w, &st, &id), 0);
	ck_assert_int_eq(ops_writer_stack_add(w, ctx, id, 1), 0);
	ck_assert_int_eq(ops_writer_close(w, 1), 0);

	s = session_must_open(sdir, &wr);
	got = file_read(ops_session_kallsyms(s), &len);
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
	ck_assert_str_eq(got, "ffffffff81000200 T schedule\n"
			      "ffffffff81000300 T idle\n"
			      "ffffffffc0000100 t ext4_write\t[ext4]\n"
			      "ffffffffc0000200 t ext4_sync\t[ext4]\n");
	free(got);
	free(src);
}
END_TEST

/* Write A then B into PATH. */
static void file_write2(const char *path, const char *a, const char *b)
{
	char *both = malloc(strlen(a) + strlen(b) + 1);

	ck_assert_ptr_nonnull(both);
	strcpy(stpcpy(both, a), b);
	file_write(path, both, strlen(both));
	free(both);
}

/* Record kernel samples at ADDRS (N, one each) in a session whose
 * kernel tables are KSRC and MSRC, which LATE (if any) changes after
 * the start, as a module loaded while recording does. */
static void record_kernel(const char *ksrc, const char *msrc,
			  void (*late)(void), const uint64_t *addrs, size_t n)
{
	struct ops_image app = { .kind = OPS_IMAGE_FILE, .path = "/bin/a" };
	struct ops_image kern = { .kind = OPS_IMAGE_KERNEL,
				  .path = "[kernel.kallsyms]" };
	struct ops_writer *w = writer_must_open(sdir);
	uint32_t ia, ik, ctx;
	size_t i;

	ck_assert_int_eq(ops_writer_kernel_symbols(w, ksrc, msrc), 0);
	if (late)
		late();
	ck_assert_int_eq(ops_writer_image(w, &app, &ia), 0);
	ck_assert_int_eq(ops_writer_image(w, &kern, &ik), 0);
	ck_assert_int_eq(
		ops_writer_context(
			w, &(struct ops_context){ ia, ik, 0, -1, 0, 0 }, &ctx),
		0);
	/* filed under the kernel, as the recorder files module code */
	for (i = 0; i < n; i++)
		ck_assert_int_eq(ops_writer_hist_add(w, ctx, addrs[i], 1), 0);
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
}

static const char late_ks[] = "ffffffff81000000 T _stext\n"
			      "ffffffff81000200 T schedule\n"
			      "ffffffffc0000000 t ext4_read\t[ext4]\n"
			      "ffffffffc0000100 t ext4_write\t[ext4]\n";
static const char late_mods[] = "ext4 4096 0 - Live 0xffffffffc0000000\n";
static char *late_ksrc, *late_msrc;

/* The module "late" is loaded: both tables list it now. */
static void load_late_module(void)
{
	file_write2(late_ksrc, late_ks,
		    "ffffffffc0005000 t late_fn\t[late]\n"
		    "ffffffffc0005100 t late_tail\t[late]\n"
		    "ffffffffc0005200 t late_unused\t[late]\n");
	file_write2(late_msrc, "late 8192 0 - Live 0xffffffffc0005000\n",
		    late_mods);
}

/* A module loaded while recording is in neither copy made at the start:
 * the stop reads the tables again and adds its lines that samples need,
 * and its /proc/modules line; modules that were there stay as copied. */
START_TEST(test_kallsyms_late_module)
{
	const uint64_t addrs[] = { 0xffffffffc0005010, 0xffffffffc0000110 };
	struct ops_session *s;
	struct warns wr = { 0 };
	size_t len;
	char *got;

	late_ksrc = tmp_path(tmp, "ks");
	late_msrc = tmp_path(tmp, "mods");
	file_write(late_ksrc, late_ks, strlen(late_ks));
	file_write(late_msrc, late_mods, strlen(late_mods));
	record_kernel(late_ksrc, late_msrc, load_late_module, addrs, 2);
	s = session_must_open(sdir, &wr);
	got = file_read(ops_session_kallsyms(s), &len);
	ck_assert_str_eq(got, "ffffffff81000200 T schedule\n"
			      "ffffffffc0000100 t ext4_write\t[ext4]\n"
			      "ffffffffc0005000 t late_fn\t[late]\n"
			      "ffffffffc0005100 t late_tail\t[late]\n");
	free(got);
	got = file_read(ops_session_modules(s), &len);
	ck_assert_str_eq(got, "ext4 4096 0 - Live 0xffffffffc0000000\n"
			      "late 8192 0 - Live 0xffffffffc0005000\n");
	free(got);
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);

	/* no module came: the modules copy is the one made at the start */
	file_write(late_msrc, late_mods, strlen(late_mods));
	record_kernel(late_ksrc, late_msrc, NULL, addrs + 1, 1);
	s = session_must_open(sdir, &wr);
	got = file_read(ops_session_modules(s), &len);
	ck_assert_str_eq(got, late_mods);
	free(got);
	ops_session_close(s);
	free(late_ksrc);
	free(late_msrc);
}
END_TEST

/* Nothing to trim by: no kernel samples leave no lines; a table whose
 * addresses were hidden (kptr_restrict) is kept as it was. */
START_TEST(test_kallsyms_trim_edges)
{
	const char *ks = "ffffffff81000000 T _stext\n";
	const char *hidden = "0000000000000000 T _stext\n"
			     "0000000000000000 t do_work\n";
	const struct ksample at = { NULL, 0xffffffff81000004 };
	char *got = trimmed(ks, NULL, 0);

	ck_assert_str_eq(got, "");
	free(got);
	got = trimmed(hidden, &at, 1);
	ck_assert_str_eq(got, hidden);
	free(got);
}
END_TEST

START_TEST(test_previous)
{
	struct ops_session_info info = info_example();
	char *prev1 = NULL, *prev2 = NULL, *other = tmp_path(tmp, "other");
	struct ops_writer *w = writer_must_open(sdir);
	struct ops_session *s;
	struct warns wr = { 0 };

	ck_assert_ptr_null(ops_writer_previous(w));
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
	info.host = "second";
	ck_assert_int_eq(ops_writer_open(&w, sdir, &info), 0);
	ck_assert_int_gt(asprintf(&prev1, "%s.previous-1", sdir), 0);
	ck_assert_str_eq(ops_writer_previous(w), prev1);
	ck_assert_int_eq(ops_writer_close(w, 1), 0);
	info.host = "third";
	/* with a trailing slash, the same directory */
	ck_assert_int_gt(asprintf(&prev2, "%s/", sdir), 0);
	ck_assert_int_eq(ops_writer_open(&w, prev2, &info), 0);
	free(prev2);
	ck_assert_int_gt(asprintf(&prev2, "%s.previous-2", sdir), 0);
	ck_assert_str_eq(ops_writer_previous(w), prev2);
	ck_assert_int_eq(ops_writer_close(w, 1), 0);

	s = session_must_open(prev1, &wr);
	ck_assert_str_eq(ops_session_info(s)->host, "testhost");
	ops_session_close(s);
	s = session_must_open(prev2, &wr);
	ck_assert_str_eq(ops_session_info(s)->host, "second");
	ops_session_close(s);
	s = session_must_open(sdir, &wr);
	ck_assert_str_eq(ops_session_info(s)->host, "third");
	ops_session_close(s);

	/* a directory that holds something else is never taken over */
	ck_assert_int_eq(mkdir(other, 0755), 0);
	free(prev1);
	prev1 = tmp_path(other, "precious.txt");
	file_write(prev1, "x", 1);
	ck_assert_int_lt(ops_writer_open(&w, other, &info), 0);
	ck_assert_ptr_nonnull(strstr(ops_writer_error(w), other));
	ck_assert_ptr_nonnull(
		strstr(ops_writer_error(w), "not an opjit session"));
	ops_writer_free(w);
	ck_assert_uint_eq(file_size(prev1), 1);
	free(prev1);
	free(prev2);
	free(other);
}
END_TEST

/* finish = close without the free: the error stays readable, and the
 * writer refuses more work. */
START_TEST(test_finish)
{
	struct ops_writer *w = writer_must_open(sdir);
	struct ops_process p = { .tgid = 1 };
	struct ops_session *s;
	struct warns wr = { 0 };
	uint32_t id;

	ck_assert_int_eq(ops_writer_process(w, &p, &id), 0);
	ck_assert_int_eq(ops_writer_anon(w, id, 1, 2, 3), 0);
	ck_assert_int_eq(ops_writer_finish(w, 77), 0);
	ck_assert_str_eq(ops_writer_error(w), "");
	ck_assert_int_eq(ops_writer_flush(w), -EBADF);
	ck_assert_int_eq(ops_writer_finish(w, 78), -EBADF);
	ck_assert_int_eq(ops_writer_process_update(w, id, &p), -EBADF);
	ck_assert_ptr_nonnull(strstr(ops_writer_error(w), "closed"));
	ops_writer_free(w);
	s = session_must_open(sdir, &wr);
	ck_assert_uint_eq(ops_session_info(s)->stop_ns, 77);
	ck_assert_uint_eq(ops_session_nr_processes(s), 1);
	ck_assert_int_eq(wr.n, 0);
	ops_session_close(s);
	ck_assert_str_eq(ops_writer_error(NULL), "out of memory");
}
END_TEST

static Suite *roundtrip_suite(void)
{
	Suite *s = suite_create("samples_roundtrip");
	const struct check_case cases[] = {
		{ "meta", test_meta },
		{ "meta_unflushed_stop", test_meta_unflushed_stop },
		{ "totals_without_a_clean_stop",
		  test_totals_without_a_clean_stop },
		{ "images", test_images },
		{ "contexts", test_contexts },
		{ "hist_counts", test_hist_counts },
		{ "hist_compaction", test_hist_compaction },
		{ "processes", test_processes },
		{ "anon_stream", test_anon_stream },
		{ "process_jitdump", test_process_jitdump },
		{ "archive_maps", test_archive_maps },
		{ "archive_anon_streamed", test_archive_anon_streamed },
		{ "archive_anon_stored", test_archive_anon_stored },
		{ "archive_damage", test_archive_damage },
		{ "kallsyms", test_kallsyms },
		{ "kallsyms_proc", test_kallsyms_proc },
		{ "kallsyms_trim", test_kallsyms_trim },
		{ "kallsyms_kept", test_kallsyms_kept },
		{ "kallsyms_trim_stacks", test_kallsyms_trim_stacks },
		{ "kallsyms_late_module", test_kallsyms_late_module },
		{ "kallsyms_trim_edges", test_kallsyms_trim_edges },
		{ "previous", test_previous },
		{ "finish", test_finish },
	};
	SUITE_ADD_CASES(s, cases, session_setup, session_teardown, 0);
	return s;
}

int main(void)
{
	return opjit_check_run(roundtrip_suite());
}
