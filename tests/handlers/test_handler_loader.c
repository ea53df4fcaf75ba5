// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The handler loader: every way a handler can be refused, the search
 * order, --list-handlers, and the claim order with a fake session.
 */
#define _GNU_SOURCE
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anon_handlers.h"
#include "handler_internal.h"

/* ---- a fake session: just what the loader asks of libopsamples ---- */

struct ops_session {
	struct ops_process proc[4];
	const char *const *archived;
	size_t narchived;
};

const struct ops_process *ops_session_process(const struct ops_session *s,
					      uint32_t proc_id)
{
	return proc_id < 4 ? &s->proc[proc_id] : NULL;
}

size_t ops_session_archived_maps(const struct ops_session *s,
				 uint32_t proc_id, const char *const **paths)
{
	*paths = s->archived;
	return s->narchived;
}

/* ---- stderr capture ---- */

static char errbuf[8192];
static int saved_fd = -1;
static FILE *cap;

static void capture_begin(void)
{
	cap = tmpfile();
	ck_assert_ptr_nonnull(cap);
	fflush(stderr);
	saved_fd = dup(2);
	ck_assert_int_ge(saved_fd, 0);
	ck_assert_int_ge(dup2(fileno(cap), 2), 0);
}

static const char *capture_end(void)
{
	size_t n;

	fflush(stderr);
	dup2(saved_fd, 2);
	close(saved_fd);
	rewind(cap);
	n = fread(errbuf, 1, sizeof(errbuf) - 1, cap);
	errbuf[n] = '\0';
	fclose(cap);
	return errbuf;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static struct anon_handlers *hs;

static void setup(void)
{
	hs = NULL;
	unsetenv("OPJIT_HANDLER_PATH");
}

static void teardown(void)
{
	anon_handlers_free(hs);
}

/* Load NAME alone from FAKE_DIR; expect it refused with exactly LINE. */
static void assert_refused(const char *name, const char *line)
{
	const char *names[] = { name };
	const char *err;

	capture_begin();
	ck_assert_int_eq(anon_handlers_load(&hs, names, 1, FAKE_DIR), 0);
	err = capture_end();
	ck_assert_uint_eq(hs->n, 0);
	ck_assert_str_eq(err, line);
	anon_handlers_free(hs);
	hs = NULL;
}

START_TEST(good_handler_loads)
{
	const char *names[] = { "alpha" };

	capture_begin();
	ck_assert_int_eq(anon_handlers_load(&hs, names, 1, FAKE_DIR), 0);
	ck_assert_str_eq(capture_end(), "");
	ck_assert_uint_eq(hs->n, 1);
	ck_assert_str_eq(hs->v[0].name, "alpha");
	ck_assert_str_eq(hs->v[0].path, FAKE_DIR "/libalpha.so");
}
END_TEST

START_TEST(wrong_major_refused)
{
	assert_refused("wrongmajor", "opreport: skipping handler " FAKE_DIR
		       "/libwrongmajor.so: ABI major 2, opreport speaks 1\n");
}
END_TEST

START_TEST(missing_entry_point_refused)
{
	assert_refused("noentry", "opreport: skipping handler " FAKE_DIR
		       "/libnoentry.so: no entry point opjit_handler_entry\n");
}
END_TEST

START_TEST(null_claim_slot_refused)
{
	assert_refused("noclaim", "opreport: skipping handler " FAKE_DIR
		       "/libnoclaim.so: handler table has no claim "
		       "function\n");
}
END_TEST

START_TEST(name_mismatch_refused)
{
	assert_refused("misnamed", "opreport: skipping handler " FAKE_DIR
		       "/libmisnamed.so: calls itself 'other', expected "
		       "'misnamed'\n");
}
END_TEST

START_TEST(short_table_refused)
{
	char want[256];

	snprintf(want, sizeof(want), "opreport: skipping handler " FAKE_DIR
		 "/libtiny.so: handler table of 8 bytes, at least %zu "
		 "expected\n", (size_t)OPJIT_HANDLER_V1_SIZE);
	assert_refused("tiny", want);
}
END_TEST

START_TEST(null_table_refused)
{
	assert_refused("nulltable", "opreport: skipping handler " FAKE_DIR
		       "/libnulltable.so: opjit_handler_entry() returned no "
		       "table for ABI 1.0\n");
}
END_TEST

START_TEST(later_minor_accepted)
{
	const char *names[] = { "future" };

	ck_assert_int_eq(anon_handlers_load(&hs, names, 1, FAKE_DIR2), 0);
	ck_assert_uint_eq(hs->n, 1);
	ck_assert_uint_eq(hs->v[0].tab.abi_minor, 7);
	/* only the fields this host knows were taken */
	ck_assert_uint_gt(hs->v[0].tab.struct_size,
			  sizeof(struct opjit_handler));
	ck_assert_ptr_nonnull(hs->v[0].tab.claim);
}
END_TEST

START_TEST(missing_handler_refused)
{
	assert_refused("nosuch", "opreport: skipping handler nosuch: "
		       "libnosuch.so not found in " FAKE_DIR ":"
		       OPJIT_HANDLER_DIR "\n");
}
END_TEST

START_TEST(bad_names_refused_before_lookup)
{
	static const struct {
		const char *name, *why;
	} bad[] = {
		{ "../x", "use letters a-z, digits, '-' and '_'" },
		{ "Perf", "use letters a-z, digits, '-' and '_'" },
		{ "", "empty name" },
		{ "a/b", "use letters a-z, digits, '-' and '_'" },
		{ "x.so", "use letters a-z, digits, '-' and '_'" },
		{ "perf map", "use letters a-z, digits, '-' and '_'" },
		{ "-/", "use letters a-z, digits, '-' and '_'" },
		{ "é", "use letters a-z, digits, '-' and '_'" },
		/* 65 characters: longer than any name is allowed */
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		  "longer than 64 characters" },
	};
	char want[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(want, sizeof(want), "opreport: invalid handler name "
			 "'%s': %s\n", bad[i].name, bad[i].why);
		assert_refused(bad[i].name, want);
	}
	ck_assert(handler_name_valid("perf-map_2"));
}
END_TEST

