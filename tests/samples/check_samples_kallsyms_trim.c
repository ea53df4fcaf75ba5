// SPDX-License-Identifier: GPL-3.0-or-later
/* samples/kallsyms_trim.c: the two-pass trim keeps exactly the lines the
 * sort of every line kept (kallsyms_trim_ref.c), on tables whose modules
 * are out of order, on random tables, and on this machine's own
 * /proc/kallsyms; the trim by the table's index (kallsyms_index*.c)
 * writes the same bytes on each, and reads the table when the index is
 * another table's. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <opjit/samples.h>

#include "check_run.h"
#include "kallsyms_trim_ref.h"

#define W(m, a)                     \
	{                           \
		m, sizeof(m) - 1, a \
	}

/* The trim and the reference on the same input agree, and return
 * EXPECT_RET (ANY_RET: whatever it is); the trim's output, NUL-terminated,
 * for the caller to free. */
#define ANY_RET 2

static char *both(const char *text, size_t len,
		  const struct ops_ksym_want *want, size_t n, int expect_ret)
{
	struct ops_ksym_want *copy = calloc(n + 1, sizeof(*copy));
	struct ops_buf got = { 0 }, ref = { 0 }, idx = { 0 };
	char *s;

	ck_assert_ptr_nonnull(copy);
	if (n)
		memcpy(copy, want, n * sizeof(*want));
	int ref_ret = kallsyms_trim_ref(text, len, want, n, &ref);

	ck_assert_int_eq(ops_kallsyms_trim(text, len, copy, n, &got), ref_ret);
	if (expect_ret != ANY_RET)
		ck_assert_int_eq(ref_ret, expect_ret);
	ck_assert_uint_eq(got.len, ref.len);
	ck_assert(!got.len || !memcmp(got.data, ref.data, got.len));
	/* the index's trim: the two passes' bytes, to the last */
	ck_assert_int_eq(kallsyms_trim_own_index(text, len, want, n, &idx),
			 ref_ret);
	ck_assert_uint_eq(idx.len, got.len);
	ck_assert(!got.len || !memcmp(idx.data, got.data, got.len));
	s = strndup(got.len ? (const char *)got.data : "", got.len);
	ck_assert_ptr_nonnull(s);
	ops_buf_free(&got);
	ops_buf_free(&ref);
	ops_buf_free(&idx);
	free(copy);
	return s;
}

/* Modules interleaved and out of address order, the kernel's lines after
 * a module's, aliases at a sample and after it, a module whose name
 * starts another's: every sample at a symbol's first byte, its last, and
 * one below the first. */
START_TEST(modules_out_of_order_and_edges)
{
	const char *ks = "ffffffffc0000200 t ext4_sync\t[ext4]\n"
			 "ffffffffc0002000 t xfs_b\t[xfs]\n"
			 "ffffffff81000300 T idle\n"
			 "ffffffffc0000000 t ext4_read\t[ext4]\n"
			 "ffffffff81000100 t do_work\n"
			 "ffffffffc0000100 t ext4_write\t[ext4]\n"
			 "ffffffffc0000100 t ext4_write_alias\t[ext4]\n"
			 "ffffffffc0001000 t xfs_a\t[xfs]\n"
			 "ffffffff81000200 T schedule\n"
			 "ffffffff81000200 T schedule_alias\n"
			 "ffffffffc0000180 t ext4x_f\t[ext4x]\n"
			 "ffffffff81000000 T _stext\n"
			 "ffffffff81000180 d data_between\n"
			 "0000000000000000 t zero\n"
			 "ffffffff81000400 T unused\n"
			 "ffffffff81000100 t do_work_alias\n"
			 "ffffffffc0000180 t ext4_sync_early\t[ext4]\n";
	const struct ops_ksym_want at[] = {
		W("", 0xffffffff810001ff),     /* do_work's last byte */
		W("", 0xffffffff81000300),     /* idle's first */
		W("", 0xffffffff80ffffff),     /* below every symbol */
		W("ext4", 0xffffffffc000017f), /* ext4_write's last */
		W("ext4", 0xffffffffc0000100), /* and its first, again */
		W("xfs", 0xffffffffc0000fff),  /* below xfs's first */
		W("xfs", 0xffffffffc0002000),  /* xfs's last symbol */
	};
	char *got = both(ks, strlen(ks), at, sizeof(at) / sizeof(*at), 0);

	ck_assert_str_eq(got, "ffffffffc0002000 t xfs_b\t[xfs]\n"
			      "ffffffff81000300 T idle\n"
			      "ffffffff81000100 t do_work\n"
			      "ffffffffc0000100 t ext4_write\t[ext4]\n"
			      "ffffffffc0000100 t ext4_write_alias\t[ext4]\n"
			      "ffffffff81000200 T schedule\n"
			      "ffffffff81000400 T unused\n"
			      "ffffffff81000100 t do_work_alias\n"
			      "ffffffffc0000180 t ext4_sync_early\t[ext4]\n");
	free(got);
}
END_TEST

