// SPDX-License-Identifier: GPL-3.0-or-later
/* oputil/fileio.h and oputil/modules_line.h: files read to their end
 * and written whole, whatever read() and write() hand back at a time;
 * /proc/modules lines split as the kernel writes them. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <oputil/fileio.h>
#include <oputil/modules_line.h>

#include "check_run.h"

/* A pipe whose writer, a child, writes N bytes of a pattern in pieces
 * of PIECE: a reader sees short reads, as from a /proc file.  The read
 * end; *PID the child. */
static int piped(size_t n, size_t piece, pid_t *pid)
{
	int fd[2];

	ck_assert_int_eq(pipe(fd), 0);
	*pid = fork();
	ck_assert_int_ge(*pid, 0);
	if (!*pid) {
		char buf[4096];
		size_t at = 0, i;

		close(fd[0]);
		while (at < n) {
			size_t k = n - at < piece ? n - at : piece;

			for (i = 0; i < k; i++)
				buf[i] = (char)('a' + (at + i) % 26);
			if (write(fd[1], buf, k) != (ssize_t)k)
				_exit(1);
			at += k;
		}
		_exit(0);
	}
	close(fd[1]);
	return fd[0];
}

/* Read to the end in pieces, more than one step of room: every byte, in
 * order, and a NUL after them. */
START_TEST(read_fd_takes_every_piece)
{
	const size_t n = 3 * OPUTIL_READ_STEP + 77;
	uint8_t *buf;
	size_t len, i;
	pid_t pid;
	int fd = piped(n, 1000, &pid), st;

	ck_assert_int_eq(oputil_read_fd(fd, UINT64_MAX, &buf, &len), 0);
	close(fd);
	waitpid(pid, &st, 0);
	ck_assert_uint_eq(len, n);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(buf[i], 'a' + i % 26);
	ck_assert_int_eq(buf[n], '\0');
	free(buf);
}
END_TEST

/* More than MAX is -EFBIG, with nothing handed back; MAX itself is
 * read. */
START_TEST(read_fd_refuses_more_than_max)
{
	uint8_t *buf = (uint8_t *)"x";
	size_t len = 1;
	pid_t pid;
	int fd = piped(5000, 700, &pid), st;

	ck_assert_int_eq(oputil_read_fd(fd, 4999, &buf, &len), -EFBIG);
	ck_assert_ptr_null(buf);
	ck_assert_uint_eq(len, 0);
	close(fd);
	waitpid(pid, &st, 0);
	fd = piped(5000, 700, &pid);
	ck_assert_int_eq(oputil_read_fd(fd, 5000, &buf, &len), 0);
	ck_assert_uint_eq(len, 5000);
	free(buf);
	close(fd);
	waitpid(pid, &st, 0);
}
END_TEST

/* A regular file of any size, its size exactly a power of two or one
 * less among them (its room and its NUL), and an empty one: a string
 * of its bytes.  Then written back whole, and a missing file's errno. */
START_TEST(read_file_and_write_all_round_trip)
{
	static const size_t sizes[] = { 0,    1,    62,	   63,	  64,	 65,
					4095, 4096, 65535, 65536, 200001 };
	char path[] = "/tmp/test_fileio.XXXXXX";
	uint8_t *want = malloc(200001), *buf;
	size_t len, i, k;
	int fd;

	ck_assert_ptr_nonnull(want);
	for (i = 0; i < 200001; i++)
		want[i] = (uint8_t)(i * 7 + 1);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		ck_assert_int_eq(ftruncate(fd, 0), 0);
		ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
		ck_assert_int_eq(oputil_write_all(fd, want, sizes[k]), 0);
		ck_assert_int_eq(
			oputil_read_file(path, UINT64_MAX, &buf, &len), 0);
		ck_assert_ptr_nonnull(buf);
		ck_assert_uint_eq(len, sizes[k]);
		ck_assert_int_eq(memcmp(buf, want, len), 0);
		ck_assert_int_eq(buf[len], '\0');
		free(buf);
	}
	close(fd);
	unlink(path);
	free(want);
	ck_assert_int_eq(oputil_read_file(path, UINT64_MAX, &buf, &len),
			 -ENOENT);
	ck_assert_ptr_null(buf);
}
END_TEST

/* A write to a pipe nobody reads any more fails with its errno; one of
 * nothing writes nothing. */
START_TEST(write_all_says_why)
{
	int fd[2];

	ck_assert_int_eq(pipe2(fd, O_CLOEXEC), 0);
	close(fd[0]);
	ck_assert_int_eq(oputil_write_all(fd[1], "", 0), 0);
	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(oputil_write_all(fd[1], "abc", 3), -EPIPE);
	close(fd[1]);
}
END_TEST

static void assert_field(const struct oputil_modules_line *m, int k,
			 const char *want)
{
	ck_assert_uint_eq(m->len[k], strlen(want));
	ck_assert_int_eq(memcmp(m->f[k], want, m->len[k]), 0);
}

/* The kernel's lines: six fields and maybe taints; a run of spaces is
 * one; fewer than six is no line. */
START_TEST(modules_line_fields)
{
	static const char line[] =
		"nf_tables 372736 0 - Live 0xffffffffc0a00000 (OE)";
	static const char spaced[] =
		"  ext4  1064960 2 - Live 0x0000000000000000";
	struct oputil_modules_line m;

	ck_assert(oputil_modules_line(line, strlen(line), &m));
	assert_field(&m, OPUTIL_MODULE_NAME, "nf_tables");
	assert_field(&m, OPUTIL_MODULE_SIZE, "372736");
	assert_field(&m, OPUTIL_MODULE_REFCOUNT, "0");
	assert_field(&m, OPUTIL_MODULE_USERS, "-");
	assert_field(&m, OPUTIL_MODULE_STATE, "Live");
	assert_field(&m, OPUTIL_MODULE_ADDRESS, "0xffffffffc0a00000");
	ck_assert(oputil_modules_line(spaced, strlen(spaced), &m));
	assert_field(&m, OPUTIL_MODULE_NAME, "ext4");
	assert_field(&m, OPUTIL_MODULE_SIZE, "1064960");
	assert_field(&m, OPUTIL_MODULE_ADDRESS, "0x0000000000000000");
	/* the length given is the line: what lies past it is not read */
	ck_assert(!oputil_modules_line(
		line, strlen("nf_tables 372736 0 - Live"), &m));
	ck_assert(!oputil_modules_line(line, 0, &m));
	ck_assert(!oputil_modules_line("a b c d e ", 10, &m));
}
END_TEST

static Suite *fileio_suite(void)
{
	Suite *s = suite_create("fileio");
	TCase *tc = tcase_create("fileio");

	tcase_add_test(tc, read_fd_takes_every_piece);
	tcase_add_test(tc, read_fd_refuses_more_than_max);
	tcase_add_test(tc, read_file_and_write_all_round_trip);
	tcase_add_test(tc, write_all_says_why);
	tcase_add_test(tc, modules_line_fields);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return opjit_check_run(fileio_suite());
}
