/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * PyPy's JIT code, as the pypy handler reads it from one of two texts
 * (FORMAT.md): the time-stamped map the opjit_pypy module writes, or
 * PyPy's own log (PYPYLOG=jit-backend-addr,jit-log-opt:FILE), which has
 * no times a sample can be compared with.
 */
#ifndef OPJIT_PYPY_H
#define OPJIT_PYPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <oputil/u64map.h>

/* Larger is refused: no PyPy writes a map or a log near this. */
#define PYPY_MAX_BYTES (256ull << 20)

enum pypy_format { PYPY_NOT_OURS, PYPY_MODULE_MAP, PYPY_LOG };
enum pypy_kind { PYPY_LOOP, PYPY_BRIDGE };

struct pypy_code {
	uint64_t start, size;
	uint64_t t_load;  /* CLOCK_MONOTONIC ns; 0 from the log */
	uint64_t guard;	  /* a bridge: the guard it leaves */
	uint32_t loop_no; /* a loop's number; a bridge's loop, 0 unknown */
	uint32_t kind;	  /* enum pypy_kind */
	uint32_t func;	  /* offsets into names: the Python function */
	uint32_t where;	  /* "file:first-last", or "" */
	uint32_t seq;	  /* its place in the text: later code wins */
};

struct pypy_map {
	enum pypy_format format;
	uint32_t pid;	   /* the module map's header; 0 for a log */
	uint64_t start_ns; /* the module map's header */
	struct pypy_code *code;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	size_t lines, bad_lines, first_bad; /* first_bad: a line number */
	bool torn;			    /* the text ends inside a line */
	uint64_t *maxend; /* after pypy_index(): max end of code[0..i] */
	/* a log's guards: guard id -> the loop its trace belongs to */
	struct oputil_u64map guards;
};

/* Parse TEXT (LEN bytes).  1 when it is a module map or a PyPy log (bad
 * lines counted, not fatal), 0 when it is neither, -ENOMEM. */
int pypy_parse(struct pypy_map *m, const char *text, size_t len);
void pypy_free(struct pypy_map *m);

/* Sort the code by address for pypy_lookup().  0 or -ENOMEM. */
int pypy_index(struct pypy_map *m);

/* How early before its load record code may be named: the module stamps
 * a loop when PyPy hands it over, which is a little after the code was
 * written. */
#define PYPY_LOAD_SLACK_NS 10000000ull

/*
 * The code that held ADDR at time T (any time for a log's code): of the
 * code covering ADDR and loaded by T, the last loaded.  Its index, or
 * SIZE_MAX with *WHY an OPJIT_UNRESOLVED_* reason.
 */
size_t pypy_lookup(const struct pypy_map *m, uint64_t addr, uint64_t t,
		   uint32_t *why);

/* The newest loop numbered LOOP_NO, or SIZE_MAX. */
size_t pypy_loop(const struct pypy_map *m, uint32_t loop_no);

static inline const char *pypy_str(const struct pypy_map *m, uint32_t off)
{
	return m->names + off;
}

#endif