/* The recorder files a sample in a module's code under the kernel: it
 * keeps the module's lines that name and bound it, whichever module and
 * wherever its lines are, as well as the kernel's it would have kept;
 * the kernel's samples below every module keep no module's line. */
START_TEST(kernel_samples_in_modules)
{
	const char *ks = "ffffffffc0002000 t xfs_b\t[xfs]\n"
			 "ffffffff81000100 t do_work\n"
			 "ffffffffc0000100 t ct_in\t[nf_conntrack]\n"
			 "ffffffffc0000100 t ct_in_alias\t[nf_conntrack]\n"
			 "ffffffffc0001000 t xfs_a\t[xfs]\n"
			 "ffffffff81000200 T schedule\n"
			 "ffffffffc0000000 t ct_get\t[nf_conntrack]\n"
			 "ffffffffc0000200 t ct_put\t[nf_conntrack]\n"
			 "ffffffffc0000200 t ct_put_alias\t[nf_conntrack]\n";
	const struct ops_ksym_want in_modules[] = {
		W("", 0xffffffffc0000180), /* in ct_in */
		W("", 0xffffffffc0002010), /* in xfs's last symbol */
	};
	const struct ops_ksym_want in_kernel[] = {
		W("", 0xffffffff81000180), /* in do_work */
	};
	char *got = both(ks, strlen(ks), in_modules, 2, 0);

	ck_assert_str_eq(got,
			 "ffffffffc0002000 t xfs_b\t[xfs]\n"
			 "ffffffffc0000100 t ct_in\t[nf_conntrack]\n"
			 "ffffffffc0000100 t ct_in_alias\t[nf_conntrack]\n"
			 "ffffffff81000200 T schedule\n"
			 "ffffffffc0000200 t ct_put\t[nf_conntrack]\n");
	free(got);
	got = both(ks, strlen(ks), in_kernel, 1, 0);
	ck_assert_str_eq(got, "ffffffff81000100 t do_work\n"
			      "ffffffff81000200 T schedule\n");
	free(got);
}
END_TEST

/* The symbol after a sample bounds it: only the first line at that
 * address, unless another sample falls in it. */
START_TEST(next_symbol_first_line_only)
{
	const char *ks = "1000 T a\n"
			 "2000 T b\n"
			 "2000 T b_alias\n"
			 "3000 T c\n";
	const struct ops_ksym_want one[] = { W("", 0x1fff) };
	const struct ops_ksym_want two[] = { W("", 0x1fff), W("", 0x2000) };
	char *got = both(ks, strlen(ks), one, 1, 0);

	ck_assert_str_eq(got, "1000 T a\n2000 T b\n");
	free(got);
	got = both(ks, strlen(ks), two, 2, 0);
	ck_assert_str_eq(got,
			 "1000 T a\n2000 T b\n2000 T b_alias\n3000 T c\n");
	free(got);
}
END_TEST

/* Junk is never kept; a table without a code line with an address is
 * left to the caller (1); no samples keep nothing. */
