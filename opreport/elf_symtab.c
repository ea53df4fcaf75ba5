// SPDX-License-Identifier: GPL-3.0-or-later
#include "elf_symtab.h"

#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <oputil/search.h>

/* No real table comes near this; a damaged header must not make us
 * allocate gigabytes. */
#define SYMTAB_MAX_BYTES (256u << 20)

struct symtab_ent {
	uint64_t value, size;
	uint32_t name;  /* offset in strtab */
	uint16_t shndx;
	uint8_t info;   /* st_info: binding and type */
};

struct symtab_sec {
	uint64_t addr, size;
	bool code;      /* SHF_EXECINSTR */
};

struct elf_symtab {
	struct symtab_ent *v; /* in file order until sorted by value */
	size_t n;
	bool sorted;
	char *strtab;         /* NUL-terminated at strtab_len */
	size_t strtab_len;
	struct symtab_sec *secs;
	size_t nr_secs;
	bool relocatable;     /* ET_REL: values are section offsets */
};

/* Read LEN bytes at OFF of ABFD into a new buffer with EXTRA zero bytes
 * after them, or NULL. */
static void *read_at(bfd *abfd, uint64_t off, uint64_t len, size_t extra,
		     int *err)
{
	ufile_ptr fsize = bfd_get_file_size(abfd);
	char *buf;

	*err = 0;
	if (!len || len > SYMTAB_MAX_BYTES || (fsize && (off > fsize ||
						      len > fsize - off)))
		return NULL;
	buf = malloc(len + extra);
	if (!buf) {
		*err = -ENOMEM;
		return NULL;
	}
	if (bfd_seek(abfd, (file_ptr)off, SEEK_SET) ||
	    bfd_bread(buf, len, abfd) != len) {
		free(buf);
		return NULL;
	}
	memset(buf + len, 0, extra);
	return buf;
}

static int ent_cmp(const void *pa, const void *pb)
{
	const struct symtab_ent *a = pa, *b = pb;

	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	/* the file's order among equal values, for a stable table */
	return (a->name > b->name) - (a->name < b->name);
}

/* The section headers' fields we need, in either class. */
struct shdr {
	uint32_t type, link;
	uint64_t flags, addr, offset, size, entsize;
};

