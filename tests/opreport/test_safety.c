// SPDX-License-Identifier: GPL-3.0-or-later
/* What keeps another user's names and damaged counts from reaching the
 * terminal or the totals: the one escape, and the checked sums. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/escape.h>
#include "out.h"
#include "report.h"
#include "strpool.h"

#include "check_run.h"

static const char *esc(const char *s)
{
	static char buf[256];

	oputil_escape_text(buf, sizeof(buf), s);
	return buf;
}

START_TEST(escape_c0_and_del)
{
	ck_assert_str_eq(esc("spin\x1b[2J"), "spin\\x1b[2J");
	ck_assert_str_eq(esc("a\nb\tc\rd"), "a\\nb\\tc\\rd");
	ck_assert_str_eq(esc("\x07\x01\x7f"), "\\x07\\x01\\x7f");
	ck_assert_str_eq(esc("\x1b]0;owned\x07"), "\\x1b]0;owned\\x07");
}
END_TEST

START_TEST(escape_c1_and_invalid_utf8)
{
	/* U+009B (CSI) in UTF-8, a lone 0x9b, a cut sequence */
	ck_assert_str_eq(esc("a\xc2\x9b"
			     "2J"),
			 "a\\xc2\\x9b2J");
	ck_assert_str_eq(esc("a\x9b"
			     "2J"),
			 "a\\x9b2J");
	ck_assert_str_eq(esc("\xe2\x98"), "\\xe2\\x98");
	ck_assert_str_eq(esc("\xff\xc0\x80"), "\\xff\\xc0\\x80");
}
END_TEST

START_TEST(escape_keeps_text)
{
	const char *ok[] = { "JS:*fib /srv/app/fib.js:3",     "na\xc3\xafve",
			     "\xe2\x98\x83 \xf0\x9d\x84\x9e", "C:\\dir\\x1b",
			     "std::vector<int>::push_back",   "" };
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert(!oputil_escape_needed(ok[i]));
		ck_assert_str_eq(esc(ok[i]), ok[i]);
	}
	ck_assert(oputil_escape_needed("a\x1b"));
	ck_assert(oputil_escape_needed("\xc2\x85"));
}
END_TEST

START_TEST(escape_cut_and_sized)
{
	char small[6];

	ck_assert_uint_eq(oputil_escape_text(NULL, 0, "\x1b\x1b"), 8);
	ck_assert_uint_eq(oputil_escape_text(small, sizeof(small),
					     "ab\x1b"
					     "cd"),
			  8);
	ck_assert_str_eq(small, "ab\\x1");
	ck_assert_uint_eq(oputil_escape_text(small, sizeof(small), NULL), 0);
	ck_assert_str_eq(small, "");
}
END_TEST

START_TEST(out_safe_copies_only_when_needed)
{
	struct strpool *p = strpool_new();
	const char *clean = "/usr/bin/node";

	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_eq(out_safe(p, clean), clean);
	ck_assert_ptr_null(out_safe(p, NULL));
	ck_assert_str_eq(out_safe(p, "/tmp/spin\x1b[2J"), "/tmp/spin\\x1b[2J");
	strpool_free(p);
}
END_TEST

START_TEST(count_add_checked)
{
	uint64_t sum = UINT64_MAX - 5;

	ck_assert_int_eq(report_count_add(&sum, 5), 0);
	ck_assert_uint_eq(sum, UINT64_MAX);
	ck_assert_int_eq(report_count_add(&sum, 0), 0);
	ck_assert_int_eq(report_count_add(&sum, 1), -EOVERFLOW);
	ck_assert_uint_eq(sum, UINT64_MAX);
	sum = 1;
	ck_assert_int_eq(report_count_add(&sum, UINT64_MAX), -EOVERFLOW);
	ck_assert_uint_eq(sum, UINT64_MAX);
}
END_TEST

/* JSON: controls as \u00XX, invalid UTF-8 byte by byte as \ufffd, valid
 * text as it is (JSON.md) */
START_TEST(escape_json)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "a\x1b[2J\x07", "a\\u001b[2J\\u0007" },
		{ "x\x9by", "x\\ufffdy" },
		{ "\xc2\x9b\xc2\x85", "\\u009b\\u0085" },
		{ "\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd" },
		{ "\xc0\xaf", "\\ufffd\\ufffd" },
		{ "q\"b\\\n\t\x7f", "q\\\"b\\\\\\n\\t\\u007f" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
	};
	char buf[128];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_uint_eq(oputil_escape_json(buf, sizeof(buf),
						     cases[i].in),
				  strlen(cases[i].out));
		ck_assert_str_eq(buf, cases[i].out);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("opreport_safety");
	struct {
		const char *name;
		const TTest *test;
	} cases[] = {
		{ "escape_c0", escape_c0_and_del },
		{ "escape_c1", escape_c1_and_invalid_utf8 },
		{ "escape_keeps", escape_keeps_text },
		{ "escape_cut", escape_cut_and_sized },
		{ "escape_json", escape_json },
		{ "out_safe", out_safe_copies_only_when_needed },
		{ "count_add", count_add_checked },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TCase *tc = tcase_create(cases[i].name);

		tcase_add_test(tc, cases[i].test);
		suite_add_tcase(s, tc);
	}
	return s;
}

int main(void)
{
	return opjit_check_run(suite());
}
