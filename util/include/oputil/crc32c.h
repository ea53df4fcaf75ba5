/* SPDX-License-Identifier: MIT */
/*
 * CRC-32C (Castagnoli, reflected, as iSCSI and ext4 use it): the check
 * of each frame of opjit's time-stamped JIT map, computed by the writer
 * (the MIT jitlog library) and the reader (the handlers) alike, and of
 * each block of a session (samples/).
 * oputil_crc32c(0, "123456789", 9) is 0xe3069283.  On x86-64 with
 * SSE 4.2 the CPU's crc32 instruction computes it, 8 bytes at a time.
 */
#ifndef OPUTIL_CRC32C_H
#define OPUTIL_CRC32C_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t oputil_crc32c_bits(uint32_t crc, const void *data,
					  size_t len)
{
	const unsigned char *p = (const unsigned char *)data;
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1u)));
	}
	return crc;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("sse4.2"))) static inline uint32_t
oputil_crc32c_sse42(uint32_t crc, const void *data, size_t len)
{
	const unsigned char *p = (const unsigned char *)data;
	uint64_t c = crc, w;

	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
	}
	crc = (uint32_t)c;
	while (len--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}
#endif

static inline uint32_t oputil_crc32c(uint32_t crc, const void *data,
				     size_t len)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("sse4.2"))
		return ~oputil_crc32c_sse42(~crc, data, len);
#endif
	return ~oputil_crc32c_bits(~crc, data, len);
}

#endif
