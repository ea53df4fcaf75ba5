/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The end of every Check suite's main(): run the suite and say, by the
 * exit status, whether a test failed. */
#ifndef OPJIT_TESTS_CHECK_RUN_H
#define OPJIT_TESTS_CHECK_RUN_H

#include <check.h>
#include <stdlib.h>

/*
 * Check's ck_assert_msg, on which every ck_assert* is built, records the
 * place of each assertion that holds (_mark_point: a write(2) to its
 * message file, read back after the test), so that a test killed by a
 * signal in fork mode can name the last assertion it passed.  The suites
 * that check a structure against a model run millions of assertions, and
 * those writes cost more than the code under test (6.2 million write
 * calls in test_jitlog_ids).  The same test, evaluated once, failing the
 * same way with the same message; only the record of passing is left
 * out.  A crash is still reported by ctest, and with a stack under ASan.
 */
#undef ck_assert_msg
#define ck_assert_msg(expr, ...)                                    \
	((expr) ? (void)0                                           \
		: _ck_assert_failed(__FILE__, __LINE__,             \
				    "Assertion '" #expr "' failed", \
				    ##__VA_ARGS__))

static inline int opjit_check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
