// SPDX-License-Identifier: GPL-3.0-or-later
/* The perfmap handler through its ABI table: which file it claims, what
 * it warns about, and how it names samples. */
#define _GNU_SOURCE
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <opjit/anon_handler.h>

#include "handler_internal.h"

#include "check_run.h"

static const struct opjit_handler *pm;
static char dir[64];
static char warned[8][768];
static int nwarned;

static void record_warn(const struct opjit_host *host, const char *msg)
{
	if (nwarned < 8)
		snprintf(warned[nwarned], sizeof(warned[0]), "%s", msg);
	nwarned++;
}

static const struct opjit_host host = {
	.struct_size = OPJIT_HOST_SIZE_1_0,
	.abi_major = OPJIT_HANDLER_ABI_MAJOR,
	.warn = record_warn,
	.open_map = handler_trust_open_map,
};
static char claim_err[256];
static struct opjit_process proc;
static void *state;

static int claim(void)
{
	return pm->claim(&host, &proc, &state, claim_err, sizeof(claim_err));
}

static struct opjit_map_candidate cand[4];
static const struct opjit_map_candidate *candp[4];
static char cpath[4][128];

static void setup(void)
{
	struct timespec ts;

	pm = opjit_handler_entry(OPJIT_HANDLER_ABI_MAJOR,
				 OPJIT_HANDLER_ABI_MINOR);
	ck_assert_ptr_nonnull(pm);
	snprintf(dir, sizeof(dir), "/tmp/opjit-perfmap-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	nwarned = 0;
	state = NULL;
	memset(&proc, 0, sizeof(proc));
	proc.struct_size = sizeof(proc);
	/* a pid no process holds (above any pid_max): a live process of
	 * this machine must not decide what the trust rules say here */
	proc.tgid = 4194305;
	proc.nspid = 4242;
	proc.uid = (uint32_t)geteuid();
	proc.comm = "node";
	proc.exe = "/usr/bin/node";
	clock_gettime(CLOCK_REALTIME, &ts);
	proc.start_unix_ns = ((int64_t)ts.tv_sec - 60) * 1000000000LL;
	proc.maps = candp;
	proc.nr_maps = 0;
}

static void teardown(void)
{
	char cmd[128];

	if (state)
		pm->release(state);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Add candidate NAME of KIND; write TEXT there unless it is NULL. */
static const char *add_cand(const char *name, uint32_t kind, uint32_t flags,
			    const char *text, mode_t mode)
{
	size_t i = proc.nr_maps++;

	snprintf(cpath[i], sizeof(cpath[i]), "%s/%s", dir, name);
	cand[i].struct_size = sizeof(cand[i]);
	cand[i].path = cpath[i];
	cand[i].kind = kind;
	cand[i].flags = flags;
	candp[i] = &cand[i];
	if (text) {
		int fd = open(cpath[i], O_WRONLY | O_CREAT | O_EXCL, 0600);
		size_t len = strlen(text);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
		close(fd);
		ck_assert_int_eq(chmod(cpath[i], mode), 0);
	}
	return cpath[i];
}

/* Resolve N addresses and return the symbol names (NULL = unknown). */
static void resolve(const uint64_t *addrs, size_t n, const char **names,
		    const struct opjit_symbol **syms)
{
	uint64_t times[16] = { 0 };
	const char *files[16] = { 0 };
	uint32_t lines[16] = { 0 };
	struct opjit_resolve_batch b = {
		.struct_size = sizeof(b),
		.count = n,
		.addrs = addrs,
		.times = times,
		.symbols = syms,
		.files = files,
		.lines = lines,
	};
	size_t i;

	ck_assert_uint_le(n, 16);
	memset(syms, 0, n * sizeof(*syms));
	ck_assert_int_eq(pm->resolve(state, &b), 0);
	for (i = 0; i < n; i++) {
		names[i] = syms[i] ? syms[i]->name : NULL;
		ck_assert_ptr_null(files[i]);
	}
}

START_TEST(table_is_well_formed)
{
	ck_assert_uint_ge(pm->struct_size, OPJIT_HANDLER_V1_SIZE);
	ck_assert_uint_eq(pm->abi_major, OPJIT_HANDLER_ABI_MAJOR);
	ck_assert_str_eq(pm->name, "perfmap");
	ck_assert_ptr_nonnull(pm->claim);
	ck_assert_ptr_nonnull(pm->resolve);
	ck_assert_ptr_nonnull(pm->release);
	ck_assert_ptr_null(
		opjit_handler_entry(OPJIT_HANDLER_ABI_MAJOR + 1, 0));
}
END_TEST

/* A perf map has no times: a 1.3 host is told so, and may ask each
 * address once; an older host gets the 1.0 table, which it accepts. */
START_TEST(timeless_for_hosts_that_know)
{
	const struct opjit_handler *old =
		opjit_handler_entry(OPJIT_HANDLER_ABI_MAJOR, 2);

	ck_assert_uint_ge(pm->struct_size, OPJIT_HANDLER_SIZE_1_3);
	ck_assert_ptr_nonnull(pm->state_flags);
	ck_assert_uint_eq(pm->state_flags(NULL), OPJIT_STATE_TIMELESS);
	ck_assert_ptr_nonnull(old);
	ck_assert_uint_eq(old->struct_size, OPJIT_HANDLER_SIZE_1_0);
	ck_assert_ptr_eq(old->resolve, pm->resolve);
}
END_TEST

START_TEST(claims_perf_map_and_names_samples)
{
	static const uint64_t a[] = { 0xfff, 0x1000, 0x1010, 0x1040, 0x2000 };
	const struct opjit_symbol *s[5];
	const char *n[5];

	add_cand("perf-4242.map", OPJIT_MAP_PERF, 0,
		 "1000 40 JS:*fib /w/fib.js:1\n2000 10 LazyCompile:~main\n",
		 0644);
	ck_assert_int_eq(claim(), 1);
	resolve(a, 5, n, s);
	ck_assert_ptr_null(n[0]);
	ck_assert_str_eq(n[1], "JS:*fib /w/fib.js:1");
	ck_assert_ptr_eq(s[1], s[2]);
	ck_assert_uint_eq(s[1]->start, 0x1000);
	ck_assert_uint_eq(s[1]->size, 0x40);
	ck_assert_ptr_null(n[3]);
	ck_assert_str_eq(n[4], "LazyCompile:~main");
	ck_assert_int_eq(nwarned, 0);
}
END_TEST

START_TEST(empty_perf_map_is_still_claimed)
{
	static const uint64_t a[] = { 0x1000 };
	const struct opjit_symbol *s[1];
	const char *n[1];

	add_cand("perf-4242.map", OPJIT_MAP_PERF, 0, "", 0644);
	ck_assert_int_eq(claim(), 1);
	resolve(a, 1, n, s);
	ck_assert_ptr_null(n[0]);
}
END_TEST

START_TEST(anon_file_in_other_format_declined)
{
	add_cand("anon.4242", OPJIT_MAP_ANON, 0,
		 "# opjit javamap 1\nload 1000 40 123 Foo.bar()\n", 0644);
	ck_assert_int_eq(claim(), 0);
	ck_assert_ptr_null(state);
	ck_assert_int_eq(nwarned, 0);
}
END_TEST

START_TEST(anon_file_with_perf_text_claimed)
{
	static const uint64_t a[] = { 0x1000 };
	const struct opjit_symbol *s[1];
	const char *n[1];

	add_cand("anon.4242", OPJIT_MAP_ANON, 0, "\n0x1000 0x10 jit_hot\n",
		 0644);
	add_cand("perf-4242.map", OPJIT_MAP_PERF, 0, "1000 10 not_me\n", 0644);
	ck_assert_int_eq(claim(), 1);
	resolve(a, 1, n, s);
	ck_assert_str_eq(n[0], "jit_hot");
}
END_TEST

START_TEST(archived_copy_preferred)
{
	static const uint64_t a[] = { 0x1000 };
	const struct opjit_symbol *s[1];
	const char *n[1];

	add_cand("perf-4242.map.archived", OPJIT_MAP_PERF, OPJIT_MAP_ARCHIVED,
		 "1000 10 from_session\n", 0644);
	add_cand("perf-4242.map", OPJIT_MAP_PERF, 0, "1000 10 from_tmp\n",
		 0644);
	ck_assert_int_eq(claim(), 1);
	resolve(a, 1, n, s);
	ck_assert_str_eq(n[0], "from_session");
}
END_TEST

START_TEST(untrusted_map_skipped_with_warning)
{
	static const uint64_t a[] = { 0x1000 };
	const struct opjit_symbol *s[1];
	const char *n[1];
	char want[256];
	const char *bad;

	bad = add_cand("anon.4242", OPJIT_MAP_ANON, 0, "1000 10 planted\n",
		       0666);
	add_cand("perf-4242.map", OPJIT_MAP_PERF, 0, "1000 10 genuine\n",
		 0644);
	ck_assert_int_eq(claim(), 1);
	resolve(a, 1, n, s);
	ck_assert_str_eq(n[0], "genuine");
	ck_assert_int_eq(nwarned, 1);
	snprintf(want, sizeof(want),
		 "%s: writable by group or others "
		 "(trust rule: mode)",
		 bad);
	ck_assert_str_eq(warned[0], want);
}
END_TEST

START_TEST(nothing_there_declined)
{
	add_cand("anon.4242", OPJIT_MAP_ANON, 0, NULL, 0);
	add_cand("perf-4242.map", OPJIT_MAP_PERF, 0, NULL, 0);
	ck_assert_int_eq(claim(), 0);
	ck_assert_int_eq(nwarned, 0);
}
END_TEST

START_TEST(bad_lines_one_warning)
{
	static const uint64_t a[] = { 0x1000, 0x3000 };
	const struct opjit_symbol *s[2];
	const char *n[2];
	char want[512];
	const char *p;

	p = add_cand("perf-4242.map", OPJIT_MAP_PERF, 0,
		     "1000 10 a\r\nbogus\r\n\r\n2000 zz b\n3000 10 c", 0644);
	ck_assert_int_eq(claim(), 1);
	resolve(a, 2, n, s);
	ck_assert_str_eq(n[0], "a");
	ck_assert_str_eq(n[1], "c");
	ck_assert_int_eq(nwarned, 1);
	snprintf(want, sizeof(want),
		 "%s: 2 malformed lines (first at line 2), 1 blank line", p);
	ck_assert_str_eq(warned[0], want);
}
END_TEST

START_TEST(later_entry_wins_through_handler)
{
	static const uint64_t a[] = { 0x1000, 0x1020, 0x1030 };
	const struct opjit_symbol *s[3];
	const char *n[3];

	add_cand("perf-4242.map", OPJIT_MAP_PERF, 0,
		 "1000 40 Interp:old\n1020 10 Opt:new\n", 0644);
	ck_assert_int_eq(claim(), 1);
	resolve(a, 3, n, s);
	ck_assert_str_eq(n[0], "Interp:old");
	ck_assert_str_eq(n[1], "Opt:new");
	ck_assert_str_eq(n[2], "Interp:old");
	ck_assert_ptr_eq(s[0], s[2]);
}
END_TEST

START_TEST(overlaps_resolved_and_reasons_given)
{
	static const uint64_t a[] = { 0x1000, 0x1800, 0x2000, 0x3000,
				      0x4000, 0x4045, 0x4090 };
	uint64_t times[7] = { 0 };
	const char *files[7] = { 0 };
	uint32_t lines[7] = { 0 }, reasons[7] = { 0 };
	const struct opjit_symbol *s[7] = { 0 };
	struct opjit_resolve_batch b = {
		.struct_size = OPJIT_RESOLVE_BATCH_SIZE_1_0,
		.count = 7,
		.addrs = a,
		.times = times,
		.symbols = s,
		.files = files,
		.lines = lines,
		.reasons = reasons,
	};

	add_cand("perf-4242.map", OPJIT_MAP_PERF, 0,
		 "3000 10 c\n1000 10 a\n2000 10 b\n2000 10 b2\n"
		 "4000 100 split\n4040 10 middle\n",
		 0644);
	ck_assert_int_eq(pm->claim(&host, &proc, &state, claim_err,
				   sizeof(claim_err)),
			 1);
	ck_assert_int_eq(pm->resolve(state, &b), 0);
	/* b is hidden by b2; split owns ranges around middle but is one
	 * symbol */
	ck_assert_str_eq(s[0]->name, "a");
	ck_assert_ptr_null(s[1]);
	ck_assert_uint_eq(reasons[1], OPJIT_UNRESOLVED_NO_ENTRY);
	ck_assert_str_eq(s[2]->name, "b2");
	ck_assert_str_eq(s[3]->name, "c");
	ck_assert_str_eq(s[4]->name, "split");
	ck_assert_str_eq(s[5]->name, "middle");
	ck_assert_ptr_eq(s[6], s[4]);
	ck_assert_uint_eq(s[0]->struct_size, OPJIT_SYMBOL_SIZE_1_0);
	ck_assert_uint_eq(s[0]->reserved, 0);
	/* a reason only where there is no symbol */
	ck_assert_uint_eq(reasons[0] | reasons[2] | reasons[6], 0);
}
END_TEST

/* A map several read chunks long: no line may be cut where a chunk ends. */
START_TEST(big_map_read_whole)
{
	const size_t n = 60000;
	char *text = malloc(n * 64 + 1), *p;
	uint64_t a[3];
	const struct opjit_symbol *sy[3];
	const char *nm[3];
	size_t i;

	ck_assert_ptr_nonnull(text);
	p = text;
	for (i = 0; i < n; i++)
		p += sprintf(p,
			     "%zx 10 JS:*function_number_%06zu "
			     "/srv/app/lib/file.js:%zu\n",
			     0x100000 + i * 0x10, i, i % 977);
	add_cand("perf-4242.map", OPJIT_MAP_PERF, 0, text, 0644);
	ck_assert_uint_gt(strlen(text), 3u << 20);
	free(text);
	ck_assert_int_eq(claim(), 1);
	ck_assert_int_eq(nwarned, 0);
	a[0] = 0x100000;
	a[1] = 0x100000 + 31337 * 0x10 + 5;
	a[2] = 0x100000 + (n - 1) * 0x10 + 0xf;
	resolve(a, 3, nm, sy);
	ck_assert_str_eq(nm[0], "JS:*function_number_000000 "
				"/srv/app/lib/file.js:0");
	ck_assert_str_eq(nm[1], "JS:*function_number_031337 "
				"/srv/app/lib/file.js:73");
	ck_assert_str_eq(nm[2], "JS:*function_number_059999 "
				"/srv/app/lib/file.js:402");
}
END_TEST

/* An anon file is judged by its first non-blank line, however far. */
START_TEST(anon_judged_past_leading_blanks)
{
	const size_t blanks = (2u << 20) + 3;
	char *text = malloc(blanks + 32);

	ck_assert_ptr_nonnull(text);
	memset(text, '\n', blanks);
	strcpy(text + blanks, "1000 10 far_down\n");
	add_cand("anon.4242", OPJIT_MAP_ANON, 0, text, 0644);
	free(text);
	ck_assert_int_eq(claim(), 1);
	/* the blank lines are reported, once */
	ck_assert_int_eq(nwarned, 1);
}
END_TEST

/* A sparse map over the limit is refused from its size alone. */
START_TEST(oversize_map_refused)
{
	const char *path = add_cand("perf-4242.map", OPJIT_MAP_PERF, 0,
				    "1000 10 a\n", 0644);

	ck_assert_int_eq(truncate(path, 3ll << 30), 0);
	ck_assert_int_lt(claim(), 0);
	ck_assert_ptr_nonnull(strstr(claim_err, "larger than 1 GiB"));
	ck_assert_ptr_nonnull(strstr(claim_err, path));
}
END_TEST

/* A map that is one long line with no newline is one bad line. */
START_TEST(no_newline_map_one_bad_line)
{
	const size_t len = 24u << 20;
	char *text = malloc(len + 1);

	ck_assert_ptr_nonnull(text);
	memset(text, 'x', len);
	text[len] = '\0';
	add_cand("perf-4242.map", OPJIT_MAP_PERF, 0, text, 0644);
	free(text);
	ck_assert_int_eq(claim(), 1);
	ck_assert_int_eq(nwarned, 1);
	ck_assert_ptr_nonnull(strstr(warned[0], "1 malformed line"));
}
END_TEST

static Suite *handler_suite(void)
{
	Suite *s = suite_create("perfmap_handler");
	TCase *t = tcase_create("claim");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, table_is_well_formed);
	tcase_add_test(t, timeless_for_hosts_that_know);
	tcase_add_test(t, claims_perf_map_and_names_samples);
	tcase_add_test(t, empty_perf_map_is_still_claimed);
	tcase_add_test(t, anon_file_in_other_format_declined);
	tcase_add_test(t, anon_file_with_perf_text_claimed);
	tcase_add_test(t, archived_copy_preferred);
	tcase_add_test(t, untrusted_map_skipped_with_warning);
	tcase_add_test(t, nothing_there_declined);
	tcase_add_test(t, bad_lines_one_warning);
	tcase_add_test(t, later_entry_wins_through_handler);
	tcase_add_test(t, overlaps_resolved_and_reasons_given);
	tcase_add_test(t, big_map_read_whole);
	tcase_add_test(t, anon_judged_past_leading_blanks);
	tcase_add_test(t, oversize_map_refused);
	tcase_add_test(t, no_newline_map_one_bad_line);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return opjit_check_run(handler_suite());
}
