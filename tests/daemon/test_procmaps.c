// SPDX-License-Identifier: GPL-3.0-or-later
/* /proc/PID/maps lines and the names of anonymous code. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "procmaps.h"

#include "check_run.h"

START_TEST(test_parse_file_line)
{
	char line[] = "7f1c2a400000-7f1c2a59b000 r-xp 00028000 fe:01 "
		      "1835270                    "
		      "/usr/lib/x86_64-linux-gnu/libc.so.6\n";
	struct procmaps_line m;

	ck_assert_int_eq(procmaps_parse_line(line, &m), 0);
	ck_assert_uint_eq(m.start, 0x7f1c2a400000);
	ck_assert_uint_eq(m.end, 0x7f1c2a59b000);
	ck_assert_uint_eq(m.pgoff, 0x28000);
	ck_assert_uint_eq(m.dev_major, 0xfe);
	ck_assert_uint_eq(m.dev_minor, 1);
	ck_assert_uint_eq(m.inode, 1835270);
	ck_assert(m.exec);
	ck_assert(!m.write);
	ck_assert(!m.shared);
	ck_assert_str_eq(m.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
}
END_TEST

START_TEST(test_parse_anonymous_line)
{
	char line[] = "7f38ecb2e000-7f38ecb2f000 r-xp 00000000 00:00 0 \n";
	char rw[] = "55d0c0a00000-55d0c0a21000 rw-p 00000000 00:00 0"
		    "                          [heap]";
	struct procmaps_line m;

	ck_assert_int_eq(procmaps_parse_line(line, &m), 0);
	ck_assert(m.exec);
	ck_assert_str_eq(m.path, "");
	ck_assert_int_eq(procmaps_parse_line(rw, &m), 0);
	ck_assert(!m.exec);
	ck_assert(m.write);
	ck_assert(!m.shared);
	ck_assert_str_eq(m.path, "[heap]");
	rw[29] = 's'; /* rw-s */
	ck_assert_int_eq(procmaps_parse_line(rw, &m), 0);
	ck_assert(m.shared);
}
END_TEST

START_TEST(test_parse_path_with_spaces)
{
	char line[] = "400000-401000 r-xp 00000000 08:02 12 /opt/my app/bin "
		      "(deleted)";
	struct procmaps_line m;

	ck_assert_int_eq(procmaps_parse_line(line, &m), 0);
	ck_assert_str_eq(m.path, "/opt/my app/bin (deleted)");
}
END_TEST

START_TEST(test_parse_rejects_damage)
{
	const char *bad[] = {
		"",
		"zzzz-1000 r-xp 00000000 00:00 0",
		"1000 r-xp 00000000 00:00 0",
		"2000-1000 r-xp 00000000 00:00 0",
		"1000-2000 rxp 00000000 00:00 0",
		"1000-2000 r-xq 00000000 00:00 0",
		"1000-2000 r-xp 00000000 0000 0",
		"1000-2000 r-xp 00000000 00:00 x",
		"1000-2000 r-xp 00000000 00:00",
		"11112222333344445-2000 r-xp 00000000 00:00 0",
		"1000-2000 r-xp 00000000 00:00 123456789012345678901",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char buf[128];
		struct procmaps_line m;

		strcpy(buf, bad[i]);
		ck_assert_msg(procmaps_parse_line(buf, &m) < 0,
			      "accepted '%s'", bad[i]);
	}
}
END_TEST

START_TEST(test_classify)
{
	/* anonymous: only a JIT's own map can name code in these */
	ck_assert_int_eq(mapname_classify(""), MAPKIND_ANON);
	ck_assert_int_eq(mapname_classify("//anon"), MAPKIND_ANON);
	ck_assert_int_eq(mapname_classify("[anon:v8 code]"), MAPKIND_ANON);
	ck_assert_int_eq(mapname_classify("[anon_shmem:jit]"), MAPKIND_ANON);
	ck_assert_int_eq(mapname_classify("/memfd:jit-code (deleted)"),
			 MAPKIND_ANON);
	ck_assert_int_eq(mapname_classify("/memfd:doublemap"), MAPKIND_ANON);
	ck_assert_int_eq(mapname_classify("[heap]"), MAPKIND_ANON);
	ck_assert_int_eq(mapname_classify("[stack]"), MAPKIND_ANON);
	ck_assert_int_eq(mapname_classify("[stack:1234]"), MAPKIND_ANON);
	ck_assert_int_eq(mapname_classify("/tmp/libgone.so (deleted)"),
			 MAPKIND_ANON);
	ck_assert_int_eq(mapname_classify("anon_inode:[perf_event]"),
			 MAPKIND_ANON);
	/* files and the kernel's own pages */
	ck_assert_int_eq(mapname_classify("/usr/lib/libc.so.6"), MAPKIND_FILE);
	ck_assert_int_eq(mapname_classify("/opt/deleted/app"), MAPKIND_FILE);
	ck_assert_int_eq(mapname_classify("[vdso]"), MAPKIND_SPECIAL);
	ck_assert_int_eq(mapname_classify("[vsyscall]"), MAPKIND_SPECIAL);
}
END_TEST

START_TEST(test_jitdump_names)
{
	size_t len;

	ck_assert(mapname_is_jitdump("/tmp/jit-42.dump", &len));
	ck_assert_uint_eq(len, strlen("/tmp/jit-42.dump"));
	ck_assert(mapname_is_jitdump("/home/u/app/jit-1234567.dump", &len));
	ck_assert(mapname_is_jitdump("/tmp/jit-42.dump (deleted)", &len));
	ck_assert_uint_eq(len, strlen("/tmp/jit-42.dump"));
	ck_assert(!mapname_is_jitdump("/tmp/jit-.dump", &len));
	ck_assert(!mapname_is_jitdump("/tmp/jit-42.dumps", &len));
	ck_assert(!mapname_is_jitdump("/tmp/jit-4x2.dump", &len));
	ck_assert(!mapname_is_jitdump("/tmp/xjit-42.dump", &len));
	ck_assert(!mapname_is_jitdump("jit-42.dump", &len));
	ck_assert(!mapname_is_jitdump("//anon", &len));
	ck_assert(!mapname_is_jitdump("/usr/lib/libjit-1.so", &len));
}
END_TEST

static Suite *procmaps_suite(void)
{
	Suite *s = suite_create("procmaps");
	TCase *parse = tcase_create("parse");
	TCase *classify = tcase_create("classify");

	tcase_add_test(parse, test_parse_file_line);
	tcase_add_test(parse, test_parse_anonymous_line);
	tcase_add_test(parse, test_parse_path_with_spaces);
	tcase_add_test(parse, test_parse_rejects_damage);
	tcase_add_test(classify, test_classify);
	tcase_add_test(classify, test_jitdump_names);
	suite_add_tcase(s, parse);
	suite_add_tcase(s, classify);
	return s;
}

int main(void)
{
	return opjit_check_run(procmaps_suite());
}
