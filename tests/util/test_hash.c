// SPDX-License-Identifier: GPL-3.0-or-later
/* oputil/hash.h: the keys the tables see (page-aligned addresses,
 * sequential ids, heap and stack pointers) spread over the low bits a
 * table indexes by about as well as random numbers do. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include <oputil/hash.h>

#include "check_run.h"

#define BITS 12
#define SLOTS (1u << BITS)
/* SLOTS random numbers fill about SLOTS * (1 - 1/e) = 2589 of SLOTS
 * slots, give or take 20; a mixer that loses input bits fills far fewer
 * (FNV's word step over page-aligned keys: 1). */
#define MIN_USED 2400

struct family {
	const char *name;
	uint64_t base, stride;
};

static const struct family families[] = {
	{ "page-aligned", 0x7f0000000000ull, 4096 },
	{ "page-aligned from 0", 0, 4096 },
	{ "sequential", 0, 1 },
	{ "heap pointers", 0x555555559000ull, 48 },
	{ "stack pointers", 0x7ffd00001000ull, 16 },
	{ "64 KiB-aligned", 0x7f0000000000ull, 65536 },
};

static unsigned int used_slots(uint64_t (*hash)(uint64_t),
			       const struct family *f)
{
	static unsigned char seen[SLOTS];
	unsigned int i, used = 0;

	memset(seen, 0, sizeof(seen));
	for (i = 0; i < SLOTS; i++) {
		uint64_t s = hash(f->base + i * f->stride) & (SLOTS - 1);

		used += !seen[s];
		seen[s] = 1;
	}
	return used;
}

static uint64_t by_u64(uint64_t k)
{
	return oputil_hash_u64(k);
}

static uint64_t by_word64(uint64_t k)
{
	return oputil_hash_word64(OPUTIL_HASH_SEED, k);
}

/* the key second, after an address, as a call graph's keys are */
static uint64_t by_word64_second(uint64_t k)
{
	return oputil_hash_word64(
		oputil_hash_word64(OPUTIL_HASH_SEED, 0x7f1234560000ull), k);
}

static void check_spread(const char *what, uint64_t (*hash)(uint64_t))
{
	size_t i;

	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		unsigned int used = used_slots(hash, &families[i]);

		ck_assert_msg(used >= MIN_USED,
			      "%s: %u %s keys use %u of %u slots (want %u)",
			      what, SLOTS, families[i].name, used, SLOTS,
			      MIN_USED);
	}
}

START_TEST(u64_spreads)
{
	check_spread("oputil_hash_u64", by_u64);
}
END_TEST

START_TEST(word64_spreads)
{
	check_spread("oputil_hash_word64", by_word64);
	check_spread("oputil_hash_word64 after another", by_word64_second);
}
END_TEST

/* the order of the values is part of the key */
START_TEST(word64_order_matters)
{
	uint64_t a = 0x7f0000001000ull, b = 0x7f0000002000ull;

	ck_assert_uint_ne(
		oputil_hash_word64(oputil_hash_word64(OPUTIL_HASH_SEED, a), b),
		oputil_hash_word64(oputil_hash_word64(OPUTIL_HASH_SEED, b),
				   a));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hash");
	TCase *tc = tcase_create("hash");

	tcase_add_test(tc, u64_spreads);
	tcase_add_test(tc, word64_spreads);
	tcase_add_test(tc, word64_order_matters);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
