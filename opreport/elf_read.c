// SPDX-License-Identifier: GPL-3.0-or-later
#include "elf_read.h"

#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* No real table comes near this; a damaged header must not make us
 * allocate gigabytes. */
#define ELF_READ_MAX (256u << 20)

bool elf_read_fits(bfd *abfd, uint64_t off, uint64_t len)
{
	ufile_ptr fsize = bfd_get_file_size(abfd);

	return len && len <= ELF_READ_MAX &&
	       !(fsize && (off > fsize || len > fsize - off));
}

void *elf_read_at(bfd *abfd, uint64_t off, uint64_t len, size_t extra,
		  int *err)
{
	char *buf;

	*err = 0;
	if (!elf_read_fits(abfd, off, len))
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

void *elf_read_section(bfd *abfd, const struct elf_shdr *s, int *err)
{
	*err = 0;
	if (s->type == SHT_NOBITS)
		return NULL;
	return elf_read_at(abfd, s->offset, s->size, 1, err);
}

#define EHDR(cls, f) bfd_get_##cls(abfd, b + offsetof(Elf64_Ehdr, f))
#define EHDR32(cls, f) bfd_get_##cls(abfd, b + offsetof(Elf32_Ehdr, f))

bool elf_read_ehdr(bfd *abfd, struct elf_ehdr *h)
{
	unsigned char b[sizeof(Elf64_Ehdr)];
	unsigned type;

	if (bfd_get_flavour(abfd) != bfd_target_elf_flavour ||
	    bfd_seek(abfd, 0, SEEK_SET) ||
	    bfd_bread(b, sizeof(Elf32_Ehdr), abfd) != sizeof(Elf32_Ehdr) ||
	    memcmp(b, ELFMAG, SELFMAG))
		return false;
	h->is64 = b[EI_CLASS] == ELFCLASS64;
	if (h->is64 &&
	    bfd_bread(b + sizeof(Elf32_Ehdr),
		      sizeof(Elf64_Ehdr) - sizeof(Elf32_Ehdr),
		      abfd) != sizeof(Elf64_Ehdr) - sizeof(Elf32_Ehdr))
		return false;
	if (h->is64) {
		h->shoff = EHDR(64, e_shoff);
		h->shentsize = EHDR(16, e_shentsize);
		h->shnum = EHDR(16, e_shnum);
		h->shstrndx = EHDR(16, e_shstrndx);
		h->machine = EHDR(16, e_machine);
		type = EHDR(16, e_type);
	} else {
		h->shoff = EHDR32(32, e_shoff);
		h->shentsize = EHDR32(16, e_shentsize);
		h->shnum = EHDR32(16, e_shnum);
		h->shstrndx = EHDR32(16, e_shstrndx);
		h->machine = EHDR32(16, e_machine);
		type = EHDR32(16, e_type);
	}
	h->relocatable = type == ET_REL;
	return h->shentsize ==
		       (h->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) &&
	       h->shnum;
}

#define SHDR(cls, f)                                                  \
	(sizeof(((Elf##cls##_Shdr *)0)->f) == 8                       \
		 ? bfd_get_64(abfd, p + offsetof(Elf##cls##_Shdr, f)) \
		 : bfd_get_32(abfd, p + offsetof(Elf##cls##_Shdr, f)))
#define SHDR_ALL(cls)                                                       \
	(struct elf_shdr)                                                   \
	{                                                                   \
		SHDR(cls, sh_name), SHDR(cls, sh_type), SHDR(cls, sh_link), \
			SHDR(cls, sh_flags), SHDR(cls, sh_addr),            \
			SHDR(cls, sh_offset), SHDR(cls, sh_size),           \
			SHDR(cls, sh_entsize)                               \
	}

struct elf_shdr *elf_read_shdrs(bfd *abfd, const struct elf_ehdr *h, int *err)
{
	unsigned char *raw = elf_read_at(
		abfd, h->shoff, (uint64_t)h->shnum * h->shentsize, 0, err);
	struct elf_shdr *s;
	unsigned i;

	if (!raw)
		return NULL;
	s = calloc(h->shnum, sizeof(*s));
	if (!s) {
		*err = -ENOMEM;
		free(raw);
		return NULL;
	}
	for (i = 0; i < h->shnum; i++) {
		const unsigned char *p = raw + (size_t)i * h->shentsize;

		s[i] = h->is64 ? SHDR_ALL(64) : SHDR_ALL(32);
	}
	free(raw);
	return s;
}

void elf_read_sym(bfd *abfd, const unsigned char *p, bool is64,
		  struct elf_sym *e)
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
