/* SPDX-License-Identifier: MIT */
/*
 * The hash functions of the tree's hash tables: FNV-1a over bytes and
 * strings, and a MurmurHash3 finalizer round to spread integers
 * and pointers.  The tables themselves are oputil/u64map.h and
 * oputil/idxset.h.  Code outside util/ hashes through these
 * (scripts/check_util_owner.sh).
 */
#ifndef OPUTIL_HASH_H
#define OPUTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define OPUTIL_HASH_SEED 0xcbf29ce484222325ull /* FNV-1a offset basis */
#define OPUTIL_HASH_FNV_PRIME 0x100000001b3ull

static inline uint64_t oputil_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		h = (h ^ *b++) * OPUTIL_HASH_FNV_PRIME;
	return h;
}

/* FNV-1a's step taken a 32-bit word at a time, for keys made of small
 * ids; its low bits see only the inputs' low bits, so a table indexed by
 * them finishes with oputil_hash_u64. */
static inline uint64_t oputil_hash_word(uint64_t h, uint32_t v)
{
	return (h ^ v) * OPUTIL_HASH_FNV_PRIME;
}

static inline uint64_t oputil_hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * OPUTIL_HASH_FNV_PRIME;
	return h;
}

/* Every bit of X reaches every bit of the result: the first round of
 * MurmurHash3's fmix64, enough to spread page-aligned addresses,
 * sequential ids and pointers over the low bits a table indexes by about
 * as random numbers would (tests/util/test_hash.c), at one multiply. */
static inline uint64_t oputil_hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* H followed by the 64-bit value V (an address, a pointer): all of V's
 * bits reach the result's low bits, and the order of the values
 * matters. */
static inline uint64_t oputil_hash_word64(uint64_t h, uint64_t v)
{
	return oputil_hash_u64(h ^ v);
}

#endif
