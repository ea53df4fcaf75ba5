// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The 1.0 handler ABI, frozen: every offset, size and constant a 1.0
 * handler or host was compiled with, and what 1.2 and 1.3 appended.  Built twice, against the current
 * header and against the frozen 1.0 copy, so a later header that moves,
 * resizes or renumbers anything fails to compile here.  The numbers are
 * those of LP64 Linux (x86_64, aarch64), where opjit runs.
 */
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <opjit/anon_handler.h>

#include "check_run.h"

#if __SIZEOF_POINTER__ != 8 || __SIZEOF_SIZE_T__ != 8
#error "the frozen layout below is that of LP64"
#endif

#define AT(type, member, off)                                  \
	_Static_assert(offsetof(struct type, member) == (off), \
		       #type "." #member " moved")
#define SIZE(type, n, last)                                                  \
	_Static_assert(sizeof(struct type) == (n) &&                         \
			       OPJIT_SIZE_THROUGH(struct type, last) == (n), \
		       "struct " #type " changed size or has tail padding")

AT(opjit_host, struct_size, 0);
AT(opjit_host, abi_major, 8);
AT(opjit_host, abi_minor, 12);
AT(opjit_host, warn, 16);
AT(opjit_host, host_data, 24);
AT(opjit_host, open_map, 32);
SIZE(opjit_host, 40, open_map);

AT(opjit_map_candidate, struct_size, 0);
AT(opjit_map_candidate, path, 8);
AT(opjit_map_candidate, kind, 16);
AT(opjit_map_candidate, flags, 20);
SIZE(opjit_map_candidate, 24, flags);

AT(opjit_process, struct_size, 0);
AT(opjit_process, tgid, 8);
AT(opjit_process, nspid, 12);
AT(opjit_process, uid, 16);
AT(opjit_process, flags, 20);
AT(opjit_process, start_ns, 24);
AT(opjit_process, start_unix_ns, 32);
AT(opjit_process, comm, 40);
AT(opjit_process, exe, 48);
AT(opjit_process, maps, 56);
AT(opjit_process, nr_maps, 64);
SIZE(opjit_process, 72, nr_maps);

AT(opjit_symbol, struct_size, 0);
AT(opjit_symbol, name, 8);
AT(opjit_symbol, start, 16);
AT(opjit_symbol, size, 24);
AT(opjit_symbol, file, 32);
AT(opjit_symbol, line, 40);
AT(opjit_symbol, reserved, 44);
SIZE(opjit_symbol, 48, reserved);

AT(opjit_resolve_batch, struct_size, 0);
AT(opjit_resolve_batch, count, 8);
AT(opjit_resolve_batch, addrs, 16);
AT(opjit_resolve_batch, times, 24);
AT(opjit_resolve_batch, symbols, 32);
AT(opjit_resolve_batch, files, 40);
AT(opjit_resolve_batch, lines, 48);
AT(opjit_resolve_batch, reasons, 56);
#if OPJIT_HANDLER_ABI_MINOR >= 2
/* 1.2 appended the inline chains, and their frame */
AT(opjit_resolve_batch, inlined, 64);
AT(opjit_resolve_batch, nr_inlined, 72);
SIZE(opjit_resolve_batch, 80, nr_inlined);
AT(opjit_inline_frame, struct_size, 0);
AT(opjit_inline_frame, symbol, 8);
AT(opjit_inline_frame, file, 16);
AT(opjit_inline_frame, line, 24);
AT(opjit_inline_frame, reserved, 28);
SIZE(opjit_inline_frame, 32, reserved);
_Static_assert(OPJIT_RESOLVE_BATCH_SIZE_1_2 == 80 &&
		       OPJIT_INLINE_FRAME_SIZE_1_2 == 32 &&
		       OPJIT_INLINE_MAX == 64,
	       "the 1.2 sizes are fixed for ever");
#else
SIZE(opjit_resolve_batch, 64, reasons);
#endif

AT(opjit_handler, struct_size, 0);
AT(opjit_handler, abi_major, 8);
AT(opjit_handler, abi_minor, 12);
AT(opjit_handler, name, 16);
AT(opjit_handler, description, 24);
AT(opjit_handler, claim, 32);
AT(opjit_handler, resolve, 40);
AT(opjit_handler, last_error, 48);
AT(opjit_handler, release, 56);
#if OPJIT_HANDLER_ABI_MINOR >= 4
/* 1.4 appended a slot: the code a symbol had, for disassembly */
AT(opjit_handler, state_flags, 64);
AT(opjit_handler, code_bytes, 72);
SIZE(opjit_handler, 80, code_bytes);
_Static_assert(OPJIT_HANDLER_SIZE_1_3 == 72 && OPJIT_STATE_TIMELESS == 1,
	       "the 1.3 size and flag are fixed for ever");
_Static_assert(OPJIT_HANDLER_SIZE_1_4 == 80, "the 1.4 size is fixed for ever");
#elif OPJIT_HANDLER_ABI_MINOR >= 3
/* 1.3 appended a slot: what the host may assume of a state's names */
AT(opjit_handler, state_flags, 64);
SIZE(opjit_handler, 72, state_flags);
_Static_assert(OPJIT_HANDLER_SIZE_1_3 == 72 && OPJIT_STATE_TIMELESS == 1,
	       "the 1.3 size and flag are fixed for ever");
#else
SIZE(opjit_handler, 64, release);
#endif

_Static_assert(OPJIT_HOST_SIZE_1_0 == 40 &&
		       OPJIT_MAP_CANDIDATE_SIZE_1_0 == 24 &&
		       OPJIT_PROCESS_SIZE_1_0 == 72 &&
		       OPJIT_SYMBOL_SIZE_1_0 == 48 &&
		       OPJIT_RESOLVE_BATCH_SIZE_1_0 == 64 &&
		       OPJIT_HANDLER_SIZE_1_0 == 64 &&
		       OPJIT_HANDLER_V1_SIZE == 64,
	       "the 1.0 struct sizes are fixed for ever");
_Static_assert(OPJIT_HANDLER_ABI_MAJOR == 1, "major 1");
_Static_assert(OPJIT_MAP_ANON == 1 && OPJIT_MAP_PERF == 2 &&
		       OPJIT_MAP_ARCHIVED == 1 && OPJIT_PROC_OTHER_MNTNS == 1,
	       "candidate kinds and flags keep their numbers");
_Static_assert(OPJIT_UNRESOLVED_UNKNOWN == 0 &&
		       OPJIT_UNRESOLVED_NO_ENTRY == 1 &&
		       OPJIT_UNRESOLVED_BEFORE_LOAD == 2 &&
		       OPJIT_UNRESOLVED_UNLOADED == 3 &&
		       OPJIT_UNRESOLVED_MAP_REFUSED == 4,
	       "unresolved reasons keep their numbers");

/* Every function keeps its type. */
#define TYPE(expr, type)                                                     \
	_Static_assert(__builtin_types_compatible_p(__typeof__(expr), type), \
		       #expr " changed type")
#define SLOT(s, f) (((struct s *)0)->f)

TYPE(opjit_handler_entry, const struct opjit_handler *(uint32_t, uint32_t));
TYPE(SLOT(opjit_host, warn),
     void (*)(const struct opjit_host *, const char *));
TYPE(SLOT(opjit_host, open_map),
     int (*)(const struct opjit_host *, const struct opjit_process *,
	     const struct opjit_map_candidate *, char *, size_t));
TYPE(SLOT(opjit_handler, claim),
     int (*)(const struct opjit_host *, const struct opjit_process *, void **,
	     char *, size_t));
TYPE(SLOT(opjit_handler, resolve),
     int (*)(void *, struct opjit_resolve_batch *));
TYPE(SLOT(opjit_handler, last_error), const char *(*)(void *));
TYPE(SLOT(opjit_handler, release), void (*)(void *));
#if OPJIT_HANDLER_ABI_MINOR >= 3
TYPE(SLOT(opjit_handler, state_flags), uint32_t (*)(void *));
#endif
#if OPJIT_HANDLER_ABI_MINOR >= 4
TYPE(SLOT(opjit_handler, code_bytes),
     int (*)(void *, const struct opjit_symbol *, const uint8_t **, uint64_t *,
	     uint64_t *, uint64_t *));
#endif
TYPE(SLOT(opjit_resolve_batch, reasons), uint32_t *);
TYPE(SLOT(opjit_resolve_batch, symbols), const struct opjit_symbol **);
#if OPJIT_HANDLER_ABI_MINOR >= 2
TYPE(SLOT(opjit_resolve_batch, inlined), const struct opjit_inline_frame **);
TYPE(SLOT(opjit_resolve_batch, nr_inlined), uint32_t *);
#endif

START_TEST(minor_only_grows)
{
	/* a header may only be the frozen 1.0 or a later 1.x */
	ck_assert_uint_eq(OPJIT_HANDLER_ABI_MAJOR, 1);
	ck_assert_uint_ge(OPJIT_HANDLER_ABI_MINOR, 0);
	ck_assert_str_eq(OPJIT_HANDLER_ENTRY_NAME, "opjit_handler_entry");
}
END_TEST

START_TEST(size_through_counts_to_the_end_of_a_member)
{
	ck_assert_uint_eq(OPJIT_SIZE_THROUGH(struct opjit_symbol, line), 44);
	ck_assert_uint_eq(OPJIT_SIZE_THROUGH(struct opjit_symbol, name), 16);
	ck_assert_uint_eq(OPJIT_SIZE_THROUGH(struct opjit_process, nr_maps),
			  sizeof(struct opjit_process));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("abi_layout");
	TCase *t = tcase_create("frozen");

	tcase_add_test(t, minor_only_grows);
	tcase_add_test(t, size_through_counts_to_the_end_of_a_member);
	suite_add_tcase(s, t);
	return opjit_check_run(s);
}
