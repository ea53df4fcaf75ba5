/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Naming samples from a parsed javamap: which code lived at an address at
 * a time, which (inlined) method and line a pc belongs to, and the one
 * opjit_symbol per method name that the host groups samples by.  No I/O,
 * so that unit tests drive it with maps they build.
 */
#ifndef OPJIT_JM_RESOLVE_H
#define OPJIT_JM_RESOLVE_H

#include <stdbool.h>

#include <opjit/anon_handler.h>
#include <oputil/idxset.h>
#include <oputil/u64map.h>

#include "jm_parse.h"

/*
 * The agent's load events reach it from the JVM's service thread, so the
 * code they describe may have run a little earlier; a sample that finds
 * no live code at its address takes code loaded this soon after it.
 */
#define JM_LOAD_SLACK_NS 100000000ull

struct jm_sym;
struct jm_csym;

struct jm_state {
	struct jm_map map;
	uint64_t *maxend; /* max code end over codes[0..i] */
	/* map.methods by id, the last definition of each */
	struct oputil_idxset method_set;
	struct jm_sym **syms; /* one per name, in the order first asked */
	size_t nr_syms, cap_syms;
	struct oputil_idxset sym_set; /* syms, by name */
	/* parallel to map.frames, each made on first need (struct_size 0
	 * until then): a pc's inlining chain is then the slice after its
	 * innermost frame, handed to the host as it is, and a pc sampled
	 * again costs no lookup and no memory */
	struct opjit_inline_frame *inl;
	/* code with bytes: its symbols, parallel to map.codes, made on
	 * first need, and which code each symbol is of (index + 1) */
	struct jm_csym **code_syms;
	struct oputil_u64map csym_code;
	/* the map's bytes, which code bytes point into, when the state
	 * owns them (freed with it); NULL when the caller keeps them */
	void *buf;
	char error[200];
};

/* Parse BUF and index it.  0 (see st->map.damage), or a negative errno
 * with st->error set.  Free with jm_state_free() in every case.  BUF
 * must outlive ST (code bytes point into it); set st->buf to hand it
 * over. */
int jm_state_init(struct jm_state *st, const void *buf, size_t len);
void jm_state_free(struct jm_state *st);

/* The code at ADDR at time T, or NULL. */
const struct jm_code *jm_state_find_code(const struct jm_state *st,
					 uint64_t addr, uint64_t t);
/* Why nothing is found at ADDR at time T: OPJIT_UNRESOLVED_*. */
uint32_t jm_state_why_unknown(const struct jm_state *st, uint64_t addr,
			      uint64_t t);
const struct jm_method *jm_state_method(const struct jm_state *st,
					uint64_t id);
/* The pc descriptor that covers ADDR in CO, or NULL. */
const struct jm_pc *jm_code_pc(const struct jm_map *map,
			       const struct jm_code *co, uint64_t addr);
/* Source line of BCI in ME, 0 when unknown. */
uint32_t jm_method_line(const struct jm_method *me, int32_t bci);

/* The host's resolve().  A batch of ABI 1.2 also gets the inlining
 * chains, which live until jm_state_free(). */
int jm_state_resolve(struct jm_state *st, struct opjit_resolve_batch *b);

/* Every symbol of the map, sampled or not, for the fuzz target and the
 * unit tests: CB's non-zero return stops the walk and is returned. */
typedef int (*jm_symbol_cb)(void *arg, const struct opjit_symbol *sym);
int jm_state_for_each(struct jm_state *st, jm_symbol_cb cb, void *arg);

/* jm_syms.c: the symbol named NAME, made on first use. */
const struct opjit_symbol *jm_syms_get(struct jm_state *st, const char *name,
				       const char *file, uint32_t line,
				       uint64_t start, uint64_t size);
int jm_syms_for_each(struct jm_state *st, jm_symbol_cb cb, void *arg);
void jm_syms_free(struct jm_state *st);

/* jm_code_bytes.c: the symbol of BASE's samples in CO, a code with
 * bytes; NULL out of memory. */
const struct opjit_symbol *jm_code_sym(struct jm_state *st,
				       const struct jm_code *co,
				       const struct opjit_symbol *base);
/* The handler's code_bytes(): 0, or -ENOENT for a symbol whose code has
 * no bytes in the map. */
int jm_state_code_bytes(struct jm_state *st, const struct opjit_symbol *sym,
			const uint8_t **code, uint64_t *len, uint64_t *addr,
			uint64_t *load_ns);
/* Whether any code of the map has bytes (then the map's buffer must
 * stay). */
bool jm_state_has_bytes(const struct jm_state *st);
void jm_code_syms_free(struct jm_state *st);

#endif
