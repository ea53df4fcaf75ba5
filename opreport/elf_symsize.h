/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ELF symbol sizes (st_size), which libbfd keeps only in its private
 * elf_symbol_type: read from the image's own .symtab or .dynsym through
 * the public bfd_seek/bfd_bread, with the layouts of <elf.h>.
 */
#ifndef OPREPORT_ELF_SYMSIZE_H
#define OPREPORT_ELF_SYMSIZE_H

#include <stdbool.h>
#include <stdint.h>

#include "bfd_inc.h"

struct elf_symsize;

/*
 * The sizes of ABFD's symbol table (DYNAMIC: the dynamic one).  *OUT is
 * NULL, and 0 returned, when ABFD is not ELF or the table is missing or
 * malformed: sizes are then unknown (0), as for any other format.  Only
 * -ENOMEM is an error.
 */
int elf_symsize_read(struct elf_symsize **out, bfd *abfd, bool dynamic);
/* st_size of the symbol at VALUE named NAME (a "@VERSION" suffix on
 * NAME is ignored), or 0 when unknown. */
uint64_t elf_symsize_find(const struct elf_symsize *t, uint64_t value,
			  const char *name);
void elf_symsize_free(struct elf_symsize *t);

#endif
