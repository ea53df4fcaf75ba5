// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The handler loader: every way a handler can be refused, the search
 * order, --list-handlers, and the claim order with a fake session.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anon_handlers.h"
#include "diag.h"
#include "handler_internal.h"

#include "check_run.h"

/* The minor this host speaks, as it prints it. */
#define STR_(x) #x
#define STR(x) STR_(x)
#define MINOR STR(OPJIT_HANDLER_ABI_MINOR)

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

size_t ops_session_archived_maps(const struct ops_session *s, uint32_t proc_id,
				 const char *const **paths)
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
	anon_handlers_isolate(&(struct anon_isolation){
		.none = 0,
		.timeout_ms = ANON_HANDLER_TIMEOUT_MS });
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

/* The names of all of a process's samples at once, as these tests read
 * them: R's arrays filled from every batch.  A test compares the results
 * of a few calls, so the last four stay valid. */
static struct anon_resolved collected[4];
static unsigned nr_collected;

static int collect(void *ctx, const struct anon_resolved *b, size_t base,
		   size_t n)
{
	struct anon_resolved *c = ctx;

	memcpy(c->syms + base, b->syms, n * sizeof(*b->syms));
	memcpy(c->files + base, b->files, n * sizeof(*b->files));
	memcpy(c->lines + base, b->lines, n * sizeof(*b->lines));
	memcpy(c->reasons + base, b->reasons, n * sizeof(*b->reasons));
	return 0;
}

static int resolve_all(struct anon_handlers *h, struct ops_session *s,
		       uint32_t id, const struct ops_anon_sample *smp,
		       size_t n, struct anon_resolved *r)
{
	struct anon_resolved *c = &collected[nr_collected++ % 4];
	int rc;

	free(c->syms);
	free(c->files);
	free(c->lines);
	free(c->reasons);
	c->syms = calloc(n + 1, sizeof(*c->syms));
	c->files = calloc(n + 1, sizeof(*c->files));
	c->lines = calloc(n + 1, sizeof(*c->lines));
	c->reasons = calloc(n + 1, sizeof(*c->reasons));
	ck_assert(c->syms && c->files && c->lines && c->reasons);
	rc = anon_handlers_resolve(h, s, id, smp, n, collect, c, r);
	r->syms = c->syms;
	r->files = c->files;
	r->lines = c->lines;
	r->reasons = c->reasons;
	return rc;
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
	assert_refused("wrongmajor",
		       "opreport: skipping handler " FAKE_DIR
		       "/libwrongmajor.so: ABI major 2, opreport speaks 1\n");
}
END_TEST

START_TEST(missing_entry_point_refused)
{
	assert_refused("noentry",
		       "opreport: skipping handler " FAKE_DIR
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
	assert_refused("misnamed",
		       "opreport: skipping handler " FAKE_DIR
		       "/libmisnamed.so: calls itself 'other', expected "
		       "'misnamed'\n");
}
END_TEST

START_TEST(short_table_refused)
{
	char want[256];

	snprintf(want, sizeof(want),
		 "opreport: skipping handler " FAKE_DIR
		 "/libtiny.so: handler table of 8 bytes, at least %zu "
		 "expected\n",
		 (size_t)OPJIT_HANDLER_V1_SIZE);
	assert_refused("tiny", want);
}
END_TEST

START_TEST(null_table_refused)
{
	assert_refused("nulltable",
		       "opreport: skipping handler " FAKE_DIR
		       "/libnulltable.so: opjit_handler_entry() returned no "
		       "table for ABI 1." MINOR "\n");
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
	/* in-process, the table itself is what the host keeps */
	anon_handlers_free(hs);
	hs = NULL;
	anon_handlers_isolate(&(struct anon_isolation){
		.none = 1,
		.timeout_ms = ANON_HANDLER_TIMEOUT_MS });
	ck_assert_int_eq(anon_handlers_load(&hs, names, 1, FAKE_DIR2), 0);
	ck_assert_uint_eq(hs->n, 1);
	ck_assert_ptr_nonnull(hs->v[0].tab.claim);
}
END_TEST

/* A name the search path does not hold is a typing mistake: an error,
 * one line listing the names that are there, and nothing loaded. */
START_TEST(missing_handler_refused)
{
	const char *names[] = { "alpha", "nosuch" };
	const char *err;

	capture_begin();
	ck_assert_int_eq(anon_handlers_load(&hs, names, 2, FAKE_DIR), -ENOENT);
	err = capture_end();
	ck_assert_ptr_null(hs);
	ck_assert_str_eq(err, "opreport: unknown handler 'nosuch': expected "
			      "one of auto, alpha, beta, misnamed, noclaim, "
			      "noentry, nulltable, tiny, wrongmajor\n");
}
END_TEST

#define CHARS "use letters a-z, digits, '-' and '_'"

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
		snprintf(want, sizeof(want),
			 "opreport: invalid handler name "
			 "'%s': %s\n",
			 bad[i].name, bad[i].why);
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
	snprintf(want, sizeof(want),
		 "opreport: skipping handler %s/lib%s.so:"
		 " %s",
		 scratch, name, reason);
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
	assert_scratch_refused("x", "not a regular file (trust rule: regular "
				    "file)");
	scratch_remove();
}
END_TEST

START_TEST(fifo_refused)
{
	char p[128];

	scratch_make();
	snprintf(p, sizeof(p), "%s/libx.so", scratch);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	assert_scratch_refused("x", "not a regular file (trust rule: regular "
				    "file)");
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
	      "what would be an ELF header if it were one\n",
	      f);
	fclose(f);
	/* the reason is dlopen's own text, which names the file */
	assert_scratch_refused("x", p);
	scratch_remove();
}
END_TEST

/* Copy FAKE_DIR's libNAME.so into the scratch directory, with MODE. */
static void scratch_copy(const char *name, mode_t mode)
{
	char cmd[512], p[160];

	snprintf(p, sizeof(p), "%s/lib%s.so", scratch, name);
	snprintf(cmd, sizeof(cmd), "cp '%s/lib%s.so' '%s'", FAKE_DIR, name, p);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(chmod(p, mode), 0);
}

/* A directory others may write, sticky or not, is not looked in: one
 * line, and the handler comes from the next directory. */
static void assert_dir_ignored(mode_t mode, uid_t owner, const char *why)
{
	const char *names[] = { "alpha" };
	char path[256], want[512];
	const char *err;

	scratch_make();
	scratch_copy("alpha", 0644);
	ck_assert_int_eq(chmod(scratch, mode), 0);
	if (owner)
		ck_assert_int_eq(chown(scratch, owner, owner), 0);
	snprintf(path, sizeof(path), "%s:%s", scratch, FAKE_DIR);
	capture_begin();
	ck_assert_int_eq(anon_handlers_load(&hs, names, 1, path), 0);
	err = capture_end();
	snprintf(want, sizeof(want),
		 "opreport: ignoring handler directory "
		 "%s: %s\n",
		 scratch, why);
	ck_assert_str_eq(err, want);
	ck_assert_uint_eq(hs->n, 1);
	ck_assert_str_eq(hs->v[0].path, FAKE_DIR "/libalpha.so");
	anon_handlers_free(hs);
	hs = NULL;
	scratch_remove();
}

