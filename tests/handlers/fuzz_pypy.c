// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The pypy reader on any bytes: parse never reads past its input or
 * crashes, every code it keeps is a non-empty range with its names in
 * the pool, and the lookup agrees with a brute-force scan.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pypy.h"

/* The code covering ADDR at T by the rule of pypy_lookup(), by scanning
 * all of it. */
static size_t brute(const struct pypy_map *m, uint64_t addr, uint64_t t)
{
	size_t i, best = SIZE_MAX;

	for (i = 0; i < m->n; i++) {
		const struct pypy_code *c = &m->code[i];

		if (addr - c->start >= c->size)
			continue;
		if (c->t_load && c->t_load > t + PYPY_LOAD_SLACK_NS)
			continue;
		if (best == SIZE_MAX || c->t_load > m->code[best].t_load ||
		    (c->t_load == m->code[best].t_load &&
		     c->seq > m->code[best].seq))
			best = i;
	}
	return best;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pypy_map m;
	size_t i, k;
	uint32_t why;

	memset(&m, 0, sizeof(m));
	if (pypy_parse(&m, (const char *)data, size) != 1 ||
	    pypy_index(&m) != 0)
		goto out;
	for (i = 0; i < m.n; i++) {
		const struct pypy_code *c = &m.code[i];

		if (!c->size || c->start + c->size < c->start ||
		    c->func >= m.names_len || c->where >= m.names_len)
			__builtin_trap();
		if (i && c->start < m.code[i - 1].start)
			__builtin_trap();
	}
	if (m.n > 64)
		goto out;
	for (i = 0; i < m.n; i++) {
		const struct pypy_code *c = &m.code[i];
		const uint64_t probes[] = { c->start, c->start + c->size - 1,
					    c->start + c->size, c->start - 1 };

		for (k = 0; k < 4; k++) {
			uint64_t t = c->t_load + (k & 1) * 20000000ull;

			if (pypy_lookup(&m, probes[k], t, &why) !=
			    brute(&m, probes[k], t))
				__builtin_trap();
		}
	}
out:
	pypy_free(&m);
	return 0;
}
