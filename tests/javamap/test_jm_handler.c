// SPDX-License-Identifier: GPL-3.0-or-later
/* The javamap handler through its ABI table: what it claims, what it
 * refuses and the one warning line for each refusal or tear. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <opjit/anon_handler.h>

#include "handler_internal.h"

#include "jm_build.h"
#include "jm_format.h"

#include "check_run.h"

static char dir[] = "/tmp/jm-handler-test-XXXXXX";
static char warns[8][512];
static int nr_warns;
static const struct opjit_handler *h;

static void host_warn(const struct opjit_host *host, const char *msg)
{
	if (nr_warns < 8)
		snprintf(warns[nr_warns], sizeof(warns[0]), "%s", msg);
	nr_warns++;
}

static const struct opjit_host host = {
	.struct_size = OPJIT_HOST_SIZE_1_0,
	.abi_major = OPJIT_HANDLER_ABI_MAJOR,
	.abi_minor = OPJIT_HANDLER_ABI_MINOR,
	.warn = host_warn,
	.open_map = handler_trust_open_map,
};

/* what claim() said when it failed; the process's recorded start */
static char claim_err[256];
static uint64_t proc_start_ns;

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	nr_warns = 0;
	proc_start_ns = 0;
	claim_err[0] = '\0';
	h = opjit_handler_entry(OPJIT_HANDLER_ABI_MAJOR,
				OPJIT_HANDLER_ABI_MINOR);
	ck_assert_ptr_nonnull(h);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void write_file(const char *path, const void *p, size_t n, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, p, n), (ssize_t)n);
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
}

/* a map of pid 4242: one method, compiled at 0x1000 */
static void small_map(struct jmb *b, uint32_t pid)
{
	static const uint32_t lines[] = { 0, 7 };

	jmb_init(b, pid, 0);
	jmb_method(b, 10, 1, "t.C.run()", "t/C.java", lines, 1);
	jmb_code_load(b, 20, 0, 1, 0x1000, 0x40, NULL, NULL, NULL, 0);
}

static int claim_paths(const char *const *paths, const uint32_t *kinds,
		       size_t n, void **state)
{
	struct opjit_map_candidate c[4];
	const struct opjit_map_candidate *cp[4];
	struct opjit_process proc = {
		.struct_size = sizeof(proc),
		/* a pid no process holds (above any pid_max) */
		.tgid = 4194305,
		.nspid = 4242,
		.start_ns = proc_start_ns,
		.uid = (uint32_t)getuid(),
		.comm = "java",
		.exe = "/usr/bin/java",
		.maps = cp,
		.nr_maps = n,
	};

	for (size_t i = 0; i < n; i++) {
		c[i].struct_size = sizeof(c[i]);
		c[i].path = paths[i];
		c[i].kind = kinds[i];
		c[i].flags = 0;
		cp[i] = &c[i];
	}
	*state = NULL;
	return h->claim(&host, &proc, state, claim_err, sizeof(claim_err));
}

static int claim_one(const char *path, void **state)
{
	static const uint32_t anon = OPJIT_MAP_ANON;

	return claim_paths(&path, &anon, 1, state);
}

START_TEST(test_entry)
{
	const struct opjit_handler *old;

	ck_assert_ptr_null(
		opjit_handler_entry(OPJIT_HANDLER_ABI_MAJOR + 1, 0));
	ck_assert_str_eq(h->name, "javamap");
	ck_assert_uint_ge(h->struct_size, OPJIT_HANDLER_V1_SIZE);
	ck_assert_uint_eq(h->abi_major, OPJIT_HANDLER_ABI_MAJOR);
	ck_assert_ptr_nonnull(h->claim);
	ck_assert_ptr_nonnull(h->resolve);
	ck_assert_ptr_nonnull(h->release);
	ck_assert_ptr_nonnull(h->last_error);
	/* 1.4's code_bytes, and for an older host a table without it */
	ck_assert_uint_eq(h->struct_size, OPJIT_HANDLER_SIZE);
	ck_assert_ptr_nonnull(h->code_bytes);
	old = opjit_handler_entry(OPJIT_HANDLER_ABI_MAJOR, 3);
	ck_assert_ptr_nonnull(old);
	/* a 1.3 host's own table, which ends before code_bytes */
	ck_assert_uint_eq(old->struct_size, OPJIT_HANDLER_SIZE_1_3);
	ck_assert_uint_eq(old->abi_minor, 3);
	ck_assert_ptr_eq(old->resolve, h->resolve);
}
END_TEST

