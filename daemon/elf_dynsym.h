/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Where a dynamic symbol of a mapped shared library lies in the process:
 * how the recorder finds libopjit-jitlog's control block.  The file is
 * outside input: every offset and size is checked against it.
 */
#ifndef OPJIT_DAEMON_ELF_DYNSYM_H
#define OPJIT_DAEMON_ELF_DYNSYM_H

#include <stddef.h>
#include <stdint.h>

/*
 * In the 64-bit little-endian ELF image BUF of LEN bytes, the defined
 * dynamic data symbol NAME, as an offset from the start of a mapping of
 * the image: the mapping of the PT_LOAD segment that begins at file
 * offset PGOFF (page-aligned) with the PF_W and PF_X flags of PROT (two
 * segments may share a page of the file; the code's mapping is the one to
 * use, as data made read-only after relocation looks like another
 * segment).  The symbol's address is that
 * mapping's start plus *DELTA (modulo 2^64).  0, -ENOEXEC when BUF is not
 * such an image or is damaged, -ENOENT when it has no such symbol or no
 * such segment.
 */
int elf_dynsym_delta(const uint8_t *buf, size_t len, const char *name,
		     uint64_t pgoff, uint32_t prot, uint64_t *delta);

/*
 * Where the SIZE bytes of the defined dynamic data symbol NAME of BUF lie
 * in the file: *FILE_OFF, when they are all within the file's bytes of
 * one writable, non-executable PT_LOAD segment (the library's data, as
 * the loader maps it from the file).  0, -ENOEXEC or -ENOENT as above,
 * -EFAULT when the symbol lies anywhere else (code, read-only data, past
 * the segment's file bytes).
 */
int elf_dynsym_writable(const uint8_t *buf, size_t len, const char *name,
			uint64_t size, uint64_t *file_off);

#endif
