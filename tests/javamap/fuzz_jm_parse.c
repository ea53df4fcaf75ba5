// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer target: any bytes at all through the javamap parser, then
 * lookups at the edges of every piece of code it found. */
#include <stddef.h>
#include <stdint.h>

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

static void fuzz_lookups(struct jm_state *st)
{
	uint64_t addrs[6], times[6];
	const struct opjit_symbol *syms[6];
	const char *files[6];
	uint32_t lines[6];
	struct opjit_resolve_batch b = {
		.struct_size = sizeof(b),
		.count = 6,
		.addrs = addrs,
		.times = times,
		.symbols = syms,
		.files = files,
		.lines = lines,
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
		for (size_t j = 0; j < 6; j++)
			if (syms[j])
				n += syms[j]->name[0] != '\0';
	}
	jm_state_for_each(st, count_cb, &n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jm_state st;

	if (!jm_state_init(&st, data, size))
		fuzz_lookups(&st);
	jm_state_free(&st);
	return 0;
}
