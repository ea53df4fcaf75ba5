// SPDX-License-Identifier: GPL-3.0-or-later
/* The programs' one way out for diagnostics (util/diag.c): a sink gets
 * each line whole, without the command's name, however long; by default
 * a line goes to stderr as "NAME: LINE", NAME as the command set it
 * once, or the name the program was started under. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"

#include "check_run.h"

struct seen {
	char lines[4][2048];
	int n;
};

static void collect(const char *line, void *ctx)
{
	struct seen *s = ctx;

	if (s->n < 4)
		snprintf(s->lines[s->n], sizeof(s->lines[0]), "%s", line);
	s->n++;
}

START_TEST(a_sink_gets_whole_lines)
{
	struct seen s = { 0 };
	char path[1500];

	memset(path, 'p', sizeof(path) - 1);
	path[sizeof(path) - 1] = 0;
	diag_set_sink(collect, &s);
	diag("skipping handler %s: %s", "x", "not found");
	diag("cannot read %s", path);
	diag_set_sink(NULL, NULL);
	ck_assert_int_eq(s.n, 2);
	ck_assert_str_eq(s.lines[0], "skipping handler x: not found");
	ck_assert_uint_eq(strlen(s.lines[1]), strlen("cannot read ") + 1499);
}
END_TEST

/* What one diag() line writes to stderr, into BUF. */
static void stderr_of_one_line(char *buf, size_t size)
{
	int fds[2], saved;
	ssize_t n;

	memset(buf, 0, size);
	ck_assert_int_eq(pipe(fds), 0);
	saved = dup(2);
	ck_assert_int_eq(dup2(fds[1], 2), 2);
	diag("warning: %d samples", 7);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fds[1]);
	n = read(fds[0], buf, size - 1);
	close(fds[0]);
	ck_assert_int_gt(n, 0);
}

START_TEST(the_default_is_stderr_with_the_name)
{
	char buf[256];

	stderr_of_one_line(buf, sizeof(buf));
	ck_assert_str_eq(buf, "test_opreport_diag: warning: 7 samples\n");
	oputil_diag_set_program("opreport");
	stderr_of_one_line(buf, sizeof(buf));
	ck_assert_str_eq(buf, "opreport: warning: 7 samples\n");
	oputil_diag_set_program("oprofiled");
	stderr_of_one_line(buf, sizeof(buf));
	ck_assert_str_eq(buf, "oprofiled: warning: 7 samples\n");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("diag");
	TCase *tc = tcase_create("sink");

	tcase_add_test(tc, a_sink_gets_whole_lines);
	tcase_add_test(tc, the_default_is_stderr_with_the_name);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
