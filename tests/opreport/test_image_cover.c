// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * image_bfd reads an ELF image's static table only for the addresses it
 * is asked about (elf_symcover.c).  For each image named on the command
 * line, addresses at every symbol's edges, and a stride through every
 * loadable section, resolve to the same symbols (name, address, size,
 * demangled) as with the whole table read and sorted, in one batch and
 * in several (the call graph asks again), and two addresses share a
 * symbol in one exactly when they do in the other.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bfd_inc.h"
#include "elf_symtab.h"
#include "image_bfd.h"
#include "opreport.h"

#include "check_run.h"

static char **images;
static int nr_images;

struct probes {
	uint64_t *v;
	size_t n, cap;
};

static void probe_add(struct probes *p, uint64_t off)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 4096;
		p->v = realloc(p->v, p->cap * sizeof(*p->v));
		ck_assert_ptr_nonnull(p->v);
	}
	p->v[p->n++] = off;
}

/* The file offsets around VMA, where a loadable section holds them. */
static void probe_vma(struct probes *p, bfd *abfd, uint64_t vma)
{
	static const int64_t d[] = { -1, 0, 1 };
	asection *sec;
	size_t k;

	for (sec = abfd->sections; sec; sec = sec->next) {
		uint64_t lo = bfd_section_vma(sec),
			 size = bfd_section_size(sec);

		if ((bfd_section_flags(sec) & (SEC_LOAD | SEC_HAS_CONTENTS)) !=
		    (SEC_LOAD | SEC_HAS_CONTENTS))
			continue;
		for (k = 0; k < sizeof(d) / sizeof(d[0]); k++)
			if (vma + d[k] >= lo && vma + d[k] - lo < size)
				probe_add(p, (uint64_t)sec->filepos + vma +
						     d[k] - lo);
	}
}

/* Offsets at each code symbol's start and end (of the static and the
 * dynamic table, and of a debug file's, which has the image's
 * addresses), a stride through every loadable section, and some that no
 * section holds. */
static void probes_make(struct probes *p, const char *path, const char *dbg)
{
	const char *paths[] = { path, dbg };
	bfd *abfd = bfd_openr(path, NULL);
	struct elf_symtab *t;
	struct elf_code_sym *c;
	asection *sec;
	size_t i, j, n;
	int dyn;

	ck_assert_msg(abfd && bfd_check_format(abfd, bfd_object),
		      "%s: not an object libbfd reads", path);
	for (j = 0; j < 2 && paths[j]; j++) {
		bfd *tb = j ? bfd_openr(paths[j], NULL) : abfd;

		ck_assert_msg(tb && bfd_check_format(tb, bfd_object),
			      "%s: not an object libbfd reads", paths[j]);
		for (dyn = 0; dyn < 2; dyn++) {
			ck_assert_int_eq(elf_symtab_read(&t, tb, dyn), 0);
			c = calloc(elf_symtab_count(t) + 1, sizeof(*c));
			n = elf_symtab_code(t, c);
			for (i = 0; i < n; i++) {
				probe_vma(p, abfd, c[i].vma);
				if (c[i].size > 2)
					probe_vma(p, abfd,
						  c[i].vma + c[i].size / 2);
				probe_vma(p, abfd, c[i].vma + c[i].size);
			}
			free(c);
			elf_symtab_free(t);
		}
		if (j)
			bfd_close(tb);
	}
	for (sec = abfd->sections; sec; sec = sec->next) {
		uint64_t size = bfd_section_size(sec), step, o;

		if ((bfd_section_flags(sec) & (SEC_LOAD | SEC_HAS_CONTENTS)) !=
		    (SEC_LOAD | SEC_HAS_CONTENTS))
			continue;
		step = size / 100000 > 13 ? size / 100000 : 13;
		for (o = 0; o < size; o += step)
			probe_add(p, (uint64_t)sec->filepos + o);
	}
	probe_add(p, 0);
	probe_add(p, UINT64_MAX - 1);
	bfd_close(abfd);
}

static int u64_cmp(const void *pa, const void *pb)
{
	const uint64_t *a = pa, *b = pb;

	return (*a > *b) - (*a < *b);
}

/* The image at PATH, opened with its whole table or in part. */
static struct image_bfd *image(struct image_cache **c,
			       const struct opreport_opts *o, const char *path,
			       bool whole)
{
	struct ops_image rec = { .kind = OPS_IMAGE_FILE, .path = path };
	struct image_bfd *img;

	ck_assert_int_eq(image_cache_new(c, o, 1), 0);
	image_bfd_whole_tables(whole);
	img = image_cache_get(*c, 0, &rec);
	image_bfd_whole_tables(false);
	ck_assert_ptr_nonnull(img);
	return img;
}

static void same_sym(const char *path, uint64_t off,
		     const struct report_sym *a, const struct report_sym *b)
{
	if (a->vma == b->vma && a->size == b->size &&
	    a->has_vma == b->has_vma && !strcmp(a->name, b->name))
		return;
	ck_abort_msg("%s: offset %#llx: the whole table has %s at %#llx "
		     "(%llu bytes), the part read %s at %#llx (%llu bytes)",
		     path, (unsigned long long)off, a->name,
		     (unsigned long long)a->vma, (unsigned long long)a->size,
		     b->name, (unsigned long long)b->vma,
		     (unsigned long long)b->size);
}

struct pair {
	const struct report_sym *a, *b;
};