START_TEST(test_claims_javamap)
{
	char path[256];
	struct jmb b;
	void *state;
	uint64_t addr = 0x1010, t = 30;
	const struct opjit_symbol *sym = NULL;
	struct opjit_resolve_batch batch = {
		.struct_size = sizeof(batch),
		.count = 1,
		.addrs = &addr,
		.times = &t,
		.symbols = &sym,
	};

	const uint8_t *code;
	uint64_t len, at, ns;

	small_map(&b, 4242);
	path_in(path, sizeof(path), "anon.4242");
	write_file(path, b.buf, b.len, 0644);
	ck_assert_int_eq(claim_one(path, &state), 1);
	ck_assert_ptr_nonnull(state);
	ck_assert_int_eq(h->resolve(state, &batch), 0);
	ck_assert_ptr_nonnull(sym);
	ck_assert_str_eq(sym->name, "t.C.run()");
	ck_assert_ptr_null(h->last_error(state));
	/* a version 1 map holds no code bytes */
	ck_assert_int_eq(h->code_bytes(state, sym, &code, &len, &at, &ns),
			 -ENOENT);
	h->release(state);
	ck_assert_int_eq(nr_warns, 0);
	jmb_free(&b);
}
END_TEST

START_TEST(test_leaves_perf_map)
{
	static const char text[] = "1000 40 perfmap_symbol\n";
	char path[256];
	void *state;

	path_in(path, sizeof(path), "anon.4242");
	write_file(path, text, sizeof(text) - 1, 0644);
	ck_assert_int_eq(claim_one(path, &state), 0);
	ck_assert_ptr_null(state);
	ck_assert_int_eq(nr_warns, 0);
}
END_TEST

/* perf-<pid>.map candidates are perfmap's even when they hold a javamap */
START_TEST(test_ignores_perf_kind)
{
	static const uint32_t kind = OPJIT_MAP_PERF;
	const char *p;
	char path[256];
	struct jmb b;
	void *state;

	small_map(&b, 4242);
	path_in(path, sizeof(path), "perf-4242.map");
	write_file(path, b.buf, b.len, 0644);
	p = path;
	ck_assert_int_eq(claim_paths(&p, &kind, 1, &state), 0);
	ck_assert_int_eq(nr_warns, 0);
	jmb_free(&b);
}
END_TEST

START_TEST(test_missing_is_silent)
{
	char path[256];
	void *state;

	path_in(path, sizeof(path), "anon.4242");
	ck_assert_int_eq(claim_one(path, &state), 0);
	ck_assert_int_eq(nr_warns, 0);
}
END_TEST

START_TEST(test_refuses_symlink)
{
	char path[256], target[256], want[600];
	struct jmb b;
	void *state;

	small_map(&b, 4242);
	path_in(target, sizeof(target), "real");
	path_in(path, sizeof(path), "anon.4242");
	write_file(target, b.buf, b.len, 0644);
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(claim_one(path, &state), 0);
	ck_assert_int_eq(nr_warns, 1);
	snprintf(want, sizeof(want),
		 "%s: is a symbolic link "
		 "(trust rule: no symlinks)",
		 path);
	ck_assert_str_eq(warns[0], want);
	jmb_free(&b);
}
END_TEST

START_TEST(test_refuses_writable)
{
	char path[256], want[600];
	struct jmb b;
	void *state;

	small_map(&b, 4242);
	path_in(path, sizeof(path), "anon.4242");
	write_file(path, b.buf, b.len, 0666);
	ck_assert_int_eq(claim_one(path, &state), 0);
	ck_assert_int_eq(nr_warns, 1);
	snprintf(want, sizeof(want),
		 "%s: writable by group or others "
		 "(trust rule: mode)",
		 path);
	ck_assert_str_eq(warns[0], want);
	jmb_free(&b);
}
END_TEST

