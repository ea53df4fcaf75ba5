// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * elf_dynsym_delta() against the dynamic loader: the control block of the
 * real libopjit-jitlog, found from each of the library's mappings, is
 * where dlsym() says it is; damaged images read as damaged, not as a
 * symbol.
 */
#include <check.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_dynsym.h"

#include "check_run.h"

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_gt(n, 0);
	rewind(f);
	buf = malloc((size_t)n);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

START_TEST(control_block_where_the_loader_put_it)
{
	void *h = dlopen(JITLOG_SO, RTLD_NOW | RTLD_LOCAL);
	void *want;
	char line[4200], path[4096];
	uint8_t *buf;
	size_t len;
	int maps = 0;
	FILE *f;

	ck_assert_msg(h != NULL, "dlopen %s: %s", JITLOG_SO, dlerror());
	want = dlsym(h, "opjit_jitlog_control");
	ck_assert_ptr_nonnull(want);
	ck_assert_ptr_nonnull(realpath(JITLOG_SO, path));
	buf = slurp(path, &len);
	f = fopen("/proc/self/maps", "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		uint64_t start, end, pgoff, delta;
		char name[4096] = "", perm[8] = "";
		uint32_t prot;
		int rc;

		if (sscanf(line,
			   "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64
			   " %*s %*s %4095s",
			   &start, &end, perm, &pgoff, name) != 5 ||
		    strcmp(name, path))
			continue;
		prot = (perm[0] == 'r' ? PF_R : 0) |
		       (perm[1] == 'w' ? PF_W : 0) |
		       (perm[2] == 'x' ? PF_X : 0);
		/* the code, as oprofiled uses, and the first page; data
		 * the loader made read-only after relocation (RELRO) can
		 * share a file page with a read-only segment */
		if (!(prot & PF_X) && pgoff)
			continue;
		rc = elf_dynsym_delta(buf, len, "opjit_jitlog_control", pgoff,
				      prot, &delta);
		ck_assert_int_eq(rc, 0);
		ck_assert_uint_eq(start + delta, (uintptr_t)want);
		maps++;
	}
	fclose(f);
	ck_assert_int_ge(maps, 2);
	free(buf);
	dlclose(h);
}
END_TEST

START_TEST(damaged_and_missing)
{
	uint8_t *buf, *cut;
	uint64_t delta = 0;
	size_t len, n;

	buf = slurp(JITLOG_SO, &len);
	ck_assert_int_eq(elf_dynsym_delta(buf, len, "opjit_jitlog_no_such", 0,
					  PF_R, &delta),
			 -ENOENT);
	/* a function is not a data symbol */
	ck_assert_int_eq(elf_dynsym_delta(buf, len, "opjit_jitlog_open", 0,
					  PF_R, &delta),
			 -ENOENT);
	/* no segment at that offset */
	ck_assert_int_eq(elf_dynsym_delta(buf, len, "opjit_jitlog_control",
					  0x7fff0000, PF_R, &delta),
			 -ENOENT);
	/* every cut short of the section headers is damage, never a hit */
	for (n = 0; n < len; n += len / 97 + 1) {
		cut = malloc(n ? n : 1);
		ck_assert_ptr_nonnull(cut);
		memcpy(cut, buf, n);
		ck_assert_int_ne(elf_dynsym_delta(cut, n,
						  "opjit_jitlog_control", 0,
						  PF_R, &delta),
				 0);
		free(cut);
	}
	buf[4] = 1; /* ELFCLASS32 */
	ck_assert_int_eq(elf_dynsym_delta(buf, len, "opjit_jitlog_control", 0,
					  PF_R, &delta),
			 -ENOEXEC);
	free(buf);
}
END_TEST

/* The symbol's writable segment as a pointer into BUF, or NULL. */
static Elf64_Phdr *data_segment(uint8_t *buf)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;

	for (uint16_t i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr *ph = (Elf64_Phdr *)(buf + eh->e_phoff +
						(uint64_t)i * sizeof(*ph));

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W))
			return ph;
	}
	return NULL;
}

START_TEST(control_block_in_writable_data)
{
	uint64_t off = 0;
	Elf64_Phdr *ph;
	uint8_t *buf;
	size_t len;

	buf = slurp(JITLOG_SO, &len);
	ck_assert_int_eq(elf_dynsym_writable(buf, len, "opjit_jitlog_control",
					     24, &off),
			 0);
	/* the file's bytes there are the block's initial value */
	ck_assert_uint_lt(off + 8, len);
	ck_assert_mem_eq(buf + off, "OPJITCTL", 8);
	ck_assert_int_eq(elf_dynsym_writable(buf, len, "opjit_jitlog_open", 24,
					     &off),
			 -ENOENT);
	/* larger than what the segment's file bytes hold from there */
	ph = data_segment(buf);
	ck_assert_ptr_nonnull(ph);
	ck_assert_int_eq(elf_dynsym_writable(buf, len, "opjit_jitlog_control",
					     ph->p_filesz + 1, &off),
			 -EFAULT);
	/* the same segment read-only, or executable: not writable data */
	ph->p_flags &= ~(uint32_t)PF_W;
	ck_assert_int_eq(elf_dynsym_writable(buf, len, "opjit_jitlog_control",
					     24, &off),
			 -EFAULT);
	ph->p_flags |= PF_W | PF_X;
	ck_assert_int_eq(elf_dynsym_writable(buf, len, "opjit_jitlog_control",
					     24, &off),
			 -EFAULT);
	/* the block past the file's bytes (in .bss): not the file's */
	ph->p_flags = PF_R | PF_W;
	ph->p_filesz = 0;
	ck_assert_int_eq(elf_dynsym_writable(buf, len, "opjit_jitlog_control",
					     24, &off),
			 -EFAULT);
	free(buf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("elf_dynsym");
	TCase *tc = tcase_create("lookup");

	tcase_add_test(tc, control_block_where_the_loader_put_it);
	tcase_add_test(tc, damaged_and_missing);
	tcase_add_test(tc, control_block_in_writable_data);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