START_TEST(junk_hidden_and_empty)
{
	const char junk[] = "1000 T a\n"
			    "10000000000000000 T too_long\n"
			    "2000 T bad\0name\n"
			    "3000 T ok\t[m\0]\n"
			    "4000 T\n"
			    "5000 TT x\n"
			    "6000 T bad_module\t[m\n"
			    "7000 T e\t[]\n"
			    "8000 T last_without_newline";
	const char *hidden = "0000000000000000 T _stext\n"
			     "0000000000000000 t do_work\n";
	const struct ops_ksym_want at[] = { W("", 0x1000), W("", 0x8000),
					    W("m", 0x3000) };
	char *got = both(junk, sizeof(junk) - 1, at, 3, 0);

	ck_assert_str_eq(got, "1000 T a\n8000 T last_without_newline\n");
	free(got);
	got = both(hidden, strlen(hidden), at, 3, 1);
	ck_assert_str_eq(got, "");
	free(got);
	got = both(junk, sizeof(junk) - 1, NULL, 0, 0);
	ck_assert_str_eq(got, "");
	free(got);
}
END_TEST

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random tables: few addresses (so many aliases), four modules in any
 * order, some lines not code, samples on, beside and between symbols. */
static void random_table(uint64_t seed)
{
	static const char *const mods[] = { "", "a", "ab", "b" };
	const char types[] = "tTwWdD";
	struct ops_ksym_want want[64];
	uint64_t addrs[200];
	char text[200 * 48];
	size_t len = 0, i, n = 0, nl = 1 + rng_next(&seed) % 199;
	char *got;

	for (i = 0; i < nl; i++) {
		const char *m = mods[rng_next(&seed) % 4];

		addrs[i] = rng_next(&seed) % 64 * 16;
		len += (size_t)sprintf(text + len, "%llx %c s%zu%s%s%s\n",
				       (unsigned long long)addrs[i],
				       types[rng_next(&seed) % 6], i,
				       *m ? "\t[" : "", m, *m ? "]" : "");
	}
	while (n < sizeof(want) / sizeof(*want) && rng_next(&seed) % 16) {
		const char *m = mods[rng_next(&seed) % 4];
		uint64_t a = rng_next(&seed) % 2 ? addrs[rng_next(&seed) % nl]
						 : rng_next(&seed) % 1100;

		a += rng_next(&seed) % 3 - 1; /* on, below or above it */
		want[n++] = (struct ops_ksym_want){ m, strlen(m), a };
	}
	got = both(text, len, want, n, ANY_RET);
	free(got);
}

START_TEST(random_tables)
{
	uint64_t i;

	for (i = 1; i <= 5000; i++)
		random_table(0x9e3779b97f4a7c15ull * i);
}
END_TEST

/* This machine's table (130k lines on a distribution kernel): samples
 * on, before and after a spread of its code lines, kernel and module. */
START_TEST(this_machines_kallsyms)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	size_t cap = 1 << 20, len = 0, n = 0, r, pos, kept = 0, lines = 0;
	struct ops_ksym_want *want = NULL;
	char *text = malloc(cap), *got;
	uint64_t seed = 42;

	ck_assert_ptr_nonnull(text);
	if (!f) {
		fprintf(stderr, "this_machines_kallsyms: cannot read "
				"/proc/kallsyms: not run\n");
		free(text);
		return;
	}
	while ((r = fread(text + len, 1, cap - len, f)) > 0) {
		len += r;
		if (len == cap)
			text = realloc(text, cap *= 2);
		ck_assert_ptr_nonnull(text);
	}
	fclose(f);
	want = calloc(len / 100 + 1, sizeof(*want));
	ck_assert_ptr_nonnull(want);
	for (pos = 0; pos < len;) {
		const char *line = text + pos,
			   *nl = memchr(line, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - line) : len - pos;
		const char *mod;
		size_t mlen;
		uint64_t a;

		pos += l + 1;
		lines++;
		if (!ops_kallsyms_scan_code(line, l, &a, &mod, &mlen) ||
		    rng_next(&seed) % 500)
			continue;
		want[n++] = (struct ops_ksym_want){ mod, mlen, a - 1 };
		want[n++] = (struct ops_ksym_want){ mod, mlen, a };
		want[n++] = (struct ops_ksym_want){ mod, mlen, a + 17 };
	}
	got = both(text, len, want, n, n ? 0 : 1);
	if (!n)
		fprintf(stderr, "this_machines_kallsyms: no addresses in "
				"/proc/kallsyms (kptr_restrict): only the "
				"hidden table's case was run\n");
	for (pos = 0; got[pos]; pos++)
		kept += got[pos] == '\n';
	/* a symbol and the next for each sample: a few lines of the table */
	ck_assert(!n || (kept >= n / 3 && kept < lines / 10));
	free(got);
	free(want);
	free(text);
}
END_TEST