static int pair_cmp(const void *pa, const void *pb)
{
	const struct pair *x = pa, *y = pb;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	return (x->b > y->b) - (x->b < y->b);
}

/* A's symbols and B's are the same partition of the addresses. */
static void same_sharing(const char *path, const struct report_sym **a,
			 const struct report_sym **b, size_t n)
{
	struct pair *p = calloc(n + 1, sizeof(*p));
	size_t i, da = 0, db = 0;

	for (i = 0; i < n; i++)
		p[i] = (struct pair){ a[i], b[i] };
	qsort(p, n, sizeof(*p), pair_cmp);
	for (i = 0; i < n; i++) {
		if (i && p[i].a == p[i - 1].a)
			ck_assert_msg(p[i].b == p[i - 1].b,
				      "%s: %s is two symbols in the part read",
				      path, p[i].a->name);
		else
			da++;
	}
	for (i = 0; i < n; i++)
		p[i] = (struct pair){ b[i], a[i] };
	qsort(p, n, sizeof(*p), pair_cmp);
	for (i = 0; i < n; i++)
		if (!i || p[i].a != p[i - 1].a)
			db++;
	ck_assert_msg(da == db,
		      "%s: %zu symbols in the whole table, %zu in the part",
		      path, da, db);
	free(p);
}

/* Resolve the probes in BATCHES interleaved batches, each sorted. */
static void resolve_batches(struct image_bfd *img, const uint64_t *offs,
			    size_t n, size_t batches,
			    const struct report_sym **syms, uint64_t *vmas)
{
	uint64_t *bo = malloc((n + 1) * sizeof(*bo)), *bv;
	const struct report_sym **bs;
	size_t b, i, k;

	bv = malloc((n + 1) * sizeof(*bv));
	bs = malloc((n + 1) * sizeof(*bs));
	for (b = 0; b < batches; b++) {
		for (i = b, k = 0; i < n; i += batches)
			bo[k++] = offs[i];
		image_bfd_resolve(img, bo, k, bs, bv);
		for (i = b, k = 0; i < n; i += batches, k++) {
			syms[i] = bs[k];
			vmas[i] = bv[k];
		}
	}
	free(bo);
	free(bv);
	free(bs);
}

/* Some of the probes, each alone: the part read for one address holds
 * only what that one needs. */
static void singles(const char *path, const struct opreport_opts *o,
		    const struct probes *p, const struct report_sym **sa)
{
	size_t step = p->n / 300 ? p->n / 300 : 1, i;
	struct image_cache *cb;
	struct image_bfd *b = image(&cb, o, path, false);

	for (i = 0; i < p->n; i += step) {
		const struct report_sym *s;
		uint64_t vma;

		image_bfd_resolve(b, &p->v[i], 1, &s, &vma);
		same_sym(path, p->v[i], sa[i], s);
	}
	image_cache_free(cb);
}

START_TEST(part_as_whole)
{
	const char *path = images[2 * _i], *dbg = images[2 * _i + 1];
	struct opreport_opts o = { .demangle = DEMANGLE_SMART };
	struct probes p = { 0 };
	const struct report_sym **sa, **sb;
	uint64_t *va, *vb;
	size_t i, u, batches;

	if (access(path, R_OK)) {
		fprintf(stderr, "test_image_cover: SKIP %s: not installed\n",
			path);
		return;
	}
	probes_make(&p, path, strcmp(dbg, "-") ? dbg : NULL);
	qsort(p.v, p.n, sizeof(*p.v), u64_cmp);
	for (i = u = 0; i < p.n; i++)
		if (!u || p.v[u - 1] != p.v[i])
			p.v[u++] = p.v[i];
	p.n = u;
	sa = calloc(p.n, sizeof(*sa));
	sb = calloc(p.n, sizeof(*sb));
	va = calloc(p.n, sizeof(*va));
	vb = calloc(p.n, sizeof(*vb));
	for (batches = 1; batches <= 3; batches += 2) {
		struct image_cache *ca, *cb;
		struct image_bfd *a = image(&ca, &o, path, true);
		struct image_bfd *b = image(&cb, &o, path, false);
		size_t named = 0;

		image_bfd_resolve(a, p.v, p.n, sa, va);
		resolve_batches(b, p.v, p.n, batches, sb, vb);
		for (i = 0; i < p.n; i++) {
			ck_assert_uint_eq(va[i], vb[i]);
			same_sym(path, p.v[i], sa[i], sb[i]);
			named += sa[i]->has_vma;
		}
		same_sharing(path, sa, sb, p.n);
		ck_assert_msg(named > 0, "%s: no address was named", path);
		if (batches == 1)
			singles(path, &o, &p, sa);
		image_cache_finish(ca, false);
		image_cache_finish(cb, false);
		for (i = 0; i < p.n; i++)
			same_sym(path, p.v[i], sa[i], sb[i]);
		image_cache_free(ca);
		image_cache_free(cb);
	}
	free(sa);
	free(sb);
	free(va);
	free(vb);
	free(p.v);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("image_cover");
	TCase *tc = tcase_create("part_as_whole");

	if (argc < 3 || (argc - 1) % 2) {
		fprintf(stderr, "usage: %s {IMAGE DEBUG-FILE|-}...\n",
			argv[0]);
		return 2;
	}
	images = argv + 1;
	nr_images = (argc - 1) / 2;
	bfd_init();
	tcase_add_loop_test(tc, part_as_whole, 0, nr_images);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
