/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * For the container fuzz targets: random bytes almost never carry a good
 * CRC-32C, so the payload parsers behind the checksum would go unfuzzed.
 * When the input's first byte is odd, the rest gets its block checksums
 * recomputed before parsing; when even, it is parsed as it is, which
 * fuzzes the framing and the checksum path.
 */
#ifndef OPS_FUZZ_BLOCKS_H
#define OPS_FUZZ_BLOCKS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/crc32c.h>

#include "block_internal.h"

/* A malloc'ed copy of the input to parse (never NULL for size > 0). */
static uint8_t *fuzz_blocks_input(const uint8_t *data, size_t size,
				  size_t *len)
{
	uint8_t *buf;
	size_t off = OPS_FILE_HEADER_SIZE;

	*len = size ? size - 1 : 0;
	buf = malloc(*len + 1);
	if (!buf)
		abort();
	if (*len)
		memcpy(buf, data + 1, *len);
	if (!size || !(data[0] & 1))
		return buf;
	while (*len >= OPS_BLOCK_HEADER_SIZE &&
	       off <= *len - OPS_BLOCK_HEADER_SIZE) {
		uint32_t plen = ops_le32_load(buf + off + 8);

		if (plen > *len - off - OPS_BLOCK_HEADER_SIZE)
			break;
		ops_le32_store(buf + off + 12,
			       oputil_crc32c(0,
					     buf + off + OPS_BLOCK_HEADER_SIZE,
					     plen));
		off += OPS_BLOCK_HEADER_SIZE + plen;
	}
	return buf;
}

#endif /* OPS_FUZZ_BLOCKS_H */
