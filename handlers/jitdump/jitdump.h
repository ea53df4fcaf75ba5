/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perf's jitdump format: the parser (a file into code loads, moves and
 * line tables) and the time-ordered index that says which code held an
 * address at a moment.  Private to the jitdump handler, its unit tests,
 * its fuzz target and its benchmark.
 */
#ifndef OPJIT_JITDUMP_H
#define OPJIT_JITDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The magic as a writer stores it in its own byte order ("JiTD"). */
#define JD_MAGIC 0x4A695444u
#define JD_HEADER_SIZE 40u
#define JD_RECORD_HEADER_SIZE 16u

/* V8 fills the header's reserved word with this; no other writer
 * known does. */
#define JD_V8_RESERVED 0xDEADBEEFu

/* Header flags. */
#define JD_FLAGS_ARCH_TIMESTAMP \
	0x1ull /* records stamped by the CPU's
					* counter, not CLOCK_MONOTONIC */

/* Record types. */
#define JD_CODE_LOAD 0u
#define JD_CODE_MOVE 1u
#define JD_CODE_DEBUG_INFO 2u
#define JD_CODE_CLOSE 3u
#define JD_CODE_UNWINDING_INFO 4u

/* The largest file read, and the largest record: far beyond any real
 * runtime's, and small enough for 32-bit offsets into the name pool. */
#define JD_MAX_BYTES (4ull << 30)
#define JD_MAX_RECORD (256u << 20)

/* Malformed records reported one by one before the rest are counted. */
#define JD_MAX_REPORTED 8

/* One source line: code at ADDR (the code's load address plus the
 * offset) comes from FILE:LINE. */
struct jd_line {
	uint64_t addr;
	uint32_t line;
	uint32_t file; /* offset of the name in the name pool, or JD_NO_FILE */
};

/* The file of a line whose name in the record was not a name. */
#define JD_NO_FILE UINT32_MAX

/* A line of the pending table whose file name was overwritten: its
 * bytes (LEN, in the pool at BYTES), to be matched with the script of
 * the load that follows. */
struct jd_garbled {
	uint32_t line; /* index into jd_dump.lines */
	uint32_t bytes, len;
};

/* One JIT_CODE_LOAD. */
struct jd_code {
	uint64_t addr, size, index, time;
	uint32_t name;	 /* offset in the name pool */
	uint32_t nlines; /* lines[first_line .. first_line + nlines) */
	uint32_t first_line;
	/* the code's bytes the record holds (fewer than size when the
	 * record lies), from input offset code_off */
	uint32_t code_len;
	uint64_t code_off;
};

/* One JIT_CODE_MOVE, kept as written. */
struct jd_move {
	uint64_t old_addr, new_addr, size, index, time;
};

/* Events in file order: a load (code[i]) or a move (move[i]). */
struct jd_event {
	uint32_t kind; /* JD_CODE_LOAD or JD_CODE_MOVE */
	uint32_t i;
};

struct jd_dump {
	const char *path; /* for messages */
	bool swapped;	  /* written in the other byte order */
	uint32_t version;
	uint32_t elf_mach;
	uint32_t pid;
	uint64_t flags;
	/* subtracted from every line-table address: V8 writes them as
	 * where perf inject's ELF file would hold the code, behind its ELF
	 * header (see jd_header()) */
	uint32_t line_bias;
	struct jd_code *code;
	size_t ncode, capcode;
	struct jd_move *move;
	size_t nmove, capmove;
	struct jd_event *ev;
	size_t nev, capev;
	struct jd_line *lines;
	size_t nlines, caplines;
	char *names;
	size_t names_len, names_cap;
	/* the last DEBUG_INFO, waiting for the load of its code */
	uint64_t pending_addr;
	uint32_t pending_first, pending_n;
	bool has_pending;
	/* its lines whose file names were not names */
	struct jd_garbled *garbled;
	size_t ngarbled, capgarbled;
	/* line-table file names that were not names, and those of them
	 * recovered from their code's name */
	uint64_t names_garbled, names_recovered;
	bool closed; /* a JIT_CODE_CLOSE was read */
	uint64_t records, skipped;
	/* malformed records: count, the first messages */
	size_t nbad;
	char bad[JD_MAX_REPORTED][160];
	/* a record cut off at the end of the file */
	bool torn;
	uint64_t torn_at;
	/* the parser stopped early (a record size that cannot be) */
	bool broken;
	uint64_t broken_at;
	uint32_t broken_size;
};

