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

#include <oputil/idxset.h>
#include <oputil/search.h>

/* One `START SIZE NAME` line, in file order.  16 bytes: a map of a
 * million functions costs its names and 16 MB here.  No code is 4 GiB
 * long, so a larger size makes the line malformed. */
struct perfmap_entry {
	uint64_t start;
	uint32_t size;
	uint32_t name; /* offset of the NUL-terminated name in names.buf */
};

/* Every distinct name once, so a map that repeats names stays small. */
struct perfmap_names {
	char *buf;
	size_t len, cap;
	/* while parsing: by name, the first entry that carried each one */
	struct oputil_idxset first;
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

/* A range of addresses, [start, start + len), and the entry that names
 * it: a part of one entry, so its length fits as the entry's does. */
struct perfmap_seg {
	uint64_t start;
	uint32_t len;
	uint32_t entry;
};

static inline uint64_t perfmap_seg_end(const struct perfmap_seg *s)
{
	return s->start + s->len;
}

/*
 * Build the sorted, non-overlapping ranges of M: where entries overlap,
 * the later entry in the file names the addresses it covers and an
 * earlier one keeps the addresses only it covers.  *SEGS is malloc'ed.
 * Returns 0 or -ENOMEM.
 */
int perfmap_index(const struct perfmap *m, struct perfmap_seg **segs,
		  size_t *nsegs);

/*
 * The map as the handler keeps it once indexed: the ranges and the
 * names, 12 bytes a range.  A range's start is kept as its distance from
 * the start of its page, a run of at most PERFMAP_PAGE ranges within
 * 4 GiB of the page's first, and its entry as the name itself when the
 * range is all of its entry (the common case: no other entry overlaps
 * it); the entries overlaps cut into parts are kept whole in SPLIT, so
 * that each stays one symbol.  A map then costs less than its own size.
 */
struct perfmap_table {
	uint32_t *off;	 /* per range: its start - its page's base */
	uint32_t *len;	 /* per range */
	uint32_t *entry; /* per range: PERFMAP_WHOLE | name offset, or an
			  * index into split */
	uint64_t *base;	 /* per page: the start of its first range */
	uint32_t *first; /* per page: its first range */
	size_t nsegs, npages;
	struct perfmap_entry *split;
	size_t nsplit;
	char *names;
};
#define PERFMAP_WHOLE 0x80000000u /* name offsets stay below: 1 GiB max */
#define PERFMAP_PAGE 64u

/* Build T from M and its ranges SEGS (perfmap_index()'s), taking both:
 * M is left empty and SEGS freed.  0 or -ENOMEM (then M and SEGS are
 * freed too). */
int perfmap_pack(struct perfmap *m, struct perfmap_seg *segs, size_t nsegs,
		 struct perfmap_table *t);
void perfmap_table_free(struct perfmap_table *t);

/* The start of range I of T: a search for its page, for callers that
 * did not find I through perfmap_table_lookup(). */
static inline uint64_t perfmap_table_start(const struct perfmap_table *t,
					   size_t i)
{
	/* the last page whose first range is at or before I */
	size_t p = oputil_partition(0, t->npages, k, t->first[k] <= i) - 1;

	return t->base[p] + t->off[i];
}

/* What range I of T, which starts at START, names: its entry's start,
 * size and name; *KEY is the same for every range of one entry and
 * below nsegs + nsplit. */
static inline struct perfmap_entry
perfmap_table_entry(const struct perfmap_table *t, size_t i, uint64_t start,
		    size_t *key)
{
	uint32_t e = t->entry[i];

	if (e & PERFMAP_WHOLE) {
		*key = i;
		return (struct perfmap_entry){ start, t->len[i],
					       e & ~PERFMAP_WHOLE };
	}
	*key = t->nsegs + e;
	return t->split[e];
}

/* Where the last search ended, for the next: zero before the first. */
struct perfmap_cursor {
	size_t page, seg;
};

/* The range of T holding ADDR, or SIZE_MAX; its bounds in *START and
 * *END.  For addresses asked in ascending order: the search gallops
 * forward from where CUR says the last one ended, so a sorted batch
 * costs the log of the distance between neighbours, not of the map.  An
 * address below it starts over. */
size_t perfmap_table_lookup(const struct perfmap_table *t, uint64_t addr,
			    struct perfmap_cursor *cur, uint64_t *start,
			    uint64_t *end);

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
