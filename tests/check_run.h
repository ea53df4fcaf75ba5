/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The end of every Check suite's main(): run the suite and say, by the
 * exit status, whether a test failed. */
#ifndef OPJIT_TESTS_CHECK_RUN_H
#define OPJIT_TESTS_CHECK_RUN_H

#include <check.h>
#include <stdlib.h>

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
