// SPDX-License-Identifier: GPL-3.0-or-later
#include "buildid.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int buildid_notes(const unsigned char *p, size_t len,
			 uint8_t id[BUILDID_MAX], uint8_t *id_size)
{
	size_t off = 0;

	while (len - off >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		size_t name_sz, desc_sz, need;

		memcpy(&nh, p + off, sizeof(nh));
		off += sizeof(nh);
		name_sz = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		desc_sz = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		need = name_sz + desc_sz;
		if (name_sz < nh.n_namesz || need < name_sz ||
		    need > len - off)
			return -ENOENT;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(p + off, "GNU", 4) && nh.n_descsz > 0 &&
		    nh.n_descsz <= BUILDID_MAX) {
			memcpy(id, p + off + name_sz, nh.n_descsz);
			*id_size = nh.n_descsz;
			return 0;
		}
		off += need;
	}
	return -ENOENT;
}

/* Both classes share a note layout; only the headers differ. */
int buildid_parse(const unsigned char *buf, size_t len,
		  uint8_t id[BUILDID_MAX], uint8_t *id_size)
{
	uint64_t phoff, phentsize, phnum;
	int is64;

	if (len < EI_NIDENT || memcmp(buf, ELFMAG, SELFMAG))
		return -EINVAL;
	is64 = buf[EI_CLASS] == ELFCLASS64;
	if (!is64 && buf[EI_CLASS] != ELFCLASS32)
		return -EINVAL;
	if (is64) {
		Elf64_Ehdr eh;

		if (len < sizeof(eh))
			return -EINVAL;
		memcpy(&eh, buf, sizeof(eh));
		phoff = eh.e_phoff;
		phentsize = eh.e_phentsize;
		phnum = eh.e_phnum;
		if (phentsize < sizeof(Elf64_Phdr))
			return -EINVAL;
	} else {
		Elf32_Ehdr eh;

		if (len < sizeof(eh))
			return -EINVAL;
		memcpy(&eh, buf, sizeof(eh));
		phoff = eh.e_phoff;
		phentsize = eh.e_phentsize;
		phnum = eh.e_phnum;
		if (phentsize < sizeof(Elf32_Phdr))
			return -EINVAL;
	}
	for (uint64_t i = 0; i < phnum; i++) {
		uint64_t at = phoff + i * phentsize, type, off, size;

		if (phoff > len || i * phentsize > len - phoff ||
		    phentsize > len - at)
			break;
		if (is64) {
			Elf64_Phdr ph;

			memcpy(&ph, buf + at, sizeof(ph));
			type = ph.p_type;
			off = ph.p_offset;
			size = ph.p_filesz;
		} else {
			Elf32_Phdr ph;

			memcpy(&ph, buf + at, sizeof(ph));
			type = ph.p_type;
			off = ph.p_offset;
			size = ph.p_filesz;
		}
		if (type != PT_NOTE || off > len || size > len - off)
			continue;
		if (!buildid_notes(buf + off, size, id, id_size))
			return 0;
	}
	return -ENOENT;
}

int buildid_read(int fd, uint8_t id[BUILDID_MAX], uint8_t *id_size)
{
	unsigned char *buf = malloc(BUILDID_SCAN_BYTES);
	ssize_t n;
	int err;

	if (!buf)
		return -ENOMEM;
	n = pread(fd, buf, BUILDID_SCAN_BYTES, 0);
	if (n < 0) {
		err = -errno;
		goto out;
	}
	err = buildid_parse(buf, (size_t)n, id, id_size);
out:
	free(buf);
	return err;
}
