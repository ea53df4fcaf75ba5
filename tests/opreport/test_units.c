// SPDX-License-Identifier: GPL-3.0-or-later
/* opreport's pure parts: option values, profile specs, kallsyms, the
 * string pool, the text table.  One TCase per behaviour. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon_sort.h"
#include "kallsyms.h"
#include "options.h"
#include "report.h"
#include "spec.h"
#include "strpool.h"
#include "table.h"

#include "check_run.h"

START_TEST(threshold_accepts_percentages)
{
	char err[256];
	double t = -1;

	ck_assert_int_eq(options_parse_threshold("12.5", &t, err, sizeof(err)),
			 0);
	ck_assert_double_eq_tol(t, 12.5, 1e-9);
	ck_assert_int_eq(options_parse_threshold("3%", &t, err, sizeof(err)),
			 0);
	ck_assert_double_eq_tol(t, 3, 1e-9);
	ck_assert_int_eq(options_parse_threshold("0", &t, err, sizeof(err)),
			 0);
	ck_assert_int_eq(options_parse_threshold("100", &t, err, sizeof(err)),
			 0);
}
END_TEST

START_TEST(threshold_refuses_the_rest)
{
	static const char *bad[] = { "x",   "",	    "-1",  "100.5", "nan",
				     "inf", "0x10", "5%%", "5 ",    "1e400" };
	char err[256];
	double t = 7;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(options_parse_threshold(bad[i], &t, err,
							 sizeof(err)),
				 -EINVAL);
		ck_assert_ptr_nonnull(strstr(err, "invalid --threshold"));
		ck_assert_ptr_null(strchr(err, '\n'));
	}
	ck_assert_double_eq(t, 7);
	options_parse_threshold("x", &t, err, sizeof(err));
	ck_assert_str_eq(
		err,
		"invalid --threshold 'x': expected a percentage between 0 and 100");
}
END_TEST

/* -i and -x: a C++ symbol's own commas (its arguments, a template's
 * parameters) do not split it; an operator's angle brackets are no
 * brackets; paths split at every comma. */
START_TEST(symbol_lists)
{
	static const struct {
		const char *arg;
		const char *items[4];
	} cases[] = {
		{ "detail::sprp(unsigned long long, unsigned long long)",
		  { "detail::sprp(unsigned long long, unsigned long long)" } },
		{ "f(int, long),g", { "f(int, long)", "g" } },
		{ "std::map<int, char>::at(int const&),h,,",
		  { "std::map<int, char>::at(int const&)", "h" } },
		{ "operator<(A const&, A const&),b",
		  { "operator<(A const&, A const&)", "b" } },
		{ "S::operator->(),c", { "S::operator->()", "c" } },
		{ "operator<<,d", { "operator<<", "d" } },
		{ "unclosed(int, e", { "unclosed(int, e" } },
	};
	size_t i, k;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char **list = NULL;
		size_t nr = 0;

		ck_assert_int_eq(options_symbol_list_append(&list, &nr,
							    cases[i].arg),
				 0);
		for (k = 0; cases[i].items[k]; k++) {
			ck_assert_msg(k < nr, "%s: %zu items", cases[i].arg,
				      nr);
			ck_assert_str_eq(list[k], cases[i].items[k]);
		}
		ck_assert_uint_eq(nr, k);
		options_list_free(list);
	}
	{
		char **list = NULL;
		size_t nr = 0;

		ck_assert_int_eq(options_list_append(&list, &nr, "/a(1,/b"),
				 0);
		ck_assert_uint_eq(nr, 2);
		options_list_free(list);
	}
}
END_TEST