START_TEST(writable_dir_ignored)
{
	assert_dir_ignored(0777, 0,
			   "writable by group or others (trust "
			   "rule: mode)");
	assert_dir_ignored(01777, 0,
			   "writable by group or others (trust "
			   "rule: mode)");
	assert_dir_ignored(0775, 0,
			   "writable by group or others (trust "
			   "rule: mode)");
}
END_TEST

START_TEST(other_users_dir_ignored)
{
	char want[128];

	if (geteuid() != 0)
		return; /* cannot give a directory away */
	/* run as root here (the test returned otherwise) */
	snprintf(want, sizeof(want),
		 "owned by uid 12345, not by root "
		 "(trust rule: owner)");
	assert_dir_ignored(0755, 12345, want);
}
END_TEST

/* A refused directory after the one that has the handler changes
 * nothing but its own line. */
START_TEST(later_refusal_hides_nothing)
{
	const char *names[] = { "alpha", "beta" };
	char path[256];
	const char *err;

	scratch_make();
	scratch_copy("alpha", 0644);
	ck_assert_int_eq(chmod(scratch, 0777), 0);
	snprintf(path, sizeof(path), "%s:%s", FAKE_DIR, scratch);
	capture_begin();
	ck_assert_int_eq(anon_handlers_load(&hs, names, 2, path), 0);
	err = capture_end();
	ck_assert_int_eq(count_lines(err), 1);
	ck_assert_ptr_nonnull(strstr(err, "ignoring handler directory"));
	ck_assert_uint_eq(hs->n, 2);
	ck_assert_str_eq(hs->v[0].path, FAKE_DIR "/libalpha.so");
	ck_assert_str_eq(hs->v[1].path, FAKE_DIR "/libbeta.so");
	scratch_remove();
}
END_TEST

START_TEST(writable_library_refused)
{
	scratch_make();
	scratch_copy("alpha", 0666);
	assert_scratch_refused("alpha", "writable by group or others (trust "
					"rule: mode)");
	scratch_remove();
}
END_TEST

START_TEST(other_users_library_refused)
{
	char p[160], want[160];

	if (geteuid() != 0)
		return; /* cannot give a file away */
	scratch_make();
	scratch_copy("alpha", 0644);
	snprintf(p, sizeof(p), "%s/libalpha.so", scratch);
	ck_assert_int_eq(chown(p, 12345, 12345), 0);
	/* run as root here (the test returned otherwise) */
	snprintf(want, sizeof(want),
		 "owned by uid 12345, not by root "
		 "(trust rule: owner)");
	assert_scratch_refused("alpha", want);
	scratch_remove();
}
END_TEST

/* A link out of a trusted directory into one others may write: the
 * library could be swapped after the check. */
START_TEST(library_linked_from_writable_dir_refused)
{
	char p[160], sub[160], target[200], want[400];
	char cmd[512];

	scratch_make();
	snprintf(sub, sizeof(sub), "%s/drop", scratch);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(chmod(sub, 01777), 0);
	snprintf(target, sizeof(target), "%s/libalpha.so", sub);
	snprintf(cmd, sizeof(cmd), "cp '%s/libalpha.so' '%s'", FAKE_DIR,
		 target);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(chmod(target, 0644), 0);
	snprintf(p, sizeof(p), "%s/libalpha.so", scratch);
	ck_assert_int_eq(symlink(target, p), 0);
	snprintf(want, sizeof(want),
		 "in %s, which is writable by group or "
		 "others (trust rule: mode)",
		 sub);
	assert_scratch_refused("alpha", want);
	scratch_remove();
}
END_TEST

