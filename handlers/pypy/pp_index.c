// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Lookup by address and time.  Code is sorted by start; maxend[i] is the
 * furthest end of code[0..i], so the candidates for an address are found
 * by walking back from the last code that starts at or below it while
 * maxend still reaches it.  PyPy rarely frees a trace, so that walk is
 * short.
 */
#include <errno.h>
#include <stdlib.h>

#include <opjit/anon_handler.h>
#include <oputil/search.h>

#include "pypy.h"

static int by_start(const void *pa, const void *pb)
{
	const struct pypy_code *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

int pypy_index(struct pypy_map *m)
{
	size_t i;

	qsort(m->code, m->n, sizeof(*m->code), by_start);
	free(m->maxend);
	m->maxend = malloc((m->n ? m->n : 1) * sizeof(*m->maxend));
	if (!m->maxend)
		return -ENOMEM;
	for (i = 0; i < m->n; i++) {
		uint64_t end = m->code[i].start + m->code[i].size;

		m->maxend[i] = i && m->maxend[i - 1] > end ? m->maxend[i - 1]
							   : end;
	}
	return 0;
}

/* Whether A, loaded later than B, replaces it (the later load wins). */
static bool newer(const struct pypy_code *a, const struct pypy_code *b)
{
	if (a->t_load != b->t_load)
		return a->t_load > b->t_load;
	return a->seq > b->seq;
}

size_t pypy_lookup(const struct pypy_map *m, uint64_t addr, uint64_t t,
		   uint32_t *why)
{
	size_t i = oputil_partition(0, m->n, k, m->code[k].start <= addr);
	size_t best = SIZE_MAX;
	bool later = false;

	while (i-- > 0 && m->maxend[i] > addr) {
		const struct pypy_code *c = &m->code[i];

		if (addr - c->start >= c->size)
			continue;
		if (c->t_load && c->t_load > t + PYPY_LOAD_SLACK_NS) {
			later = true;
			continue;
		}
		if (best == SIZE_MAX || newer(c, &m->code[best]))
			best = i;
	}
	if (best == SIZE_MAX)
		*why = later ? OPJIT_UNRESOLVED_BEFORE_LOAD
			     : OPJIT_UNRESOLVED_NO_ENTRY;
	return best;
}

size_t pypy_loop(const struct pypy_map *m, uint32_t loop_no)
{
	size_t i, best = SIZE_MAX;

	for (i = 0; i < m->n; i++)
		if (m->code[i].kind == PYPY_LOOP &&
		    m->code[i].loop_no == loop_no &&
		    (best == SIZE_MAX || newer(&m->code[i], &m->code[best])))
			best = i;
	return best;
}
