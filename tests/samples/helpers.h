/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shared by the libopsamples Check suites. */
#ifndef OPS_TEST_HELPERS_H
#define OPS_TEST_HELPERS_H

#include <check.h>
#include <stddef.h>

#include <opjit/samples.h>

/* A fresh directory under $TMPDIR (or /tmp); free with tmp_remove. */
char *tmp_make(void);
void tmp_remove(char *dir);
/* DIR/NAME, malloc'ed. */
char *tmp_path(const char *dir, const char *name);

/*
 * The suites' session fixture, for tcase_add_checked_fixture: before
 * each test, a fresh directory TMP and in it SDIR, TMP/session, left for
 * the writer to make, with the paths of its files HIST (samples.hist),
 * ANON (anon.samples) and META (session.meta); after the test, all five
 * freed and TMP removed with everything in it.
 */
extern char *tmp, *sdir, *hist, *anon, *meta;
void session_setup(void);
void session_teardown(void);

/* A suite's test cases: each becomes a TCase of its name, under the
 * checked fixture SETUP and TEARDOWN (NULL: none) and, where TIMEOUT is
 * not 0, a timeout of that many seconds. */
struct check_case {
	const char *name;
	const TTest *test;
};
void suite_add_cases(Suite *s, const struct check_case *cases, size_t n,
		     SFun setup, SFun teardown, double timeout);
#define SUITE_ADD_CASES(s, cases, setup, teardown, timeout)                  \
	suite_add_cases(s, cases, sizeof(cases) / sizeof((cases)[0]), setup, \
			teardown, timeout)

/* Collects reader warnings. */
struct warns {
	int n;
	char last[1024];
};
void warns_collect(void *arg, const char *msg);

struct ops_session_info info_example(void);

/* The call-graph tests' session, opened in DIR with INFO: images
 * /usr/bin/app, libc and the kernel, a context of app in app, and
 * process 42 (app, its JIT code in one range at 0x7f0000000000). */
struct app_session {
	struct ops_writer *w;
	uint32_t app, libc, kernel, ctx, proc;
};
void app_session_open(struct app_session *s, const char *dir,
		      const struct ops_session_info *info);

/* Open DIR as a session, failing the test when it cannot be opened. */
struct ops_session *session_must_open(const char *dir, struct warns *w);

/* Whole-file helpers; the test fails on I/O errors. */
void file_write(const char *path, const void *data, size_t len);
void *file_read(const char *path, size_t *len);
size_t file_size(const char *path);

#endif /* OPS_TEST_HELPERS_H */
