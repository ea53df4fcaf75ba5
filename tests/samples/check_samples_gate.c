// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Session files that are not what they should be: a FIFO, a device, a
 * huge sparse file.  Each is refused or cut at its first damage with one
 * line naming it, at once and without reading what it pretends to hold.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "block_internal.h"
#include "helpers.h"

#include "check_run.h"

/* The session fixture holding a session of one image, one hist entry
 * and 10 anonymous samples. */
static void setup(void)
{
	struct ops_session_info info = info_example();
	struct ops_process p = { .tgid = 500, .comm = "node", .exe = "/n" };
	struct ops_image img = { .path = "/usr/bin/node" };
	struct ops_context c = { 0 };
	struct ops_writer *w;
	uint32_t img_id, ctx_id, proc_id, i;

	session_setup();
	ck_assert_int_eq(ops_writer_open(&w, sdir, &info), 0);
	ck_assert_int_eq(ops_writer_image(w, &img, &img_id), 0);
	c.app = c.image = img_id;
	ck_assert_int_eq(ops_writer_context(w, &c, &ctx_id), 0);
	ck_assert_int_eq(ops_writer_process(w, &p, &proc_id), 0);
	ck_assert_int_eq(ops_writer_hist_add(w, ctx_id, 0x100, 7), 0);
	for (i = 0; i < 10; i++)
		ck_assert_int_eq(ops_writer_anon(w, proc_id, 1000 + i,
						 0x7f0000001000ull, 500),
				 0);
	ck_assert_int_eq(ops_writer_close(w, 2000), 0);
}

static void replace_by_fifo(const char *path)
{
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkfifo(path, 0644), 0);
}

static void expect_open_error(const char *want)
{
	struct ops_session *s = NULL;
	struct warns w = { 0 };
	char err[1024] = "";

	ck_assert_int_lt(ops_session_open(&s, sdir, warns_collect, &w, err,
					  sizeof(err)),
			 0);
	ck_assert_ptr_null(s);
	ck_assert_msg(strstr(err, meta) && strstr(err, want),
		      "error '%s' lacks '%s' or '%s'", err, meta, want);
}

START_TEST(meta_fifo_refused)
{
	replace_by_fifo(meta);
	expect_open_error(": not a regular file");
}
END_TEST

START_TEST(meta_dev_zero_refused)
{
	ck_assert_int_eq(unlink(meta), 0);
	ck_assert_int_eq(symlink("/dev/zero", meta), 0);
	expect_open_error(": not a regular file");
}
END_TEST

START_TEST(meta_oversize_refused)
{
	ck_assert_int_eq(truncate(meta, 4ll << 30), 0);
	expect_open_error(": larger than its format allows");
}
END_TEST

/* A data file that is a FIFO is one warning; the rest of the session
 * reads. */
START_TEST(data_fifo_warned)
{
	struct warns w = { 0 };
	struct ops_session *s;
	size_t n;

	replace_by_fifo(hist);
	s = session_must_open(sdir, &w);
	ck_assert_int_eq(w.n, 1);
	ck_assert_ptr_nonnull(strstr(w.last, hist));
	ck_assert_ptr_nonnull(strstr(w.last, ": not a regular file"));
	ck_assert_uint_eq(ops_session_nr_processes(s), 1);
	ops_session_close(s);

	replace_by_fifo(anon);
	ck_assert_int_eq(unlink(hist), 0);
	w.n = 0;
	s = session_must_open(sdir, &w);
	ck_assert_int_ge(w.n, 1);
	ck_assert_ptr_nonnull(strstr(w.last, anon));
	ck_assert_ptr_nonnull(strstr(w.last, ": not a regular file"));
	ops_session_hist(s, &n);
	ck_assert_uint_eq(n, 0);
	ops_session_close(s);
}
END_TEST

/* Grown to 4 GiB of hole after its good blocks: read up to the first
 * damaged block header only, and the damage named at that offset. */
