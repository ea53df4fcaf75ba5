// SPDX-License-Identifier: GPL-3.0-or-later
/* The trust rules for map files, the host's open_map service, on real
 * files in a scratch directory. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
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

static char dir[64];
static char warned[8][512];
static int nwarned;
static struct opjit_process proc;

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

static char why[512];

static const char *trust_check(const struct stat *st)
{
	static char buf[160];

	return handler_trust_check(st, &proc, false, buf, sizeof(buf));
}

/* open PATH as a live candidate, or as the session's copy */
static int trust_open(const char *path, uint32_t flags)
{
	struct opjit_map_candidate c = {
		.struct_size = OPJIT_MAP_CANDIDATE_SIZE_1_0,
		.path = path,
		.kind = OPJIT_MAP_PERF,
		.flags = flags,
	};

	return host.open_map(&host, &proc, &c, why, sizeof(why));
}

static int64_t now_unix_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/opjit-trust-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	nwarned = 0;
	memset(&proc, 0, sizeof(proc));
	proc.struct_size = sizeof(proc);
	/* no process holds this pid (above any pid_max), so the rule about
	 * a pid now held by a later process stays out of these tests */
	proc.tgid = 4194305;
	proc.nspid = 4242;
	proc.uid = 1000;
	/* the process started a minute ago */
	proc.start_unix_ns = now_unix_ns() - 60LL * 1000000000LL;
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Create DIR/NAME with MODE (applied with chmod, so umask cannot widen or
 * narrow it) and return its path. */
static const char *make_file(const char *name, mode_t mode)
{
	static char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "1000 10 x\n", 10), 10);
	close(fd);
	ck_assert_int_eq(chmod(path, mode), 0);
	return path;
}

static const char *check_path(const char *path)
{
	struct stat st;

	ck_assert_int_eq(lstat(path, &st), 0);
	return trust_check(&st);
}

/* open_map must refuse PATH with exactly one warning holding REASON, and
 * hand the handler the same text. */
static void assert_open_refused(const char *path, const char *reason)
{
	char want[512];

	nwarned = 0;
	ck_assert_int_lt(trust_open(path, 0), 0);
	ck_assert_int_eq(nwarned, 1);
	snprintf(want, sizeof(want), "%s: %s", path, reason);
	ck_assert_str_eq(warned[0], want);
	ck_assert_str_eq(why, want);
}

