// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer target: the trim of an archived jitdump on arbitrary bytes
 * and addresses.  A dump it takes keeps its header, grows no larger, and
 * trimming the trim again changes nothing. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "map_trim_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ops_buf once = { 0 }, twice = { 0 };
	uint64_t addrs[16];
	size_t n;
	int ret;

	if (!size)
		return 0;
	n = data[0] % 17;
	if (size < 1 + n * 8)
		return 0;
	memcpy(addrs, data + 1, n * 8);
	qsort(addrs, n, sizeof(*addrs), u64_cmp);
	data += 1 + n * 8;
	size -= 1 + n * 8;
	ret = ops_jitdump_trim(data, size, addrs, n, &once);
	if (ret == -EINVAL) { /* not a jitdump: nothing written */
		if (once.len)
			abort();
		return 0;
	}
	if (ret || ops_jitdump_trim(once.data, once.len, addrs, n, &twice))
		abort();
	if (once.len > size || once.len < 40 || memcmp(once.data, data, 40) ||
	    once.len != twice.len || memcmp(once.data, twice.data, once.len))
		abort();
	ops_buf_free(&once);
	ops_buf_free(&twice);
	return 0;
}
