// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libFuzzer: the time-stamped map as libopjit-jitlog writes it (version
 * 2, each record in a frame with a sequence number and a CRC-32C), the
 * format the jitlog handler reads.  Raw bytes almost never carry a right
 * CRC, so fuzz_jm_parse stops at the first frame; here the input's
 * records are framed with right checks, and then bent as a log can be:
 * its last frame not written yet (sequence 0), cut by the end of a copy,
 * or torn (a wrong check).  Byte 0 is the header's flags, byte 1 says
 * how to bend, the rest is records (kind, flags, length, time, payload),
 * each taking its length from its own header.  The map then goes
 * through the same lookups as fuzz_jm_parse.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/crc32c.h>

#include "jm_format.h"

/* fuzz_jm_parse's lookups and checks, under another name */
#define LLVMFuzzerTestOneInput jm_fuzz_parsed
#include "fuzz_jm_parse.c"
#undef LLVMFuzzerTestOneInput

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t at = 2, out = JM_HEADER_SIZE, cap, last = 0;
	unsigned bend, nr = 0;
	uint8_t *buf;

	if (size < 2)
		return 0;
	bend = data[1];
	/* each record gains at most a frame header and 7 bytes of padding,
	 * and one of at least 16 bytes is made from fewer */
	cap = JM_HEADER_SIZE + 2 * size + 64;
	buf = calloc(1, cap);
	if (!buf)
		return 0;
	memcpy(buf, JM_MAGIC, JM_MAGIC_LEN);
	put_le(buf + 8, JM_VERSION_FRAMED, 2);
	put_le(buf + 10, JM_VERSION_MINOR, 2);
	put_le(buf + 12, JM_HEADER_SIZE, 4);
	put_le(buf + 16, 4242, 4);
	put_le(buf + 20, data[0] & JM_HDR_INLINE, 4);
	put_le(buf + 24, 1000, 8);
	while (at < size) {
		size_t room = size - at, rlen = JM_REC_HEADER_SIZE;
		uint8_t *h = buf + out + JM_FRAME_HEADER_SIZE;

		if (room >= 8)
			rlen = (size_t)data[at + 4] | (size_t)data[at + 5]
							      << 8;
		if (rlen < JM_REC_HEADER_SIZE)
			rlen = JM_REC_HEADER_SIZE;
		if (rlen > room + JM_REC_HEADER_SIZE)
			rlen = room + JM_REC_HEADER_SIZE;
		memcpy(h, data + at, room < rlen ? room : rlen);
		at += room < rlen ? room : rlen;
		put_le(h + 4, rlen, 4);
		put_le(buf + out, ++nr, 4);
		put_le(buf + out + 4, oputil_crc32c(0, h, rlen), 4);
		if ((bend & 4) && (bend >> 3) == nr)
			buf[out + 4] ^= 1; /* torn */
		last = out;
		out += (JM_FRAME_HEADER_SIZE + rlen + 7) & ~(size_t)7;
	}
	if (nr && (bend & 1))
		put_le(buf + last, 0, 4); /* reserved, not written yet */
	if (nr && (bend & 2))
		out -= 1 + (out - last) / 2; /* a copy cut mid-frame */
	jm_fuzz_parsed(buf, out);
	free(buf);
	return 0;
}
