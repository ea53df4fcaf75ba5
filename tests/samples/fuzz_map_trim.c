// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer target: the trim of an archived perf map on arbitrary text
 * and addresses.  What it keeps is the input's own lines, in order, the
 * same bytes as the first trim's (map_trim_ref.c), and trimming that
 * again changes nothing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "map_trim_ref.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether OUT is made of whole lines of IN, in IN's order. */
static int lines_of(const uint8_t *out, size_t olen, const uint8_t *in,
		    size_t ilen)
{
	size_t o = 0, i = 0;

	while (o < olen) {
		const uint8_t *onl = memchr(out + o, '\n', olen - o);
		size_t n = onl ? (size_t)(onl - out - o) + 1 : olen - o;

		for (;;) {
			const uint8_t *inl;
			size_t m;

			if (i >= ilen)
				return 0;
			inl = memchr(in + i, '\n', ilen - i);
			m = inl ? (size_t)(inl - in - i) + 1 : ilen - i;
			i += m;
			if (m == n && !memcmp(in + i - m, out + o, n))
				break;
		}
		o += n;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ops_buf once = { 0 }, twice = { 0 }, ref = { 0 };
	uint64_t addrs[64];
	size_t n;

	if (!size)
		return 0;
	/* up to 64: enough for the search from the last line's answer
	 * to gallop both ways */
	n = data[0] % 65;
	if (size < 1 + n * 8)
		return 0;
	memcpy(addrs, data + 1, n * 8);
	qsort(addrs, n, sizeof(*addrs), u64_cmp);
	data += 1 + n * 8;
	size -= 1 + n * 8;
	if (ops_perfmap_trim((const char *)data, size, addrs, n, &once) ||
	    ops_perfmap_trim((const char *)once.data, once.len, addrs, n,
			     &twice) ||
	    perfmap_trim_ref((const char *)data, size, addrs, n, &ref))
		abort();
	if (!lines_of(once.data, once.len, data, size) ||
	    once.len != twice.len ||
	    (once.len && memcmp(once.data, twice.data, once.len)) ||
	    once.len != ref.len ||
	    (once.len && memcmp(once.data, ref.data, once.len)))
		abort();
	ops_buf_free(&once);
	ops_buf_free(&twice);
	ops_buf_free(&ref);
	return 0;
}
