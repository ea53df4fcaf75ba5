// SPDX-License-Identifier: GPL-3.0-or-later
/* A sample's stack copy is outside input: look for PyPy's JIT frames in
 * any.  Bytes: the room for frames (one byte), then the copy. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unwind_pypy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unwind_jvm_copy c = { .sp = 0x7ffc00000000ull };
	uint64_t ret[256];
	size_t max, n;

	if (size < 1)
		return 0;
	max = data[0];
	data++;
	size--;
	/* a copy of its own, so that a read past it is ASan's to see */
	c.size = size;
	c.bytes = size ? malloc(size) : NULL;
	if (size && !c.bytes)
		return 0;
	if (size)
		memcpy((void *)c.bytes, data, size);
	n = unwind_pypy_frames(&c, ret, max);
	/* each frame a caller found is 24 words of the copy */
	if (n > max || (n > 1 && 8 * 24 * (n - 1) > size))
		abort();
	free((void *)c.bytes);
	return 0;
}