START_TEST(bad_ones_do_not_stop_the_others)
{
	/* (a name the path does not hold stops the report: see
	 * missing_handler_refused) */
	const char *names[] = { "wrongmajor", "../x", "alpha",
				"noentry",    "beta", "alpha" };
	const char *err;

	capture_begin();
	ck_assert_int_eq(anon_handlers_load(&hs, names, 6, FAKE_DIR), 0);
	err = capture_end();
	ck_assert_uint_eq(hs->n, 2);
	ck_assert_str_eq(hs->v[0].name, "alpha");
	ck_assert_str_eq(hs->v[1].name, "beta");
	/* one line per refusal; the repeated alpha is not one */
	ck_assert_int_eq(count_lines(err), 3);
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
				"/nonexistent:" FAKE_DIR2 ":" FAKE_DIR, 1),
			 0);
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
	ck_assert_str_eq(out, "alpha\t" FAKE_DIR "/libalpha.so\tABI 1." MINOR
			      "\tfake handler "
			      "alpha\n"
			      "beta\t" FAKE_DIR "/libbeta.so\tABI 1." MINOR
			      "\tfake handler beta\n"
			      "alpha\t" FAKE_DIR2 "/libalpha.so\tABI 1." MINOR
			      "\tsecond alpha "
			      "(shadowed by an earlier directory)\n"
			      "future\t" FAKE_DIR2
			      "/libfuture.so\tABI 1.7\tfake handler "
			      "future\n"
			      "gamma\t" FAKE_DIR2 "/libgamma.so\tABI 1." MINOR
			      "\tfake handler "
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
	ck_assert_int_eq(resolve_all(hs, &sess, 0, smp, 5, &r), 1);
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

static void load_one_from(const char *dir, const char *name);

/* Each sample's name and the functions it was inlined into, as
 * "inner < mid@mid.c:20 < lo@lo.c:30", for the first four samples; and
 * the symbol of the last frame of sample 1, to compare pointers. */
struct chain_sink {
	char text[4][2048];
	const struct anon_symbol *outer;
};

static int chain_collect(void *ctx, const struct anon_resolved *b, size_t base,
			 size_t n)
{
	struct chain_sink *cs = ctx;
	size_t i, k;

	for (i = 0; i < n && base + i < 4; i++) {
		char *p = cs->text[base + i], *end = p + sizeof(cs->text[0]);

		p += snprintf(p, (size_t)(end - p), "%s",
			      b->syms[i] ? b->syms[i]->name : "-");
		for (k = 0; k < b->nr_inl[i] && p < end; k++)
			p += snprintf(p, (size_t)(end - p), " < %s@%s:%u",
				      b->inl[i][k].sym->name,
				      b->inl[i][k].file ? b->inl[i][k].file
							: "-",
				      b->inl[i][k].line);
		if (base + i == 1 && b->nr_inl[i])
			cs->outer = b->inl[i][b->nr_inl[i] - 1].sym;
		if (!b->nr_inl[i])
			ck_assert_ptr_null(b->inl[i]);
	}
	return 0;
}

static const struct ops_anon_sample inline_smp[] = { { 1, 0x1000, 1 },
						     { 2, 0x1800, 1 },
						     { 3, 0x1880, 1 },
						     { 4, 0x2000, 1 } };

/* The first N of inline_smp, of a process named COMM, named by alpha
 * into CS; what opreport said, in *ERR. */
static void resolve_chains(const char *comm, size_t n, struct chain_sink *cs,
			   const char **err)
{
	struct anon_resolved r;

	load_one_from(FAKE_DIR, "alpha");
	memset(&sess, 0, sizeof(sess));
	session_proc(0, 100, comm);
	capture_begin();
	ck_assert_int_eq(anon_handlers_resolve(hs, &sess, 0, inline_smp, n,
					       chain_collect, cs, &r),
			 1);
	*err = capture_end();
}

/* Inline chains (ABI 1.2) cross from the handler, by either path, with
 * the symbols they name grouped with the samples' own. */
START_TEST(inline_chains_reach_the_report)
{
	struct chain_sink cs = { 0 };
	const char *err;

	resolve_chains("inline", 4, &cs, &err);
	ck_assert_str_eq(err, "opreport: alpha: claimed\n");
	ck_assert_str_eq(cs.text[0], "alpha:lo");
	ck_assert_str_eq(cs.text[1], "alpha:inner < alpha:mid@mid.c:20 < "
				     "alpha:lo@lo.c:30");
	ck_assert_str_eq(cs.text[2], cs.text[1]);
	ck_assert_str_eq(cs.text[3], "alpha:hi");
	/* the function the code was compiled from is the flat one */
	ck_assert_ptr_nonnull(cs.outer);
	ck_assert_uint_eq(cs.outer->start, 0x1000);
	ck_assert_uint_eq(cs.outer->size, 0x1000);
}
END_TEST

/* A chain longer than the host takes keeps the frames nearest the
 * sample. */
START_TEST(long_inline_chain_is_cut)
{
	struct chain_sink cs = { 0 };
	char want[2048], *p = want;
	const char *err;
	unsigned k;

	resolve_chains("deep", 2, &cs, &err);
	p += sprintf(p, "alpha:inner");
	for (k = 1; k <= OPJIT_INLINE_MAX; k++)
		p += sprintf(p, " < alpha:mid@mid.c:%u", k);
	ck_assert_str_eq(cs.text[1], want);
}
END_TEST

/* A frame laid out past what this host knows ends its chain, said once
 * however many samples show it. */
START_TEST(malformed_inline_frame_ends_the_chain)
{
	struct chain_sink cs = { 0 };
	const char *err;

	resolve_chains("badinline", 4, &cs, &err);
	ck_assert_str_eq(err,
			 "opreport: alpha: claimed\n"
			 "opreport: alpha: 1 malformed inline frame for "
			 "process 100 (badinline): a reserved field set, or "
			 "fields past ABI 1." MINOR "; each ends its chain\n");
	ck_assert_str_eq(cs.text[1], "alpha:inner < alpha:mid@mid.c:20");
	ck_assert_str_eq(cs.text[2], cs.text[1]);
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
	ck_assert_int_eq(resolve_all(hs, &sess, 0, smp, 1, &r), 1);
	ck_assert_str_eq(r.handler, "beta");
	ck_assert_str_eq(r.syms[0]->name, "beta:lo");
	ck_assert_int_eq(resolve_all(hs, &sess, 1, smp, 1, &r), 0);
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
	ck_assert_int_eq(resolve_all(hs, &sess, 0, smp, 1, &r), 0);
	err = capture_end();
	ck_assert_str_eq(err,
			 "opreport: alpha: cannot read the map of "
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
	ck_assert_int_lt(resolve_all(hs, &sess, 0, smp, 1, &r), 0);
	err = capture_end();
	ck_assert_str_eq(err,
			 "opreport: alpha: claimed\n"
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
	ck_assert_int_eq(resolve_all(hs, &sess, 0, smp, 1, &r), 1);
	ck_assert_str_eq(capture_end(),
			 "opreport: alpha: two\\nlines\\x1b[31m\n");
}
END_TEST

/* A flood: the first 20 warnings, then one count when the handler is
 * closed, whether it runs in its helper or in-process. */
START_TEST(warning_flood_capped)
{
	static const struct ops_anon_sample smp[] = { { 1, 0x1000, 1 } };
	struct anon_resolved r;
	char want[2048] = "opreport: alpha: claimed\n";
	int i;

	for (i = 0; i < 20 - 1; i++)
		strcat(want, "opreport: alpha: flood\n");
	strcat(want, "opreport: alpha: 11 more warnings not shown\n");
	load_two();
	memset(&sess, 0, sizeof(sess));
	session_proc(0, 100, "flood");
	capture_begin();
	ck_assert_int_eq(resolve_all(hs, &sess, 0, smp, 1, &r), 1);
	anon_handlers_free(hs);
	hs = NULL;
	ck_assert_str_eq(capture_end(), want);
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
		smp[i].addr = i < n / 2 ? 0x1000 + i * 0xfff / (n / 2)
					: 0x5000 + i;
	load_two();
	memset(&sess, 0, sizeof(sess));
	session_proc(0, 100, "alpha");
	capture_begin();
	ck_assert_int_eq(resolve_all(hs, &sess, 0, smp, n, &r), 1);
	capture_end();
	/* one assertion for the lot: each one is a message to Check's
	 * parent, too slow 200000 times under the sanitizers */
	for (i = 0; i < n; i++)
		if (i < n / 2 ? r.syms[i] != r.syms[0] : r.syms[i] != NULL)
			break;
	ck_assert_uint_eq(i, n);
	ck_assert_str_eq(r.syms[0]->name, "alpha:lo");
	free(smp);
}
END_TEST

START_TEST(candidates_archived_first)
{
	static const char *const arch[] = {
		"/s/maps/42/anon.100",
		"/s/maps/42/perf-100.map",
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
	ck_assert_int_eq(resolve_all(hs, &sess, 0, smp, 8, &r), 1);
	capture_end();
	ck_assert_str_eq(r.syms[0]->name, "1:1:/s/maps/42/anon.100");
	ck_assert_str_eq(r.syms[1]->name, "2:1:/s/maps/42/perf-100.map");
	ck_assert_str_eq(r.syms[2]->name, "1:0:/tmp/anon.100");
	ck_assert_str_eq(r.syms[3]->name, "2:0:/tmp/perf-100.map");
	ck_assert_str_eq(r.syms[4]->name, "1:0:/proc/100/root/tmp/anon.7");
	ck_assert_str_eq(r.syms[5]->name, "2:0:/proc/100/root/tmp/perf-7.map");
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
	ck_assert_int_eq(resolve_all(hs, &sess, 0, smp, 4, &r), 1);
	capture_end();
	ck_assert_str_eq(r.syms[0]->name, "1:0:/tmp/anon.100");
	ck_assert_str_eq(r.syms[1]->name, "2:0:/tmp/perf-100.map");
	ck_assert_ptr_null(r.syms[2]);
}
END_TEST

/* ---- isolation: handlers that misbehave ---- */

/* The looping handlers spin a core until the deadline: a second is
 * enough to tell a hang, and still many times what a good handler's
 * helper takes to start and answer under ASan on a busy machine. */
static void isolate_fast(void)
{
	anon_handlers_isolate(
		&(struct anon_isolation){ .none = 0, .timeout_ms = 1000 });
}

static void setup_inprocess(void)
{
	setup();
	anon_handlers_isolate(&(struct anon_isolation){
		.none = 1,
		.timeout_ms = ANON_HANDLER_TIMEOUT_MS });
}

static const struct ops_anon_sample bad_smp[] = {
	{ 1, 0x0800, 1 }, { 2, 0x1000, 1 }, { 3, 0x1004, 1 },
	{ 4, 0x2000, 1 }, { 5, 0x3000, 1 },
};

/* Offer process 0 ("any", tgid 100) to BAD then good, and return what
 * was said; RC is what resolve returned.  Process 1 (comm "good") must
 * still be named by good afterwards, through a fresh helper for BAD. */
static const char *offer_bad(const char *bad, int *rc, struct anon_resolved *r)
{
	const char *names[] = { bad, "good" };
	static char said[8192];
	struct anon_resolved r1;

	isolate_fast();
	ck_assert_int_eq(anon_handlers_load(&hs, names, 2, BAD_DIR), 0);
	ck_assert_uint_eq(hs->n, 2);
	memset(&sess, 0, sizeof(sess));
	session_proc(0, 100, "any");
	session_proc(1, 101, "good");
	capture_begin();
	*rc = resolve_all(hs, &sess, 0, bad_smp, 5, r);
	snprintf(said, sizeof(said), "%s", capture_end());
	capture_begin();
	ck_assert_int_eq(resolve_all(hs, &sess, 1, bad_smp, 5, &r1), 1);
	ck_assert_str_eq(capture_end(), "opreport: good: claimed\n");
	ck_assert_str_eq(r1.handler, "good");
	ck_assert_str_eq(r1.syms[1]->name, "good:lo");
	ck_assert_str_eq(r1.syms[3]->name, "good:hi");
	return said;
}

/* A failure while claiming: one line, and the next handler gets it. */
static void assert_claim_broke(const char *bad, const char *what)
{
	struct anon_resolved r;
	char want[1024];
	const char *said;
	int rc;

	said = offer_bad(bad, &rc, &r);
	snprintf(want, sizeof(want),
		 "opreport: handler %s %s while "
		 "claiming tgid 100 (any)\nopreport: good: claimed\n",
		 bad, what);
	ck_assert_str_eq(said, want);
	ck_assert_int_eq(rc, 1);
	ck_assert_str_eq(r.handler, "good");
	ck_assert_str_eq(r.syms[1]->name, "good:lo");
}

/* A failure after the claim: one line, the samples stay anonymous. */
static void assert_resolve_broke(const char *bad, const char *what,
				 const char *doing)
{
	struct anon_resolved r;
	char want[1024];
	const char *said;
	int rc;

	said = offer_bad(bad, &rc, &r);
	snprintf(want, sizeof(want),
		 "opreport: %s: claimed\nopreport: "
		 "handler %s %s while %s tgid 100 (any); its samples stay "
		 "anonymous\n",
		 bad, bad, what, doing);
	ck_assert_str_eq(said, want);
	ck_assert_int_lt(rc, 0);
}

START_TEST(segv_in_claim)
{
	assert_claim_broke("segv-claim", "killed by SIGSEGV");
}
END_TEST

START_TEST(segv_in_resolve)
{
	assert_resolve_broke("segv-resolve", "killed by SIGSEGV", "resolving");
}
END_TEST

START_TEST(segv_in_release)
{
	assert_resolve_broke("segv-release", "killed by SIGSEGV", "releasing");
}
END_TEST

START_TEST(abort_in_resolve)
{
	assert_resolve_broke("abort-resolve", "killed by SIGABRT",
			     "resolving");
}
END_TEST

START_TEST(loop_in_claim)
{
	assert_claim_broke("loop-claim", "took longer than 1 s");
}
END_TEST

START_TEST(loop_in_resolve)
{
	assert_resolve_broke("loop-resolve", "took longer than 1 s",
			     "resolving");
}
END_TEST

START_TEST(exit_in_claim)
{
	struct anon_resolved r;
	const char *said;
	int rc;

	said = offer_bad("exit-claim", &rc, &r);
	/* exit(0) itself, or what a sanitizer's exit hook makes of it */
	ck_assert_msg(!strncmp(said,
			       "opreport: handler exit-claim exited "
			       "with status ",
			       44),
		      "said: %s", said);
	ck_assert_ptr_nonnull(strstr(said,
				     " while claiming tgid 100 "
				     "(any)\nopreport: good: claimed\n"));
	ck_assert_int_eq(count_lines(said), 2);
	ck_assert_int_eq(rc, 1);
	ck_assert_str_eq(r.handler, "good");
}
END_TEST

START_TEST(null_name)
{
	assert_resolve_broke("null-name", "returned a symbol with no name",
			     "resolving");
}
END_TEST

START_TEST(huge_size)
{
	assert_resolve_broke("huge-size",
			     "returned a symbol of "
			     "18446744073709551615 bytes at 0x2000",
			     "resolving");
}
END_TEST

START_TEST(fresh_pointers_group_by_content)
{
	struct anon_resolved r;
	const char *said;
	int rc;

	said = offer_bad("fresh-ptrs", &rc, &r);
	ck_assert_str_eq(said, "opreport: fresh-ptrs: claimed\n");
	ck_assert_int_eq(rc, 1);
	ck_assert_str_eq(r.syms[1]->name, "fresh-ptrs:lo");
	ck_assert_ptr_eq(r.syms[1], r.syms[2]);
	ck_assert_str_eq(r.syms[3]->name, "fresh-ptrs:hi");
}
END_TEST

START_TEST(socket_refused)
{
	assert_claim_broke("socket", "killed by SIGSYS");
}
END_TEST

START_TEST(file_write_refused)
{
	char path[] = "/tmp/opjit-fake-write.XXXXXX";
	struct stat st;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	unlink(path);
	setenv("FAKE_WRITE_PATH", path, 1);
	assert_claim_broke("write-file", "killed by SIGSYS");
	ck_assert_int_lt(stat(path, &st), 0);
}
END_TEST

START_TEST(segv_in_constructor)
{
	const char *names[] = { "segv-ctor", "good" };
	const char *err;

	isolate_fast();
	capture_begin();
	ck_assert_int_eq(anon_handlers_load(&hs, names, 2, BAD_DIR), 0);
	err = capture_end();
	ck_assert_str_eq(err, "opreport: skipping handler " BAD_DIR
			      "/libsegv-ctor.so: killed by SIGSEGV while "
			      "loading\n");
	ck_assert_uint_eq(hs->n, 1);
	ck_assert_str_eq(hs->v[0].name, "good");
}
END_TEST

START_TEST(list_survives_bad_constructor)
{
	char out[8192];
	const char *err;
	size_t n;
	FILE *f = tmpfile();

	ck_assert_ptr_nonnull(f);
	isolate_fast();
	capture_begin();
	ck_assert_int_eq(anon_handlers_list(f, BAD_DIR), 0);
	err = capture_end();
	rewind(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);
	ck_assert_str_eq(err, "opreport: skipping handler " BAD_DIR
			      "/libsegv-ctor.so: killed by SIGSEGV while "
			      "loading\n");
	ck_assert_ptr_nonnull(strstr(out,
				     "good\t" BAD_DIR "/libgood.so\t"
				     "ABI 1." MINOR "\tfake handler good\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nsegv-resolve\t"));
	ck_assert_ptr_null(strstr(out, "segv-ctor"));
	/* every handler but the one that crashed: 13 misbehaving or
	 * good, 7 hostile */
	ck_assert_int_eq(count_lines(out), 20);
}
END_TEST

/* ---- the growth rules, across versions ---- */

static const struct ops_anon_sample grow_smp[] = {
	{ 1, 0x0800, 1 },
	{ 2, 0x1000, 1 },
	{ 3, 0x2000, 1 },
	{ 4, 0x3000, 1 },
};

static void load_one_from(const char *dir, const char *name)
{
	const char *names[] = { name };
	const char *err;

	capture_begin();
	ck_assert_int_eq(anon_handlers_load(&hs, names, 1, dir), 0);
	err = capture_end();
	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(hs->n, 1);
}

/* A handler built against the frozen 1.0 header loads into this host and
 * names samples, with its reasons for the rest. */
START_TEST(handler_built_for_1_0_works)
{
	struct anon_resolved r;

	load_one_from(FAKE_DIR3, "v10");
	ck_assert_uint_eq(hs->v[0].tab.abi_minor, 0);
	memset(&sess, 0, sizeof(sess));
	session_proc(0, 100, "v10");
	capture_begin();
	ck_assert_int_eq(resolve_all(hs, &sess, 0, grow_smp, 4, &r), 1);
	ck_assert_str_eq(capture_end(), "opreport: v10: claimed\n");
	ck_assert_ptr_null(r.syms[0]);
	ck_assert_uint_eq(r.reasons[0], OPJIT_UNRESOLVED_BEFORE_LOAD);
	ck_assert_str_eq(r.syms[1]->name, "v10:lo");
	ck_assert_str_eq(r.syms[2]->name, "v10:hi");
	ck_assert_ptr_null(r.syms[3]);
	ck_assert_uint_eq(r.reasons[3], OPJIT_UNRESOLVED_NO_ENTRY);
}
END_TEST

/* A handler whose names do not depend on the times (ABI 1.3) is asked
 * each address once, and every sample there gets the answer: by either
 * path. */
START_TEST(timeless_handler_asked_each_address_once)
{
	static const struct ops_anon_sample smp[] = {
		{ 1, 0x1000, 1 }, { 2, 0x1000, 1 }, { 3, 0x1000, 1 },
		{ 4, 0x1500, 1 }, { 5, 0x2000, 1 }, { 6, 0x2000, 1 },
	};
	struct anon_resolved r;
	size_t i;

	load_one_from(FAKE_DIR3, "timeless");
	memset(&sess, 0, sizeof(sess));
	session_proc(0, 100, "timeless");
	capture_begin();
	ck_assert_int_eq(resolve_all(hs, &sess, 0, smp, 6, &r), 1);
	ck_assert_str_eq(capture_end(), "opreport: timeless: claimed\n"
					"opreport: timeless: asked 3\n");
	for (i = 0; i < 4; i++) {
		ck_assert_str_eq(r.syms[i]->name, "timeless:lo");
		ck_assert_uint_eq(r.lines[i], smp[i].addr - 0x1000);
	}
	ck_assert_str_eq(r.syms[4]->name, "timeless:hi");
	ck_assert_ptr_eq(r.syms[5], r.syms[4]);
}
END_TEST

/* ---- a process asked about, then named: one claim ---- */

static const struct ops_anon_sample asked_smp[] = { { 1, 0x1000, 1 },
						    { 2, 0x2000, 1 } };

/* Handler NAME of DIR alone, and a session whose process 0 is TGID
 * running COMM. */
static void asked_setup(const char *dir, const char *name, uint32_t tgid,
			const char *comm)
{
	load_one_from(dir, name);
	memset(&sess, 0, sizeof(sess));
	session_proc(0, tgid, comm);
}

/* A tgid of the "counted" comm that no other test's claims count, by
 * either path (a suite may run its tests in one process). */
static uint32_t counted_tgid(uint32_t base)
{
	return base + (handler_isolation.none ? 1 : 0);
}

/* A call graph asks whether a process's names depend on the time
 * (anon_handlers_timeless()) before it names the process's samples: the
 * naming takes the state that question claimed, by either path, so the
 * handler claims the process once (a 100k-function perf map is parsed
 * once, not twice).  alpha names 0x1000 after the claims it has had. */
START_TEST(asked_then_named_is_claimed_once)
{
	struct anon_resolved r;
	uint32_t tgid = counted_tgid(4200);

	asked_setup(FAKE_DIR, "alpha", tgid, "counted");
	capture_begin();
	ck_assert_int_eq(anon_handlers_timeless(hs, &sess, 0), 0);
	ck_assert_int_eq(resolve_all(hs, &sess, 0, asked_smp, 2, &r), 1);
	capture_end();
	ck_assert_str_eq(r.handler, "alpha");
	ck_assert_str_eq(r.syms[0]->name, "alpha:claim 1");
	ck_assert_str_eq(r.syms[1]->name, "alpha:hi");
	/* asked twice, still one claim; named again (a report's flat
	 * samples and then its call chains), a claim of its own */
	session_proc(1, tgid + 10, "counted");
	capture_begin();
	ck_assert_int_eq(anon_handlers_timeless(hs, &sess, 1), 0);
	ck_assert_int_eq(anon_handlers_timeless(hs, &sess, 1), 0);
	ck_assert_int_eq(resolve_all(hs, &sess, 1, asked_smp, 2, &r), 1);
	ck_assert_str_eq(r.syms[0]->name, "alpha:claim 1");
	ck_assert_int_eq(resolve_all(hs, &sess, 1, asked_smp, 2, &r), 1);
	ck_assert_str_eq(r.syms[0]->name, "alpha:claim 2");
	capture_end();
}
END_TEST

/* The same with a timeless handler, which the answer says (1); a
 * process none claims is offered to none again when named. */
START_TEST(asked_timeless_then_named_is_claimed_once)
{
	struct anon_resolved r;
	uint32_t tgid = counted_tgid(4300);

	asked_setup(FAKE_DIR3, "timeless", tgid, "counted");
	session_proc(1, tgid + 10, "nobody's");
	capture_begin();
	ck_assert_int_eq(anon_handlers_timeless(hs, &sess, 0), 1);
	ck_assert_int_eq(resolve_all(hs, &sess, 0, asked_smp, 2, &r), 1);
	ck_assert_int_eq(anon_handlers_timeless(hs, &sess, 1), 1);
	ck_assert_int_eq(resolve_all(hs, &sess, 1, asked_smp, 2, &r), 0);
	capture_end();
	ck_assert_ptr_null(r.handler);
	ck_assert_ptr_null(r.declined_why);
	capture_begin();
	ck_assert_int_eq(anon_handlers_timeless(hs, &sess, 0), 1);
	ck_assert_int_eq(resolve_all(hs, &sess, 0, asked_smp, 2, &r), 1);
	capture_end();
	ck_assert_str_eq(r.syms[0]->name, "timeless:claim 2");
}
END_TEST

/* A call graph over several processes asks about each of them before it
 * names any (profile.c reads every process's stacks, then the graph
 * names their frames): each is claimed once, its state held from the
 * question to its naming, by either path.  Held only the last claim,
 * every process but the last was claimed twice. */
START_TEST(asked_all_then_named_claimed_once_each)
{
	struct anon_resolved r;
	uint32_t tgid = counted_tgid(4400), id;

	asked_setup(FAKE_DIR, "alpha", tgid, "counted");
	session_proc(1, tgid + 10, "counted");
	session_proc(2, tgid + 20, "counted");
	capture_begin();
	for (id = 0; id < 3; id++)
		ck_assert_int_eq(anon_handlers_timeless(hs, &sess, id), 0);
	for (id = 0; id < 3; id++) {
		ck_assert_int_eq(resolve_all(hs, &sess, id, asked_smp, 2, &r),
				 1);
		ck_assert_str_eq(r.handler, "alpha");
		ck_assert_str_eq(r.syms[0]->name, "alpha:claim 1");
		ck_assert_str_eq(r.syms[1]->name, "alpha:hi");
	}
	capture_end();
}
END_TEST

/* Process ID named by alpha, which said SAID while naming it. */
static void named_once(uint32_t id, const char *said)
{
	struct anon_resolved r;

	capture_begin();
	ck_assert_int_eq(resolve_all(hs, &sess, id, asked_smp, 2, &r), 1);
	ck_assert_str_eq(capture_end(), said);
	ck_assert_str_eq(r.syms[0]->name, "alpha:lo");
}

/* What a handler says while claiming is said once, when the question
 * claims the process, and not again when the samples are named with
 * that claim; what it says while naming, then.  Two processes asked
 * about before either is named: only the last claim is kept, the first
 * process is claimed again when named, quietly, and its naming's lines
 * are still said. */
START_TEST(asked_lines_said_once)
{
	char claimed[512], batch[64], two[1024];

	snprintf(claimed, sizeof(claimed),
		 "opreport: alpha: claimed\nopreport: alpha: host %zu "
		 "process %zu candidate %zu\n",
		 (size_t)OPJIT_HOST_SIZE_1_0, (size_t)OPJIT_PROCESS_SIZE_1_0,
		 (size_t)OPJIT_MAP_CANDIDATE_SIZE_1_0);
	snprintf(batch, sizeof(batch), "opreport: alpha: batch %zu\n",
		 (size_t)OPJIT_RESOLVE_BATCH_SIZE_1_2);
	snprintf(two, sizeof(two), "%s%s", claimed, claimed);
	asked_setup(FAKE_DIR, "alpha", 100, "sizes");
	session_proc(1, 101, "sizes");
	session_proc(2, 102, "sizes");
	capture_begin();
	ck_assert_int_eq(anon_handlers_timeless(hs, &sess, 0), 0);
	ck_assert_str_eq(capture_end(), claimed);
	capture_begin();
	ck_assert_int_eq(anon_handlers_timeless(hs, &sess, 0), 0);
	ck_assert_str_eq(capture_end(), "");
	named_once(0, batch);
	capture_begin();
	ck_assert_int_eq(anon_handlers_timeless(hs, &sess, 1), 0);
	ck_assert_int_eq(anon_handlers_timeless(hs, &sess, 2), 0);
	ck_assert_str_eq(capture_end(), two);
	named_once(1, batch);
	named_once(2, batch);
	/* and an offer of one already named says nothing */
	named_once(0, "");
}
END_TEST

/* A claim that fails is said when the question is asked, once; the
 * naming reports it as the process's reason, without a line. */
START_TEST(asked_failure_said_once)
{
	struct anon_resolved r;

	asked_setup(FAKE_DIR, "alpha", 100, "fail-alpha");
	capture_begin();
	ck_assert_int_eq(anon_handlers_timeless(hs, &sess, 0), 1);
	ck_assert_str_eq(capture_end(),
			 "opreport: alpha: cannot read the map of process "
			 "100 (fail-alpha): fake map unreadable\n");
	capture_begin();
	ck_assert_int_eq(resolve_all(hs, &sess, 0, asked_smp, 2, &r), 0);
	ck_assert_str_eq(capture_end(), "");
	ck_assert_str_eq(r.declined_why, "alpha: fake map unreadable");
}
END_TEST

/* A handler of a later minor, told this host's minor, leaves its new
 * fields zero: its longer table and longer symbols are taken. */
START_TEST(later_handler_works_in_this_host)
{
	struct anon_resolved r;

	load_one_from(FAKE_DIR2, "future");
	memset(&sess, 0, sizeof(sess));
	session_proc(0, 100, "future");
	capture_begin();
	ck_assert_int_eq(resolve_all(hs, &sess, 0, grow_smp, 4, &r), 1);
	ck_assert_str_eq(capture_end(), "opreport: future: claimed\n");
	ck_assert_str_eq(r.syms[1]->name, "future:lo");
	ck_assert_str_eq(r.syms[2]->name, "future:hi");
}
END_TEST

/* One that sets its later slots even for this host is still taken: the
 * slots a host does not know are optional, and it ignores them. */
START_TEST(later_table_with_unknown_slots_accepted)
{
	struct anon_resolved r;

	load_one_from(FAKE_DIR3, "futurerude");
	ck_assert_uint_eq(hs->v[0].tab.abi_minor, 7);
	memset(&sess, 0, sizeof(sess));
	session_proc(0, 100, "futurerude");
	capture_begin();
	ck_assert_int_eq(resolve_all(hs, &sess, 0, grow_smp, 4, &r), 1);
	ck_assert_str_eq(capture_end(), "opreport: futurerude: claimed\n");
	ck_assert_str_eq(r.syms[1]->name, "futurerude:lo");
}
END_TEST

/* Only the word of required features refuses a handler: a feature this
 * host does not have is one it cannot honour. */
START_TEST(required_feature_refused)
{
	const char *names[] = { "requires" };

	capture_begin();
	ck_assert_int_eq(anon_handlers_load(&hs, names, 1, FAKE_DIR3), 0);
	ck_assert_str_eq(capture_end(),
			 "opreport: skipping handler " FAKE_DIR3
			 "/librequires.so: requires features 0x10000000000, "
			 "which this opreport (ABI 1." MINOR
			 ") does not have\n");
	ck_assert_uint_eq(hs->n, 0);
}
END_TEST

/* A table whose minor and size disagree is refused: the host could not
 * tell which slots are there. */
START_TEST(minor_and_size_disagree_refused)
{
	const char *names[] = { "disagrees" };
	char want[256];

	snprintf(want, sizeof(want),
		 "opreport: skipping handler " FAKE_DIR3
		 "/libdisagrees.so: handler table of %zu bytes says ABI 1.0, "
		 "whose table is %zu bytes\n",
		 (size_t)OPJIT_HANDLER_SIZE_1_3,
		 (size_t)OPJIT_HANDLER_SIZE_1_0);
	capture_begin();
	ck_assert_int_eq(anon_handlers_load(&hs, names, 1, FAKE_DIR3), 0);
	ck_assert_str_eq(capture_end(), want);
	ck_assert_uint_eq(hs->n, 0);
}
END_TEST

/* A handler built before 1.5 with minor 3 and a 1.0 table (as the
 * example taught) still loads, read as the 1.0 table it is. */
START_TEST(legacy_short_table_loads)
{
	const char *names[] = { "legacy" };

	capture_begin();
	ck_assert_int_eq(anon_handlers_load(&hs, names, 1, FAKE_DIR3), 0);
	ck_assert_str_eq(capture_end(), "");
	ck_assert_uint_eq(hs->n, 1);
}
END_TEST

/* The table of each minor has its own size, and every size the host
 * knows is in agreement with the header's macros. */
START_TEST(table_size_per_minor)
{
	ck_assert_uint_eq(handler_table_size(0), OPJIT_HANDLER_SIZE_1_0);
	ck_assert_uint_eq(handler_table_size(2), OPJIT_HANDLER_SIZE_1_0);
	ck_assert_uint_eq(handler_table_size(3), OPJIT_HANDLER_SIZE_1_3);
	ck_assert_uint_eq(handler_table_size(OPJIT_HANDLER_ABI_MINOR),
			  OPJIT_HANDLER_SIZE);
	ck_assert_uint_eq(handler_table_size(99), OPJIT_HANDLER_SIZE);
}
END_TEST

/* The sizes a handler is given are the same in a helper as in opreport. */
static void sizes_told(int none, char *out, size_t len)
{
	struct anon_resolved r;

	anon_handlers_free(hs);
	hs = NULL;
	anon_handlers_isolate(&(struct anon_isolation){
		.none = none,
		.timeout_ms = ANON_HANDLER_TIMEOUT_MS });
	load_one_from(FAKE_DIR, "alpha");
	memset(&sess, 0, sizeof(sess));
	session_proc(0, 100, "sizes");
	capture_begin();
	ck_assert_int_eq(resolve_all(hs, &sess, 0, grow_smp, 4, &r), 1);
	snprintf(out, len, "%s", capture_end());
}

START_TEST(sizes_given_alike_by_both_paths)
{
	char inproc[512], iso[512], want[512];

	sizes_told(1, inproc, sizeof(inproc));
	sizes_told(0, iso, sizeof(iso));
	snprintf(want, sizeof(want),
		 "opreport: alpha: claimed\nopreport: alpha: host %zu "
		 "process %zu candidate %zu\nopreport: alpha: batch %zu\n",
		 (size_t)OPJIT_HOST_SIZE_1_0, (size_t)OPJIT_PROCESS_SIZE_1_0,
		 (size_t)OPJIT_MAP_CANDIDATE_SIZE_1_0,
		 (size_t)OPJIT_RESOLVE_BATCH_SIZE_1_2);
	ck_assert_str_eq(inproc, want);
	ck_assert_str_eq(iso, want);
}
END_TEST

/* The library loaded is the descriptor the trust rules checked, not the
 * path opened again. */
START_TEST(loaded_through_the_checked_descriptor)
{
	struct anon_handler h;
	struct link_map *lm = NULL;
	char reason[256] = "";

	ck_assert_int_eq(handler_open(&h, FAKE_DIR "/libalpha.so", "alpha",
				      reason, sizeof(reason)),
			 0);
	ck_assert_int_eq(dlinfo(h.dl, RTLD_DI_LINKMAP, &lm), 0);
	ck_assert_msg(!strncmp(lm->l_name, "/proc/self/fd/", 14),
		      "loaded from %s", lm->l_name);
	handler_close(&h);
}
END_TEST

/* A size no table can have is refused before a byte past 1.0 is read. */
START_TEST(table_of_absurd_size_refused)
{
	const char *names[] = { "huge" };

	capture_begin();
	ck_assert_int_eq(anon_handlers_load(&hs, names, 1, FAKE_DIR3), 0);
	ck_assert_str_eq(capture_end(),
			 "opreport: skipping handler " FAKE_DIR3
			 "/libhuge.so: handler table of "
			 "18446744073709551615 bytes, more than any 1.x table "
			 "can be\n");
	ck_assert_uint_eq(hs->n, 0);
}
END_TEST

static void assert_malformed(const char *name)
{
	struct anon_resolved r;
	char want[512];
	const char *err;

	load_one_from(FAKE_DIR3, name);
	memset(&sess, 0, sizeof(sess));
	session_proc(0, 100, name);
	capture_begin();
	ck_assert_int_eq(resolve_all(hs, &sess, 0, grow_smp, 4, &r), 1);
	err = capture_end();
	snprintf(want, sizeof(want),
		 "opreport: %s: claimed\nopreport: %s: %d "
		 "malformed symbol%s for process 100 (%s): a reserved "
		 "field set, or fields past ABI 1." MINOR
		 "; counted as (malformed "
		 "symbol)\n",
		 name, name, strcmp(name, "badsym") ? 2 : 1,
		 strcmp(name, "badsym") ? "s" : "", name);
	ck_assert_str_eq(err, want);
	ck_assert_str_eq(r.syms[2]->name, "(malformed symbol)");
}

START_TEST(symbol_with_reserved_set_is_malformed)
{
	assert_malformed("badsym");
}
END_TEST

START_TEST(symbol_with_unknown_fields_set_is_malformed)
{
	assert_malformed("rudesyms");
}
END_TEST

/* The trust rules reach a handler as the host's open_map. */
START_TEST(host_offers_open_map)
{
	/* the host table lives where the handler runs: look in-process */
	anon_handlers_isolate(&(struct anon_isolation){
		.none = 1,
		.timeout_ms = ANON_HANDLER_TIMEOUT_MS });
	load_one_from(FAKE_DIR, "alpha");
	ck_assert_uint_eq(hs->v[0].host.struct_size, OPJIT_HOST_SIZE_1_0);
	ck_assert_ptr_nonnull(hs->v[0].host.open_map);
	ck_assert_ptr_nonnull(hs->v[0].host.warn);
}
END_TEST

static Suite *loader_suite(void)
{
	Suite *s = suite_create("handler_loader");
	TCase *load = tcase_create("refusals");
	TCase *res = tcase_create("claim");
	TCase *inproc, *iso, *grow;

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
	tcase_add_test(load, writable_dir_ignored);
	tcase_add_test(load, other_users_dir_ignored);
	tcase_add_test(load, later_refusal_hides_nothing);
	tcase_add_test(load, writable_library_refused);
	tcase_add_test(load, other_users_library_refused);
	tcase_add_test(load, library_linked_from_writable_dir_refused);
	tcase_add_test(load, bad_ones_do_not_stop_the_others);
	tcase_add_test(load, search_order);
	tcase_add_test(load, list_handlers);
	tcase_add_test(res, first_claim_wins);
	tcase_add_test(res, second_handler_gets_what_first_declines);
	tcase_add_test(res, claim_error_goes_on);
	tcase_add_test(res, resolve_error_reported);
	tcase_add_test(res, handler_text_kept_to_one_line);
	tcase_add_test(res, warning_flood_capped);
	tcase_add_test(res, big_process_in_batches);
	tcase_add_test(res, candidates_archived_first);
	tcase_add_test(res, candidates_plain_process);
	tcase_add_test(res, inline_chains_reach_the_report);
	tcase_add_test(res, long_inline_chain_is_cut);
	tcase_add_test(res, malformed_inline_frame_ends_the_chain);
	tcase_add_test(res, asked_then_named_is_claimed_once);
	tcase_add_test(res, asked_timeless_then_named_is_claimed_once);
	tcase_add_test(res, asked_all_then_named_claimed_once_each);
	tcase_add_test(res, asked_lines_said_once);
	tcase_add_test(res, asked_failure_said_once);
	suite_add_tcase(s, load);
	suite_add_tcase(s, res);
	/* the same claims, inside opreport: the same answers */
	inproc = tcase_create("claim_inprocess");
	tcase_add_checked_fixture(inproc, setup_inprocess, teardown);
	tcase_add_test(inproc, first_claim_wins);
	tcase_add_test(inproc, second_handler_gets_what_first_declines);
	tcase_add_test(inproc, claim_error_goes_on);
	tcase_add_test(inproc, resolve_error_reported);
	tcase_add_test(inproc, handler_text_kept_to_one_line);
	tcase_add_test(inproc, warning_flood_capped);
	tcase_add_test(inproc, big_process_in_batches);
	tcase_add_test(inproc, candidates_archived_first);
	tcase_add_test(inproc, candidates_plain_process);
	tcase_add_test(inproc, inline_chains_reach_the_report);
	tcase_add_test(inproc, long_inline_chain_is_cut);
	tcase_add_test(inproc, malformed_inline_frame_ends_the_chain);
	tcase_add_test(inproc, timeless_handler_asked_each_address_once);
	tcase_add_test(inproc, asked_then_named_is_claimed_once);
	tcase_add_test(inproc, asked_timeless_then_named_is_claimed_once);
	tcase_add_test(inproc, asked_all_then_named_claimed_once_each);
	tcase_add_test(inproc, asked_lines_said_once);
	tcase_add_test(inproc, asked_failure_said_once);
	suite_add_tcase(s, inproc);
	iso = tcase_create("isolation");
	tcase_add_checked_fixture(iso, setup, teardown);
	tcase_set_timeout(iso, 30);
	tcase_add_test(iso, segv_in_claim);
	tcase_add_test(iso, segv_in_resolve);
	tcase_add_test(iso, segv_in_release);
	tcase_add_test(iso, abort_in_resolve);
	tcase_add_test(iso, loop_in_claim);
	tcase_add_test(iso, loop_in_resolve);
	tcase_add_test(iso, exit_in_claim);
	tcase_add_test(iso, null_name);
	tcase_add_test(iso, huge_size);
	tcase_add_test(iso, fresh_pointers_group_by_content);
	tcase_add_test(iso, socket_refused);
	tcase_add_test(iso, file_write_refused);
	tcase_add_test(iso, segv_in_constructor);
	tcase_add_test(iso, list_survives_bad_constructor);
	suite_add_tcase(s, iso);
	grow = tcase_create("growth");
	tcase_add_checked_fixture(grow, setup, teardown);
	tcase_add_test(grow, handler_built_for_1_0_works);
	tcase_add_test(grow, later_handler_works_in_this_host);
	tcase_add_test(grow, timeless_handler_asked_each_address_once);
	tcase_add_test(grow, later_table_with_unknown_slots_accepted);
	tcase_add_test(grow, required_feature_refused);
	tcase_add_test(grow, minor_and_size_disagree_refused);
	tcase_add_test(grow, legacy_short_table_loads);
	tcase_add_test(grow, table_size_per_minor);
	tcase_add_test(grow, sizes_given_alike_by_both_paths);
	tcase_add_test(grow, loaded_through_the_checked_descriptor);
	tcase_add_test(grow, table_of_absurd_size_refused);
	tcase_add_test(grow, symbol_with_reserved_set_is_malformed);
	tcase_add_test(grow, symbol_with_unknown_fields_set_is_malformed);
	tcase_add_test(grow, host_offers_open_map);
	suite_add_tcase(s, grow);
	return s;
}

int main(void)
{
	/* the loader's lines as opreport prints them */
	oputil_diag_set_program("opreport");
	return opjit_check_run(loader_suite());
}
