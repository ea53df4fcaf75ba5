// SPDX-License-Identifier: GPL-3.0-or-later
#include "elf_dynsym.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#define PAGE_MASK_4K (~(uint64_t)0xfff)

/* Whether [OFF, OFF + N * SIZE) lies within LEN bytes. */
static bool within(size_t len, uint64_t off, uint64_t n, uint64_t size)
{
	return off <= len && (size == 0 || n <= (len - off) / size);
}

static int find_value(const uint8_t *buf, size_t len, const Elf64_Ehdr *eh,
		      const char *name, uint64_t *value)
{
	size_t nlen = strlen(name);
	uint16_t i;

	if (eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !within(len, eh->e_shoff, eh->e_shnum, sizeof(Elf64_Shdr)))
		return -ENOEXEC;
	for (i = 0; i < eh->e_shnum; i++) {
		Elf64_Shdr sh, str;
		uint64_t k, n;

		memcpy(&sh, buf + eh->e_shoff + (uint64_t)i * sizeof(sh),
		       sizeof(sh));
		if (sh.sh_type != SHT_DYNSYM)
			continue;
		if (sh.sh_entsize != sizeof(Elf64_Sym) ||
		    sh.sh_link >= eh->e_shnum ||
		    !within(len, sh.sh_offset, 1, sh.sh_size))
			return -ENOEXEC;
		memcpy(&str,
		       buf + eh->e_shoff + (uint64_t)sh.sh_link * sizeof(str),
		       sizeof(str));
		if (!within(len, str.sh_offset, 1, str.sh_size))
			return -ENOEXEC;
		n = sh.sh_size / sizeof(Elf64_Sym);
		for (k = 0; k < n; k++) {
			Elf64_Sym sym;

			memcpy(&sym, buf + sh.sh_offset + k * sizeof(sym),
			       sizeof(sym));
			if (sym.st_shndx == SHN_UNDEF ||
			    ELF64_ST_TYPE(sym.st_info) != STT_OBJECT ||
			    sym.st_name >= str.sh_size ||
			    str.sh_size - sym.st_name <= nlen)
				continue;
			if (!memcmp(buf + str.sh_offset + sym.st_name, name,
				    nlen + 1)) {
				*value = sym.st_value;
				return 0;
			}
		}
		return -ENOENT;
	}
	return -ENOENT;
}

static int read_header(const uint8_t *buf, size_t len, Elf64_Ehdr *eh)
{
	if (len < sizeof(*eh))
		return -ENOEXEC;
	memcpy(eh, buf, sizeof(*eh));
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    !within(len, eh->e_phoff, eh->e_phnum, sizeof(Elf64_Phdr)))
		return -ENOEXEC;
	return 0;
}

/* NAME's value in the dynamic symbols of the ELF file BUF, with the
 * header it was read through.  0 or a negative errno. */
static int symbol_value(const uint8_t *buf, size_t len, const char *name,
			Elf64_Ehdr *eh, uint64_t *value)
{
	int rc = read_header(buf, len, eh);

	return rc ? rc : find_value(buf, len, eh, name, value);
}

/* Program header I of EH, whose table read_header() has bounded. */
static void program_header(const uint8_t *buf, const Elf64_Ehdr *eh,
			   uint16_t i, Elf64_Phdr *ph)
{
	memcpy(ph, buf + eh->e_phoff + (uint64_t)i * sizeof(*ph), sizeof(*ph));
}

int elf_dynsym_delta(const uint8_t *buf, size_t len, const char *name,
		     uint64_t pgoff, uint32_t prot, uint64_t *delta)
{
	Elf64_Ehdr eh;
	uint64_t value;
	uint16_t i;
	int rc;

	rc = symbol_value(buf, len, name, &eh, &value);
	if (rc)
		return rc;
	/* the loader maps each segment from its page-aligned offset to
	 * its page-aligned address, all moved by one bias */
	for (i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		program_header(buf, &eh, i, &ph);
		if (ph.p_type != PT_LOAD ||
		    (ph.p_offset & PAGE_MASK_4K) != pgoff ||
		    (ph.p_flags & (PF_W | PF_X)) != (prot & (PF_W | PF_X)))
			continue;
		*delta = value - (ph.p_vaddr & PAGE_MASK_4K);
		return 0;
	}
	return -ENOENT;
}

int elf_dynsym_writable(const uint8_t *buf, size_t len, const char *name,
			uint64_t size, uint64_t *file_off)
{
	Elf64_Ehdr eh;
	uint64_t value;
	uint16_t i;
	int rc;

	rc = symbol_value(buf, len, name, &eh, &value);
	if (rc)
		return rc;
	for (i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		program_header(buf, &eh, i, &ph);
		/* the bytes the file gives the segment: past p_filesz the
		 * loader maps anonymous memory, no longer the file */
		if (ph.p_type != PT_LOAD ||
		    (ph.p_flags & (PF_R | PF_W | PF_X)) != (PF_R | PF_W) ||
		    ph.p_filesz > ph.p_memsz ||
		    ph.p_offset + ph.p_filesz < ph.p_offset ||
		    value < ph.p_vaddr || ph.p_filesz < size ||
		    value - ph.p_vaddr > ph.p_filesz - size)
			continue;
		*file_off = ph.p_offset + (value - ph.p_vaddr);
		return 0;
	}
	return -EFAULT;
}
