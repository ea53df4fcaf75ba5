// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer: the dynamic symbol lookup of libraries processes map, the
 * way oprofiled finds libopjit-jitlog's control block and bounds it to
 * the library's writable data. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>

#include "elf_dynsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t delta = 0, pgoff = 0, off = 0;

	/* the first 8 bytes, when there are more, pick the mapping */
	if (size > 8 + 64) {
		memcpy(&pgoff, data, 8);
		pgoff &= 0x3fffff000u; /* the mapping's flags above */
		data += 8;
		size -= 8;
	}
	(void)elf_dynsym_delta(data, size, "opjit_jitlog_control",
			       pgoff & 0xfffff000u,
			       (uint32_t)(pgoff >> 32) | PF_R, &delta);
	(void)elf_dynsym_writable(data, size, "opjit_jitlog_control",
				  (pgoff >> 12) & 0xff, &off);
	return 0;
}
