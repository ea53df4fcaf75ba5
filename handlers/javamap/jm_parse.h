/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The javamap parser: a whole map file, already in memory, turned into
 * methods and code intervals.  Pure: no I/O, no globals, so that unit
 * tests and the fuzz target drive it directly.
 */
#ifndef OPJIT_JM_PARSE_H
#define OPJIT_JM_PARSE_H

#include <stddef.h>
#include <stdint.h>

#define JM_NEVER UINT64_MAX /* t_unload of code never unloaded */

struct jm_line {
	uint32_t bci;
	uint32_t line;
};

struct jm_method {
	uint64_t id;
	char *name;
	char *file;	       /* NULL when unknown */
	struct jm_line *lines; /* sorted by bci */
	uint32_t nr_lines;
};

struct jm_frame {
	uint64_t method;
	int32_t bci;
};

struct jm_pc {
	uint32_t off;	    /* from the start of the code */
	uint32_t nr_frames; /* innermost first */
	size_t frame;	    /* index of the first in jm_map.frames */
};

enum jm_code_kind {
	JM_CODE_COMPILED = 1,
	JM_CODE_DYNAMIC = 2,
};

struct jm_code {
	uint32_t kind;	 /* enum jm_code_kind */
	uint32_t flags;	 /* JM_REC_* record flags */
	uint64_t method; /* JM_CODE_COMPILED */
	char *name;	 /* JM_CODE_DYNAMIC */
	uint64_t addr;
	uint64_t size;
	uint64_t t_load;
	uint64_t t_unload; /* JM_NEVER while loaded */
	size_t pc;	   /* first in jm_map.pcs */
	size_t nr_pcs;	   /* sorted by off */
	/* 2.1: the code's bytes as the log kept them, NR_BYTES <= SIZE,
	 * in the buffer jm_parse() read (valid while it is); NULL: none */
	const unsigned char *bytes;
	uint32_t nr_bytes;
};

/* An event sample (JM_REC_ALLOC, JM_REC_LOCK) and its stack. */
struct jm_event {
	uint32_t kind; /* enum jm_rec_kind */
	uint64_t t;
	uint64_t tid;
	uint64_t value; /* ALLOC: object bytes; LOCK: ns waited */
	uint64_t aux;	/* ALLOC: the sampling interval; LOCK: threshold */
	char *what;	/* the allocated class, the monitor's class */
	size_t frame;	/* first in jm_map.frames, innermost first */
	size_t nr_frames;
};

struct jm_map {
	uint16_t major, minor;
	uint32_t pid;
	uint32_t flags; /* JM_HDR_* */
	uint64_t start_ns;

	struct jm_method *methods;
	size_t nr_methods, cap_methods;
	struct jm_code *codes;
	size_t nr_codes, cap_codes;
	struct jm_pc *pcs;
	size_t nr_pcs, cap_pcs;
	struct jm_frame *frames;
	size_t nr_frames, cap_frames;
	struct jm_event *events; /* in file order */
	size_t nr_events, cap_events;

	size_t nr_records;
	size_t nr_unknown;   /* records of kinds this reader does not know */
	size_t nr_unmatched; /* unloads of code never seen loaded */
	size_t nr_dups;	     /* replayed loads already known */
	size_t valid_len;    /* bytes up to the first damage */
	/* why the tail was dropped, "" when the map is whole */
	char damage[160];
	/* why jm_parse failed */
	char error[160];
};

/*
 * Parse LEN bytes.  Returns 0 (check map->damage: a torn or corrupt tail
 * is dropped and everything before it kept), -EINVAL when the buffer is
 * not a javamap, -EPROTONOSUPPORT for another major version, -ENOMEM;
 * map->error then says why.  Free with jm_map_free() in every case.
 */
int jm_parse(const void *buf, size_t len, struct jm_map *map);
void jm_map_free(struct jm_map *map);

/* 1 when BUF starts with the javamap magic. */
int jm_is_javamap(const void *buf, size_t len);

#endif
