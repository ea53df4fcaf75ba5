/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An x86-64 ELF image's PLT stubs, named as libbfd's synthetic symbols
 * name them ("puts@plt"), found the way its x86-64 reader finds them:
 * each stub jumps through a GOT slot, and the dynamic relocation of that
 * slot names the symbol.  libbfd gets there by building a record for
 * every dynamic symbol, which for node (75k exported V8 symbols) cost a
 * third of a report's time the first time a sample landed in a stub;
 * this reads only the relocations and the names they use.
 */
#ifndef OPREPORT_ELF_PLT_H
#define OPREPORT_ELF_PLT_H

#include <stddef.h>

#include "bfd_inc.h"
#include "elf_symtab.h"

struct elf_plt {
	struct elf_code_sym *v; /* one per named stub, size 0 */
	size_t n;
	char *names; /* what v's names point into */
};

/*
 * ABFD's PLT stubs into *OUT.  1 when read; 0, with *OUT untouched,
 * when ABFD is not an x86-64 ELF image with a dynamic symbol table
 * (libbfd's synthetic symbols are then the way); -ENOMEM (not reported).
 * A malformed table or section names no stubs.
 */
int elf_plt_read(struct elf_plt *out, bfd *abfd);
void elf_plt_free(struct elf_plt *p);

#endif
