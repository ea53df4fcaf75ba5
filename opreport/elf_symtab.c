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

struct symtab_ent {
	uint64_t value, size;
	uint32_t name; /* offset in strtab */
	uint16_t shndx;
	uint8_t info; /* st_info: binding and type */
};

struct symtab_sec {
	uint64_t addr, size;
	bool code; /* SHF_EXECINSTR */
};

struct elf_symtab {
	struct symtab_ent *v; /* in file order until sorted by value */
	size_t n;
	bool sorted;
	char *strtab; /* NUL-terminated at strtab_len */
	size_t strtab_len;
	struct symtab_sec *secs;
	size_t nr_secs;
	bool relocatable; /* ET_REL: values are section offsets */
};

static int ent_cmp(const void *pa, const void *pb)
{
	const struct symtab_ent *a = pa, *b = pb;

	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	/* the file's order among equal values, for a stable table */
	return (a->name > b->name) - (a->name < b->name);
}

static void sym_get(bfd *abfd, const unsigned char *p, bool is64,
		    struct symtab_ent *e)
{
	if (is64) {
		e->name = bfd_get_32(abfd, p + offsetof(Elf64_Sym, st_name));
		e->info = p[offsetof(Elf64_Sym, st_info)];
		e->shndx = bfd_get_16(abfd, p + offsetof(Elf64_Sym, st_shndx));
		e->value = bfd_get_64(abfd, p + offsetof(Elf64_Sym, st_value));
		e->size = bfd_get_64(abfd, p + offsetof(Elf64_Sym, st_size));
	} else {
		e->name = bfd_get_32(abfd, p + offsetof(Elf32_Sym, st_name));
		e->info = p[offsetof(Elf32_Sym, st_info)];
		e->shndx = bfd_get_16(abfd, p + offsetof(Elf32_Sym, st_shndx));
		e->value = bfd_get_32(abfd, p + offsetof(Elf32_Sym, st_value));
		e->size = bfd_get_32(abfd, p + offsetof(Elf32_Sym, st_size));
	}
}

int elf_symtab_read(struct elf_symtab **out, bfd *abfd, bool dynamic)
{
	struct elf_shdr *shdrs = NULL, *tab = NULL, *str;
	struct elf_symtab *t = NULL;
	unsigned char *syms = NULL;
	struct elf_ehdr h;
	uint64_t i, nsyms;
	int err = 0;

	*out = NULL;
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
	nsyms = tab->size / tab->entsize;
	str = &shdrs[tab->link];
	if (str->type != SHT_STRTAB || nsyms < 2)
		goto out;
	t = calloc(1, sizeof(*t));
	if (!t) {
		err = -ENOMEM;
		goto out;
	}
	t->relocatable = h.relocatable;
	t->secs = calloc(h.shnum, sizeof(*t->secs));
	if (!t->secs) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < h.shnum; i++)
		t->secs[i] = (struct symtab_sec){ shdrs[i].addr, shdrs[i].size,
						  !!(shdrs[i].flags &
						     SHF_EXECINSTR) };
	t->nr_secs = h.shnum;
	syms = elf_read_at(abfd, tab->offset, tab->size, 0, &err);
	if (!syms)
		goto out;
	t->strtab = elf_read_section(abfd, str, &err);
	if (!t->strtab)
		goto out;
	t->strtab_len = str->size;
	t->v = calloc(nsyms, sizeof(*t->v));
	if (!t->v) {
		err = -ENOMEM;
		goto out;
	}
	/* entry 0 is the null symbol */
	for (i = 1; i < nsyms; i++) {
		struct symtab_ent *e = &t->v[t->n];

		sym_get(abfd, syms + i * tab->entsize, h.is64, e);
		if (e->name < t->strtab_len)
			t->n++;
	}
	*out = t;
	t = NULL;
out:
	free(shdrs);
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
static int ent_prio(const struct symtab_ent *e)
{
	return (ELF64_ST_TYPE(e->info) == STT_FUNC ? 4 : 0) +
	       (ELF64_ST_BIND(e->info) == STB_GLOBAL ? 2 : 0) +
	       (ELF64_ST_BIND(e->info) == STB_WEAK ? 1 : 0);
}

size_t elf_symtab_code(const struct elf_symtab *t, struct elf_code_sym *out)
{
	size_t i, n = 0;

	for (i = 0; t && i < t->n; i++) {
		const struct symtab_ent *e = &t->v[i];
		const char *name = t->strtab + e->name;
		const struct symtab_sec *sec;
		unsigned type = ELF64_ST_TYPE(e->info);

		/* SHN_UNDEF, and SHN_ABS, SHN_COMMON and the other
		 * reserved indexes, are no code section */
		if (!e->shndx || e->shndx >= SHN_LORESERVE ||
		    e->shndx >= t->nr_secs)
			continue;
		sec = &t->secs[e->shndx];
		if (!sec->code || type == STT_SECTION || type == STT_FILE)
			continue;
		if (!*name || name[0] == '$' || !strncmp(name, ".L", 2))
			continue;
		out[n].vma = t->relocatable ? sec->addr + e->value : e->value;
		out[n].end = sec->addr + sec->size;
		out[n].size = e->size;
		out[n].name = name;
		out[n].prio = ent_prio(e);
		n++;
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