START_TEST(test_refuses_other_pid)
{
	char path[256], want[600];
	struct jmb b;
	void *state;

	small_map(&b, 999);
	path_in(path, sizeof(path), "anon.4242");
	write_file(path, b.buf, b.len, 0644);
	ck_assert_int_eq(claim_one(path, &state), 0);
	ck_assert_int_eq(nr_warns, 1);
	snprintf(want, sizeof(want),
		 "%s: written by pid 999, not 4242 "
		 "(trust rule: writer's pid)",
		 path);
	ck_assert_str_eq(warns[0], want);
	jmb_free(&b);
}
END_TEST

START_TEST(test_torn_warns_once)
{
	char path[256], want[600];
	struct jmb b;
	void *state;
	uint64_t addr = 0x1010, t = 30;
	const struct opjit_symbol *sym = NULL;
	struct opjit_resolve_batch batch = {
		.struct_size = sizeof(batch),
		.count = 1,
		.addrs = &addr,
		.times = &t,
		.symbols = &sym,
	};
	size_t whole;

	small_map(&b, 4242);
	whole = b.len;
	jmb_dynamic(&b, 40, 0, 0x9000, 64, "Interpreter");
	path_in(path, sizeof(path), "anon.4242");
	/* the JVM was killed five bytes into its last record */
	write_file(path, b.buf, whole + 5, 0644);
	ck_assert_int_eq(claim_one(path, &state), 1);
	ck_assert_int_eq(nr_warns, 1);
	snprintf(want, sizeof(want),
		 "%s: record at offset %zu cut short "
		 "after 5 bytes; keeping the 2 records before it",
		 path, whole);
	ck_assert_str_eq(warns[0], want);
	ck_assert_int_eq(h->resolve(state, &batch), 0);
	ck_assert_str_eq(sym->name, "t.C.run()");
	h->release(state);
	ck_assert_int_eq(nr_warns, 1);
	jmb_free(&b);
}
END_TEST

START_TEST(test_other_major_fails)
{
	char path[256], want[600];
	struct jmb b;
	void *state;

	small_map(&b, 4242);
	b.buf[8] = 9;
	path_in(path, sizeof(path), "anon.4242");
	write_file(path, b.buf, b.len, 0644);
	ck_assert_int_eq(claim_one(path, &state), -EPROTONOSUPPORT);
	snprintf(want, sizeof(want),
		 "cannot use %s: javamap version 9.0, "
		 "this reader knows 1.x and 2.x",
		 path);
	ck_assert_str_eq(claim_err, want);
	jmb_free(&b);
}
END_TEST

/* The first usable candidate wins: the session's copy before /tmp. */
START_TEST(test_candidate_order)
{
	static const uint32_t kinds[] = { OPJIT_MAP_ANON, OPJIT_MAP_ANON };
	char p1[256], p2[256];
	const char *paths[] = { p1, p2 };
	struct jmb b;
	void *state;
	const struct opjit_symbol *sym = NULL;
	uint64_t addr = 0x9010, t = 50;
	struct opjit_resolve_batch batch = {
		.struct_size = sizeof(batch),
		.count = 1,
		.addrs = &addr,
		.times = &t,
		.symbols = &sym,
	};

	path_in(p1, sizeof(p1), "archived");
	path_in(p2, sizeof(p2), "anon.4242");
	small_map(&b, 4242);
	write_file(p2, b.buf, b.len, 0644);
	jmb_dynamic(&b, 40, 0, 0x9000, 64, "Interpreter");
	write_file(p1, b.buf, b.len, 0644);
	ck_assert_int_eq(claim_paths(paths, kinds, 2, &state), 1);
	ck_assert_int_eq(h->resolve(state, &batch), 0);
	ck_assert_ptr_nonnull(sym);
	ck_assert_str_eq(sym->name, "Interpreter");
	h->release(state);
	jmb_free(&b);
}
END_TEST

/* The agent of the map started (at 1000 ns) a second before the process:
 * an earlier JVM that had the same pid wrote it. */
START_TEST(test_refuses_earlier_jvm)
{
	char path[256], want[600];
	struct jmb b;
	void *state;

	proc_start_ns = 1000 + 1000000000ull;
	small_map(&b, 4242);
	path_in(path, sizeof(path), "anon.4242");
	write_file(path, b.buf, b.len, 0644);
	ck_assert_int_eq(claim_one(path, &state), 0);
	ck_assert_int_eq(nr_warns, 1);
	snprintf(want, sizeof(want),
		 "%s: written by a JVM that started "
		 "1.000 s before the process, pid reused? (trust rule: "
		 "writer's start time)",
		 path);
	ck_assert_str_eq(warns[0], want);
	jmb_free(&b);
}
END_TEST

