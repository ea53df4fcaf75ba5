/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Of an ELF image's static (or dynamic) symbol table, only the code
 * symbols that name given addresses.  Which symbol holds an address
 * depends on two places of the table alone: the greatest code-symbol
 * address at or below it (the symbols there, ranked, name it) and the
 * least one above it (where its symbol ends at the latest).  So the
 * table is read in one pass through a small buffer, without its names,
 * and only the symbols at those places have their names read.  A big
 * image's whole table (node: 110k symbols, 7 MB of names) read and
 * sorted was most of opannotate's time, for the few hundred symbols its
 * samples fall in.
 */
#ifndef OPREPORT_ELF_SYMCOVER_H
#define OPREPORT_ELF_SYMCOVER_H

#include <stddef.h>
#include <stdint.h>

#include "bfd_inc.h"
#include "elf_symtab.h"

struct elf_symcover;

/* ABFD's static table, found: *OUT is NULL, and 0 returned, exactly when
 * elf_symtab_read(ABFD, false) would give no table.  0 or -ENOMEM (not
 * reported).  ABFD must outlive *OUT. */
int elf_symcover_open(struct elf_symcover **out, bfd *abfd);
/* The same of ABFD's dynamic table, whose code symbols elf_symcover_find() gives
 * with the sizes libbfd's reading of it gives: of the first entry at the
 * symbol's address with its name that has one (elf_symtab_size()). */
int elf_symcover_open_dynamic(struct elf_symcover **out, bfd *abfd);

/*
 * VMAS[0..n): link-time addresses, ascending, each once.  *OUT (to be
 * freed; *NR of them) gets the code symbols elf_symtab_code() would give
 * at the greatest address at or below each, and at the least address
 * above each, in the table's order, so that a table built from them as
 * from the whole one holds the same symbol, with the same size, at or
 * below each of VMAS.  Names live as long as C.  0, -ENOMEM, or -EIO when
 * the table cannot be read (not reported).
 */
int elf_symcover_find(struct elf_symcover *c, const uint64_t *vmas, size_t n,
		      struct elf_code_sym **out, size_t *nr);

void elf_symcover_free(struct elf_symcover *c);

#endif
