// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A handler built many ways for the loader tests: well-formed, or wrong
 * in exactly one way chosen by a FAKE_* definition.
 *
 * A good build claims a process whose comm is its name or "any"; names
 * [0x1000,0x2000) "NAME:lo" (with source file and line) and
 * [0x2000,0x3000) "NAME:hi"; and for comm "cands" names sample I after
 * the I-th map candidate, so a test can see the list the host built.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opjit/anon_handler.h>

#ifndef FAKE_NAME
#error "FAKE_NAME must be defined"
#endif
#if defined(FAKE_FROZEN_1_0) && !defined(OPJIT_ANON_HANDLER_FROZEN_1_0)
#error "FAKE_FROZEN_1_0: not built against the frozen 1.0 header"
#endif
#ifndef FAKE_TABLE_NAME
#define FAKE_TABLE_NAME FAKE_NAME
#endif
#ifndef FAKE_MAJOR
#define FAKE_MAJOR OPJIT_HANDLER_ABI_MAJOR
#endif
#ifndef FAKE_DESCRIPTION
#define FAKE_DESCRIPTION "fake handler " FAKE_NAME
#endif

#define MAX_CANDS 16

/* A symbol as a later minor would lay it out: the 1.0 fields, then one
 * this host has never heard of.  Explicit padding makes the appended
 * field start right where 1.0's struct_size ends. */
struct fake_sym {
	struct opjit_symbol s;
	uint64_t later;
};

#if defined(FAKE_FUTURE)
#define FAKE_SYM_SIZE sizeof(struct fake_sym)
#else
#define FAKE_SYM_SIZE OPJIT_SYMBOL_SIZE_1_0
#endif
#ifndef FAKE_MINOR
#define FAKE_MINOR OPJIT_HANDLER_ABI_MINOR
#endif

struct fake_state {
	struct fake_sym lo, hi;
	struct opjit_symbol cand[MAX_CANDS];
	char cand_name[MAX_CANDS][256];
	size_t ncand;
	int fail_resolve;
	char err[64];
};

__attribute__((unused))
static int fake_claim(const struct opjit_host *host,
		      const struct opjit_process *proc, void **state,
		      char *err, size_t errlen)
{
	struct fake_state *st;
	size_t i;

	*state = NULL;
	if (!strcmp(proc->comm, "fail-" FAKE_NAME)) {
		snprintf(err, errlen, "fake map unreadable");
		return -EIO;
	}
	if (strcmp(proc->comm, FAKE_NAME) && strcmp(proc->comm, "any") &&
	    strcmp(proc->comm, "cands") && strcmp(proc->comm, "badresolve") &&
	    strcmp(proc->comm, "noisy"))
		return 0;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->lo.s = (struct opjit_symbol){ FAKE_SYM_SIZE, FAKE_NAME ":lo",
					  0x1000, 0x1000, "lo.c", 7, 0 };
	st->hi.s = (struct opjit_symbol){ FAKE_SYM_SIZE, FAKE_NAME ":hi",
					  0x2000, 0x1000, NULL, 0, 0 };
#ifdef FAKE_BAD_RESERVED
	st->hi.s.reserved = 1;
#endif
#if defined(FAKE_FUTURE)
	/* the later field is set only for a host that knows it, unless
	 * this handler breaks the rule on purpose */
# if !defined(FAKE_IGNORES_HOST_MINOR) && !defined(FAKE_RUDE_SYMBOLS)
	if (host->abi_minor >= FAKE_MINOR)
# endif
		st->lo.later = st->hi.later = 42;
#endif
	for (i = 0; i < proc->nr_maps && i < MAX_CANDS; i++) {
		const struct opjit_map_candidate *c = proc->maps[i];

		snprintf(st->cand_name[i], sizeof(st->cand_name[i]),
			 "%u:%u:%s", c->kind, c->flags, c->path);
		st->cand[i].struct_size = OPJIT_SYMBOL_SIZE_1_0;
		st->cand[i].name = st->cand_name[i];
	}
	st->ncand = !strcmp(proc->comm, "cands") ? i : 0;
	st->fail_resolve = !strcmp(proc->comm, "badresolve");
	host->warn(host, strcmp(proc->comm, "noisy") ? "claimed" :
		   "two\nlines\033[31m");
	*state = st;
	return 1;
}

