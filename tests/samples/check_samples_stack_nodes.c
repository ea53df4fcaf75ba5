// SPDX-License-Identifier: GPL-3.0-or-later
/* The stack table's node index against a plain array that knows the
 * answers: keys that differ in one field only (parent, flags, kind,
 * image, address), found again across every growth of the table. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "stack_nodes_internal.h"

#include "check_run.h"

#define NODES 50000

struct key {
	uint32_t parent;
	uint8_t flags;
	struct ops_frame f;
};

/* Key I: neighbours share all fields but one, as a tree's nodes do. */
static struct key key_of(uint32_t i)
{
	return (struct key){
		.parent = i / 7,
		.flags = (uint8_t)(i % 4),
		.f = { .kind = (i / 4) % 3,
		       .image = (i / 12) % 5,
		       .addr = 0x400000 + (uint64_t)(i / 60) * 16 },
	};
}

START_TEST(finds_what_it_was_given)
{
	struct ops_stack_nodes t = { 0 };
	struct ops_stack_nodes_pos pos;
	uint32_t i, j;

	for (i = 0; i < NODES; i++) {
		struct key k = key_of(i);

		ck_assert_int_eq(ops_stack_nodes_reserve(&t), 0);
		ck_assert_uint_eq(ops_stack_nodes_find(&t, k.parent, k.flags,
						       &k.f, &pos),
				  UINT32_MAX);
		ops_stack_nodes_put(&t, &pos, k.parent, k.flags, &k.f, i);
		/* an earlier key, found again after the table moved */
		j = (uint32_t)(((uint64_t)i * 2654435761u) % (i + 1));
		k = key_of(j);
		ck_assert_uint_eq(ops_stack_nodes_find(&t, k.parent, k.flags,
						       &k.f, &pos),
				  j);
	}
	ck_assert_uint_eq(t.nr, NODES);
	ck_assert_uint_le(t.nr * 10, t.cap * 7);
	for (i = 0; i < NODES; i++) {
		struct key k = key_of(i);

		ck_assert_uint_eq(ops_stack_nodes_find(&t, k.parent, k.flags,
						       &k.f, &pos),
				  i);
		/* each field alone makes another key */
		k.f.addr += 1;
		ck_assert_uint_eq(ops_stack_nodes_find(&t, k.parent, k.flags,
						       &k.f, &pos),
				  UINT32_MAX);
		k = key_of(i);
		k.parent += NODES;
		ck_assert_uint_eq(ops_stack_nodes_find(&t, k.parent, k.flags,
						       &k.f, &pos),
				  UINT32_MAX);
		k = key_of(i);
		k.f.image += 5;
		ck_assert_uint_eq(ops_stack_nodes_find(&t, k.parent, k.flags,
						       &k.f, &pos),
				  UINT32_MAX);
	}
	ops_stack_nodes_free(&t);
	ck_assert_ptr_null(t.slots);
}
END_TEST

START_TEST(an_empty_table_finds_nothing)
{
	struct ops_stack_nodes t = { 0 };
	struct ops_stack_nodes_pos pos;
	struct key k = key_of(3);

	ck_assert_int_eq(ops_stack_nodes_reserve(&t), 0);
	ck_assert_uint_eq(ops_stack_nodes_find(&t, k.parent, k.flags, &k.f,
					       &pos),
			  UINT32_MAX);
	ops_stack_nodes_free(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stack_nodes");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, finds_what_it_was_given);
	tcase_add_test(tc, an_empty_table_finds_nothing);
	suite_add_tcase(s, tc);
	return opjit_check_run(s);
}
