// SPDX-License-Identifier: GPL-3.0-or-later
#define _GNU_SOURCE
#include <check.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

char *tmp_make(void)
{
	const char *base = getenv("TMPDIR");
	char *dir;

	ck_assert_int_gt(asprintf(&dir, "%s/opsamples-XXXXXX",
				  base && *base ? base : "/tmp"),
			 0);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	return dir;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

void tmp_remove(char *dir)
{
	if (dir)
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

char *tmp_path(const char *dir, const char *name)
{
	char *p;

	ck_assert_int_gt(asprintf(&p, "%s/%s", dir, name), 0);
	return p;
}

char *tmp, *sdir, *hist, *anon, *meta;

void session_setup(void)
{
	tmp = tmp_make();
	sdir = tmp_path(tmp, "session");
	hist = tmp_path(sdir, "samples.hist");
	anon = tmp_path(sdir, "anon.samples");
	meta = tmp_path(sdir, "session.meta");
}

void session_teardown(void)
{
	free(hist);
	free(anon);
	free(meta);
	free(sdir);
	tmp_remove(tmp);
	tmp = sdir = hist = anon = meta = NULL;
}

void suite_add_cases(Suite *s, const struct check_case *cases, size_t n,
		     SFun setup, SFun teardown, double timeout)
{
	size_t i;

	for (i = 0; i < n; i++) {
		TCase *tc = tcase_create(cases[i].name);

		if (setup || teardown)
			tcase_add_checked_fixture(tc, setup, teardown);
		if (timeout)
			tcase_set_timeout(tc, timeout);
		tcase_add_test(tc, cases[i].test);
		suite_add_tcase(s, tc);
	}
}

void warns_collect(void *arg, const char *msg)
{
	struct warns *w = arg;

	w->n++;
	snprintf(w->last, sizeof(w->last), "%s", msg);
	if (getenv("OPS_TEST_VERBOSE"))
		fprintf(stderr, "warning: %s\n", msg);
}

struct ops_session_info info_example(void)
{
	struct ops_session_info i = {
		.event = "cpu-clock",
		.period = 0,
		.frequency = 4000,
		.clock = "CLOCK_MONOTONIC",
		.start_ns = 123456789012ull,
		.start_unix_ns = 1700000000123456789ll,
		.host = "testhost",
		.kernel_release = "6.1.0-test",
		.command_line = "oprofiled --system-wide",
		.separate = OPS_SEPARATE_PROCESS,
	};
	return i;
}

struct ops_session *session_must_open(const char *dir, struct warns *w)
{
	struct ops_session *s = NULL;
	char err[1024] = "";
	int ret;

	ret = ops_session_open(&s, dir, warns_collect, w, err, sizeof(err));
	ck_assert_msg(ret == 0, "ops_session_open(%s) = %d: %s", dir, ret,
		      err);
	ck_assert_ptr_nonnull(s);
	return s;
}

void file_write(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	ck_assert_int_eq(close(fd), 0);
}

void *file_read(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY);

	ck_assert_msg(fd >= 0, "cannot open %s", path);
	ck_assert_int_eq(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(read(fd, buf, (size_t)st.st_size), st.st_size);
	buf[st.st_size] = 0;
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

size_t file_size(const char *path)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	return (size_t)st.st_size;
}

void app_session_open(struct app_session *s, const char *dir,
		      const struct ops_session_info *info)
{
	struct ops_image app = { .path = "/usr/bin/app" };
	struct ops_image libc = { .path = "/lib/libc.so.6" };
	struct ops_image k = { .kind = OPS_IMAGE_KERNEL,
			       .path = "[kernel.kallsyms]" };
	struct ops_range r = { 0x7f0000000000ull, 0x7f0000010000ull };
	struct ops_process p = { .tgid = 42,
				 .nspid = 42,
				 .comm = "app",
				 .exe = "/usr/bin/app",
				 .ranges = &r,
				 .nr_ranges = 1 };
	struct ops_context ctx = { .cpu = -1 };

	ck_assert_int_eq(ops_writer_open(&s->w, dir, info), 0);
	ck_assert_int_eq(ops_writer_image(s->w, &app, &s->app), 0);
	ck_assert_int_eq(ops_writer_image(s->w, &libc, &s->libc), 0);
	ck_assert_int_eq(ops_writer_image(s->w, &k, &s->kernel), 0);
	ctx.app = ctx.image = s->app;
	ck_assert_int_eq(ops_writer_context(s->w, &ctx, &s->ctx), 0);
	ck_assert_int_eq(ops_writer_process(s->w, &p, &s->proc), 0);
}