START_TEST(merge_and_sort_lists)
{
	struct opreport_opts o = { 0 };
	char err[256];
	unsigned m = 0;

	ck_assert_int_eq(options_parse_merge("lib,tgid", &m, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(m, MERGE_LIB | MERGE_TGID);
	ck_assert_int_eq(options_parse_merge("all", &m, err, sizeof(err)), 0);
	ck_assert_uint_eq(m, MERGE_ALL);
	ck_assert_int_eq(options_parse_merge("lib,bogus", &m, err,
					     sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(options_parse_merge("", &m, err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(
		options_parse_sort("image,sample", &o, err, sizeof(err)), 0);
	ck_assert_uint_eq(o.nr_sort, 2);
	ck_assert_int_eq(o.sort[0], SORT_IMAGE);
	ck_assert_int_eq(o.sort[1], SORT_SAMPLE);
	ck_assert_int_eq(options_parse_sort("size", &o, err, sizeof(err)),
			 -EINVAL);
	ck_assert_uint_eq(o.nr_sort, 2);
	/* an empty item in a keyword list is a mistake, not a no-op */
	ck_assert_int_eq(options_parse_sort("image,,sample", &o, err,
					    sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(
		err,
		"invalid --sort 'image,,sample': expected a comma list of sample, image, app-name, symbol, debug, vma");
	ck_assert_int_eq(options_parse_sort("image,", &o, err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(options_parse_merge("lib,,cpu", &m, err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(options_parse_merge(",", &m, err, sizeof(err)),
			 -EINVAL);
	ck_assert_uint_eq(o.nr_sort, 2);
}
END_TEST

START_TEST(handler_names)
{
	char err[256];

	ck_assert_int_eq(
		options_check_handler_name("perfmap", err, sizeof(err)), 0);
	ck_assert_int_eq(
		options_check_handler_name("java_map-2", err, sizeof(err)), 0);
	ck_assert_int_eq(options_check_handler_name("../x", err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(options_check_handler_name("Perf", err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(options_check_handler_name("", err, sizeof(err)),
			 -EINVAL);
	/* one rule with the loader: 64 characters pass, 65 do not */
	ck_assert_int_eq(
		options_check_handler_name(
			"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
			err, sizeof(err)),
		0);
	ck_assert_int_eq(
		options_check_handler_name(
			"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
			err, sizeof(err)),
		-EINVAL);
	ck_assert_str_eq(
		err,
		"invalid handler name "
		"'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'"
		": longer than 64 characters");
}
END_TEST

START_TEST(list_append_skips_empty_items)
{
	char **list = NULL;
	size_t n = 0;

	ck_assert_int_eq(options_list_append(&list, &n, "a,,b,"), 0);
	ck_assert_int_eq(options_list_append(&list, &n, "c"), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(list[0], "a");
	ck_assert_str_eq(list[1], "b");
	ck_assert_str_eq(list[2], "c");
	ck_assert_ptr_null(list[3]);
	options_list_free(list);
}
END_TEST

START_TEST(spec_image_and_tgid)
{
	struct profile_spec *s = profile_spec_new();
	char err[256];

	ck_assert_ptr_nonnull(s);
	ck_assert(profile_spec_match_image(s, "/bin/anything"));
	ck_assert_int_eq(profile_spec_parse(s, "image:/usr/bin/*,libc.so*",
					    err, sizeof(err)),
			 0);
	ck_assert(profile_spec_match_image(s, "/usr/bin/bash"));
	ck_assert(profile_spec_match_image(s,
					   "/lib/x86_64-linux-gnu/libc.so.6"));
	ck_assert(!profile_spec_match_image(s, "/usr/lib/libm.so.6"));
	ck_assert_int_eq(profile_spec_parse(s, "tgid:42,43", err, sizeof(err)),
			 0);
	ck_assert(profile_spec_match_tgid(s, 43));
	ck_assert(!profile_spec_match_tgid(s, 44));
	profile_spec_free(s);
}
END_TEST

START_TEST(spec_errors_name_the_word)
{
	struct profile_spec *s = profile_spec_new();
	char err[256];

	ck_assert_int_eq(profile_spec_parse(s, "foo:bar", err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(
		err, "bad profile specification 'foo:bar': unknown tag 'foo'");
	ck_assert_int_eq(profile_spec_parse(s, "tgid:x", err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(
		err,
		"bad profile specification 'tgid:x': expected process ids");
	ck_assert_int_eq(profile_spec_parse(s, "tgid:1,,2", err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(profile_spec_parse(s, "tgid:0", err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(profile_spec_parse(s, "image:", err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(profile_spec_parse(s, "plain", err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(
		err, "bad profile specification 'plain': expected tag:value");
	profile_spec_free(s);
}
END_TEST

static const char ksyms[] = "ffffffff81000000 T _stext\n"
			    "ffffffff81000100 t helper\n"
			    "ffffffff81000200 D some_data\n"
			    "ffffffff81000300 T after_data\n"
			    "this is not a line\n"
			    "ffffffffc0001000 t mod_init\t[ext4]\n"
			    "ffffffffc0001080 t mod_exit\t[ext4]\n"
			    "ffffffffc0002000 t other_fn\t[xfs]\n";

START_TEST(kallsyms_kernel_and_modules)
{
	struct kallsyms *ks;
	size_t bad, first;

	ck_assert_int_eq(kallsyms_parse(&ks, ksyms, sizeof(ksyms) - 1, &bad,
					&first),
			 0);
	ck_assert_uint_eq(bad, 1);
	ck_assert_uint_eq(first, 5);
	ck_assert_uint_eq(kallsyms_count(ks), 6);
	ck_assert_str_eq(
		kallsyms_resolve(ks, NULL, 0xffffffff81000004ULL)->name,
		"_stext");
	ck_assert_str_eq(
		kallsyms_resolve(ks, NULL, 0xffffffff81000250ULL)->name,
		"helper");
	ck_assert_str_eq(
		kallsyms_resolve(ks, NULL, 0xffffffff81000300ULL)->name,
		"after_data");
	ck_assert_str_eq(
		kallsyms_resolve(ks, "ext4", 0xffffffffc0001010ULL)->name,
		"mod_init");
	ck_assert_str_eq(
		kallsyms_resolve(ks, "ext4", 0xffffffffc0001090ULL)->name,
		"mod_exit");
	ck_assert_str_eq(
		kallsyms_resolve(ks, "xfs", 0xffffffffc0002001ULL)->name,
		"other_fn");
	/* before every symbol, and a module's address asked of the kernel */
	ck_assert_str_eq(kallsyms_resolve(ks, NULL, 0x1000)->name,
			 "(no symbols)");
	ck_assert_str_eq(
		kallsyms_resolve(ks, "ext4", 0xffffffff81000004ULL)->name,
		"(no symbols)");
	kallsyms_free(ks);
}
END_TEST

/* A sample filed under the kernel is the kernel's when a kernel symbol
 * holds it, else the module's whose symbol does (its name given), else
 * in none: a gap between modules, past a module's end by the modules
 * copy, below every symbol. */
START_TEST(kallsyms_kernel_samples_in_modules)
{
	static const char mods[] = "ext4 512 0 - Live 0xffffffffc0001000\n"
				   "xfs 4096 0 - Live 0xffffffffc0002000\n";
	const struct report_sym *sym;
	const char *module;
	struct kallsyms *ks;
	size_t bad, first;

	ck_assert_int_eq(kallsyms_parse(&ks, ksyms, sizeof(ksyms) - 1, &bad,
					&first),
			 0);
	kallsyms_parse_modules(ks, mods, sizeof(mods) - 1, &bad, &first);
	ck_assert_uint_eq(bad, 0);
	ck_assert_int_eq(kallsyms_resolve_kernel(ks, 0xffffffff81000250ULL,
						 &sym, &module),
			 0);
	ck_assert_str_eq(sym->name, "helper");
	ck_assert_ptr_null(module);
	ck_assert_int_eq(kallsyms_resolve_kernel(ks, 0xffffffffc0001090ULL,
						 &sym, &module),
			 0);
	ck_assert_str_eq(sym->name, "mod_exit");
	ck_assert_str_eq(module, "ext4");
	ck_assert_int_eq(kallsyms_resolve_kernel(ks, 0xffffffffc0002ff0ULL,
						 &sym, &module),
			 0);
	ck_assert_str_eq(sym->name, "other_fn");
	ck_assert_str_eq(module, "xfs");
	/* ext4 ends at c0001200 by the modules copy: the gap up to xfs */
	ck_assert_int_eq(kallsyms_resolve_kernel(ks, 0xffffffffc0001200ULL,
						 &sym, &module),
			 0);
	ck_assert_str_eq(sym->name, "(no symbols)");
	ck_assert_ptr_null(module);
	ck_assert_int_eq(kallsyms_resolve_kernel(ks, 0x1000, &sym, &module),
			 0);
	ck_assert_str_eq(sym->name, "(no symbols)");
	ck_assert_ptr_null(module);
	kallsyms_free(ks);
}
END_TEST

/* An address is 1 to 16 hex digits, either case, and nothing else. */
START_TEST(kallsyms_address_forms)
{
	static const char lines[] = "FFFFFFFF81000000 T upper\n"
				    "ffffffff81000100 t lower\n"
				    "1ffffffff81000200 t seventeen_digits\n"
				    "0xffffffff81000300 t hex_prefix\n"
				    " ffffffff81000400 t leading_blank\n"
				    "+ffffffff81000500 t sign\n"
				    "ffffffff8100060g t not_hex\n";
	struct kallsyms *ks;
	size_t bad, first;

	ck_assert_int_eq(kallsyms_parse(&ks, lines, sizeof(lines) - 1, &bad,
					&first),
			 0);
	ck_assert_uint_eq(bad, 5);
	ck_assert_uint_eq(first, 3);
	ck_assert_uint_eq(kallsyms_count(ks), 2);
	ck_assert_str_eq(
		kallsyms_resolve(ks, NULL, 0xffffffff81000004ULL)->name,
		"upper");
	ck_assert_str_eq(
		kallsyms_resolve(ks, NULL, 0xffffffff81000f00ULL)->name,
		"lower");
	kallsyms_free(ks);
}
END_TEST

START_TEST(kallsyms_module_bounds)
{
	static const char mods[] =
		"ext4 8192 1 - Live 0xffffffffc0001000\n"
		"garbage line\n"
		"xfs 4096 0 - Live 0xffffffffc0002000 (O)\n";
	struct kallsyms *ks;
	size_t bad, first;

	ck_assert_int_eq(kallsyms_parse(&ks, ksyms, sizeof(ksyms) - 1, &bad,
					&first),
			 0);
	/* without the module list the last symbol spans one page */
	ck_assert_str_eq(
		kallsyms_resolve(ks, "ext4", 0xffffffffc0002f00ULL)->name,
		"(no symbols)");
	kallsyms_parse_modules(ks, mods, sizeof(mods) - 1, &bad, &first);
	ck_assert_uint_eq(bad, 1);
	ck_assert_uint_eq(first, 2);
	ck_assert_str_eq(
		kallsyms_resolve(ks, "ext4", 0xffffffffc0002f00ULL)->name,
		"mod_exit");
	ck_assert_str_eq(
		kallsyms_resolve(ks, "ext4", 0xffffffffc0003000ULL)->name,
		"(no symbols)");
	kallsyms_free(ks);
}
END_TEST

START_TEST(kallsyms_without_addresses)
{
	static const char zeros[] =
		"0000000000000000 T _stext\n0000000000000000 t x\n";
	struct kallsyms *ks;
	size_t bad, first;

	ck_assert_int_eq(kallsyms_parse(&ks, zeros, sizeof(zeros) - 1, &bad,
					&first),
			 0);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(kallsyms_count(ks), 0);
	ck_assert_str_eq(kallsyms_resolve(ks, NULL, 0)->name, "(no symbols)");
	kallsyms_free(ks);
}
END_TEST

START_TEST(kallsyms_binary_junk)
{
	static const char junk[] =
		"ffffffff81000000 T a\0b\nffffffff81000010 T ok\n\xff\xfe";
	struct kallsyms *ks;
	size_t bad, first;

	ck_assert_int_eq(
		kallsyms_parse(&ks, junk, sizeof(junk) - 1, &bad, &first), 0);
	ck_assert_uint_eq(bad, 2);
	ck_assert_uint_eq(first, 1);
	ck_assert_uint_eq(kallsyms_count(ks), 1);
	ck_assert_str_eq(
		kallsyms_resolve(ks, NULL, 0xffffffff81000011ULL)->name, "ok");
	kallsyms_free(ks);
}
END_TEST

START_TEST(strpool_interns)
{
	struct strpool *p = strpool_new();
	const char *a, *b, *c;
	char name[32];
	int i;

	a = strpool_intern(p, "libc.so.6");
	b = strpool_printf(p, "libc.so.%d", 6);
	c = strpool_intern(p, "libm.so.6");
	ck_assert_ptr_eq(a, b);
	ck_assert_ptr_ne(a, c);
	/* growth keeps earlier pointers */
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		ck_assert_ptr_nonnull(strpool_intern(p, name));
	}
	ck_assert_ptr_eq(strpool_intern(p, "libc.so.6"), a);
	ck_assert_str_eq(a, "libc.so.6");
	strpool_free(p);
}
END_TEST

/* A string option given many times keeps the last value, and every
 * earlier one is freed exactly once (ASan checks both). */
START_TEST(options_repeated_strings_keep_the_last)
{
	const char *argv[32] = { "opreport" };
	char vals[12][8];
	struct opreport_opts o;
	int argc = 1, i;

	for (i = 0; i < 12; i++) {
		snprintf(vals[i], sizeof(vals[i]), "a%d", i + 1);
		argv[argc++] = "-o";
		argv[argc++] = vals[i];
	}
	argv[argc++] = "--session-dir=s1";
	argv[argc++] = "--session-dir=s2";
	ck_assert_int_eq(options_parse(&o, argc, argv), 0);
	ck_assert_str_eq(o.output_file, "a12");
	ck_assert_str_eq(o.session_dir, "s2");
	options_free(&o);
	ck_assert_int_eq(options_parse(&o, 1, argv), 0);
	ck_assert_ptr_null(o.output_file);
	ck_assert_str_eq(o.session_dir, "./oprofile_data");
	options_free(&o);
}
END_TEST

/* --input and --percent-limit, perf report's spellings, are
 * --session-dir and --threshold: the same slot, the last one wins */
START_TEST(options_perf_spellings)
{
	struct opreport_opts o;
	const char *a[] = { "opreport", "--input=s1", "--percent-limit", "5" };
	const char *b[] = {
		"opreport",	     "--input=s1", "--session-dir=s2",
		"--percent-limit=5", "-t",	   "7"
	};

	ck_assert_int_eq(options_parse(&o, 4, a), 0);
	ck_assert_str_eq(o.session_dir, "s1");
	ck_assert(o.threshold == 5.0);
	options_free(&o);
	ck_assert_int_eq(options_parse(&o, 6, b), 0);
	ck_assert_str_eq(o.session_dir, "s2");
	ck_assert(o.threshold == 7.0);
	options_free(&o);
}
END_TEST

static int by_addr_time(const void *pa, const void *pb)
{
	const struct ops_anon_sample *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return (a->time_ns > b->time_ns) - (a->time_ns < b->time_ns);
}

/* Every shape a session can hold, against qsort: random, few distinct
 * keys, sorted, reversed, all equal, and the organ-pipe that defeats
 * median-of-three (heapsort takes over). */
START_TEST(anon_sort_as_qsort)
{
	static const size_t sizes[] = { 0, 1, 2, 17, 1000, 100000 };
	size_t k, i, n;
	int shape;

	srand(7);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		n = sizes[k];
		for (shape = 0; shape < 6; shape++) {
			struct ops_anon_sample *a = calloc(n + 1, sizeof(*a));
			struct ops_anon_sample *b = calloc(n + 1, sizeof(*b));

			for (i = 0; i < n; i++) {
				uint64_t v = shape == 0 ? (uint64_t)rand()
					     : shape == 1
						     ? (uint64_t)(rand() % 5)
					     : shape == 2 ? i
					     : shape == 3 ? n - i
					     : shape == 4 ? 42
					     : i < n / 2  ? i
							  : n - i;

				a[i] = (struct ops_anon_sample){
					(uint64_t)(rand() % 3), v, (uint32_t)i
				};
			}
			memcpy(b, a, n * sizeof(*a));
			anon_sort(a, n);
			qsort(b, n, sizeof(*b), by_addr_time);
			/* one assertion for the lot: Check's are slow */
			for (i = 0; i < n; i++)
				if (a[i].addr != b[i].addr ||
				    a[i].time_ns != b[i].time_ns)
					break;
			ck_assert_msg(i == n,
				      "size %zu shape %d: differs at %zu", n,
				      shape, i);
			free(a);
			free(b);
		}
	}
}
END_TEST

/* The table printed to a string at LIMIT. */
static char *table_text_at(const struct table *t, int limit)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	table_print(t, f, limit);
	fclose(f);
	return buf;
}

static struct table *three_rows(void)
{
	static const struct table_col cols[] = { { 9, false },
						 { 10, true },
						 { 0, false } };
	static const char *const rows[][3] = {
		{ "samples", "image", "symbol name" },
		{ "5", "short", "f" },
		{ "123", "a-very-long-image-name-indeed",
		  "a_rather_long_symbol_name_x" },
		{ "7", "\xc3\xa9t\xc3\xa9", "g" }, /* two 2-byte characters */
	};
	struct table *t = table_new(cols, 3);
	size_t i;

	ck_assert_ptr_nonnull(t);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(table_row(t, i == 3 ? "  " : "", rows[i]), 0);
	ck_assert_int_eq(table_text(t, "----"), 0);
	return t;
}

/* Columns as wide as their widest cell, at least the given width; lines
 * of text in their place; characters, not bytes, counted. */
START_TEST(table_sizes_columns_to_content)
{
	struct table *t = three_rows();
	char *out = table_text_at(t, 0);

	ck_assert_str_eq(
		out,
		"samples  image                         symbol name\n"
		"5        short                         f\n"
		"123      a-very-long-image-name-indeed a_rather_long_symbol_name_x\n"
		"  7        \xc3\xa9t\xc3\xa9                           g\n"
		"----\n");
	free(out);
	table_free(t);
}
END_TEST

/* Within a limit the shrinkable column gives up space first, cut in the
 * middle, down to its least width; then the last column is cut at the
 * end, but keeps 24 characters. */
START_TEST(table_fits_a_limit)
{
	struct table *t = three_rows();
	char *out = table_text_at(t, 45);

	ck_assert_str_eq(out, "samples  image     symbol name\n"
			      "5        short     f\n"
			      "123      a-v...eed a_rather_long_symbol_na...\n"
			      "  7        \xc3\xa9t\xc3\xa9       g\n"
			      "----\n");
	free(out);
	out = table_text_at(t, 30);
	ck_assert_str_eq(out, "samples  image     symbol name\n"
			      "5        short     f\n"
			      "123      a-v...eed a_rather_long_symbol_...\n"
			      "  7        \xc3\xa9t\xc3\xa9       g\n"
			      "----\n");
	free(out);
	out = table_text_at(t, 200);
	{
		char *unlimited = table_text_at(t, 0);

		ck_assert_str_eq(out, unlimited);
		free(unlimited);
	}
	free(out);
	table_free(t);
}
END_TEST

/* A line source that records the addresses it was asked for. */
struct lines_seen {
	uint64_t vmas[8];
	size_t n;
};

static void lines_record(void *arg, const uint64_t *vmas, size_t n,
			 const char **files, uint32_t *lines)
{
	struct lines_seen *seen = arg;
	size_t i;

	for (i = 0; i < n; i++) {
		if (seen->n < 8)
			seen->vmas[seen->n++] = vmas[i];
		files[i] = "a.c";
		lines[i] = (uint32_t)vmas[i];
	}
}

/* -d -g looks up the lines of the rows shown only: a lookup can cost a
 * scan of an image's symbols, and -i leaves the other rows out. */
START_TEST(detail_lines_of_kept_rows_only)
{
	struct opreport_opts o = { 0 };
	struct report r;
	struct lines_seen seen = { 0 };
	struct report_line_src src = { lines_record, &seen };
	struct report_sym kept = { .name = "kept" },
			  other = { .name = "other" };
	char *include[] = { "kept", NULL };
	const char *image;
	size_t i;

	o.symbols = o.details = o.debug_info = true;
	o.merge = MERGE_ALL;
	o.include_symbols = include;
	o.nr_include_symbols = 1;
	ck_assert_int_eq(report_init(&r, &o), 0);
	image = strpool_intern(r.pool, "/bin/x");
	ck_assert_ptr_nonnull(image);
	for (i = 0; i < 4; i++) {
		struct report_hit h = { .kind = ROW_FILE,
					.image = image,
					.app = image,
					.cpu = -1,
					.sym = i < 2 ? &kept : &other,
					.vma = 0x100 + i * 0x10,
					.count = 1 + i,
					.line_src = &src };

		ck_assert_int_eq(report_add_hit(&r, &h), 0);
		r.total += h.count;
	}
	ck_assert_int_eq(report_finish(&r), 0);
	ck_assert_uint_eq(r.nr_rows, 1);
	ck_assert_str_eq(r.rows[0].sym->name, "kept");
	ck_assert_uint_eq(r.rows[0].nr_details, 2);
	for (i = 0; i < 2; i++) {
		ck_assert_str_eq(r.rows[0].details[i].file, "a.c");
		ck_assert_uint_eq(r.rows[0].details[i].line, 0x100 + i * 0x10);
	}
	/* the row left out was never looked up */
	ck_assert_uint_eq(seen.n, 2);
	ck_assert_uint_eq(seen.vmas[0], 0x100);
	ck_assert_uint_eq(seen.vmas[1], 0x110);
	report_release(&r);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("opreport");
	struct {
		const char *name;
		const TTest *test;
	} cases[] = {
		{ "threshold_accepts", threshold_accepts_percentages },
		{ "threshold_refuses", threshold_refuses_the_rest },
		{ "merge_sort", merge_and_sort_lists },
		{ "symbol_lists", symbol_lists },
		{ "handler_names", handler_names },
		{ "list_append", list_append_skips_empty_items },
		{ "spec_match", spec_image_and_tgid },
		{ "spec_errors", spec_errors_name_the_word },
		{ "kallsyms", kallsyms_kernel_and_modules },
		{ "kallsyms_in_modules", kallsyms_kernel_samples_in_modules },
		{ "kallsyms_forms", kallsyms_address_forms },
		{ "kallsyms_modules", kallsyms_module_bounds },
		{ "kallsyms_zero", kallsyms_without_addresses },
		{ "kallsyms_junk", kallsyms_binary_junk },
		{ "strpool", strpool_interns },
		{ "options_repeats", options_repeated_strings_keep_the_last },
		{ "options_perf_spellings", options_perf_spellings },
		{ "anon_sort", anon_sort_as_qsort },
		{ "table_sizes", table_sizes_columns_to_content },
		{ "table_limit", table_fits_a_limit },
		{ "detail_lines_kept", detail_lines_of_kept_rows_only },
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
