// SPDX-License-Identifier: GPL-3.0-or-later
/* samples/jit_maps.c: the names and places of a process's JIT maps, as
 * the recorder archives them and the report offers them. */
#include <check.h>
#include <errno.h>
#include <string.h>

#include <opjit/samples.h>

#include "check_run.h"

START_TEST(names_say_the_kind)
{
	ck_assert_int_eq(ops_jit_map_kind("anon.42"), OPS_JIT_MAP_ANON);
	ck_assert_int_eq(ops_jit_map_kind("perf-42.map"), OPS_JIT_MAP_PERF);
	ck_assert_int_eq(ops_jit_map_kind("jit-42.dump"), OPS_JIT_MAP_JITDUMP);
	/* the prefix alone, or the wrong suffix, is no map */
	ck_assert_int_eq(ops_jit_map_kind("perf-.map"), OPS_JIT_MAP_NONE);
	ck_assert_int_eq(ops_jit_map_kind("perf-42.mapx"), OPS_JIT_MAP_NONE);
	ck_assert_int_eq(ops_jit_map_kind("jit-42.dum"), OPS_JIT_MAP_NONE);
	ck_assert_int_eq(ops_jit_map_kind("maps"), OPS_JIT_MAP_NONE);
	ck_assert_int_eq(ops_jit_map_kind(""), OPS_JIT_MAP_NONE);
}
END_TEST

START_TEST(paths_in_a_directory)
{
	char b[64];

	ck_assert_int_eq(ops_jit_map_path(b, sizeof(b), "/tmp",
					  OPS_JIT_MAP_ANON, 42),
			 0);
	ck_assert_str_eq(b, "/tmp/anon.42");
	ck_assert_int_eq(ops_jit_map_path(b, sizeof(b), "/proc/7/root/tmp",
					  OPS_JIT_MAP_PERF, 1),
			 0);
	ck_assert_str_eq(b, "/proc/7/root/tmp/perf-1.map");
	ck_assert_int_eq(ops_jit_map_kind(strrchr(b, '/') + 1),
			 OPS_JIT_MAP_PERF);
	ck_assert_int_eq(ops_jit_map_path(b, 12, "/tmp", OPS_JIT_MAP_PERF, 42),
			 -ENAMETOOLONG);
	ck_assert_int_eq(ops_jit_map_path(b, sizeof(b), "/tmp",
					  OPS_JIT_MAP_JITDUMP, 42),
			 -EINVAL);
}
END_TEST

START_TEST(a_dump_from_another_namespace_is_seen_through_its_root)
{
	char b[64];

	ck_assert_int_eq(ops_jit_map_dump_path(b, sizeof(b), 7, false,
					       "/x/jit-3.dump"),
			 0);
	ck_assert_str_eq(b, "/x/jit-3.dump");
	ck_assert_int_eq(ops_jit_map_dump_path(b, sizeof(b), 7, true,
					       "/x/jit-3.dump"),
			 0);
	ck_assert_str_eq(b, "/proc/7/root/x/jit-3.dump");
	ck_assert_int_eq(ops_jit_map_dump_path(b, 8, 7, true, "/x/jit-3.dump"),
			 -ENAMETOOLONG);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jit_maps");
	TCase *tc = tcase_create("jit_maps");

	tcase_add_test(tc, names_say_the_kind);
	tcase_add_test(tc, paths_in_a_directory);
	tcase_add_test(tc,
		       a_dump_from_another_namespace_is_seen_through_its_root);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
