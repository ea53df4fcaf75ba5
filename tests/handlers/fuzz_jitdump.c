// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libFuzzer target for the jitdump parser and its time index.  Besides
 * memory errors it checks the index against the rule it implements, by
 * brute force over the lives: at an address and a time, the newest code
 * that had started there, unless it has moved away, else code whose
 * load comes at most JD_EARLY_NS later.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t brute(const struct jd_index *x, uint64_t addr, uint64_t t)
{
	size_t i, last = SIZE_MAX;

	for (i = 0; i < x->nlife; i++)
		if (addr >= x->life[i].start && addr < x->life[i].end &&
		    x->life[i].from <= t)
			last = i;
	if (last != SIZE_MAX && x->life[last].to > t)
		return (uint32_t)last;
	for (i = 0; i < x->nlife; i++)
		if (addr >= x->life[i].start && addr < x->life[i].end &&
		    x->life[i].from > t && x->life[i].from - t <= JD_EARLY_NS)
			return (uint32_t)i;
	return UINT32_MAX;
}

static void check(const struct jd_dump *d, const struct jd_index *x,
		  uint64_t addr, uint64_t t)
{
	size_t seg = jd_index_seg(x, addr);
	uint32_t got = seg == SIZE_MAX ? UINT32_MAX : jd_index_life(x, seg, t);

	if (!x->by_address && got != brute(x, addr, t))
		__builtin_trap();
	if (got != UINT32_MAX) {
		const struct jd_life *l = &x->life[got];

		if (addr < l->start || addr >= l->end || l->code >= d->ncode)
			__builtin_trap();
		(void)jd_line_at(d, x, got, addr);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jd_dump d;
	struct jd_index x;
	struct jd_src s;
	size_t i;

	memset(&d, 0, sizeof(d));
	d.path = "fuzz";
	jd_src_mem(&s, data, size);
	if (jd_parse(&d, &s) != 0)
		goto out;
	for (i = 0; i < d.ncode; i++)
		if (d.code[i].name >= d.names_len ||
		    d.code[i].first_line + (uint64_t)d.code[i].nlines >
			    d.nlines ||
		    /* a load's code bytes lie inside the input and its size */
		    d.code[i].code_off + d.code[i].code_len > size ||
		    d.code[i].code_len > d.code[i].size)
			__builtin_trap();
	if (jd_index_build(&x, &d, d.flags & JD_FLAGS_ARCH_TIMESTAMP))
		goto out;
	for (i = 0; i < x.nlife && i < 64; i++) {
		const struct jd_life *l = &x.life[i];

		check(&d, &x, l->start, l->from);
		check(&d, &x, l->start, l->from - 1);
		check(&d, &x, l->end - 1, l->to);
		check(&d, &x, l->end - 1, l->from + JD_EARLY_NS);
		check(&d, &x, l->end, l->from);
	}
	jd_index_free(&x);
out:
	jd_free(&d);
	jd_src_free(&s);
	return 0;
}
