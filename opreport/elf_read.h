/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reading an ELF image's headers and sections through the public
 * bfd_seek/bfd_bread, with the layouts of <elf.h>, for the tables the
 * report reads itself (elf_symtab.c, elf_plt.c).  Every size and offset
 * is checked against the file: a damaged image reads as no table.
 */
#ifndef OPREPORT_ELF_READ_H
#define OPREPORT_ELF_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bfd_inc.h"

struct elf_ehdr {
	bool is64, relocatable;
	unsigned machine; /* e_machine */
	uint64_t shoff;
	unsigned shentsize, shnum, shstrndx;
};

struct elf_shdr {
	uint32_t name, type, link;
	uint64_t flags, addr, offset, size, entsize;
};

/* ABFD's ELF header; false when ABFD is not ELF or has no sections. */
bool elf_read_ehdr(bfd *abfd, struct elf_ehdr *h);
/* Its H->shnum section headers, in a new array; NULL when they cannot
 * be read, with *ERR -ENOMEM when that was the reason (not reported). */
struct elf_shdr *elf_read_shdrs(bfd *abfd, const struct elf_ehdr *h, int *err);
/* Whether LEN bytes at OFF are a part of ABFD that elf_read_at() reads:
 * not empty, not absurdly big, inside the file. */
bool elf_read_fits(bfd *abfd, uint64_t off, uint64_t len);
/* LEN bytes at OFF of ABFD in a new buffer, followed by EXTRA zero
 * bytes; NULL as above. */
void *elf_read_at(bfd *abfd, uint64_t off, uint64_t len, size_t extra,
		  int *err);
/* Section S's contents, with one zero byte after them. */
void *elf_read_section(bfd *abfd, const struct elf_shdr *s, int *err);

/* A symbol table entry, whichever the class. */
struct elf_sym {
	uint64_t value, size;
	uint32_t name; /* offset in the string table */
	uint16_t shndx;
	uint8_t info; /* st_info: binding and type */
};

/* The entry at P of a table of ABFD (64-bit when IS64). */
void elf_read_sym(bfd *abfd, const unsigned char *p, bool is64,
		  struct elf_sym *e);

#endif
