// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * CRC-32C (Castagnoli, reflected polynomial 0x82f63b78), the checksum of
 * every block.  Slice-by-8 in software: about 1-2 GB/s, so verifying a
 * large anonymous stream costs little next to reading it.
 */
#include "crc32c_internal.h"

static uint32_t crc_table[8][256];

__attribute__((constructor)) static void crc32c_init(void)
{
	uint32_t i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ (0x82f63b78u & (~(c & 1) + 1));
		crc_table[0][i] = c;
	}
	for (i = 0; i < 256; i++) {
		c = crc_table[0][i];
		for (j = 1; j < 8; j++) {
			c = crc_table[0][c & 0xff] ^ (c >> 8);
			crc_table[j][i] = c;
		}
	}
}

uint32_t ops_crc32c(const void *data, size_t n)
{
	const uint8_t *p = data;
	uint32_t crc = 0xffffffffu;

	while (n >= 8) {
		uint32_t lo = crc ^
			      ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			       (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);

		crc = crc_table[7][lo & 0xff] ^
		      crc_table[6][(lo >> 8) & 0xff] ^
		      crc_table[5][(lo >> 16) & 0xff] ^
		      crc_table[4][lo >> 24] ^ crc_table[3][p[4]] ^
		      crc_table[2][p[5]] ^ crc_table[1][p[6]] ^
		      crc_table[0][p[7]];
		p += 8;
		n -= 8;
	}
	while (n--)
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc ^ 0xffffffffu;
}
