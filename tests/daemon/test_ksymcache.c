// SPDX-License-Identifier: GPL-3.0-or-later
/* The user's cache of the kernel's symbol table (daemon/ksymcache.c): a
 * table is used only by the boot, kernel and modules it was kept for,
 * whole and unchanged, from a private directory of the user's, never
 * through a link; each refusal is one line. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <opjit/samples.h>

#include "diag.h"
#include "ksymcache.h"

#include "check_run.h"

static char root[64];
static char lines[8][512];
static int nr_lines;

static void collect(const char *line, void *ctx)
{
	(void)ctx;
	if (nr_lines < 8)
		snprintf(lines[nr_lines], sizeof(lines[0]), "%s", line);
	nr_lines++;
}

static char *path(const char *name)
{
	static char buf[4][512];
	static int k;
	char *p = buf[k++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", root, name);
	return p;
}

static void put(const char *name, const char *text)
{
	FILE *f = fopen(path(name), "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* Two modules loaded; the table's BPF and ftrace lines come and go. */
static const char *table =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 t do_work\n"
	"ffffffff81000200 T _etext\n"
	"ffffffffc0001000 t ext4_fill\t[ext4]\n"
	"ffffffffc0002000 t bpf_prog_1_x\t[bpf]\n"
	"ffffffffc0003000 t ftrace_trampoline\t[__builtin__ftrace]\n"
	"ffffffffc0004000 t nf_hook\t[nf_tables]\n";
static const char *table_kept = "ffffffff81000000 T _stext\n"
				"ffffffff81000100 t do_work\n"
				"ffffffff81000200 T _etext\n"
				"ffffffffc0001000 t ext4_fill\t[ext4]\n"
				"ffffffffc0004000 t nf_hook\t[nf_tables]\n";
static const char *modules =
	"ext4 4096 2 - Live 0xffffffffc0001000\n"
	"nf_tables 8192 17 nft_ct, Live 0xffffffffc0004000\n";

static struct ksymcache_sources src;

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/ksymcache.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	put("kallsyms", table);
	put("modules", modules);
	put("notes", "GNU build id 48dc540c");
	put("boot_id", "11111111-2222-3333-4444-555555555555\n");
	src = (struct ksymcache_sources){ strdup(path("kallsyms")),
					  strdup(path("modules")),
					  strdup(path("notes")),
					  strdup(path("boot_id")) };
	nr_lines = 0;
	diag_set_sink(collect, NULL);
}

