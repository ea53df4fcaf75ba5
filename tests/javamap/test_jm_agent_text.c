// SPDX-License-Identifier: GPL-3.0-or-later
/* The agent's pure parts: JVM signatures turned into Java names, and its
 * option string. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

#include "check_run.h"

FILE *agent_log;
int agent_inline;

static const char *name(const char *cls, const char *m, const char *sig)
{
	static char buf[256];

	agent_name_format(buf, sizeof(buf), cls, m, sig);
	return buf;
}

START_TEST(test_names)
{
	ck_assert_str_eq(name("Lcom/example/Foo;", "bar",
			      "(ILjava/lang/String;)V"),
			 "com.example.Foo.bar(int, java.lang.String)");
	ck_assert_str_eq(name("LHot;", "main", "([Ljava/lang/String;)V"),
			 "Hot.main(java.lang.String[])");
	ck_assert_str_eq(name("Lp/Q$Inner;", "<init>", "()V"),
			 "p.Q$Inner.<init>()");
	ck_assert_str_eq(name("La/B;", "m", "(BCDFJSZ[[I)J"),
			 "a.B.m(byte, char, double, float, long, short, "
			 "boolean, int[][])");
	/* array classes own methods too (clone) */
	ck_assert_str_eq(name("[I", "clone", "()Ljava/lang/Object;"),
			 "int[].clone()");
}
END_TEST

START_TEST(test_name_truncates)
{
	char buf[8];
	size_t want =
		agent_name_format(buf, sizeof(buf), "La/B;", "run", "()V");

	ck_assert_uint_eq(want, strlen("a.B.run()"));
	ck_assert_str_eq(buf, "a.B.run");
}
END_TEST

START_TEST(test_source)
{
	char buf[64];

	agent_source_format(buf, sizeof(buf), "Lcom/example/Foo$1;",
			    "Foo.java");
	ck_assert_str_eq(buf, "com/example/Foo.java");
	agent_source_format(buf, sizeof(buf), "LHot;", "Hot.java");
	ck_assert_str_eq(buf, "Hot.java");
}
END_TEST

START_TEST(test_opts_good)
{
	struct agent_opts o;
	char err[128] = "";

	ck_assert_int_eq(agent_opts_parse(NULL, &o, err, sizeof(err)), 0);
	ck_assert_ptr_null(o.file);
	ck_assert_int_eq(o.inline_frames, 1);
	ck_assert_int_eq(agent_opts_parse("file=/tmp/m,inline=no,debug", &o,
					  err, sizeof(err)),
			 0);
	ck_assert_str_eq(o.file, "/tmp/m");
	ck_assert_int_eq(o.inline_frames, 0);
	ck_assert_str_eq(o.debug, "-");
	agent_opts_free(&o);
	ck_assert_int_eq(agent_opts_parse("debug=/tmp/l,,inline=yes", &o, err,
					  sizeof(err)),
			 0);
	ck_assert_str_eq(o.debug, "/tmp/l");
	ck_assert_int_eq(o.inline_frames, 1);
	agent_opts_free(&o);
}
END_TEST

START_TEST(test_opts_bad)
{
	struct agent_opts o;
	char err[128];

	ck_assert_int_eq(agent_opts_parse("inline=maybe", &o, err,
					  sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "inline wants yes or no, not 'maybe'");
	ck_assert_int_eq(agent_opts_parse("file=rel/path", &o, err,
					  sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "file wants an absolute path, not 'rel/path'");
	ck_assert_int_eq(agent_opts_parse("file=/a,colour=red", &o, err,
					  sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "unknown option 'colour=red' (known: file, "
			      "inline, debug, alloc, lock, code)");
	ck_assert_ptr_null(o.file);
}
END_TEST

START_TEST(test_opts_events)
{
	struct agent_opts o;
	char err[256];

	ck_assert_int_eq(agent_opts_parse("alloc,lock", &o, err, sizeof(err)),
			 0);
	ck_assert_int_eq(o.alloc, 512 << 10);
	ck_assert_int_eq(o.lock, 10000);
	agent_opts_free(&o);
	ck_assert_int_eq(agent_opts_parse("alloc=4096,lock=0", &o, err,
					  sizeof(err)),
			 0);
	ck_assert_int_eq(o.alloc, 4096);
	ck_assert_int_eq(o.lock, 0);
	agent_opts_free(&o);
	ck_assert_int_eq(agent_opts_parse("file=/a", &o, err, sizeof(err)), 0);
	ck_assert_int_eq(o.alloc, -1);
	ck_assert_int_eq(o.lock, -1);
	agent_opts_free(&o);
	ck_assert_int_eq(agent_opts_parse("alloc=12k", &o, err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "alloc wants bytes from 0 to 2147483647, "
			      "not '12k'");
	ck_assert_int_eq(agent_opts_parse("alloc=99999999999999999999", &o,
					  err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(agent_opts_parse("lock=", &o, err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "lock wants nanoseconds from 0 to "
			      "1000000000000, not ''");
}
END_TEST

/* code: the log's bytes of code, its budget by default, off unless
 * asked */
START_TEST(test_opts_code)
{
	struct agent_opts o;
	char err[256];

	ck_assert_int_eq(agent_opts_parse("inline=no", &o, err, sizeof(err)),
			 0);
	ck_assert_int_eq(o.code, -1);
	agent_opts_free(&o);
	ck_assert_int_eq(agent_opts_parse("code", &o, err, sizeof(err)), 0);
	ck_assert_int_eq(o.code, 64 << 20);
	agent_opts_free(&o);
	ck_assert_int_eq(
		agent_opts_parse("code=1000000", &o, err, sizeof(err)), 0);
	ck_assert_int_eq(o.code, 1000000);
	agent_opts_free(&o);
	ck_assert_int_eq(agent_opts_parse("code=0", &o, err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "code wants bytes from 1 to 536870912, "
			      "not '0'");
}
END_TEST

static Suite *agent_suite(void)
{
	Suite *s = suite_create("jm_agent_text");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_name_truncates);
	tcase_add_test(tc, test_source);
	suite_add_tcase(s, tc);
	tc = tcase_create("options");
	tcase_add_test(tc, test_opts_good);
	tcase_add_test(tc, test_opts_bad);
	tcase_add_test(tc, test_opts_events);
	tcase_add_test(tc, test_opts_code);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return opjit_check_run(agent_suite());
}
