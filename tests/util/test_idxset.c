// SPDX-License-Identifier: GPL-3.0-or-later
/* oputil/idxset.h against a plain array that knows the answers: random
 * finds, adds and replacements over a small key space; string keys under
 * hashes that collide, in full or in the 32 bits the set keeps; and
 * every size across several growths, after a reserve and after a
 * clear. */
#include <check.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/hash.h>
#include <oputil/idxset.h>

#include "check_run.h"

#define KEYS 3000

static uint64_t xorshift(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* Keys 1..KEYS in entry order; the model says which entry holds each
 * key (index + 1), as the set should.  An entry replaced by a later one
 * of the same key stays in the array, as a parser's earlier definition
 * does. */
START_TEST(matches_a_plain_array)
{
	static uint64_t entry[400000];
	static uint32_t truth[KEYS + 1];
	struct oputil_idxset s = { 0 };
	struct oputil_idxset_pos pos;
	uint64_t state = 88172645463325252ull;
	size_t nr = 0, n = 0;

	for (int step = 0; step < 400000; step++) {
		uint64_t r = xorshift(&state), key = 1 + (r >> 8) % KEYS;
		uint32_t i;

		i = oputil_idxset_find(&s, oputil_hash_u64(key), &pos, k,
				       entry[k] == key);
		ck_assert_uint_eq(i + 1, truth[key]);
		if (r % 3 == 0 || (r % 3 == 1 && truth[key])) {
			ck_assert_int_eq(oputil_idxset_put(&s, &pos, n),
					 truth[key] != 0);
			nr += !truth[key];
			entry[n] = key;
			truth[key] = ++n;
		}
		ck_assert_uint_eq(oputil_idxset_count(&s), nr);
		ck_assert_uint_le(2 * s.nr, s.cap);
	}
	for (uint64_t key = 1; key <= KEYS; key++)
		ck_assert_uint_eq(oputil_idxset_find(&s, oputil_hash_u64(key),
						     NULL, k,
						     entry[k] == key) +
					  1,
				  truth[key]);
	oputil_idxset_free(&s);
	ck_assert_uint_eq(oputil_idxset_find(&s, 1, &pos, k, true),
			  OPUTIL_IDXSET_NONE);
	ck_assert_int_eq(oputil_idxset_put(&s, &pos, 0), 0);
	ck_assert_uint_eq(oputil_idxset_count(&s), 1);
	oputil_idxset_free(&s);
}
END_TEST

#define NSTR 2000

struct strs {
	char v[NSTR][16];
	struct oputil_idxset set;
	uint32_t n;
};

/* S's index in T, added when new; HASH is as bad as the test wants. */
static uint32_t str_intern(struct strs *t, const char *s, uint64_t hash)
{
	struct oputil_idxset_pos pos;
	uint32_t i;

	i = oputil_idxset_find(&t->set, hash, &pos, k, !strcmp(t->v[k], s));
	if (i != OPUTIL_IDXSET_NONE)
		return i;
	snprintf(t->v[t->n], sizeof(t->v[t->n]), "%s", s);
	ck_assert_int_eq(oputil_idxset_put(&t->set, &pos, t->n), 0);
	return t->n++;
}

/* Every string twice, under a hash of the string and under HASH(i),
 * which may give many strings one value: the second time finds the
 * first. */
static void strings_under(uint64_t (*hash)(uint64_t))
{
	static struct strs t;
	char s[16];

	memset(&t, 0, sizeof(t));
	for (int round = 0; round < 2; round++)
		for (uint64_t i = 0; i < NSTR; i++) {
			snprintf(s, sizeof(s), "str%" PRIu64, i * 7919 % NSTR);
			ck_assert_uint_eq(
				str_intern(&t, s, hash(i * 7919 % NSTR)), i);
		}
	ck_assert_uint_eq(oputil_idxset_count(&t.set), NSTR);
	ck_assert_uint_eq(oputil_idxset_find(&t.set, hash(0), NULL, k,
					     !strcmp(t.v[k], "absent")),
			  OPUTIL_IDXSET_NONE);
	oputil_idxset_free(&t.set);
}

static uint64_t same_for_all(uint64_t i)
{
	return 42;
}

static uint64_t eight_values(uint64_t i)
{
	return oputil_hash_u64(i % 8);
}

/* Different 64-bit hashes whose low 32 bits, all the set keeps, are
 * one value. */
static uint64_t same_low_bits(uint64_t i)
{
	return (i + 1) << 32 | 7;
}

static uint64_t good(uint64_t i)
{
	return oputil_hash_u64(i);
}

START_TEST(colliding_string_keys)
{
	strings_under(same_for_all);
	strings_under(eight_values);
	strings_under(same_low_bits);
	strings_under(good);
}
END_TEST

/* Sets of every size up to a few growths, filled from empty, after a
 * reserve and after a clear: each entry found, nothing else found, at
 * most half full, a power-of-two capacity. */
static void fill_and_check(struct oputil_idxset *s, const uint64_t *key,
			   size_t n)
{
	struct oputil_idxset_pos pos;

	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_eq(
			oputil_idxset_find(s, oputil_hash_u64(key[i]), &pos, k,
					   key[k] == key[i]),
			OPUTIL_IDXSET_NONE);
		ck_assert_int_eq(oputil_idxset_put(s, &pos, (uint32_t)i), 0);
	}
	ck_assert_uint_eq(oputil_idxset_count(s), n);
	ck_assert_uint_le(2 * n, s->cap);
	ck_assert_uint_eq(s->cap & (s->cap - 1), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(
			oputil_idxset_find(s, oputil_hash_u64(key[i]), NULL, k,
					   key[k] == key[i]),
			i);
	ck_assert_uint_eq(oputil_idxset_find(s, oputil_hash_u64(0), NULL, k,
					     key[k] == 0),
			  OPUTIL_IDXSET_NONE);
}

START_TEST(every_size)
{
	static uint64_t key[5000];
	uint64_t state = 2463534242ull;

	for (size_t i = 0; i < 5000; i++)
		key[i] = xorshift(&state) | 1;
	for (size_t n = 0; n <= 5000; n += n < 300 ? 1 : 97) {
		struct oputil_idxset s = { 0 }, r = { 0 };
		size_t cap;

		fill_and_check(&s, key, n);
		cap = s.cap;
		oputil_idxset_clear(&s);
		ck_assert_uint_eq(oputil_idxset_count(&s), 0);
		fill_and_check(&s, key, n);
		ck_assert_uint_eq(s.cap, cap);
		oputil_idxset_free(&s);

		ck_assert_int_eq(oputil_idxset_reserve(&r, n), 0);
		cap = r.cap;
		fill_and_check(&r, key, n);
		ck_assert_uint_eq(r.cap, cap);
		oputil_idxset_free(&r);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("idxset");
	TCase *tc = tcase_create("model");
	TCase *strs = tcase_create("strings");
	TCase *sizes = tcase_create("sizes");

	tcase_add_test(tc, matches_a_plain_array);
	tcase_add_test(strs, colliding_string_keys);
	tcase_add_test(sizes, every_size);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, strs);
	suite_add_tcase(s, sizes);
	return opjit_check_run(s);
}
