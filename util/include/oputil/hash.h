/* SPDX-License-Identifier: MIT */
/*
 * The hash functions of the tree's hash tables: FNV-1a over bytes and
 * strings, and MurmurHash3's 64-bit finalizer to spread integers and
 * pointers.  The tables themselves are oputil/u64map.h and
 * oputil/idxset.h.
 */
#ifndef OPUTIL_HASH_H
#define OPUTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define OPUTIL_HASH_SEED 0xcbf29ce484222325ull /* FNV-1a offset basis */

static inline uint64_t oputil_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

/* FNV-1a's step taken a 32-bit word at a time, for keys made of ids. */
static inline uint64_t oputil_hash_word(uint64_t h, uint32_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

/* The same step over both halves of a 64-bit value: an address, a
 * pointer. */
static inline uint64_t oputil_hash_word64(uint64_t h, uint64_t v)
{
	return oputil_hash_word(oputil_hash_word(h, (uint32_t)v),
				(uint32_t)(v >> 32));
}

static inline uint64_t oputil_hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* Every bit of X reaches every bit of the result. */
static inline uint64_t oputil_hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

#endif
