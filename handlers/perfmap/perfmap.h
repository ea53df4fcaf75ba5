/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The perf map parser and its address index, private to the perfmap
 * handler, its unit tests, its fuzz target and its benchmark.
 */
#ifndef OPJIT_PERFMAP_H
#define OPJIT_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One `START SIZE NAME` line, in file order. */
struct perfmap_entry {
	uint64_t start;
	uint64_t size;
	uint32_t name; /* offset of the NUL-terminated name in names.buf */
};

/* Every distinct name once, so a map that repeats names stays small. */
struct perfmap_names {
	char *buf;
	size_t len, cap;
	uint32_t *slot; /* hash table of name offset + 1, 0 = empty */
	uint32_t *hash; /* each slot's hash, to rehash and compare fast */
	size_t nslots, count;
};

struct perfmap {
	struct perfmap_entry *e;
	size_t n, cap;
	struct perfmap_names names;
	size_t lines;	  /* lines seen, blank ones included */
	size_t bad_lines; /* lines that are not `START SIZE NAME` */
	size_t blank_lines;
	size_t first_bad; /* 1-based line number of the first bad line */
};

/* The largest map text read: far beyond any real runtime's, and small
 * enough that name offsets fit in 32 bits. */
#define PERFMAP_MAX_BYTES (1024u * 1024u * 1024u)

/*
 * Parse LEN bytes of perf map text into M (zeroed by the caller before
 * the first call).  Bad and blank lines are counted, never fatal.
 * Returns 0, -ENOMEM, or -EFBIG when LEN exceeds PERFMAP_MAX_BYTES.
 */
int perfmap_parse(struct perfmap *m, const char *buf, size_t len);
void perfmap_free(struct perfmap *m);

/* Once parsing is done: drop the interning table and spare capacity. */
void perfmap_compact(struct perfmap *m);

/* Whether the first non-blank line of BUF is a well-formed map line:
 * how an anon.<pid> file written by a perf-map writer is told apart from
 * one in another handler's format. */
bool perfmap_looks_like(const char *buf, size_t len);

static inline const char *perfmap_name(const struct perfmap *m, size_t i)
{
	return m->names.buf + m->e[i].name;
}

/* A range of addresses and the entry that names it. */
struct perfmap_seg {
	uint64_t start, end; /* [start, end) */
	uint32_t entry;
};

/*
 * Build the sorted, non-overlapping ranges of M: where entries overlap,
 * the later entry in the file names the addresses it covers and an
 * earlier one keeps the addresses only it covers.  *SEGS is malloc'ed.
 * Returns 0 or -ENOMEM.
 */
int perfmap_index(const struct perfmap *m, struct perfmap_seg **segs,
		  size_t *nsegs);

/* As perfmap_lookup(), for addresses asked in ascending order: *POS
 * (0 before the first) keeps where the last search ended, and the search
 * gallops forward from there, so a sorted batch costs the log of the
 * distance between neighbours, not of the map.  An address below the
 * last one starts over. */
size_t perfmap_lookup_next(const struct perfmap_seg *segs, size_t nsegs,
			   uint64_t addr, size_t *pos);

/* Index into SEGS of the range holding ADDR, or SIZE_MAX. */
size_t perfmap_lookup(const struct perfmap_seg *segs, size_t nsegs,
		      uint64_t addr);

#endif
