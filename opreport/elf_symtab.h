/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An ELF image's symbol table, read with the layouts of <elf.h> through
 * the public bfd_seek/bfd_bread.  libbfd's own reading of a big static
 * table (node's holds 110k symbols) builds a private record per symbol
 * and was most of a report's time; the report needs only each code
 * symbol's address, size, name and rank, and the ELF sizes libbfd keeps
 * private.
 */
#ifndef OPREPORT_ELF_SYMTAB_H
#define OPREPORT_ELF_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bfd_inc.h"

struct elf_symtab;

/* A symbol in a code section, as image_bfd ranks them. */
struct elf_code_sym {
	uint64_t vma, end; /* address; end of its section */
	uint64_t size;	   /* st_size; 0: up to the next symbol */
	const char *name;  /* in the table's string table */
	int prio;	   /* function 4, + global 2, + weak 1 */
};

/*
 * ABFD's symbol table (DYNAMIC: the dynamic one).  *OUT is NULL, and 0
 * returned, when ABFD is not ELF or the table is missing, empty or
 * malformed.  Only -ENOMEM is an error (not reported).
 */
int elf_symtab_read(struct elf_symtab **out, bfd *abfd, bool dynamic);
/* st_size of the symbol at VALUE named NAME (a "@VERSION" suffix on
 * NAME is ignored), or 0 when unknown. */
uint64_t elf_symtab_size(struct elf_symtab *t, uint64_t value,
			 const char *name);
/*
 * T's named symbols in code sections, flagged as libbfd flags them (no
 * section or file symbols, nothing undefined, absolute or common), into
 * OUT, which has room for elf_symtab_count(T); returns how many.  The
 * names live as long as T.
 */
size_t elf_symtab_count(const struct elf_symtab *t);
size_t elf_symtab_code(const struct elf_symtab *t, struct elf_code_sym *out);
void elf_symtab_free(struct elf_symtab *t);

#endif
