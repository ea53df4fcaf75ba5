// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * opreport reads ELF symbol tables and PLT stubs itself (elf_symtab.c,
 * elf_plt.c) where it used libbfd; each image named on the command line
 * must give exactly what libbfd gives: the same code symbols with the
 * same rank, and the same stubs with the same names.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bfd_inc.h"
#include "elf_plt.h"
#include "elf_symtab.h"

#include "check_run.h"

static char **images;
static int nr_images;

struct entry {
	uint64_t vma;
	const char *name;
	int prio;
};

static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	if (a->vma != b->vma)
		return a->vma < b->vma ? -1 : 1;
	return c ? c : a->prio - b->prio;
}

/* The filter and rank image_bfd applied to libbfd's symbols. */
static bool bfd_code_sym(asymbol *s)
{
	const char *name = bfd_asymbol_name(s);
	asection *sec = s->section;

	if (s->flags & (BSF_SECTION_SYM | BSF_FILE | BSF_DEBUGGING |
			BSF_WARNING | BSF_INDIRECT))
		return false;
	if (!sec || bfd_is_und_section(sec) || bfd_is_com_section(sec) ||
	    bfd_is_abs_section(sec) || !(bfd_section_flags(sec) & SEC_CODE))
		return false;
	return name && *name && name[0] != '$' && strncmp(name, ".L", 2);
}

static int bfd_prio(asymbol *s)
{
	return ((s->flags & BSF_FUNCTION) ? 4 : 0) +
	       ((s->flags & BSF_GLOBAL) ? 2 : 0) +
	       ((s->flags & BSF_WEAK) ? 1 : 0);
}

static void same(const char *what, const char *path, struct entry *a,
		 size_t na, struct entry *b, size_t nb)
{
	size_t i;

	qsort(a, na, sizeof(*a), entry_cmp);
	qsort(b, nb, sizeof(*b), entry_cmp);
	for (i = 0; i < na && i < nb; i++)
		ck_assert_msg(!entry_cmp(&a[i], &b[i]),
			      "%s: %s: libbfd has %s at %llx (rank %d), "
			      "opreport %s at %llx (rank %d)",
			      path, what, a[i].name,
			      (unsigned long long)a[i].vma, a[i].prio,
			      b[i].name, (unsigned long long)b[i].vma,
			      b[i].prio);
	ck_assert_msg(na == nb, "%s: %s: libbfd has %zu, opreport %zu", path,
		      what, na, nb);
}

static bfd *open_image(const char *path)
{
	bfd *abfd = bfd_openr(path, NULL);

	ck_assert_msg(abfd && bfd_check_format(abfd, bfd_object),
		      "%s: not an object libbfd reads", path);
	return abfd;
}

START_TEST(static_table_as_libbfd)
{
	const char *path = images[_i];
	bfd *abfd = open_image(path);
	struct elf_symtab *t = NULL;
	struct elf_code_sym *ours;
	struct entry *a, *b;
	asymbol **syms;
	long size = bfd_get_symtab_upper_bound(abfd), n, i;
	size_t na = 0, nb;

	ck_assert_int_eq(elf_symtab_read(&t, abfd, false), 0);
	ck_assert_int_gt(size, 0);
	syms = malloc((size_t)size);
	n = bfd_canonicalize_symtab(abfd, syms);
	if (n <= 0) {
		/* stripped: no static table either way */
		ck_assert_ptr_null(t);
		free(syms);
		bfd_close(abfd);
		return;
	}
	ck_assert_ptr_nonnull(t);
	a = calloc((size_t)n + 1, sizeof(*a));
	for (i = 0; i < n; i++)
		if (bfd_code_sym(syms[i]))
			a[na++] = (struct entry){ bfd_asymbol_value(syms[i]),
						  bfd_asymbol_name(syms[i]),
						  bfd_prio(syms[i]) };
	ours = calloc(elf_symtab_count(t) + 1, sizeof(*ours));
	nb = elf_symtab_code(t, ours);
	b = calloc(nb + 1, sizeof(*b));
	for (i = 0; i < (long)nb; i++)
		b[i] = (struct entry){ ours[i].vma, ours[i].name,
				       ours[i].prio };
	ck_assert_msg(na > 0, "%s: no code symbols to compare", path);
	same("code symbols", path, a, na, b, nb);
	free(a);
	free(b);
	free(ours);
	free(syms);
	elf_symtab_free(t);
	bfd_close(abfd);
}
END_TEST

START_TEST(plt_stubs_as_libbfd)
{
	const char *path = images[_i];
	bfd *abfd = open_image(path);
	long size = bfd_get_dynamic_symtab_upper_bound(abfd), nd, ns, i;
	struct elf_plt p = { 0 };
	asymbol **dyn, *synth = NULL;
	struct entry *a, *b;

	ck_assert_int_gt(size, 0);
	dyn = malloc((size_t)size);
	nd = bfd_canonicalize_dynamic_symtab(abfd, dyn);
	ns = bfd_get_synthetic_symtab(abfd, 0, NULL, nd, dyn, &synth);
	ck_assert_msg(ns > 0, "%s: libbfd finds no PLT stubs", path);
	ck_assert_int_eq(elf_plt_read(&p, abfd), 1);
	a = calloc((size_t)ns, sizeof(*a));
	b = calloc(p.n + 1, sizeof(*b));
	for (i = 0; i < ns; i++)
		a[i] = (struct entry){ bfd_asymbol_value(&synth[i]),
				       bfd_asymbol_name(&synth[i]), -1 };
	for (i = 0; i < (long)p.n; i++)
		b[i] = (struct entry){ p.v[i].vma, p.v[i].name, p.v[i].prio };
	same("PLT stubs", path, a, (size_t)ns, b, p.n);
	free(a);
	free(b);
	free(synth);
	free(dyn);
	elf_plt_free(&p);
	bfd_close(abfd);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("elf_tables");
	TCase *tc = tcase_create("as_libbfd");

	if (argc < 2) {
		fprintf(stderr, "usage: %s IMAGE...\n", argv[0]);
		return 2;
	}
	images = argv + 1;
	nr_images = argc - 1;
	bfd_init();
	tcase_add_loop_test(tc, static_table_as_libbfd, 0, nr_images);
	tcase_add_loop_test(tc, plt_stubs_as_libbfd, 0, nr_images);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
