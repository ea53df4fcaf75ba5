// SPDX-License-Identifier: GPL-3.0-or-later
/* The agent's writer without a JVM: records from many threads at once
 * come out whole, the timed flush brings them to disk while the writer
 * is still open, and the file is created only where it is safe. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "jm_format.h"
#include "jm_parse.h"

FILE *agent_log;
int agent_inline = 1;

#define THREADS 4
#define PER_THREAD 5000

static char dir[] = "/tmp/jm-out-test-XXXXXX";
static char path[256];

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/anon.test", dir);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

static unsigned char *slurp(const char *p, size_t *len)
{
	FILE *f = fopen(p, "rb");
	unsigned char *buf;
	long n;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void put_stub(uint64_t addr, const char *name)
{
	unsigned char fixed[JM_DYNAMIC_FIXED];

	agent_put64(fixed, addr);
	agent_put32(fixed + 8, 16);
	agent_put32(fixed + 12, (uint32_t)strlen(name));
	agent_out_record(JM_REC_DYNAMIC_CODE, 0, fixed, sizeof(fixed), name,
			 strlen(name), NULL, 0);
}

static void *writer(void *arg)
{
	uintptr_t t = (uintptr_t)arg;
	char name[32];

	for (int i = 0; i < PER_THREAD; i++) {
		/* names of varying length, so records straddle flushes */
		snprintf(name, sizeof(name), "t%lu-%0*d", (unsigned long)t,
			 1 + i % 9, i);
		put_stub(((uint64_t)t << 32) | (uint64_t)i * 16, name);
	}
	return NULL;
}

START_TEST(test_threads)
{
	pthread_t th[THREADS];
	struct jm_map m;
	unsigned char *buf;
	size_t len;

	ck_assert_int_eq(agent_out_open(path, NULL), 0);
	ck_assert_int_eq(agent_out_start_flusher(), 0);
	for (uintptr_t i = 0; i < THREADS; i++)
		ck_assert_int_eq(
			pthread_create(&th[i], NULL, writer, (void *)i), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	agent_out_close();
	buf = slurp(path, &len);
	ck_assert_int_eq(jm_parse(buf, len, &m), 0);
	ck_assert_str_eq(m.damage, "");
	ck_assert_uint_eq(m.nr_records, THREADS * PER_THREAD);
	ck_assert_uint_eq(m.nr_codes, THREADS * PER_THREAD);
	ck_assert_uint_eq(m.pid, (uint32_t)getpid());
	ck_assert_uint_eq(m.flags, JM_HDR_INLINE);
	jm_map_free(&m);
	free(buf);
}
END_TEST

/* With the writer still open, the flush thread brings a lone record to
 * disk; the test waits for it, for up to ten seconds. */
START_TEST(test_timed_flush)
{
	struct jm_map m = { 0 };
	unsigned char *buf = NULL;
	size_t len = 0;

	ck_assert_int_eq(agent_out_open(path, NULL), 0);
	ck_assert_int_eq(agent_out_start_flusher(), 0);
	put_stub(0x1000, "lonely");
	for (int i = 0; i < 100; i++) {
		free(buf);
		buf = slurp(path, &len);
		if (len > JM_HEADER_SIZE)
			break;
		usleep(100000);
	}
	ck_assert_int_eq(jm_parse(buf, len, &m), 0);
	ck_assert_uint_eq(m.nr_codes, 1);
	ck_assert_str_eq(m.codes[0].name, "lonely");
	jm_map_free(&m);
	free(buf);
	agent_out_close();
}
END_TEST

START_TEST(test_mode_and_stale)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_CREAT, 0666);

	ck_assert_int_ge(fd, 0);
	/* a stale map of ours (our magic) is replaced ... */
	ck_assert_int_eq(write(fd, JM_MAGIC "stale", JM_MAGIC_LEN + 5),
			 JM_MAGIC_LEN + 5);
	close(fd);
	umask(0);
	ck_assert_int_eq(agent_out_open(path, NULL), 0);
	umask(022);
	agent_out_close();
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	ck_assert_int_eq(st.st_size, JM_HEADER_SIZE);
}
END_TEST

/* ... anything else of ours is somebody's document, left alone */
START_TEST(test_not_a_map_left_alone)
{
	int fd = open(path, O_WRONLY | O_CREAT, 0644);
	char buf[16] = "";

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "my thesis", 9), 9);
	close(fd);
	ck_assert_int_eq(agent_out_open(path, NULL), -EEXIST);
	fd = open(path, O_RDONLY);
	ck_assert_int_eq(read(fd, buf, sizeof(buf) - 1), 9);
	close(fd);
	ck_assert_str_eq(buf, "my thesis");
}
END_TEST

START_TEST(test_other_users_file)
{
	struct stat st;
	int fd;

	if (geteuid() != 0) {
		/* a loud note rather than a pass that proves nothing */
		fprintf(stderr, "test_other_users_file: needs root to chown; "
				"covered by e2e_javamap_agent_files\n");
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "theirs", 6), 6);
	ck_assert_int_eq(fchown(fd, 65534, 65534), 0);
	close(fd);
	ck_assert_int_eq(agent_out_open(path, NULL), -EEXIST);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 6);
	ck_assert_uint_eq(st.st_uid, 65534);
	/* records after a refused open go nowhere, quietly */
	put_stub(0x1000, "nowhere");
	agent_out_close();
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 6);
}
END_TEST

static Suite *out_suite(void)
{
	Suite *s = suite_create("jm_agent_out");
	TCase *tc = tcase_create("writer");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_timed_flush);
	suite_add_tcase(s, tc);
	tc = tcase_create("create");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_mode_and_stale);
	tcase_add_test(tc, test_not_a_map_left_alone);
	tcase_add_test(tc, test_other_users_file);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(out_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