static int fake_resolve(void *state, struct opjit_resolve_batch *b)
{
	struct fake_state *st = state;
	size_t i;

	if (st->fail_resolve) {
		snprintf(st->err, sizeof(st->err), "fake resolve failure");
		return -EIO;
	}
	for (i = 0; i < b->count; i++) {
		uint64_t a = b->addrs[i];

		if (i && a < b->addrs[i - 1]) {
			snprintf(st->err, sizeof(st->err), "unsorted batch");
			return -EINVAL;
		}
		if (st->ncand) {
			b->symbols[i] = i < st->ncand ? &st->cand[i] : NULL;
		} else if (a >= 0x1000 && a < 0x2000) {
			b->symbols[i] = &st->lo.s;
			b->files[i] = "lo.c";
			b->lines[i] = (uint32_t)(a - 0x1000);
		} else if (a >= 0x2000 && a < 0x3000) {
			b->symbols[i] = &st->hi.s;
		} else if (b->struct_size >= OPJIT_RESOLVE_BATCH_SIZE_1_0 &&
			   b->reasons) {
			b->reasons[i] = a < 0x1000 ?
					OPJIT_UNRESOLVED_BEFORE_LOAD :
					OPJIT_UNRESOLVED_NO_ENTRY;
		}
	}
	return 0;
}

static const char *fake_last_error(void *state)
{
	struct fake_state *st = state;

	return st->err;
}

static void fake_release(void *state)
{
	free(state);
}

/* A table as a later minor version would lay it out: the 1.0 fields,
 * then slots this host has never heard of. */
struct fake_table {
	struct opjit_handler v1;
	void (*later_slot[2])(void);
};

#if defined(FAKE_TINY)
#define FAKE_TABLE_SIZE 8
#elif defined(FAKE_HUGE)
#define FAKE_TABLE_SIZE SIZE_MAX
#elif defined(FAKE_FUTURE)
#define FAKE_TABLE_SIZE sizeof(struct fake_table)
#else
#define FAKE_TABLE_SIZE OPJIT_HANDLER_SIZE_1_0
#endif

static void fake_later(void)
{
}

#ifndef FAKE_NO_CLAIM
#define FAKE_CLAIM fake_claim
#else
#define FAKE_CLAIM NULL
#endif
#define FAKE_V1 {                                                            \
		.struct_size = FAKE_TABLE_SIZE,                              \
		.abi_major = FAKE_MAJOR,                                     \
		.abi_minor = FAKE_MINOR,                                     \
		.name = FAKE_TABLE_NAME,                                     \
		.description = FAKE_DESCRIPTION,                             \
		.claim = FAKE_CLAIM,                                         \
		.resolve = fake_resolve,                                     \
		.last_error = fake_last_error,                               \
		.release = fake_release,                                     \
	}

__attribute__((unused))
static const struct fake_table fake_table = {
	.v1 = FAKE_V1,
	.later_slot = { fake_later, fake_later },
};
/* What a later handler hands a host older than its minor: the new slots
 * left zero, as the growth rules ask, so that the older host loads it. */
__attribute__((unused))
static const struct fake_table fake_table_for_older = {
	.v1 = FAKE_V1,
};
#define fake_handler (fake_table.v1)

#ifdef FAKE_NO_ENTRY
/* exports something, but not the entry point */
OPJIT_HANDLER_EXPORT const struct opjit_handler *opjit_handler_entry_v0(void);
OPJIT_HANDLER_EXPORT const struct opjit_handler *opjit_handler_entry_v0(void)
{
	return &fake_handler;
}
#else
OPJIT_HANDLER_EXPORT const struct opjit_handler *
opjit_handler_entry(uint32_t host_abi_major, uint32_t host_abi_minor)
{
#if defined(FAKE_NULL_TABLE)
	return NULL;
#elif defined(FAKE_FUTURE) && !defined(FAKE_IGNORES_HOST_MINOR)
	if (host_abi_minor < FAKE_MINOR)
		return &fake_table_for_older.v1;
	return &fake_handler;
#else
	return &fake_handler;
#endif
}
#endif