static void teardown(void)
{
	char cmd[128];

	diag_set_sink(NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	ck_assert_int_eq(system(cmd), 0);
	free((char *)src.kallsyms);
	free((char *)src.modules);
	free((char *)src.notes);
	free((char *)src.boot_id);
}

/* The cache's table through a fresh open: its text, or NULL on a miss. */
static char *lookup(void)
{
	struct ksymcache c;
	char *buf = calloc(1, 4096);
	ssize_t r;
	int fd;

	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(ksymcache_open(&c, path("cache"), &src), 0);
	fd = ksymcache_lookup(&c);
	ksymcache_close(&c);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	r = read(fd, buf, 4095);
	close(fd);
	ck_assert_int_ge(r, 0);
	return buf;
}

/* Keep the kallsyms source's table, as the daemon does after a miss. */
static void fill(void)
{
	struct ksymcache c;
	int fd = open(src.kallsyms, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ksymcache_open(&c, path("cache"), &src), 0);
	ksymcache_fill(&c, fd);
	ksymcache_close(&c);
	close(fd);
}

/* The one entry in the cache directory (its name in a static buffer). */
static const char *entry(void)
{
	static char name[256];
	char cmd[256], rel[300];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls %s", path("cache"));
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	name[0] = '\0';
	ck_assert_ptr_nonnull(fgets(name, sizeof(name), p));
	name[strcspn(name, "\n")] = '\0';
	ck_assert_ptr_null(fgets(cmd, sizeof(cmd), p)); /* only one */
	pclose(p);
	snprintf(rel, sizeof(rel), "cache/%s", name);
	return path(rel);
}

START_TEST(test_fill_then_hit)
{
	struct stat st;
	char *got;

	ck_assert_ptr_null(lookup());
	ck_assert_int_eq(stat(path("cache"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0700);
	fill();
	got = lookup();
	ck_assert_ptr_nonnull(got);
	/* the code that comes and goes is left out */
	ck_assert_str_eq(got, table_kept);
	free(got);
	ck_assert_int_eq(nr_lines, 0);
}
END_TEST

/* A table of many chunks (the fill reads 64 KiB at a time): every line
 * kept but the fleeting ones, wherever the chunks cut it. */
START_TEST(test_fill_many_chunks)
{
	size_t cap = 1 << 22, n = 0, k = 0, i;
	char *all = malloc(cap), *want = malloc(cap), *got;
	struct ksymcache c;
	ssize_t r;
	int fd;

	ck_assert_ptr_nonnull(all);
	ck_assert_ptr_nonnull(want);
	for (i = 0; i < 40000; i++) {
		char line[128];
		int len = snprintf(
			line, sizeof(line),
			i % 7 == 3 ? "ffffffffc%07zx t prog_%zu\t[bpf]\n"
			: i % 5	   ? "ffffffff8%07zx t f_%zu\n"
				   : "ffffffffc%07zx t m_%zu\t[ext4]\n",
			i * 16, i);

		memcpy(all + n, line, (size_t)len);
		n += (size_t)len;
		if (i % 7 != 3) {
			memcpy(want + k, line, (size_t)len);
			k += (size_t)len;
		}
	}
	all[n] = want[k] = '\0';
	put("kallsyms", all);
	fill();
	ck_assert_int_eq(ksymcache_open(&c, path("cache"), &src), 0);
	fd = ksymcache_lookup(&c);
	ksymcache_close(&c);
	ck_assert_int_ge(fd, 0);
	got = calloc(1, cap);
	ck_assert_ptr_nonnull(got);
	r = read(fd, got, cap - 1);
	close(fd);
	ck_assert_int_eq(r, (ssize_t)k);
	ck_assert_int_eq(memcmp(got, want, k), 0);
	free(all);
	free(want);
	free(got);
}
END_TEST

/* Another boot (KASLR moved everything), a module loaded at another
 * address, or the table's first line (addresses now hidden): not used;
 * the entry kept then replaces the old one. */
START_TEST(test_stale_not_used)
{
	char *got, old[256];

	fill();
	snprintf(old, sizeof(old), "%s", entry());
	put("boot_id", "99999999-2222-3333-4444-555555555555\n");
	ck_assert_ptr_null(lookup());
	fill();
	ck_assert_str_ne(entry(), old);
	got = lookup();
	ck_assert_ptr_nonnull(got);
	free(got);
	put("modules", "ext4 4096 2 - Live 0xffffffffc0009000\n"
		       "nf_tables 8192 17 nft_ct, Live 0xffffffffc0004000\n");
	ck_assert_ptr_null(lookup());
	fill();
	put("kallsyms", "0000000000000000 T _stext\n");
	ck_assert_ptr_null(lookup());
	/* a refcount that changes is not a change of table */
	put("kallsyms", table);
	fill();
	put("modules", "ext4 4096 5 - Live 0xffffffffc0009000\n"
		       "nf_tables 8192 1 nft_ct, Live 0xffffffffc0004000\n");
	got = lookup();
	ck_assert_ptr_nonnull(got);
	free(got);
	ck_assert_int_eq(nr_lines, 0);
}
END_TEST

/* A damaged entry (a byte changed, or cut short) is not used: one line. */
START_TEST(test_corrupt_not_used)
{
	const char *e;
	struct stat st;
	int fd;

	fill();
	e = entry();
	ck_assert_msg(stat(e, &st) == 0, "%s", e);
	fd = open(e, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, "X", 1, st.st_size - 3), 1);
	close(fd);
	ck_assert_ptr_null(lookup());
	ck_assert_int_eq(nr_lines, 1);
	ck_assert_ptr_nonnull(strstr(lines[0], "is damaged"));
	fill();
	e = entry();
	ck_assert_int_eq(truncate(e, st.st_size - 10), 0);
	ck_assert_ptr_null(lookup());
	ck_assert_int_eq(nr_lines, 2);
	ck_assert_ptr_nonnull(strstr(lines[1], "is damaged"));
}
END_TEST

/* The entry's index through a fresh open (ksymcache_index.c): 0 and
 * its bytes, or -1. */
static int index_of(uint8_t **p, size_t *len)
{
	struct ksymcache c;
	int fd, ret;

	ck_assert_int_eq(ksymcache_open(&c, path("cache"), &src), 0);
	fd = ksymcache_lookup(&c);
	ck_assert_int_ge(fd, 0);
	ret = ksymcache_index(&c, fd, p, len);
	ksymcache_close(&c);
	close(fd);
	return ret;
}

static ino_t inode(const char *name)
{
	struct stat st;

	ck_assert_msg(stat(name, &st) == 0, "%s", name);
	return st.st_ino;
}

/* The index is made from the entry's table once and read back after;
 * a damaged one is made again with one line, another table's (the
 * entry filled again since) without a word. */
START_TEST(test_index_made_once)
{
	uint8_t *want, *got, *old;
	size_t wlen, glen, olen;
	char idx[600], keep[700];
	ino_t ino;
	int fd;

	ck_assert_int_eq(ops_kallsyms_index_build(
				 table_kept, strlen(table_kept), &want, &wlen),
			 0);
	fill();
	snprintf(idx, sizeof(idx), "%s.idx", entry());
	ck_assert_int_eq(index_of(&got, &glen), 0);
	ck_assert(glen == wlen && !memcmp(got, want, wlen));
	free(got);
	ino = inode(idx);
	ck_assert_int_eq(index_of(&got, &glen), 0);
	ck_assert(glen == wlen && !memcmp(got, want, wlen));
	free(got);
	ck_assert_uint_eq(inode(idx), ino); /* read, not made again */
	ck_assert_int_eq(nr_lines, 0);
	/* damaged: one line, and made again */
	fd = open(idx, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, "X", 1, 64 + 40), 1);
	close(fd);
	ck_assert_int_eq(index_of(&got, &glen), 0);
	ck_assert(glen == wlen && !memcmp(got, want, wlen));
	free(got);
	ck_assert_int_eq(nr_lines, 1);
	ck_assert_ptr_nonnull(strstr(lines[0], ".idx is damaged"));
	/* the entry's table changed under the same key: the old index is
	 * another table's, made again without a word */
	snprintf(keep, sizeof(keep), "cp %s %s", idx, path("old.idx"));
	ck_assert_int_eq(system(keep), 0);
	put("kallsyms", "ffffffff81000000 T _stext\n"
			"ffffffff81000180 t do_more\n");
	fill();
	snprintf(keep, sizeof(keep), "cp %s %s", path("old.idx"), idx);
	ck_assert_int_eq(system(keep), 0);
	ck_assert_int_eq(index_of(&old, &olen), 0);
	ck_assert(olen != wlen || memcmp(old, want, wlen));
	free(old);
	ck_assert_int_eq(nr_lines, 1);
	free(want);
}
END_TEST

/* An entry that is a symbolic link, or others may write: refused, one
 * line each; a cache directory that is a link, or open to others, too. */
START_TEST(test_links_and_modes_refused)
{
	char e[256], moved[300];
	struct ksymcache c;

	fill();
	snprintf(e, sizeof(e), "%s", entry());
	snprintf(moved, sizeof(moved), "%s/elsewhere", root);
	ck_assert_int_eq(rename(e, moved), 0);
	ck_assert_int_eq(symlink(moved, e), 0);
	ck_assert_ptr_null(lookup());
	ck_assert_int_eq(nr_lines, 1);
	ck_assert_ptr_nonnull(strstr(lines[0], "symbolic link"));
	ck_assert_int_eq(unlink(e), 0);
	ck_assert_int_eq(rename(moved, e), 0);
	ck_assert_int_eq(chmod(e, 0666), 0);
	ck_assert_ptr_null(lookup());
	ck_assert_int_eq(nr_lines, 2);
	ck_assert_ptr_nonnull(strstr(lines[1], "writable by other users"));
	ck_assert_int_eq(chmod(path("cache"), 0755), 0);
	ck_assert_int_eq(ksymcache_open(&c, path("cache"), &src), -1);
	ck_assert_int_eq(nr_lines, 3);
	ck_assert_ptr_nonnull(strstr(lines[2], "open to other users"));
	ck_assert_int_eq(mkdir(path("real"), 0700), 0);
	ck_assert_int_eq(symlink(path("real"), path("linked")), 0);
	ck_assert_int_eq(ksymcache_open(&c, path("linked"), &src), -1);
	ck_assert_int_eq(nr_lines, 4);
	ck_assert_ptr_nonnull(strstr(lines[3], "symbolic link"));
}
END_TEST

/* Another user's entry or directory is refused (root can make one). */
START_TEST(test_other_owner_refused)
{
	struct ksymcache c;

	if (geteuid() != 0) {
		/* without root no file can be another's: the modes above */
		ck_assert_int_eq(nr_lines, 0);
		return;
	}
	fill();
	ck_assert_int_eq(chown(entry(), 12345, 12345), 0);
	ck_assert_ptr_null(lookup());
	ck_assert_int_eq(nr_lines, 1);
	ck_assert_ptr_nonnull(strstr(lines[0], "owned by another user"));
	ck_assert_int_eq(chown(path("cache"), 12345, 12345), 0);
	ck_assert_int_eq(ksymcache_open(&c, path("cache"), &src), -1);
	ck_assert_int_eq(nr_lines, 2);
	ck_assert_ptr_nonnull(strstr(lines[1], "owned by another user"));
	/* root run with another user's HOME makes nothing in it */
	ck_assert_int_eq(mkdir(path("home"), 0755), 0);
	ck_assert_int_eq(chown(path("home"), 12345, 12345), 0);
	ck_assert_int_eq(ksymcache_open(&c, path("home/opjit"), &src), -1);
	ck_assert_int_eq(ksymcache_open(&c, path("home/.cache/opjit"), &src),
			 -1);
	ck_assert_int_eq(access(path("home/opjit"), F_OK), -1);
	ck_assert_int_eq(access(path("home/.cache"), F_OK), -1);
	ck_assert_int_eq(nr_lines, 2);
}
END_TEST

static Suite *ksymcache_suite(void)
{
	Suite *s = suite_create("ksymcache");
	TCase *tc = tcase_create("cache");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_fill_then_hit);
	tcase_add_test(tc, test_fill_many_chunks);
	tcase_add_test(tc, test_stale_not_used);
	tcase_add_test(tc, test_corrupt_not_used);
	tcase_add_test(tc, test_links_and_modes_refused);
	tcase_add_test(tc, test_other_owner_refused);
	tcase_add_test(tc, test_index_made_once);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return opjit_check_run(ksymcache_suite());
}