/* Read from a file in chunks, the trim keeps what it keeps from memory:
 * lines across chunk boundaries, a line longer than a chunk, a last line
 * without its newline. */
START_TEST(file_in_chunks_as_memory)
{
	char path[] = "/tmp/check_kallsyms_trim.XXXXXX";
	size_t len = 0, i, cap = 3u << 20;
	char *text = malloc(cap), *p;
	struct ops_ksym_want want[64], copy[64];
	struct ops_buf mem = { 0 }, file = { 0 };
	int fd = mkstemp(path);

	ck_assert_ptr_nonnull(text);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	for (i = 0; i < 40000; i++)
		len += (size_t)sprintf(text + len, "%016llx %c sym_%zu%s\n",
				       0xffffffff81000000ull + i * 48,
				       i % 7 ? 't' : 'd', i,
				       i % 5 ? "" : "\t[mod]");
	/* a name of 200 KiB, then a last line without a newline */
	len += (size_t)sprintf(text + len, "ffffffff82000000 T ");
	memset(text + len, 'x', 200 << 10);
	len += 200 << 10;
	len += (size_t)sprintf(text + len, "\nffffffff82100000 T last");
	for (i = 0; i < 64; i++) {
		uint64_t a = 0xffffffff81000000ull + i * 40000 * 48 / 64;

		want[i] = (struct ops_ksym_want){ i % 3 ? "" : "mod",
						  i % 3 ? 0 : 3, a + i % 49 };
	}
	want[0] = (struct ops_ksym_want){ "", 0, 0xffffffff82000010ull };
	want[1] = (struct ops_ksym_want){ "", 0, 0xffffffff82100000ull };
	for (p = text, i = len; i;) {
		ssize_t w = write(fd, p, i);

		ck_assert_int_gt(w, 0);
		p += w;
		i -= (size_t)w;
	}
	memcpy(copy, want, sizeof(want));
	ck_assert_int_eq(ops_kallsyms_trim(text, len, want, 64, &mem), 0);
	ck_assert_int_eq(ops_kallsyms_trim_fd(fd, copy, 64, &file), 0);
	ck_assert_uint_gt(mem.len, 200 << 10); /* the long line is kept */
	ck_assert_uint_eq(file.len, mem.len);
	ck_assert(!memcmp(file.data, mem.data, mem.len));
	ck_assert(!memcmp(mem.data + mem.len - 25,
			  "\nffffffff82100000 T last\n", 25));
	ops_buf_free(&mem);
	ops_buf_free(&file);
	close(fd);
	free(text);
}
END_TEST

/* The scan without a copy reads each line as the parser that splits it
 * does. */
START_TEST(scan_agrees_with_parse)
{
	static const char *const lines[] = {
		"ffffffff81000000 T _stext",
		"ffffffff81000000 t x\t[mod]",
		"ffffffff81000000 t x  \t [mod]",
		"ffffffff81000000 t x \t",
		"ffffffff81000000 t x\t[mod] tail",
		"ffffffff81000000 t x\t[a b]",
		"ffffffff81000000 t x\t[]",
		"ffffffff81000000 t x\tmod",
		"ffffffff81000000 d data",
		"0 T zero",
		"1 W w",
		"FFFFFFFF81000000 w upper",
		"ffffffffffffffff0 T long",
		" 1000 T lead",
		"1000  T two",
		"1000 T",
		"1000 T ",
		"x T y",
		"",
	};
	size_t i;

	for (i = 0; i < sizeof(lines) / sizeof(*lines); i++) {
		char buf[64];
		struct ops_ksym_line kl;
		bool code, scanned;
		const char *mod = NULL;
		size_t mlen = 0;
		uint64_t a = 0;

		strcpy(buf, lines[i]);
		code = !ops_kallsyms_parse_line(buf, &kl) &&
		       ops_kallsyms_is_code(&kl);
		scanned = ops_kallsyms_scan_code(lines[i], strlen(lines[i]),
						 &a, &mod, &mlen);
		ck_assert_msg(code == scanned, "line %zu: %s", i, lines[i]);
		if (!code)
			continue;
		ck_assert_uint_eq(a, kl.addr);
		ck_assert_uint_eq(mlen, kl.module ? strlen(kl.module) : 0);
		ck_assert(!mlen || !memcmp(mod, kl.module, mlen));
	}
}
END_TEST

