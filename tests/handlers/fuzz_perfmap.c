// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libFuzzer target for the perf map parser and its overlap index.  Besides
 * memory errors it checks the index against the rule it implements: at
 * every range boundary the name is that of the last entry in the file
 * covering the address; and the packed table against the entries.
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
		addrs[k++] = perfmap_seg_end(&s[i]) - 1;
		addrs[k++] = perfmap_seg_end(&s[i]);
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

/* The packed table finds ADDR where the ranges S do, with its bounds;
 * *PAGE is the ascending search's. */
static void check_table_addr(const struct perfmap_table *t,
			     const struct perfmap_seg *s, size_t ns,
			     uint64_t addr, struct perfmap_cursor *page)
{
	struct perfmap_cursor fresh = { 0, 0 };
	size_t want = perfmap_lookup(s, ns, addr), got;
	uint64_t start = 0, end = 0;

	got = perfmap_table_lookup(t, addr, &fresh, &start, &end);
	if (got != want ||
	    (got != SIZE_MAX &&
	     (start != s[got].start || end != perfmap_seg_end(&s[got]))))
		__builtin_trap();
	if (perfmap_table_lookup(t, addr, page, &start, &end) != want)
		__builtin_trap();
}

/* The packed table says of each range what its entry said, gives the
 * ranges of one entry one key, and finds what the ranges find: it takes
 * M and S. */
static void check_pack(struct perfmap *m, struct perfmap_seg *s, size_t ns)
{
	struct perfmap_entry *e = malloc((m->n ? m->n : 1) * sizeof(*e));
	uint32_t *owner = malloc((ns ? ns : 1) * sizeof(*owner));
	size_t *key_of = malloc((m->n ? m->n : 1) * sizeof(*key_of));
	struct perfmap_seg *copy = malloc((ns ? ns : 1) * sizeof(*copy));
	struct perfmap_table t;
	size_t i;
	struct perfmap_cursor page = { 0, 0 };

	if (!e || !owner || !key_of || !copy) {
		free(s);
		goto out;
	}
	memcpy(copy, s, ns * sizeof(*copy));
	memcpy(e, m->e, m->n * sizeof(*e));
	for (i = 0; i < m->n; i++)
		key_of[i] = SIZE_MAX;
	for (i = 0; i < ns; i++)
		owner[i] = s[i].entry;
	if (perfmap_pack(m, s, ns, &t) < 0)
		goto out;
	for (i = 0; i < t.nsegs; i++) {
		size_t key;
		struct perfmap_entry got = perfmap_table_entry(
			&t, i, perfmap_table_start(&t, i), &key);
		const struct perfmap_entry *want = &e[owner[i]];

		if (got.start != want->start || got.size != want->size ||
		    got.name != want->name || key >= t.nsegs + t.nsplit)
			__builtin_trap();
		if (key_of[owner[i]] == SIZE_MAX)
			key_of[owner[i]] = key;
		else if (key_of[owner[i]] != key)
			__builtin_trap();
	}
	/* in ascending order, so that the page hint is exercised */
	for (i = 0; i < ns; i++) {
		if (copy[i].start)
			check_table_addr(&t, copy, ns, copy[i].start - 1,
					 &page);
		check_table_addr(&t, copy, ns, copy[i].start, &page);
		check_table_addr(&t, copy, ns, perfmap_seg_end(&copy[i]) - 1,
				 &page);
		check_table_addr(&t, copy, ns, perfmap_seg_end(&copy[i]),
				 &page);
	}
	check_table_addr(&t, copy, ns, 0, &page);
	perfmap_table_free(&t);
out:
	free(copy);
	free(e);
	free(owner);
	free(key_of);
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
		if (s[i].start >= perfmap_seg_end(&s[i]))
			__builtin_trap();
		if (i && perfmap_seg_end(&s[i - 1]) > s[i].start)
			__builtin_trap();
	}
	check_sweep(s, ns);
	/* the brute-force oracle is quadratic: keep it to small maps */
	if (m.n <= 256) {
		for (i = 0; i < ns; i++) {
			check_addr(&m, s, ns, s[i].start);
			check_addr(&m, s, ns, perfmap_seg_end(&s[i]) - 1);
			if (s[i].start)
				check_addr(&m, s, ns, s[i].start - 1);
			check_addr(&m, s, ns, perfmap_seg_end(&s[i]));
		}
		for (i = 0; i < m.n; i++) {
			check_addr(&m, s, ns, m.e[i].start);
			check_addr(&m, s, ns, m.e[i].start + m.e[i].size / 2);
		}
	}
	check_pack(&m, s, ns);
	s = NULL;
out:
	free(s);
	perfmap_free(&m);
	return 0;
}
