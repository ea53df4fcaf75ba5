// SPDX-License-Identifier: GPL-3.0-or-later
#include "elf_symsize.h"

#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <oputil/search.h>

/* No real table comes near this; a damaged header must not make us
 * allocate gigabytes. */
#define SYMSIZE_MAX_TABLE (256u << 20)

struct symsize_ent {
	uint64_t value, size;
	uint32_t name; /* offset in strtab */
};

struct elf_symsize {
	struct symsize_ent *v;
	size_t n;
	char *strtab;
	size_t strtab_len;
};

/* Read LEN bytes at OFF of ABFD into a new buffer, or NULL. */
static void *read_at(bfd *abfd, uint64_t off, uint64_t len, int *err)
{
	ufile_ptr fsize = bfd_get_file_size(abfd);
	void *buf;

	*err = 0;
	if (!len || len > SYMSIZE_MAX_TABLE || (fsize && (off > fsize ||
						       len > fsize - off)))
		return NULL;
	buf = malloc(len);
	if (!buf) {
		*err = -ENOMEM;
		return NULL;
	}
	if (bfd_seek(abfd, (file_ptr)off, SEEK_SET) ||
	    bfd_bread(buf, len, abfd) != len) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int ent_cmp(const void *pa, const void *pb)
{
	const struct symsize_ent *a = pa, *b = pb;

	return (a->value > b->value) - (a->value < b->value);
}

/* The section headers' fields we need, in either class. */
struct shdr {
	uint32_t type, link;
	uint64_t offset, size, entsize;
};

static void shdr_get(bfd *abfd, const unsigned char *p, bool is64,
		     struct shdr *s)
{
	if (is64) {
		s->type = bfd_get_32(abfd, p + offsetof(Elf64_Shdr, sh_type));
		s->link = bfd_get_32(abfd, p + offsetof(Elf64_Shdr, sh_link));
		s->offset = bfd_get_64(abfd,
				       p + offsetof(Elf64_Shdr, sh_offset));
		s->size = bfd_get_64(abfd, p + offsetof(Elf64_Shdr, sh_size));
		s->entsize = bfd_get_64(abfd,
					p + offsetof(Elf64_Shdr, sh_entsize));
	} else {
		s->type = bfd_get_32(abfd, p + offsetof(Elf32_Shdr, sh_type));
		s->link = bfd_get_32(abfd, p + offsetof(Elf32_Shdr, sh_link));
		s->offset = bfd_get_32(abfd,
				       p + offsetof(Elf32_Shdr, sh_offset));
		s->size = bfd_get_32(abfd, p + offsetof(Elf32_Shdr, sh_size));
		s->entsize = bfd_get_32(abfd,
					p + offsetof(Elf32_Shdr, sh_entsize));
	}
}

int elf_symsize_read(struct elf_symsize **out, bfd *abfd, bool dynamic)
{
	unsigned char ehdr[sizeof(Elf64_Ehdr)], *shdrs = NULL, *syms = NULL;
	uint64_t shoff, i, nsyms;
	unsigned shentsize, shnum;
	struct elf_symsize *t = NULL;
	struct shdr tab, str;
	bool is64;
	int err = 0;

	*out = NULL;
	if (bfd_get_flavour(abfd) != bfd_target_elf_flavour)
		return 0;
	if (bfd_seek(abfd, 0, SEEK_SET) ||
	    bfd_bread(ehdr, sizeof(Elf32_Ehdr), abfd) != sizeof(Elf32_Ehdr) ||
	    memcmp(ehdr, ELFMAG, SELFMAG))
		return 0;
	is64 = ehdr[EI_CLASS] == ELFCLASS64;
	if (is64 && bfd_bread(ehdr + sizeof(Elf32_Ehdr),
			      sizeof(Elf64_Ehdr) - sizeof(Elf32_Ehdr),
			      abfd) != sizeof(Elf64_Ehdr) - sizeof(Elf32_Ehdr))
		return 0;
	if (is64) {
		shoff = bfd_get_64(abfd, ehdr + offsetof(Elf64_Ehdr, e_shoff));
		shentsize = bfd_get_16(abfd, ehdr +
				       offsetof(Elf64_Ehdr, e_shentsize));
		shnum = bfd_get_16(abfd, ehdr + offsetof(Elf64_Ehdr, e_shnum));
	} else {
		shoff = bfd_get_32(abfd, ehdr + offsetof(Elf32_Ehdr, e_shoff));
		shentsize = bfd_get_16(abfd, ehdr +
				       offsetof(Elf32_Ehdr, e_shentsize));
		shnum = bfd_get_16(abfd, ehdr + offsetof(Elf32_Ehdr, e_shnum));
	}
	if (shentsize != (is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) ||
	    !shnum)
		return 0;
	shdrs = read_at(abfd, shoff, (uint64_t)shnum * shentsize, &err);
	if (!shdrs)
		return err;
	for (i = 0; i < shnum; i++) {
		shdr_get(abfd, shdrs + i * shentsize, is64, &tab);
		if (tab.type == (dynamic ? SHT_DYNSYM : SHT_SYMTAB))
			break;
	}
	if (i == shnum || tab.link >= shnum ||
	    tab.entsize != (is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym)))
		goto out;
	shdr_get(abfd, shdrs + (uint64_t)tab.link * shentsize, is64, &str);
	if (str.type != SHT_STRTAB)
		goto out;
	t = calloc(1, sizeof(*t));
	if (!t) {
		err = -ENOMEM;
		goto out;
	}
	syms = read_at(abfd, tab.offset, tab.size, &err);
	t->strtab = read_at(abfd, str.offset, str.size, &err);
	if (!syms || !t->strtab)
		goto out;
	t->strtab_len = str.size;
	nsyms = tab.size / tab.entsize;
	t->v = calloc(nsyms ? nsyms : 1, sizeof(*t->v));
	if (!t->v) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 1; i < nsyms; i++) {
		const unsigned char *p = syms + i * tab.entsize;
		struct symsize_ent *e = &t->v[t->n];

		if (is64) {
			e->name = bfd_get_32(abfd, p + offsetof(Elf64_Sym,
								st_name));
			e->value = bfd_get_64(abfd, p + offsetof(Elf64_Sym,
								 st_value));
			e->size = bfd_get_64(abfd, p + offsetof(Elf64_Sym,
								st_size));
		} else {
			e->name = bfd_get_32(abfd, p + offsetof(Elf32_Sym,
								st_name));
			e->value = bfd_get_32(abfd, p + offsetof(Elf32_Sym,
								 st_value));
			e->size = bfd_get_32(abfd, p + offsetof(Elf32_Sym,
								st_size));
		}
		if (e->size && e->name < t->strtab_len)
			t->n++;
	}
	qsort(t->v, t->n, sizeof(*t->v), ent_cmp);
	*out = t;
	t = NULL;
out:
	free(shdrs);
	free(syms);
	elf_symsize_free(t);
	return err;
}

/* NAME equals the table's string, but for NAME's "@VERSION". */
static bool name_same(const char *tab, size_t max, const char *name)
{
	size_t len = strcspn(name, "@");

	return strnlen(tab, max) == len && !memcmp(tab, name, len);
}

uint64_t elf_symsize_find(const struct elf_symsize *t, uint64_t value,
			  const char *name)
{
	size_t lo;

	if (!t)
		return 0;
	lo = oputil_partition(0, t->n, m, t->v[m].value < value);
	for (; lo < t->n && t->v[lo].value == value; lo++)
		if (name_same(t->strtab + t->v[lo].name,
			      t->strtab_len - t->v[lo].name, name))
			return t->v[lo].size;
	return 0;
}

void elf_symsize_free(struct elf_symsize *t)
{
	if (!t)
		return;
	free(t->v);
	free(t->strtab);
	free(t);
}