START_TEST(sparse_tail_read_to_damage)
{
	size_t good = file_size(hist), len, n;
	char want[64];
	struct warns w = { 0 };
	struct ops_session *s;
	uint8_t *buf;

	ck_assert_int_eq(truncate(hist, 4ll << 30), 0);
	ck_assert_int_eq(ops_blocks_read(hist, OPS_HIST_MAGIC, &buf, &len), 0);
	ck_assert_uint_eq(len, good + OPS_BLOCK_HEADER_SIZE);
	free(buf);
	s = session_must_open(sdir, &w);
	ck_assert_int_eq(w.n, 1);
	snprintf(want, sizeof(want), "offset %zu: bad block magic", good);
	ck_assert_msg(strstr(w.last, want), "'%s' lacks '%s'", w.last, want);
	ck_assert_ptr_nonnull(ops_session_hist(s, &n));
	ck_assert_uint_eq(n, 1);
	ops_session_close(s);
}
END_TEST

/* A 4 GiB hole with no header at all: 16 bytes are read. */
START_TEST(sparse_whole_file_read_to_header)
{
	struct warns w = { 0 };
	struct ops_session *s;
	uint8_t *buf;
	size_t len;

	ck_assert_int_eq(truncate(anon, 0), 0);
	ck_assert_int_eq(truncate(anon, 4ll << 30), 0);
	ck_assert_int_eq(ops_blocks_read(anon, OPS_ANON_MAGIC, &buf, &len), 0);
	ck_assert_uint_eq(len, OPS_FILE_HEADER_SIZE);
	free(buf);
	s = session_must_open(sdir, &w);
	ck_assert_int_eq(w.n, 1);
	ck_assert_ptr_nonnull(strstr(w.last, "offset 0: bad magic"));
	ops_session_close(s);
}
END_TEST

/* The gate itself: what it refuses and how it says so. */
START_TEST(file_gate)
{
	struct stat st;
	char *fifo = tmp_path(tmp, "fifo"), *buf;
	size_t len;
	int fd;

	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(ops_file_open(fifo, 100, &st), -ESPIPE);
	ck_assert_int_eq(ops_file_open("/dev/zero", 100, &st), -ESPIPE);
	ck_assert_int_eq(ops_file_open(tmp, 100, &st), -ESPIPE);
	ck_assert_int_eq(ops_file_open(meta, 10, &st), -EFBIG);
	ck_assert_int_eq(ops_file_open(fifo + 1, 10, &st), -ENOENT);
	fd = ops_file_open(meta, 1 << 20, &st);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	ck_assert_int_eq(ops_file_read(meta, 1 << 20, &buf, &len), 0);
	ck_assert_uint_eq(len, file_size(meta));
	ck_assert_int_eq(buf[len], '\0');
	ck_assert_ptr_nonnull(strstr(buf, "opjit-session 1\n"));
	free(buf);
	ck_assert_str_eq(ops_file_strerror(-ESPIPE), "not a regular file");
	ck_assert_str_eq(ops_file_strerror(-EFBIG),
			 "larger than its format allows");
	ck_assert_str_eq(ops_file_strerror(-ENOENT), strerror(ENOENT));
	free(fifo);
}
END_TEST

static Suite *gate_suite(void)
{
	Suite *s = suite_create("samples_gate");
	const struct check_case cases[] = {
		{ "meta_fifo", meta_fifo_refused },
		{ "meta_dev_zero", meta_dev_zero_refused },
		{ "meta_oversize", meta_oversize_refused },
		{ "data_fifo", data_fifo_warned },
		{ "sparse_tail", sparse_tail_read_to_damage },
		{ "sparse_whole", sparse_whole_file_read_to_header },
		{ "file_gate", file_gate },
	};
	SUITE_ADD_CASES(s, cases, setup, session_teardown, 0);
	return s;
}

int main(void)
{
	return opjit_check_run(gate_suite());
}