START_TEST(root_owned_private_file_trusted)
{
	const char *p = make_file("perf-4242.map", 0644);
	int fd;

	ck_assert_ptr_null(check_path(p));
	fd = trust_open(p, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(nwarned, 0);
	close(fd);
}
END_TEST

START_TEST(owner_is_process_uid_trusted)
{
	struct stat st = { .st_mode = S_IFREG | 0600, .st_uid = 1000 };

	st.st_mtim.tv_sec = (time_t)(proc.start_unix_ns / 1000000000LL) + 5;
	ck_assert_ptr_null(trust_check(&st));
}
END_TEST

START_TEST(other_owner_refused)
{
	struct stat st = { .st_mode = S_IFREG | 0600, .st_uid = 12345 };
	const char *p;

	st.st_mtim.tv_sec = (time_t)(proc.start_unix_ns / 1000000000LL) + 5;
	ck_assert_str_eq(trust_check(&st),
			 "owned by uid 12345, not by uid 1000 or root "
			 "(trust rule: owner)");
	/* and on a real file, when we may give it away */
	if (geteuid() != 0)
		return;
	p = make_file("anon.4242", 0644);
	ck_assert_int_eq(chown(p, 12345, 12345), 0);
	assert_open_refused(p, "owned by uid 12345, not by uid 1000 or root "
			       "(trust rule: owner)");
}
END_TEST

START_TEST(world_writable_refused)
{
	const char *p = make_file("perf-4242.map", 0666);

	ck_assert_str_eq(check_path(p), "writable by group or others "
					"(trust rule: mode)");
	assert_open_refused(p, "writable by group or others "
			       "(trust rule: mode)");
}
END_TEST

START_TEST(group_writable_refused)
{
	const char *p = make_file("perf-4242.map", 0620);

	ck_assert_str_eq(check_path(p), "writable by group or others "
					"(trust rule: mode)");
	assert_open_refused(p, "writable by group or others "
			       "(trust rule: mode)");
}
END_TEST

#define OLDER                                                    \
	"last modified before the process started, pid reused? " \
	"(trust rule: map older than the process)"

START_TEST(older_than_process_refused)
{
	const char *p = make_file("perf-4242.map", 0644);
	struct timespec ts[2];

	/* written ten seconds before the process started: another process
	 * that had the same pid left it behind */
	ts[0].tv_sec = (time_t)(proc.start_unix_ns / 1000000000LL) - 10;
	ts[0].tv_nsec = 0;
	ts[1] = ts[0];
	ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
	ck_assert_str_eq(check_path(p), OLDER);
	assert_open_refused(p, OLDER);
}
END_TEST

START_TEST(symlink_refused)
{
	char link[160];
	const char *p = make_file("real.map", 0644);

	snprintf(link, sizeof(link), "%s/perf-4242.map", dir);
	ck_assert_int_eq(symlink(p, link), 0);
	ck_assert_str_eq(check_path(link), "is a symbolic link "
					   "(trust rule: no symlinks)");
	assert_open_refused(link, "is a symbolic link "
				  "(trust rule: no symlinks)");
}
END_TEST

START_TEST(directory_refused)
{
	char d[160];

	snprintf(d, sizeof(d), "%s/anon.4242", dir);
	ck_assert_int_eq(mkdir(d, 0755), 0);
	ck_assert_str_eq(check_path(d), "not a regular file "
					"(trust rule: regular file)");
	assert_open_refused(d, "not a regular file "
			       "(trust rule: regular file)");
}
END_TEST

START_TEST(fifo_refused_without_blocking)
{
	char f[160];

	snprintf(f, sizeof(f), "%s/anon.4242", dir);
	ck_assert_int_eq(mkfifo(f, 0644), 0);
	assert_open_refused(f, "not a regular file "
			       "(trust rule: regular file)");
}
END_TEST

START_TEST(missing_file_is_silent)
{
	char f[160];

	snprintf(f, sizeof(f), "%s/perf-4242.map", dir);
	ck_assert_int_eq(trust_open(f, 0), -ENOENT);
	ck_assert_int_eq(nwarned, 0);
	ck_assert_str_eq(why, "");
}
END_TEST

START_TEST(map_of_a_later_process_refused)
{
	const char *p = make_file("perf-4242.map", 0644);
	char want[256];
	int fd;

	/* our pid, recorded for a process that started ten minutes before
	 * we did: a map written now is the later process's (ours) */
	proc.tgid = (uint32_t)getpid();
	proc.uid = (uint32_t)geteuid();
	proc.start_unix_ns = now_unix_ns() - 600LL * 1000000000LL;
	snprintf(want, sizeof(want),
		 "written after pid %u went to a later "
		 "process (trust rule: map newer than the process)",
		 proc.tgid);
	assert_open_refused(p, want);
	/* the session's copy was taken while the recorded process ran */
	nwarned = 0;
	fd = trust_open(p, OPJIT_MAP_ARCHIVED);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(nwarned, 0);
}
END_TEST

static int64_t now_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The same, with the monotonic start the recorder stamps: it decides. */
START_TEST(map_of_a_later_process_refused_by_monotonic_start)
{
	const char *p = make_file("perf-4242.map", 0644);
	char want[256];

	proc.tgid = (uint32_t)getpid();
	proc.uid = (uint32_t)geteuid();
	proc.start_ns = (uint64_t)(now_mono_ns() - 600LL * 1000000000LL);
	/* a wall clock that was stepped since says nothing against it */
	proc.start_unix_ns = now_unix_ns() - 2LL * 1000000000LL;
	snprintf(want, sizeof(want),
		 "written after pid %u went to a later "
		 "process (trust rule: map newer than the process)",
		 proc.tgid);
	assert_open_refused(p, want);
	/* recorded as starting now: the live process is the same one */
	nwarned = 0;
	proc.start_ns = (uint64_t)now_mono_ns();
	proc.start_unix_ns = now_unix_ns() - 3600LL * 1000000000LL;
	{
		int fd = trust_open(p, 0);

		ck_assert_int_ge(fd, 0);
		close(fd);
	}
	ck_assert_int_eq(nwarned, 0);
}
END_TEST

START_TEST(map_of_the_same_live_process_trusted)
{
	const char *p = make_file("perf-4242.map", 0644);
	int fd;

	/* the live holder of the pid is the recorded process itself: it
	 * started no later than now */
	proc.tgid = (uint32_t)getpid();
	proc.uid = (uint32_t)geteuid();
	proc.start_unix_ns = now_unix_ns();
	fd = trust_open(p, 0);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(nwarned, 0);
}
END_TEST

static Suite *trust_suite(void)
{
	Suite *s = suite_create("maptrust");
	TCase *t = tcase_create("rules");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, root_owned_private_file_trusted);
	tcase_add_test(t, owner_is_process_uid_trusted);
	tcase_add_test(t, other_owner_refused);
	tcase_add_test(t, world_writable_refused);
	tcase_add_test(t, group_writable_refused);
	tcase_add_test(t, older_than_process_refused);
	tcase_add_test(t, symlink_refused);
	tcase_add_test(t, directory_refused);
	tcase_add_test(t, fifo_refused_without_blocking);
	tcase_add_test(t, missing_file_is_silent);
	tcase_add_test(t, map_of_a_later_process_refused);
	tcase_add_test(t, map_of_the_same_live_process_trusted);
	tcase_add_test(t, map_of_a_later_process_refused_by_monotonic_start);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return opjit_check_run(trust_suite());
}
