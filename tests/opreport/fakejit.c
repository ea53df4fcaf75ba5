// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libfakejit.so: a handler for opreport's tests, so that what a handler
 * may hand back (source files and lines, unknown samples) reaches the
 * report without a JIT.  It claims processes whose comm is "fakejit"
 * and names an address A in 0x100-byte functions:
 *   A < 0x800 into a range start S:  fake_fn_N (N = (A - S) >> 8),
 *   source fake.js, symbol line (N + 1) * 10, address line that plus
 *   the low byte / 16;
 *   anything further: unknown.
 * S is the start of the process's first anonymous range, found as the
 * lowest address of the first batch rounded down to 64 KiB.
 * For comm "fakejit-inline" and a host of ABI 1.2, the second half of
 * fake_fn_N (low byte 0x80 and up) is fake_leaf_N (line N * 10 + 5)
 * inlined into fake_mid_N at line N * 10 + 3, itself inlined into
 * fake_fn_N at line N * 10 + 1.
 * For comm "fakejit-fail" it warns ("fake map looked at") and fails to
 * claim ("fake map unreadable"); for "fakejit-badresolve" it claims and
 * then fails to name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opjit/anon_handler.h>

#define NR_FNS 8

struct fake_state {
	uint64_t base;
	struct opjit_symbol syms[NR_FNS];
	char names[NR_FNS][16];
	int inlining, fail;
	struct opjit_symbol leaf[NR_FNS], mid[NR_FNS];
	char leaf_names[NR_FNS][16], mid_names[NR_FNS][16];
	struct opjit_inline_frame chain[NR_FNS][2];
};

static int fake_claim(const struct opjit_host *host,
		      const struct opjit_process *proc, void **state,
		      char *err, size_t errlen)
{
	struct fake_state *st;
	int i;

	if (proc->comm && !strcmp(proc->comm, "fakejit-fail")) {
		host->warn(host, "fake map looked at");
		snprintf(err, errlen, "fake map unreadable");
		return -5;
	}
	if (!proc->comm || (strcmp(proc->comm, "fakejit") &&
			    strcmp(proc->comm, "fakejit-inline") &&
			    strcmp(proc->comm, "fakejit-badresolve")))
		return 0;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -12;
	st->base = UINT64_MAX;
	st->inlining = !strcmp(proc->comm, "fakejit-inline");
	st->fail = !strcmp(proc->comm, "fakejit-badresolve");
	for (i = 0; i < NR_FNS; i++) {
		snprintf(st->names[i], sizeof(st->names[i]), "fake_fn_%d", i);
		st->syms[i].struct_size = OPJIT_SYMBOL_SIZE_1_0;
		st->syms[i].name = st->names[i];
		st->syms[i].size = 0x100;
		st->syms[i].file = "fake.js";
		st->syms[i].line = (uint32_t)(i + 1) * 10;
		snprintf(st->leaf_names[i], sizeof(st->leaf_names[i]),
			 "fake_leaf_%d", i);
		snprintf(st->mid_names[i], sizeof(st->mid_names[i]),
			 "fake_mid_%d", i);
		st->leaf[i] = (struct opjit_symbol){ OPJIT_SYMBOL_SIZE_1_0,
						     st->leaf_names[i],
						     0,
						     0,
						     "fake.js",
						     (uint32_t)i * 10 + 4,
						     0 };
		st->mid[i] = (struct opjit_symbol){ OPJIT_SYMBOL_SIZE_1_0,
						    st->mid_names[i],
						    0,
						    0,
						    "fake.js",
						    (uint32_t)i * 10 + 2,
						    0 };
		st->chain[i][0] = (struct opjit_inline_frame){
			OPJIT_INLINE_FRAME_SIZE_1_2, &st->mid[i], "fake.js",
			(uint32_t)i * 10 + 3, 0
		};
		st->chain[i][1] = (struct opjit_inline_frame){
			OPJIT_INLINE_FRAME_SIZE_1_2, &st->syms[i], "fake.js",
			(uint32_t)i * 10 + 1, 0
		};
	}
	*state = st;
	return 1;
}

static int fake_resolve(void *state, struct opjit_resolve_batch *b)
{
	struct fake_state *st = state;
	size_t i;

	if (st->fail)
		return -1;
	if (st->base == UINT64_MAX && b->count)
		st->base = b->addrs[0] & ~(uint64_t)0xffff;
	for (i = 0; i < b->count; i++) {
		uint64_t off = b->addrs[i] - st->base;
		size_t fn = (size_t)(off >> 8);

		if (b->addrs[i] < st->base || fn >= NR_FNS) {
			b->reasons[i] = OPJIT_UNRESOLVED_NO_ENTRY;
			continue;
		}
		st->syms[fn].start = st->base + (fn << 8);
		b->symbols[i] = &st->syms[fn];
		b->files[i] = "fake.js";
		b->lines[i] = (uint32_t)((fn + 1) * 10 + (off & 0xff) / 16);
		if (st->inlining && (off & 0xff) >= 0x80 &&
		    b->struct_size >= OPJIT_RESOLVE_BATCH_SIZE_1_2 &&
		    b->inlined && b->nr_inlined) {
			b->symbols[i] = &st->leaf[fn];
			b->lines[i] = (uint32_t)fn * 10 + 5;
			b->inlined[i] = st->chain[fn];
			b->nr_inlined[i] = 2;
		}
	}
	return 0;
}

static void fake_release(void *state)
{
	free(state);
}

static const struct opjit_handler fake_handler = {
	.struct_size = OPJIT_HANDLER_SIZE,
	.abi_major = OPJIT_HANDLER_ABI_MAJOR,
	.abi_minor = OPJIT_HANDLER_ABI_MINOR,
	.name = "fakejit",
	.description = "opreport's test handler: fixed functions, lines",
	.claim = fake_claim,
	.resolve = fake_resolve,
	.release = fake_release,
};

OPJIT_HANDLER_EXPORT const struct opjit_handler *
opjit_handler_entry(uint32_t host_abi_major, uint32_t host_abi_minor)
{
	if (host_abi_major != OPJIT_HANDLER_ABI_MAJOR)
		return NULL;
	return &fake_handler;
}