/* An agent starts after its process did: that map is the process's. */
START_TEST(test_agent_after_process_claimed)
{
	char path[256];
	struct jmb b;
	void *state;

	proc_start_ns = 999;
	small_map(&b, 4242);
	path_in(path, sizeof(path), "anon.4242");
	write_file(path, b.buf, b.len, 0644);
	ck_assert_int_eq(claim_one(path, &state), 1);
	ck_assert_int_eq(nr_warns, 0);
	h->release(state);
	jmb_free(&b);
}
END_TEST

/* Each unnamed sample says why: before the code's load, after its
 * unload, or nothing there at all. */
START_TEST(test_unresolved_reasons)
{
	const uint64_t s = 1000000000ull; /* one second */
	uint64_t addr[4] = { 0x1010, 0x1010, 0x1010, 0x5000 };
	uint64_t t[4] = { 2 * s, 5 * s, 9 * s, 5 * s };
	const struct opjit_symbol *sym[4] = { 0 };
	uint32_t reasons[4] = { 0 };
	const char *files[4] = { 0 };
	uint32_t lines[4] = { 0 };
	struct opjit_resolve_batch batch = {
		.struct_size = OPJIT_RESOLVE_BATCH_SIZE_1_0,
		.count = 4,
		.addrs = addr,
		.times = t,
		.symbols = sym,
		.files = files,
		.lines = lines,
		.reasons = reasons,
	};
	static const uint32_t lt[] = { 0, 7 };
	char path[256];
	struct jmb b;
	void *state;

	jmb_init(&b, 4242, 0);
	jmb_method(&b, 4 * s, 10, "t.C.run()", "t/C.java", lt, 1);
	jmb_code_load(&b, 4 * s, 0, 10, 0x1000, 0x40, NULL, NULL, NULL, 0);
	jmb_code_unload(&b, 8 * s, 10, 0x1000);
	path_in(path, sizeof(path), "anon.4242");
	write_file(path, b.buf, b.len, 0644);
	ck_assert_int_eq(claim_one(path, &state), 1);
	ck_assert_int_eq(h->resolve(state, &batch), 0);
	ck_assert_ptr_null(sym[0]);
	ck_assert_uint_eq(reasons[0], OPJIT_UNRESOLVED_BEFORE_LOAD);
	ck_assert_ptr_nonnull(sym[1]);
	ck_assert_str_eq(sym[1]->name, "t.C.run()");
	ck_assert_uint_eq(reasons[1], 0);
	ck_assert_ptr_null(sym[2]);
	ck_assert_uint_eq(reasons[2], OPJIT_UNRESOLVED_UNLOADED);
	ck_assert_ptr_null(sym[3]);
	ck_assert_uint_eq(reasons[3], OPJIT_UNRESOLVED_NO_ENTRY);
	h->release(state);
	jmb_free(&b);
}
END_TEST

static Suite *jm_handler_suite(void)
{
	Suite *s = suite_create("jm_handler");
	TCase *tc;

	tc = tcase_create("abi");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_entry);
	suite_add_tcase(s, tc);
	tc = tcase_create("claim");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_claims_javamap);
	tcase_add_test(tc, test_leaves_perf_map);
	tcase_add_test(tc, test_ignores_perf_kind);
	tcase_add_test(tc, test_missing_is_silent);
	tcase_add_test(tc, test_candidate_order);
	tcase_add_test(tc, test_unresolved_reasons);
	suite_add_tcase(s, tc);
	tc = tcase_create("trust");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_refuses_symlink);
	tcase_add_test(tc, test_refuses_writable);
	tcase_add_test(tc, test_refuses_other_pid);
	tcase_add_test(tc, test_refuses_earlier_jvm);
	tcase_add_test(tc, test_agent_after_process_claimed);
	suite_add_tcase(s, tc);
	tc = tcase_create("damage");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_torn_warns_once);
	tcase_add_test(tc, test_other_major_fails);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return opjit_check_run(jm_handler_suite());
}