/* An index trusts no table but its own: on another table of the same
 * size (another module, a symbol moved) or a shorter one it says
 * -ESTALE and appends nothing; bytes that are no index do not parse.
 * (Names are not in it: the lines kept are the table's own.) */
START_TEST(index_of_another_table)
{
	const char *a = "1000 T a\n2000 T b\n3000 t c\t[m]\n4000 t d\t[m]\n",
		   *b = "1000 T a\n2000 T b\n3000 t c\t[n]\n4000 t d\t[n]\n",
		   *d = "1000 T a\n2800 T b\n3000 t c\t[m]\n4000 t d\t[m]\n";
	const struct ops_ksym_want want[] = { W("", 0x1800), W("m", 0x3800),
					      W("", 0x3800) };
	struct ops_buf out = { 0 };
	struct ops_ksym_index ix;
	uint8_t *bytes, *cut;
	size_t blen, i;

	ck_assert_int_eq(ops_kallsyms_index_build(a, strlen(a), &bytes, &blen),
			 0);
	ck_assert_int_eq(ops_kallsyms_index_parse(bytes, blen, &ix), 0);
	ck_assert_int_eq(ops_buf_put(&out, "x", 1), 0);
	ck_assert_int_eq(ops_kallsyms_trim_index(b, strlen(b), &ix, want, 3,
						 &out),
			 -ESTALE);
	ck_assert_int_eq(ops_kallsyms_trim_index(d, strlen(d), &ix, want, 3,
						 &out),
			 -ESTALE);
	ck_assert_int_eq(ops_kallsyms_trim_index(a, strlen(a) - 1, &ix, want,
						 3, &out),
			 -ESTALE);
	ck_assert_uint_eq(out.len, 1);
	ck_assert_int_eq(
		ops_kallsyms_trim_index(a, strlen(a), &ix, want, 3, &out), 0);
	ck_assert_uint_eq(out.len, 1 + strlen(a));
	ops_kallsyms_index_free(&ix);
	/* cut short anywhere, or a byte of its head changed */
	cut = malloc(blen);
	ck_assert_ptr_nonnull(cut);
	for (i = 0; i < blen; i += 8) {
		memcpy(cut, bytes, blen);
		ck_assert_int_eq(ops_kallsyms_index_parse(cut, i, &ix),
				 -EINVAL);
	}
	for (i = 0; i < 32; i += 4) {
		memcpy(cut, bytes, blen);
		cut[i] ^= 0x40;
		if (i == 8 || i == 12) { /* the size: another table's */
			ck_assert_int_eq(
				ops_kallsyms_index_parse(cut, blen, &ix), 0);
			ck_assert_int_eq(ops_kallsyms_trim_index(a, strlen(a),
								 &ix, want, 3,
								 &out),
					 -ESTALE);
			ops_kallsyms_index_free(&ix);
			continue;
		}
		ck_assert_int_eq(ops_kallsyms_index_parse(cut, blen, &ix),
				 -EINVAL);
	}
	free(cut);
	free(bytes);
	ops_buf_free(&out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kallsyms_trim");
	TCase *tc = tcase_create("kallsyms_trim");

	tcase_add_test(tc, modules_out_of_order_and_edges);
	tcase_add_test(tc, kernel_samples_in_modules);
	tcase_add_test(tc, next_symbol_first_line_only);
	tcase_add_test(tc, junk_hidden_and_empty);
	tcase_add_test(tc, random_tables);
	tcase_add_test(tc, this_machines_kallsyms);
	tcase_add_test(tc, file_in_chunks_as_memory);
	tcase_add_test(tc, scan_agrees_with_parse);
	tcase_add_test(tc, index_of_another_table);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
