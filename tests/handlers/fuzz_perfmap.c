// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libFuzzer target for the perf map parser and its overlap index.  Besides
 * memory errors it checks the index against the rule it implements: at
 * every range boundary the name is that of the last entry in the file
 * covering the address.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfmap.h"

static int u64_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return (a > b) - (a < b);
}

/* The galloping search, over every edge of every range in ascending
 * order and then once more from the start, agrees with the plain one. */
static void check_sweep(const struct perfmap_seg *s, size_t ns)
{
	uint64_t *addrs = malloc((4 * ns + 1) * sizeof(*addrs));
	size_t i, k = 0, pos = 0, round;

	if (!addrs)
		return;
	for (i = 0; i < ns; i++) {
		addrs[k++] = s[i].start;
		addrs[k++] = s[i].end - 1;
		addrs[k++] = s[i].end;
		if (s[i].start)
			addrs[k++] = s[i].start - 1;
	}
	qsort(addrs, k, sizeof(*addrs), u64_cmp);
	for (round = 0; round < 2; round++)
		for (i = 0; i < k; i++)
			if (perfmap_lookup_next(s, ns, addrs[i], &pos) !=
			    perfmap_lookup(s, ns, addrs[i]))
				__builtin_trap();
	free(addrs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The last entry covering ADDR, by brute force; SIZE_MAX when none. */
static size_t brute_owner(const struct perfmap *m, uint64_t addr)
{
	size_t i;

	for (i = m->n; i-- > 0;)
		if (addr >= m->e[i].start &&
		    addr - m->e[i].start < m->e[i].size)
			return i;
	return SIZE_MAX;
}

static void check_addr(const struct perfmap *m, const struct perfmap_seg *s,
		       size_t ns, uint64_t addr)
{
	size_t want = brute_owner(m, addr);
	size_t got = perfmap_lookup(s, ns, addr);

	if (want == SIZE_MAX ? got != SIZE_MAX
			     : got == SIZE_MAX || s[got].entry != want)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfmap m;
	struct perfmap_seg *s = NULL;
	size_t ns = 0, i;

	memset(&m, 0, sizeof(m));
	(void)perfmap_looks_like((const char *)data, size);
	if (perfmap_parse(&m, (const char *)data, size) < 0)
		goto out;
	if (m.n > m.lines || m.bad_lines + m.blank_lines + m.n != m.lines)
		__builtin_trap();
	for (i = 0; i < m.n; i++)
		if (strlen(perfmap_name(&m, i)) == 0)
			__builtin_trap();
	if (perfmap_index(&m, &s, &ns) < 0)
		goto out;
	for (i = 0; i < ns; i++) {
		if (s[i].start >= s[i].end)
			__builtin_trap();
		if (i && s[i - 1].end > s[i].start)
			__builtin_trap();
	}
	check_sweep(s, ns);
	/* the brute-force oracle is quadratic: keep it to small maps */
	if (m.n <= 256) {
		for (i = 0; i < ns; i++) {
			check_addr(&m, s, ns, s[i].start);
			check_addr(&m, s, ns, s[i].end - 1);
			if (s[i].start)
				check_addr(&m, s, ns, s[i].start - 1);
			check_addr(&m, s, ns, s[i].end);
		}
		for (i = 0; i < m.n; i++) {
			check_addr(&m, s, ns, m.e[i].start);
			check_addr(&m, s, ns, m.e[i].start + m.e[i].size / 2);
		}
	}
out:
	free(s);
	perfmap_free(&m);
	return 0;
}
