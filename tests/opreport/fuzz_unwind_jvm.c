// SPDX-License-Identifier: GPL-3.0-or-later
/* A sample's stack copy and call chain are outside input: walk any.
 * Bytes: a chain length (at most 127), a frame pointer as a word
 * index from sp, the chain's words, then the copy. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unwind_jvm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unwind_jvm_copy c = { .sp = 0x7ffc00000000ull };
	uint64_t chain[127], value[127];
	size_t n, i, found, nonzero = 0;

	if (size < 2)
		return 0;
	n = data[0] & 0x7f;
	c.bp = c.sp + 8ull * data[1] - (data[0] & 0x80 ? 4096 : 0);
	data += 2;
	size -= 2;
	if (size < 8 * n)
		return 0;
	memcpy(chain, data, 8 * n);
	data += 8 * n;
	size -= 8 * n;
	/* a copy of its own, so that a read past it is ASan's to see */
	c.size = size;
	c.bytes = size ? malloc(size) : NULL;
	if (size && !c.bytes)
		return 0;
	if (size)
		memcpy((void *)c.bytes, data, size);
	found = unwind_jvm_values(&c, chain, n, value);
	for (i = 0; i < n; i++)
		nonzero += value[i] != 0;
	if (found != nonzero)
		abort();
	free((void *)c.bytes);
	return 0;
}
