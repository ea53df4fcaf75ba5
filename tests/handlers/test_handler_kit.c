// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The handler kit (opjit/handler_kit.h): symbols keep their pointers as
 * the store grows, are found by address, the later of two at one start
 * wins; the batch walk gives a symbol or a reason for each sample; the
 * error buffer; each host minor gets a table of its own size.
 */
#include <stdio.h>
#include <string.h>

#include <opjit/handler_kit.h>

#include "check_run.h"

#define MANY (3 * OPJIT_KIT_CHUNK + 7)

START_TEST(pointers_stay_as_the_store_grows)
{
	static const struct opjit_symbol *first[MANY];
	struct opjit_kit_syms s = { 0 };
	char name[32];
	size_t i;

	for (i = 0; i < MANY; i++) {
		int n = snprintf(name, sizeof(name), "fn%zu", i);

		/* added out of order: the index sorts them */
		first[i] = opjit_kit_syms_add(&s, 0x100000 - i * 0x10, 0x10,
					      name, (size_t)n,
					      i % 2 ? "f.js" : NULL,
					      (uint32_t)i);
		ck_assert_ptr_nonnull(first[i]);
	}
	ck_assert_int_eq(opjit_kit_syms_index(&s), 0);
	for (i = 0; i < MANY; i++) {
		const struct opjit_symbol *sym =
			opjit_kit_syms_find(&s, 0x100000 - i * 0x10 + 0xf);

		snprintf(name, sizeof(name), "fn%zu", i);
		ck_assert_ptr_eq(sym, first[i]);
		ck_assert_str_eq(sym->name, name);
		ck_assert_uint_eq(sym->struct_size, OPJIT_SYMBOL_SIZE_1_0);
		ck_assert_uint_eq(sym->reserved, 0);
		if (i % 2)
			ck_assert_str_eq(sym->file, "f.js");
		else
			ck_assert_ptr_null(sym->file);
		ck_assert_uint_eq(sym->line, i);
	}
	opjit_kit_syms_free(&s);
	ck_assert_ptr_null(s.chunks);
}
END_TEST

START_TEST(find_holds_the_ends_and_the_latest)
{
	struct opjit_kit_syms s = { 0 };
	const struct opjit_symbol *a, *b, *later, *zero;

	a = opjit_kit_syms_add(&s, 0x1000, 0x100, "a", 1, NULL, 0);
	b = opjit_kit_syms_add(&s, 0x2000, 0x100, "b with spaces", 13, NULL,
			       0);
	later = opjit_kit_syms_add(&s, 0x1000, 0x80, "a2", 2, NULL, 0);
	zero = opjit_kit_syms_add(&s, 0x3000, 0, "z", 1, NULL, 0);
	ck_assert_int_eq(opjit_kit_syms_index(&s), 0);
	ck_assert_ptr_null(opjit_kit_syms_find(&s, 0xfff));
	ck_assert_ptr_eq(opjit_kit_syms_find(&s, 0x1000), later);
	ck_assert_ptr_eq(opjit_kit_syms_find(&s, 0x107f), later);
	/* past the latest at that start: nothing, not the older, longer one */
	ck_assert_ptr_null(opjit_kit_syms_find(&s, 0x1080));
	ck_assert_ptr_eq(opjit_kit_syms_find(&s, 0x20ff), b);
	ck_assert_str_eq(b->name, "b with spaces");
	ck_assert_ptr_null(opjit_kit_syms_find(&s, 0x2100));
	ck_assert_ptr_eq(opjit_kit_syms_find(&s, 0x3000), zero);
	ck_assert_ptr_null(opjit_kit_syms_find(&s, 0x3001));
	ck_assert_ptr_null(opjit_kit_syms_find(&s, UINT64_MAX));
	(void)a;
	opjit_kit_syms_free(&s);
}
END_TEST

/* names 0x100 and up; below, "before load" */
static const struct opjit_symbol *lookup_low(void *ctx, uint64_t addr,
					     uint64_t time, uint32_t *reason)
{
	const struct opjit_symbol *sym = ctx;

	ck_assert_uint_eq(time, addr * 16);
	if (addr < 0x100) {
		*reason = OPJIT_UNRESOLVED_BEFORE_LOAD;
		return NULL;
	}
	return addr < 0x200 ? sym : NULL;
}