/* A scratch handler directory holding FILE made by MAKE. */
static char scratch[64];

static void scratch_make(void)
{
	snprintf(scratch, sizeof(scratch), "/tmp/opjit-loader-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
}

static void scratch_remove(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	ck_assert_int_eq(system(cmd), 0);
}

static void assert_scratch_refused(const char *name, const char *reason)
{
	const char *names[] = { name };
	char want[512];
	const char *err;

	capture_begin();
	ck_assert_int_eq(anon_handlers_load(&hs, names, 1, scratch), 0);
	err = capture_end();
	ck_assert_uint_eq(hs->n, 0);
	snprintf(want, sizeof(want), "opreport: skipping handler %s/lib%s.so:"
		 " %s", scratch, name, reason);
	ck_assert_msg(!strncmp(err, want, strlen(want)),
		      "got '%s', want '%s...'", err, want);
	ck_assert_int_eq(count_lines(err), 1);
	anon_handlers_free(hs);
	hs = NULL;
}

START_TEST(directory_refused)
{
	char p[128];

	scratch_make();
	snprintf(p, sizeof(p), "%s/libx.so", scratch);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	assert_scratch_refused("x", "not a regular file");
	scratch_remove();
}
END_TEST

START_TEST(fifo_refused)
{
	char p[128];

	scratch_make();
	snprintf(p, sizeof(p), "%s/libx.so", scratch);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	assert_scratch_refused("x", "not a regular file");
	scratch_remove();
}
END_TEST

START_TEST(not_elf_refused)
{
	char p[128];
	FILE *f;

	scratch_make();
	snprintf(p, sizeof(p), "%s/libx.so", scratch);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs("this is not a shared object, but it is long enough to have "
	      "what would be an ELF header if it were one\n", f);
	fclose(f);
	/* the reason is dlopen's own text, which names the file */
	assert_scratch_refused("x", p);
	scratch_remove();
}
END_TEST

START_TEST(bad_ones_do_not_stop_the_others)
{
	const char *names[] = { "wrongmajor", "../x", "alpha", "nosuch",
				"noentry", "beta", "alpha" };
	const char *err;

	capture_begin();
	ck_assert_int_eq(anon_handlers_load(&hs, names, 7, FAKE_DIR), 0);
	err = capture_end();
	ck_assert_uint_eq(hs->n, 2);
	ck_assert_str_eq(hs->v[0].name, "alpha");
	ck_assert_str_eq(hs->v[1].name, "beta");
	/* one line per refusal; the repeated alpha is not one */
	ck_assert_int_eq(count_lines(err), 4);
}
END_TEST

START_TEST(search_order)
{
	const char *names[] = { "alpha", "gamma" };

	/* --handler-path before $OPJIT_HANDLER_PATH */
	ck_assert_int_eq(setenv("OPJIT_HANDLER_PATH", FAKE_DIR2, 1), 0);
	ck_assert_int_eq(anon_handlers_load(&hs, names, 2, FAKE_DIR), 0);
	ck_assert_uint_eq(hs->n, 2);
	ck_assert_str_eq(hs->v[0].path, FAKE_DIR "/libalpha.so");
	ck_assert_str_eq(hs->v[1].path, FAKE_DIR2 "/libgamma.so");
	anon_handlers_free(hs);
	/* a colon list, read from the environment alone */
	ck_assert_int_eq(setenv("OPJIT_HANDLER_PATH",
				"/nonexistent:" FAKE_DIR2 ":" FAKE_DIR, 1), 0);
	ck_assert_int_eq(anon_handlers_load(&hs, names, 1, NULL), 0);
	ck_assert_uint_eq(hs->n, 1);
	ck_assert_str_eq(hs->v[0].path, FAKE_DIR2 "/libalpha.so");
	ck_assert_str_eq(hs->v[0].tab.description, "second alpha");
}
END_TEST

START_TEST(list_handlers)
{
	char out[4096];
	const char *err;
	FILE *f = tmpfile();
	size_t n;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(setenv("OPJIT_HANDLER_PATH", FAKE_DIR2, 1), 0);
	capture_begin();
	ck_assert_int_eq(anon_handlers_list(f, FAKE_DIR), 0);
	err = capture_end();
	rewind(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);
	ck_assert_str_eq(out,
		"alpha\t" FAKE_DIR "/libalpha.so\tABI 1.0\tfake handler "
		"alpha\n"
		"beta\t" FAKE_DIR "/libbeta.so\tABI 1.0\tfake handler beta\n"
		"alpha\t" FAKE_DIR2 "/libalpha.so\tABI 1.0\tsecond alpha "
		"(shadowed by an earlier directory)\n"
		"future\t" FAKE_DIR2 "/libfuture.so\tABI 1.7\tfake handler "
		"future\n"
		"gamma\t" FAKE_DIR2 "/libgamma.so\tABI 1.0\tfake handler "
		"gamma\n");
	/* the six broken handlers in FAKE_DIR, one line each */
	ck_assert_int_eq(count_lines(err), 6);
	ck_assert_ptr_nonnull(strstr(err, "libwrongmajor.so: ABI major 2"));
}
END_TEST

/* ---- claim and resolve ---- */

static struct ops_session sess;

static void session_proc(uint32_t id, uint32_t tgid, const char *comm)
{
	struct ops_process *p = &sess.proc[id];

	memset(p, 0, sizeof(*p));
	p->tgid = p->nspid = tgid;
	p->uid = 1000;
	p->comm = comm;
	p->exe = "/usr/bin/fake";
}

static void load_two(void)
{
	const char *names[] = { "alpha", "beta" };

	ck_assert_int_eq(anon_handlers_load(&hs, names, 2, FAKE_DIR), 0);
	ck_assert_uint_eq(hs->n, 2);
}

START_TEST(first_claim_wins)
{
	static const struct ops_anon_sample smp[] = {
		{ 1, 0x0800, 1 }, { 2, 0x1000, 1 }, { 3, 0x1004, 1 },
		{ 4, 0x2000, 1 }, { 5, 0x3000, 1 },
	};
	struct anon_resolved r;
	const char *err;

	load_two();
	memset(&sess, 0, sizeof(sess));
	session_proc(0, 100, "any");
	capture_begin();
	ck_assert_int_eq(anon_handlers_resolve(hs, &sess, 0, smp, 5, &r), 1);
	err = capture_end();
	ck_assert_str_eq(err, "opreport: alpha: claimed\n");
	ck_assert_str_eq(r.handler, "alpha");
	ck_assert_ptr_null(r.syms[0]);
	ck_assert_str_eq(r.syms[1]->name, "alpha:lo");
	ck_assert_uint_eq(r.syms[1]->start, 0x1000);
	ck_assert_uint_eq(r.syms[1]->size, 0x1000);
	ck_assert_str_eq(r.syms[1]->file, "lo.c");
	ck_assert_uint_eq(r.syms[1]->line, 7);
	/* one symbol, one pointer */
	ck_assert_ptr_eq(r.syms[1], r.syms[2]);
	ck_assert_str_eq(r.files[2], "lo.c");
	ck_assert_uint_eq(r.lines[2], 4);
	ck_assert_str_eq(r.syms[3]->name, "alpha:hi");
	ck_assert_ptr_null(r.syms[3]->file);
	ck_assert_ptr_null(r.files[3]);
	ck_assert_ptr_null(r.syms[4]);
}
END_TEST

START_TEST(second_handler_gets_what_first_declines)
{
	static const struct ops_anon_sample smp[] = { { 1, 0x1000, 1 } };
	struct anon_resolved r;

	load_two();
	memset(&sess, 0, sizeof(sess));
	session_proc(0, 100, "beta");
	session_proc(1, 101, "nobody");
	capture_begin();
	ck_assert_int_eq(anon_handlers_resolve(hs, &sess, 0, smp, 1, &r), 1);
	ck_assert_str_eq(r.handler, "beta");
	ck_assert_str_eq(r.syms[0]->name, "beta:lo");
	ck_assert_int_eq(anon_handlers_resolve(hs, &sess, 1, smp, 1, &r), 0);
	capture_end();
}
END_TEST

START_TEST(claim_error_goes_on)
{
	static const struct ops_anon_sample smp[] = { { 1, 0x1000, 1 } };
	struct anon_resolved r;
	const char *err;

	load_two();
	memset(&sess, 0, sizeof(sess));
	session_proc(0, 100, "fail-alpha");
	capture_begin();
	ck_assert_int_eq(anon_handlers_resolve(hs, &sess, 0, smp, 1, &r), 0);
	err = capture_end();
	ck_assert_str_eq(err, "opreport: alpha: cannot read the map of "
			 "process 100 (fail-alpha): fake map unreadable\n");
}
END_TEST

START_TEST(resolve_error_reported)
{
	static const struct ops_anon_sample smp[] = { { 1, 0x1000, 1 } };
	struct anon_resolved r;
	const char *err;

	load_two();
	memset(&sess, 0, sizeof(sess));
	session_proc(0, 100, "badresolve");
	capture_begin();
	ck_assert_int_lt(anon_handlers_resolve(hs, &sess, 0, smp, 1, &r), 0);
	err = capture_end();
	ck_assert_str_eq(err, "opreport: alpha: claimed\n"
			 "opreport: alpha: cannot name the samples of "
			 "process 100 (badresolve): fake resolve failure\n");
}
END_TEST

START_TEST(handler_text_kept_to_one_line)
{
	static const struct ops_anon_sample smp[] = { { 1, 0x1000, 1 } };
	struct anon_resolved r;

	load_two();
	memset(&sess, 0, sizeof(sess));
	session_proc(0, 100, "noisy");
	capture_begin();
	ck_assert_int_eq(anon_handlers_resolve(hs, &sess, 0, smp, 1, &r), 1);
	ck_assert_str_eq(capture_end(), "opreport: alpha: two lines [31m\n");
}
END_TEST

START_TEST(big_process_in_batches)
{
	const size_t n = 200000;
	struct ops_anon_sample *smp = calloc(n, sizeof(*smp));
	struct anon_resolved r;
	size_t i;

	ck_assert_ptr_nonnull(smp);
	/* sorted, crossing batch boundaries, half in alpha:lo */
	for (i = 0; i < n; i++)
		smp[i].addr = i < n / 2 ? 0x1000 + i * 0xfff / (n / 2) :
					   0x5000 + i;
	load_two();
	memset(&sess, 0, sizeof(sess));
	session_proc(0, 100, "alpha");
	capture_begin();
	ck_assert_int_eq(anon_handlers_resolve(hs, &sess, 0, smp, n, &r), 1);
	capture_end();
	for (i = 0; i < n; i++) {
		if (i < n / 2)
			ck_assert_ptr_eq(r.syms[i], r.syms[0]);
		else
			ck_assert_ptr_null(r.syms[i]);
	}
	ck_assert_str_eq(r.syms[0]->name, "alpha:lo");
	free(smp);
}
END_TEST

START_TEST(candidates_archived_first)
{
	static const char *const arch[] = {
		"/s/maps/42/anon.100", "/s/maps/42/perf-100.map",
		"/s/maps/42/README",
	};
	struct ops_anon_sample smp[8] = { { 0 } };
	struct anon_resolved r;
	size_t i;

	for (i = 0; i < 8; i++)
		smp[i].addr = i;
	load_two();
	memset(&sess, 0, sizeof(sess));
	sess.archived = arch;
	sess.narchived = 3;
	session_proc(0, 100, "cands");
	sess.proc[0].nspid = 7;
	sess.proc[0].flags = OPS_PROC_OTHER_MNTNS;
	capture_begin();
	ck_assert_int_eq(anon_handlers_resolve(hs, &sess, 0, smp, 8, &r), 1);
	capture_end();
	ck_assert_str_eq(r.syms[0]->name, "1:1:/s/maps/42/anon.100");
	ck_assert_str_eq(r.syms[1]->name, "2:1:/s/maps/42/perf-100.map");
	ck_assert_str_eq(r.syms[2]->name, "1:0:/tmp/anon.100");
	ck_assert_str_eq(r.syms[3]->name, "2:0:/tmp/perf-100.map");
	ck_assert_str_eq(r.syms[4]->name, "1:0:/proc/100/root/tmp/anon.7");
	ck_assert_str_eq(r.syms[5]->name,
			 "2:0:/proc/100/root/tmp/perf-7.map");
	ck_assert_ptr_null(r.syms[6]);
}
END_TEST

START_TEST(candidates_plain_process)
{
	struct ops_anon_sample smp[4] = { { 0 } };
	struct anon_resolved r;
	size_t i;

	for (i = 0; i < 4; i++)
		smp[i].addr = i;
	load_two();
	memset(&sess, 0, sizeof(sess));
	session_proc(0, 100, "cands");
	capture_begin();
	ck_assert_int_eq(anon_handlers_resolve(hs, &sess, 0, smp, 4, &r), 1);
	capture_end();
	ck_assert_str_eq(r.syms[0]->name, "1:0:/tmp/anon.100");
	ck_assert_str_eq(r.syms[1]->name, "2:0:/tmp/perf-100.map");
	ck_assert_ptr_null(r.syms[2]);
}
END_TEST

static Suite *loader_suite(void)
{
	Suite *s = suite_create("handler_loader");
	TCase *load = tcase_create("refusals");
	TCase *res = tcase_create("claim");

	tcase_add_checked_fixture(load, setup, teardown);
	tcase_add_checked_fixture(res, setup, teardown);
	tcase_add_test(load, good_handler_loads);
	tcase_add_test(load, wrong_major_refused);
	tcase_add_test(load, missing_entry_point_refused);
	tcase_add_test(load, null_claim_slot_refused);
	tcase_add_test(load, name_mismatch_refused);
	tcase_add_test(load, short_table_refused);
	tcase_add_test(load, null_table_refused);
	tcase_add_test(load, later_minor_accepted);
	tcase_add_test(load, missing_handler_refused);
	tcase_add_test(load, bad_names_refused_before_lookup);
	tcase_add_test(load, directory_refused);
	tcase_add_test(load, fifo_refused);
	tcase_add_test(load, not_elf_refused);
	tcase_add_test(load, bad_ones_do_not_stop_the_others);
	tcase_add_test(load, search_order);
	tcase_add_test(load, list_handlers);
	tcase_add_test(res, first_claim_wins);
	tcase_add_test(res, second_handler_gets_what_first_declines);
	tcase_add_test(res, claim_error_goes_on);
	tcase_add_test(res, resolve_error_reported);
	tcase_add_test(res, handler_text_kept_to_one_line);
	tcase_add_test(res, big_process_in_batches);
	tcase_add_test(res, candidates_archived_first);
	tcase_add_test(res, candidates_plain_process);
	suite_add_tcase(s, load);
	suite_add_tcase(s, res);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(loader_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