#define SHDR_FIELD(abfd, p, cls, f)                                           \
	(sizeof(((Elf##cls##_Shdr *)0)->f) == 8 ?                             \
		 bfd_get_64(abfd, (p) + offsetof(Elf##cls##_Shdr, f)) :       \
		 bfd_get_32(abfd, (p) + offsetof(Elf##cls##_Shdr, f)))

static void shdr_get(bfd *abfd, const unsigned char *p, bool is64,
		     struct shdr *s)
{
	if (is64) {
		s->type = SHDR_FIELD(abfd, p, 64, sh_type);
		s->link = SHDR_FIELD(abfd, p, 64, sh_link);
		s->flags = SHDR_FIELD(abfd, p, 64, sh_flags);
		s->addr = SHDR_FIELD(abfd, p, 64, sh_addr);
		s->offset = SHDR_FIELD(abfd, p, 64, sh_offset);
		s->size = SHDR_FIELD(abfd, p, 64, sh_size);
		s->entsize = SHDR_FIELD(abfd, p, 64, sh_entsize);
	} else {
		s->type = SHDR_FIELD(abfd, p, 32, sh_type);
		s->link = SHDR_FIELD(abfd, p, 32, sh_link);
		s->flags = SHDR_FIELD(abfd, p, 32, sh_flags);
		s->addr = SHDR_FIELD(abfd, p, 32, sh_addr);
		s->offset = SHDR_FIELD(abfd, p, 32, sh_offset);
		s->size = SHDR_FIELD(abfd, p, 32, sh_size);
		s->entsize = SHDR_FIELD(abfd, p, 32, sh_entsize);
	}
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

struct ehdr {
	bool is64, relocatable;
	uint64_t shoff;
	unsigned shentsize, shnum;
};

static bool ehdr_get(bfd *abfd, struct ehdr *h)
{
	unsigned char b[sizeof(Elf64_Ehdr)];

	if (bfd_get_flavour(abfd) != bfd_target_elf_flavour ||
	    bfd_seek(abfd, 0, SEEK_SET) ||
	    bfd_bread(b, sizeof(Elf32_Ehdr), abfd) != sizeof(Elf32_Ehdr) ||
	    memcmp(b, ELFMAG, SELFMAG))
		return false;
	h->is64 = b[EI_CLASS] == ELFCLASS64;
	if (h->is64 && bfd_bread(b + sizeof(Elf32_Ehdr),
				 sizeof(Elf64_Ehdr) - sizeof(Elf32_Ehdr),
				 abfd) != sizeof(Elf64_Ehdr) - sizeof(Elf32_Ehdr))
		return false;
	if (h->is64) {
		h->shoff = bfd_get_64(abfd, b + offsetof(Elf64_Ehdr, e_shoff));
		h->shentsize = bfd_get_16(abfd, b + offsetof(Elf64_Ehdr,
							     e_shentsize));
		h->shnum = bfd_get_16(abfd, b + offsetof(Elf64_Ehdr, e_shnum));
		h->relocatable = bfd_get_16(abfd, b + offsetof(Elf64_Ehdr,
							       e_type)) ==
				 ET_REL;
	} else {
		h->shoff = bfd_get_32(abfd, b + offsetof(Elf32_Ehdr, e_shoff));
		h->shentsize = bfd_get_16(abfd, b + offsetof(Elf32_Ehdr,
							     e_shentsize));
		h->shnum = bfd_get_16(abfd, b + offsetof(Elf32_Ehdr, e_shnum));
		h->relocatable = bfd_get_16(abfd, b + offsetof(Elf32_Ehdr,
							       e_type)) ==
				 ET_REL;
	}
	return h->shentsize == (h->is64 ? sizeof(Elf64_Shdr) :
					  sizeof(Elf32_Shdr)) &&
	       h->shnum;
}

int elf_symtab_read(struct elf_symtab **out, bfd *abfd, bool dynamic)
{
	unsigned char *shdrs = NULL, *syms = NULL;
	struct elf_symtab *t = NULL;
	struct shdr tab, str, s;
	struct ehdr h;
	uint64_t i, nsyms;
	int err = 0;

	*out = NULL;
	if (!ehdr_get(abfd, &h))
		return 0;
	shdrs = read_at(abfd, h.shoff, (uint64_t)h.shnum * h.shentsize, 0,
			&err);
	if (!shdrs)
		return err;
	for (i = 0; i < h.shnum; i++) {
		shdr_get(abfd, shdrs + i * h.shentsize, h.is64, &tab);
		if (tab.type == (dynamic ? SHT_DYNSYM : SHT_SYMTAB))
			break;
	}
	if (i == h.shnum || tab.link >= h.shnum ||
	    tab.entsize != (h.is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym)))
		goto out;
	nsyms = tab.size / tab.entsize;
	shdr_get(abfd, shdrs + (uint64_t)tab.link * h.shentsize, h.is64,
		 &str);
	if (str.type != SHT_STRTAB || nsyms < 2)
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
	for (i = 0; i < h.shnum; i++) {
		shdr_get(abfd, shdrs + i * h.shentsize, h.is64, &s);
		t->secs[i] = (struct symtab_sec){ s.addr, s.size,
						  !!(s.flags & SHF_EXECINSTR) };
	}
	t->nr_secs = h.shnum;
	syms = read_at(abfd, tab.offset, tab.size, 0, &err);
	if (!syms)
		goto out;
	t->strtab = read_at(abfd, str.offset, str.size, 1, &err);
	if (!t->strtab)
		goto out;
	t->strtab_len = str.size;
	t->v = calloc(nsyms, sizeof(*t->v));
	if (!t->v) {
		err = -ENOMEM;
		goto out;
	}
	/* entry 0 is the null symbol */
	for (i = 1; i < nsyms; i++) {
		struct symtab_ent *e = &t->v[t->n];

		sym_get(abfd, syms + i * tab.entsize, h.is64, e);
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