/* What jd_header() found. */
enum jd_header_result {
	JD_HDR_OK = 0,
	JD_HDR_NOT_JITDUMP, /* no magic: someone else's file */
	JD_HDR_SHORT,	    /* shorter than a header */
	JD_HDR_VERSION,	    /* a version we do not know */
};

/*
 * Read the header in BUF (LEN bytes, at least JD_HEADER_SIZE for OK).
 * Fills byte order, version, flags of D and the header size to skip.
 */
enum jd_header_result jd_header(struct jd_dump *d, const uint8_t *buf,
				size_t len, uint32_t *hdr_size);

/* A source of bytes: a descriptor read in chunks, or one buffer. */
struct jd_src {
	int fd; /* -1: BUF holds the whole input */
	uint8_t *buf;
	size_t len, pos, cap;
	uint64_t off;  /* file offset of buf[0] */
	uint64_t size; /* bytes in the input when it was opened */
	bool own;      /* BUF is ours to free */
};

void jd_src_mem(struct jd_src *s, const uint8_t *data, size_t len);
void jd_src_fd(struct jd_src *s, int fd);
void jd_src_free(struct jd_src *s);

/*
 * Parse the whole of SRC into D (zeroed, with D->path set).  Bad
 * records are skipped and noted in D, a torn tail or an impossible
 * record size ends the parse with what came before it kept.  Returns 0,
 * 1 when the header says this is not a jitdump (or one we cannot read:
 * D->version and D->bad[0] say why), or a negative errno.
 */
int jd_parse(struct jd_dump *d, struct jd_src *src);
void jd_free(struct jd_dump *d);

static inline const char *jd_name(const struct jd_dump *d, uint32_t off)
{
	return d->names + off;
}

/*
 * The index: every stretch of time one piece of code held one range of
 * addresses (a "life"), cut into disjoint address segments each listing
 * the lives that covered it, oldest first.
 */
struct jd_life {
	uint64_t start, end; /* [start, end) */
	uint64_t from, to;   /* [from, to) in record time */
	uint64_t delta;	     /* start minus the code's load address */
	uint32_t code;	     /* index into jd_dump.code */
};

struct jd_seg {
	uint64_t start, end;
	uint32_t first, n; /* into jd_index.list */
};

struct jd_index {
	struct jd_life *life;
	size_t nlife;
	struct jd_seg *seg;
	size_t nseg;
	uint32_t *list;
	size_t nlist;
	bool by_address;      /* times not comparable: address only */
	size_t unknown_moves; /* moves of code never loaded */
};

/* How far a sample may precede the load record of the code it hit and
 * still be named after it: the runtime writes the record after the code
 * is already in place and may already run. */
#define JD_EARLY_NS 10000000ull

/* Build the index of D.  BY_ADDRESS ignores time.  0 or -ENOMEM, or
 * -E2BIG when overlapping code would need more than JD_MAX_LIST
 * segment entries. */
#define JD_MAX_LIST (64u << 20)
int jd_index_build(struct jd_index *x, const struct jd_dump *d,
		   bool by_address);
void jd_index_free(struct jd_index *x);

/* Index of the segment holding ADDR, or SIZE_MAX. */
size_t jd_index_seg(const struct jd_index *x, uint64_t addr);

/* The life that held ADDR (in segment SEG) at TIME, or UINT32_MAX. */
uint32_t jd_index_life(const struct jd_index *x, size_t seg, uint64_t time);

/* Source line of ADDR inside life L, or NULL. */
const struct jd_line *jd_line_at(const struct jd_dump *d,
				 const struct jd_index *x, uint32_t l,
				 uint64_t addr);

#endif
