// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer target: any bytes at all through the javamap parser, then
 * lookups at the edges of every piece of code it found and at each of
 * its pcs, through a batch of ABI 1.2 so that inlining chains are made
 * too, and the code bytes (ABI 1.4) of every symbol they give. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "jm_events.h"
#include "jm_format.h"
#include "jm_resolve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_cb(void *arg, const struct opjit_symbol *sym)
{
	size_t *n = arg;

	/* touch the strings, so that a dangling one is found */
	*n += sym->name[0] != '\0';
	if (sym->file)
		*n += sym->file[0] != '\0';
	return 0;
}

/* What the host relies on in a chain; a broken promise is a crash, so
 * that libFuzzer keeps the input. */
static size_t check_chain(const struct opjit_inline_frame *inl, uint32_t nr)
{
	size_t n = 0;

	if ((nr == 0) != (inl == NULL) || nr > OPJIT_INLINE_MAX)
		__builtin_trap();
	for (uint32_t k = 0; k < nr; k++) {
		if (inl[k].struct_size != OPJIT_INLINE_FRAME_SIZE_1_2 ||
		    !inl[k].symbol || inl[k].reserved)
			__builtin_trap();
		n += inl[k].symbol->name[0] != '\0';
		if (inl[k].file)
			n += inl[k].file[0] != '\0';
	}
	return n;
}

/* The input, which code bytes must lie in. */
static const uint8_t *in_lo, *in_hi;

/* SYM's code bytes, when it has any: inside the input, every byte read,
 * no more than the code's size, at the code's address. */
static size_t check_code(struct jm_state *st, const struct opjit_symbol *sym,
			 uint64_t addr)
{
	const uint8_t *code = NULL;
	uint64_t len = 0, at = 0, ns = 0;
	size_t n = 0;
	int rc = jm_state_code_bytes(st, sym, &code, &len, &at, &ns);

	if (rc == -ENOENT)
		return 0;
	if (rc || !code || !len || code < in_lo || code > in_hi ||
	    len > (uint64_t)(in_hi - code) || at > addr)
		__builtin_trap();
	for (uint64_t i = 0; i < len; i++)
		n += code[i];
	return n;
}

static void fuzz_lookups(struct jm_state *st)
{
	uint64_t addrs[6], times[6];
	const struct opjit_symbol *syms[6];
	const char *files[6];
	uint32_t lines[6], reasons[6];
	const struct opjit_inline_frame *inl[6];
	uint32_t nr_inl[6];
	struct opjit_resolve_batch b = {
		.struct_size = OPJIT_RESOLVE_BATCH_SIZE_1_2,
		.count = 6,
		.addrs = addrs,
		.times = times,
		.symbols = syms,
		.files = files,
		.lines = lines,
		.reasons = reasons,
		.inlined = inl,
		.nr_inlined = nr_inl,
	};
	size_t n = 0;

	for (size_t i = 0; i < st->map.nr_codes && i < 64; i++) {
		const struct jm_code *co = &st->map.codes[i];

		addrs[0] = co->addr - 1;
		addrs[1] = co->addr;
		addrs[2] = co->addr + co->size / 2;
		addrs[3] = co->addr + co->size - 1;
		addrs[4] = co->addr + co->size;
		addrs[5] = UINT64_MAX;
		times[0] = co->t_load - 1;
		times[1] = co->t_load;
		times[2] = co->t_unload - 1;
		times[3] = co->t_unload;
		times[4] = co->t_load + 1;
		times[5] = 0;
		jm_state_resolve(st, &b);
		for (size_t j = 0; j < 6; j++) {
			if (syms[j]) {
				n += syms[j]->name[0] != '\0';
				n += check_code(st, syms[j], addrs[j]);
			}
			n += check_chain(inl[j], nr_inl[j]);
		}
		/* each pc twice: its chain made, then taken from what was
		 * kept */
		for (size_t p = 0; p < co->nr_pcs && p < 32; p++) {
			addrs[0] = addrs[1] =
				co->addr + st->map.pcs[co->pc + p].off;
			times[0] = times[1] = co->t_load;
			b.count = 2;
			jm_state_resolve(st, &b);
			if (inl[0] != inl[1] || nr_inl[0] != nr_inl[1])
				__builtin_trap();
			n += check_chain(inl[0], nr_inl[0]);
			b.count = 6;
		}
	}
	jm_state_for_each(st, count_cb, &n);
}

/* Every event's stack: named frames, the class last, whole strings. */
static int event_cb(void *arg, const char *const *frames, size_t n,
		    uint64_t weight)
{
	size_t *total = arg;

	if (!n)
		__builtin_trap();
	for (size_t i = 0; i < n; i++)
		*total += strlen(frames[i]);
	*total += (size_t)weight;
	return 0;
}

static void fuzz_events(struct jm_state *st)
{
	size_t total = 0;

	jm_events_walk(st, JM_REC_ALLOC, 0, event_cb, &total);
	jm_events_walk(st, JM_REC_LOCK, 1, event_cb, &total);
	for (size_t i = 0; i < st->map.nr_events; i++)
		if (st->map.events[i].frame + st->map.events[i].nr_frames >
		    st->map.nr_frames)
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jm_state st;

	in_lo = data;
	in_hi = data + size;
	if (!jm_state_init(&st, data, size)) {
		fuzz_lookups(&st);
		fuzz_events(&st);
	}
	jm_state_free(&st);
	return 0;
}
