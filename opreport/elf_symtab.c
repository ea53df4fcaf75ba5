// SPDX-License-Identifier: GPL-3.0-or-later
#include "elf_symtab.h"
#include "elf_read.h"

#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <oputil/search.h>

struct elf_symtab {
	struct elf_sym *v; /* in file order until sorted by value */
	size_t n;
	bool sorted;
	char *strtab; /* NUL-terminated at strtab_len */
	size_t strtab_len;
	struct elf_symtab_sec *secs;
	size_t nr_secs;
	bool relocatable; /* ET_REL: values are section offsets */
};

static int ent_cmp(const void *pa, const void *pb)
{
	const struct elf_sym *a = pa, *b = pb;

	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	/* the file's order among equal values, for a stable table */
	return (a->name > b->name) - (a->name < b->name);
}

int elf_symtab_locate(struct elf_symtab_loc *loc, bfd *abfd, bool dynamic)
{
	struct elf_shdr *shdrs = NULL, *tab = NULL, *str;
	struct elf_ehdr h;
	uint64_t i;
	int err = 0;

	memset(loc, 0, sizeof(*loc));
	if (!elf_read_ehdr(abfd, &h))
		return 0;
	shdrs = elf_read_shdrs(abfd, &h, &err);
	if (!shdrs)
		return err;
	for (i = 0; i < h.shnum && !tab; i++)
		if (shdrs[i].type == (dynamic ? SHT_DYNSYM : SHT_SYMTAB))
			tab = &shdrs[i];
	if (!tab || tab->link >= h.shnum ||
	    tab->entsize != (h.is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym)))
		goto out;
	str = &shdrs[tab->link];
	if (str->type != SHT_STRTAB || tab->size / tab->entsize < 2 ||
	    !elf_read_fits(abfd, tab->offset, tab->size) ||
	    !elf_read_fits(abfd, str->offset, str->size))
		goto out;
	loc->secs = calloc(h.shnum, sizeof(*loc->secs));
	if (!loc->secs) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < h.shnum; i++)
		loc->secs[i] = (struct elf_symtab_sec){
			shdrs[i].addr, shdrs[i].size,
			!!(shdrs[i].flags & SHF_EXECINSTR)
		};
	loc->nr_secs = h.shnum;
	loc->is64 = h.is64;
	loc->relocatable = h.relocatable;
	loc->symoff = tab->offset;
	loc->symsize = tab->size;
	loc->entsize = tab->entsize;
	loc->stroff = str->offset;
	loc->strsize = str->size;
out:
	free(shdrs);
	return err;
}

int elf_symtab_read(struct elf_symtab **out, bfd *abfd, bool dynamic)
{
	struct elf_symtab_loc loc;
	struct elf_symtab *t = NULL;
	unsigned char *syms = NULL;
	uint64_t i, nsyms;
	int err = elf_symtab_locate(&loc, abfd, dynamic);

	*out = NULL;
	if (err || !loc.secs)
		return err;
	nsyms = loc.symsize / loc.entsize;
	t = calloc(1, sizeof(*t));
	if (!t) {
		err = -ENOMEM;
		goto out;
	}
	t->relocatable = loc.relocatable;
	t->secs = loc.secs;
	t->nr_secs = loc.nr_secs;
	loc.secs = NULL;
	syms = elf_read_at(abfd, loc.symoff, loc.symsize, 0, &err);
	if (!syms)
		goto out;
	t->strtab = elf_read_at(abfd, loc.stroff, loc.strsize, 1, &err);
	if (!t->strtab)
		goto out;
	t->strtab_len = loc.strsize;
	t->v = calloc(nsyms, sizeof(*t->v));
	if (!t->v) {
		err = -ENOMEM;
		goto out;
	}
	/* entry 0 is the null symbol */
	for (i = 1; i < nsyms; i++) {
		struct elf_sym *e = &t->v[t->n];

		elf_read_sym(abfd, syms + i * loc.entsize, loc.is64, e);
		if (e->name < t->strtab_len)
			t->n++;
	}
	*out = t;
	t = NULL;
out:
	free(loc.secs);
	free(syms);
	elf_symtab_free(t);
	return err;
}

/* NAME equals the table's string, but for NAME's "@VERSION". */
static bool name_same(const char *tab, size_t max, const char *name)
{
	size_t len = strcspn(name, "@");

	return strnlen(tab, max) == len && !memcmp(tab, name, len);
}

uint64_t elf_symtab_size(struct elf_symtab *t, uint64_t value,
			 const char *name)
{
	size_t lo;

	if (!t)
		return 0;
	/* sorted on first use: a table read for its code symbols alone
	 * never needs it */
	if (!t->sorted) {
		qsort(t->v, t->n, sizeof(*t->v), ent_cmp);
		t->sorted = true;
	}
	lo = oputil_partition(0, t->n, m, t->v[m].value < value);
	for (; lo < t->n && t->v[lo].value == value; lo++)
		if (t->v[lo].size &&
		    name_same(t->strtab + t->v[lo].name,
			      t->strtab_len - t->v[lo].name, name))
			return t->v[lo].size;
	return 0;
}

size_t elf_symtab_count(const struct elf_symtab *t)
{
	return t ? t->n : 0;
}

/* The rank libbfd's flags give: BSF_FUNCTION for STT_FUNC only,
 * BSF_GLOBAL for STB_GLOBAL, BSF_WEAK for STB_WEAK. */
static int ent_prio(const struct elf_sym *e)
{
	return (ELF64_ST_TYPE(e->info) == STT_FUNC ? 4 : 0) +
	       (ELF64_ST_BIND(e->info) == STB_GLOBAL ? 2 : 0) +
	       (ELF64_ST_BIND(e->info) == STB_WEAK ? 1 : 0);
}

bool elf_symtab_code_ent(const struct elf_sym *e,
			 const struct elf_symtab_sec *secs, size_t nr_secs)
{
	unsigned type = ELF64_ST_TYPE(e->info);

	/* SHN_UNDEF, and SHN_ABS, SHN_COMMON and the other reserved
	 * indexes, are no code section */
	if (!e->shndx || e->shndx >= SHN_LORESERVE || e->shndx >= nr_secs)
		return false;
	return secs[e->shndx].code && type != STT_SECTION && type != STT_FILE;
}

bool elf_symtab_code_name(const char *name)
{
	return *name && name[0] != '$' && strncmp(name, ".L", 2);
}

void elf_symtab_code_sym(const struct elf_sym *e,
			 const struct elf_symtab_sec *secs, bool relocatable,
			 const char *name, struct elf_code_sym *out)
{
	const struct elf_symtab_sec *sec = &secs[e->shndx];

	out->vma = relocatable ? sec->addr + e->value : e->value;
	out->end = sec->addr + sec->size;
	out->size = e->size;
	out->name = name;
	out->prio = ent_prio(e);
}

size_t elf_symtab_code(const struct elf_symtab *t, struct elf_code_sym *out)
{
	size_t i, n = 0;

	for (i = 0; t && i < t->n; i++) {
		const struct elf_sym *e = &t->v[i];
		const char *name = t->strtab + e->name;

		if (!elf_symtab_code_ent(e, t->secs, t->nr_secs) ||
		    !elf_symtab_code_name(name))
			continue;
		elf_symtab_code_sym(e, t->secs, t->relocatable, name,
				    &out[n++]);
	}
	return n;
}

void elf_symtab_free(struct elf_symtab *t)
{
	if (!t)
		return;
	free(t->v);
	free(t->strtab);
	free(t->secs);
	free(t);
}
