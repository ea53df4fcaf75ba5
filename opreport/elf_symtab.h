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
#include "elf_read.h"

struct elf_symtab;

/* A symbol in a code section, as image_bfd ranks them. */
struct elf_code_sym {
	uint64_t vma, end; /* address; end of its section */
	uint64_t size;	   /* st_size; 0: up to the next symbol */
	const char *name;  /* in the table's string table */
	int prio;	   /* function 4, + global 2, + weak 1 */
};

/* A section, as the code filter sees it. */
struct elf_symtab_sec {
	uint64_t addr, size;
	bool code; /* SHF_EXECINSTR */
};

/* Where a table and its names lie in the file. */
struct elf_symtab_loc {
	struct elf_symtab_sec *secs; /* every section, by index */
	size_t nr_secs;
	bool is64, relocatable; /* ET_REL: values are section offsets */
	uint64_t symoff, symsize, entsize;
	uint64_t stroff, strsize;
};

/*
 * ABFD's symbol table (DYNAMIC: the dynamic one) found, not read: LOC's
 * secs (to be freed) is NULL, and 0 returned, when it has none that
 * elf_symtab_read() would read.  Only -ENOMEM is an error.
 */
int elf_symtab_locate(struct elf_symtab_loc *loc, bfd *abfd, bool dynamic);

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

/* The filter of elf_symtab_code() in two halves, for a reader of parts
 * of a table (elf_symcover.c): whether entry E is a code symbol, its name
 * aside; whether NAME is one; and the code symbol E is. */
bool elf_symtab_code_ent(const struct elf_sym *e,
			 const struct elf_symtab_sec *secs, size_t nr_secs);
bool elf_symtab_code_name(const char *name);
void elf_symtab_code_sym(const struct elf_sym *e,
			 const struct elf_symtab_sec *secs, bool relocatable,
			 const char *name, struct elf_code_sym *out);
void elf_symtab_free(struct elf_symtab *t);

#endif