START_TEST(resolve_walks_the_batch)
{
	const uint64_t addrs[] = { 0x10, 0x100, 0x1ff, 0x200 };
	const uint64_t times[] = { 0x100, 0x1000, 0x1ff0, 0x2000 };
	const struct opjit_symbol *syms[4] = { 0 };
	uint32_t reasons[4] = { 0 };
	struct opjit_symbol sym = { .struct_size = OPJIT_SYMBOL_SIZE_1_0,
				    .name = "x" };
	struct opjit_resolve_batch b = {
		.struct_size = OPJIT_RESOLVE_BATCH_SIZE_1_0,
		.count = 4,
		.addrs = addrs,
		.times = times,
		.symbols = syms,
		.reasons = reasons,
	};

	ck_assert_int_eq(opjit_kit_resolve(&b, lookup_low, &sym), 0);
	ck_assert_ptr_null(syms[0]);
	ck_assert_uint_eq(reasons[0], OPJIT_UNRESOLVED_BEFORE_LOAD);
	ck_assert_ptr_eq(syms[1], &sym);
	ck_assert_ptr_eq(syms[2], &sym);
	ck_assert_uint_eq(reasons[1] | reasons[2], 0);
	ck_assert_ptr_null(syms[3]);
	ck_assert_uint_eq(reasons[3], OPJIT_UNRESOLVED_NO_ENTRY);
	b.struct_size = 8;
	ck_assert_int_eq(opjit_kit_resolve(&b, lookup_low, &sym), -EINVAL);
}
END_TEST

START_TEST(batch_check_says_a_short_batch)
{
	struct opjit_resolve_batch b = {
		.struct_size = OPJIT_RESOLVE_BATCH_SIZE_1_0,
	};
	char err[64] = "", want[64];

	ck_assert_int_eq(opjit_kit_batch_check(&b, err, sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	b.struct_size = OPJIT_RESOLVE_BATCH_SIZE_1_0 - 1;
	ck_assert_int_eq(opjit_kit_batch_check(&b, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "resolve batch of %zu bytes is too small",
		 b.struct_size);
	ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(error_buffer_keeps_one_line)
{
	struct opjit_kit_err e = { { 0 } };

	ck_assert_ptr_null(opjit_kit_err_text(&e));
	ck_assert_int_eq(opjit_kit_errf(&e, -EIO, "%s: line %d\nmore", "m", 3),
			 -EIO);
	ck_assert_str_eq(opjit_kit_err_text(&e), "m: line 3");
}
END_TEST

static const struct opjit_handler table = {
	.struct_size = OPJIT_HANDLER_SIZE,
	.abi_major = OPJIT_HANDLER_ABI_MAJOR,
	.abi_minor = OPJIT_HANDLER_ABI_MINOR,
	.name = "t",
	.state_flags = (uint32_t(*)(void *))1,
	.code_bytes =
		(int (*)(void *, const struct opjit_symbol *, const uint8_t **,
			 uint64_t *, uint64_t *, uint64_t *))1,
};

START_TEST(each_host_minor_gets_its_table)
{
	static const size_t size[] = {
		OPJIT_HANDLER_SIZE_1_0, OPJIT_HANDLER_SIZE_1_0,
		OPJIT_HANDLER_SIZE_1_0, OPJIT_HANDLER_SIZE_1_3,
		OPJIT_HANDLER_SIZE_1_4,
	};
	struct opjit_handler older;
	const struct opjit_handler *t;
	uint32_t minor;

	ck_assert_ptr_null(opjit_kit_table_for(&table, &older, 2, 5));
	ck_assert_ptr_null(opjit_kit_table_for(&table, &older, 0, 5));
	for (minor = 0; minor < 5; minor++) {
		t = opjit_kit_table_for(&table, &older, 1, minor);
		ck_assert_ptr_eq(t, &older);
		ck_assert_uint_eq(t->struct_size, size[minor]);
		ck_assert_uint_eq(t->abi_minor, minor);
		ck_assert_str_eq(t->name, "t");
		/* nothing past what that host knows */
		ck_assert(t->state_flags == NULL || minor >= 3);
		ck_assert(t->code_bytes == NULL || minor >= 4);
		ck_assert_uint_eq(t->required_features, 0);
	}
	ck_assert_ptr_eq(opjit_kit_table_for(&table, &older, 1, 5), &table);
	/* a later host ignores the slots it does not know */
	ck_assert_ptr_eq(opjit_kit_table_for(&table, &older, 1, 9), &table);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("handler_kit");
	TCase *t = tcase_create("kit");

	tcase_add_test(t, pointers_stay_as_the_store_grows);
	tcase_add_test(t, find_holds_the_ends_and_the_latest);
	tcase_add_test(t, resolve_walks_the_batch);
	tcase_add_test(t, batch_check_says_a_short_batch);
	tcase_add_test(t, error_buffer_keeps_one_line);
	tcase_add_test(t, each_host_minor_gets_its_table);
	suite_add_tcase(s, t);
	return opjit_check_run(s);
}
