// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Which code lived at an address at a time.  Code intervals are sorted by
 * start address; maxend[i], the furthest end among the first i+1, bounds
 * how far back a lookup must walk, so overlapping lifetimes of reused
 * code-cache memory cost a short scan rather than a tree.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/hash.h>
#include <oputil/search.h>

#include "jm_format.h"
#include "jm_resolve.h"

static int state_index_methods(struct jm_state *st)
{
	struct oputil_idxset_pos pos;

	if (st->map.nr_methods >= OPUTIL_IDXSET_NONE ||
	    oputil_idxset_reserve(&st->method_set, st->map.nr_methods))
		return -ENOMEM;
	for (size_t i = 0; i < st->map.nr_methods; i++) {
		uint64_t id = st->map.methods[i].id;

		/* a later definition of the same id replaces the earlier */
		(void)oputil_idxset_find(&st->method_set, oputil_hash_u64(id),
					 &pos, k, st->map.methods[k].id == id);
		oputil_idxset_put(&st->method_set, &pos, (uint32_t)i);
	}
	return 0;
}

static uint64_t code_end(const struct jm_code *co)
{
	return co->addr + co->size < co->addr ? UINT64_MAX
					      : co->addr + co->size;
}

int jm_state_init(struct jm_state *st, const void *buf, size_t len)
{
	int ret;

	memset(st, 0, sizeof(*st));
	ret = jm_parse(buf, len, &st->map);
	if (ret) {
		snprintf(st->error, sizeof(st->error), "%s", st->map.error);
		return ret;
	}
	st->maxend = malloc((st->map.nr_codes + 1) * sizeof(*st->maxend));
	if (!st->maxend || state_index_methods(st)) {
		snprintf(st->error, sizeof(st->error), "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < st->map.nr_codes; i++) {
		uint64_t e = code_end(&st->map.codes[i]);

		st->maxend[i] = i && st->maxend[i - 1] > e ? st->maxend[i - 1]
							   : e;
	}
	return 0;
}

void jm_state_free(struct jm_state *st)
{
	jm_code_syms_free(st);
	jm_syms_free(st);
	free(st->inl);
	free(st->maxend);
	oputil_idxset_free(&st->method_set);
	jm_map_free(&st->map);
	free(st->buf);
	memset(st, 0, sizeof(*st));
}

const struct jm_method *jm_state_method(const struct jm_state *st, uint64_t id)
{
	uint32_t i = oputil_idxset_find(&st->method_set, oputil_hash_u64(id),
					NULL, k, st->map.methods[k].id == id);

	return i != OPUTIL_IDXSET_NONE ? &st->map.methods[i] : NULL;
}

const struct jm_code *jm_state_find_code(const struct jm_state *st,
					 uint64_t addr, uint64_t t)
{
	const struct jm_code *live = NULL, *later = NULL;
	/* hi: the first code that starts after ADDR */
	size_t hi = oputil_partition(0, st->map.nr_codes, k,
				     st->map.codes[k].addr <= addr);

	while (hi-- > 0 && st->maxend[hi] > addr) {
		const struct jm_code *co = &st->map.codes[hi];

		if (code_end(co) <= addr)
			continue;
		if (co->t_load <= t && t < co->t_unload) {
			if (!live || co->t_load > live->t_load)
				live = co;
		} else if (co->t_load > t &&
			   ((co->flags & JM_REC_REPLAYED) ||
			    co->t_load - t <= JM_LOAD_SLACK_NS)) {
			if (!later || co->t_load < later->t_load)
				later = co;
		}
	}
	return live ? live : later;
}

uint32_t jm_state_why_unknown(const struct jm_state *st, uint64_t addr,
			      uint64_t t)
{
	size_t hi = oputil_partition(0, st->map.nr_codes, k,
				     st->map.codes[k].addr <= addr);
	bool later = false, earlier = false;

	while (hi-- > 0 && st->maxend[hi] > addr) {
		const struct jm_code *co = &st->map.codes[hi];

		if (code_end(co) <= addr)
			continue;
		if (co->t_load > t)
			later = true;
		else if (co->t_unload <= t)
			earlier = true;
	}
	/* code that had gone says more than code still to come */
	if (earlier)
		return OPJIT_UNRESOLVED_UNLOADED;
	return later ? OPJIT_UNRESOLVED_BEFORE_LOAD
		     : OPJIT_UNRESOLVED_NO_ENTRY;
}

const struct jm_pc *jm_code_pc(const struct jm_map *map,
			       const struct jm_code *co, uint64_t addr)
{
	const struct jm_pc *pcs;
	uint64_t off = addr - co->addr;
	size_t lo;

	if (!co->nr_pcs)
		return NULL;
	pcs = map->pcs + co->pc;
	/* a descriptor covers the code from its offset to the next one */
	lo = oputil_partition(0, co->nr_pcs, k, pcs[k].off <= off);
	return &pcs[lo ? lo - 1 : 0];
}

uint32_t jm_method_line(const struct jm_method *me, int32_t bci)
{
	size_t lo;

	if (!me->nr_lines)
		return 0;
	/* HotSpot's entry and synchronisation points carry bci -1: they
	 * belong to the method's first line */
	if (bci < 0)
		return me->lines[0].line;
	lo = oputil_partition(0, me->nr_lines, k,
			      me->lines[k].bci <= (uint32_t)bci);
	return me->lines[lo ? lo - 1 : 0].line;
}

static uint32_t method_first_line(const struct jm_method *me)
{
	uint32_t best = 0;

	for (uint32_t i = 0; i < me->nr_lines; i++)
		if (me->lines[i].line && (!best || me->lines[i].line < best))
			best = me->lines[i].line;
	return best;
}

static const struct opjit_symbol *method_sym(struct jm_state *st,
					     const struct jm_method *me,
					     const struct jm_code *co)
{
	int own = co && co->method == me->id;

	return jm_syms_get(st, me->name, me->file, method_first_line(me),
			   own ? co->addr : 0, own ? co->size : 0);
}

/* The symbol of code CO as a whole: its method, or the stub's name. */
static const struct opjit_symbol *code_sym(struct jm_state *st,
					   const struct jm_code *co)
{
	const struct jm_method *me;
	char anon[64];

	if (co->kind == JM_CODE_DYNAMIC)
		return jm_syms_get(st, co->name, NULL, 0, co->addr, co->size);
	me = jm_state_method(st, co->method);
	if (me)
		return method_sym(st, me, co);
	/* code whose METHOD record was lost in a torn tail */
	snprintf(anon, sizeof(anon), "(method 0x%llx)",
		 (unsigned long long)co->method);
	return jm_syms_get(st, anon, NULL, 0, co->addr, co->size);
}

struct jm_answer {
	const struct opjit_symbol *sym;
	const char *file;
	uint32_t line;
	const struct opjit_inline_frame *inlined;
	uint32_t nr_inlined;
};

/* 0, or -ENOENT when FR's method record was lost, or -ENOMEM. */
static int inline_frame_make(struct jm_state *st, const struct jm_code *co,
			     const struct jm_frame *fr,
			     struct opjit_inline_frame *out)
{
	const struct jm_method *me = jm_state_method(st, fr->method);
	const struct opjit_symbol *sym;

	if (!me)
		return -ENOENT;
	/* given CO, the outermost frame (CO's own method) names the same
	 * symbol, with the code's start and size, as a sample outside any
	 * inlined code does */
	sym = method_sym(st, me, co);
	if (!sym)
		return -ENOMEM;
	out->symbol = sym;
	out->file = me->file;
	out->line = jm_method_line(me, fr->bci);
	out->reserved = 0;
	out->struct_size = OPJIT_INLINE_FRAME_SIZE_1_2;
	return 0;
}

/*
 * The frames PC's innermost one was inlined into, nearest first, cut at
 * OPJIT_INLINE_MAX as the host would.  A frame whose method record was
 * lost ends the chain: the host takes no frame without a symbol, and
 * the frames past it would skip a caller.  Out of memory gives a
 * shorter chain, as it gives no symbol elsewhere; the frames not made
 * are tried again next time.
 */
static uint32_t state_inline_chain(struct jm_state *st,
				   const struct jm_code *co,
				   const struct jm_pc *pc,
				   const struct opjit_inline_frame **chain)
{
	uint32_t n, max;

	*chain = NULL;
	if (pc->nr_frames < 2)
		return 0;
	if (!st->inl) {
		st->inl = calloc(st->map.nr_frames, sizeof(*st->inl));
		if (!st->inl)
			return 0;
	}
	max = pc->nr_frames - 1;
	if (max > OPJIT_INLINE_MAX)
		max = OPJIT_INLINE_MAX;
	for (n = 0; n < max; n++) {
		size_t f = pc->frame + 1 + n;

		if (!st->inl[f].struct_size &&
		    inline_frame_make(st, co, &st->map.frames[f], &st->inl[f]))
			break;
	}
	if (n)
		*chain = &st->inl[pc->frame + 1];
	return n;
}

/* The answer for ADDR in CO; the inlining chain only when WANT_INLINE,
 * so that a host that cannot take it costs no memory for it. */
static void state_resolve_in(struct jm_state *st, const struct jm_code *co,
			     uint64_t addr, bool want_inline,
			     struct jm_answer *a)
{
	const struct jm_method *me;
	const struct jm_frame *fr;
	const struct jm_pc *pc;

	pc = co->kind == JM_CODE_COMPILED ? jm_code_pc(&st->map, co, addr)
					  : NULL;
	if (pc && pc->nr_frames) {
		/* the innermost frame: the method whose code this really is */
		fr = &st->map.frames[pc->frame];
		me = jm_state_method(st, fr->method);
		if (me) {
			a->sym = method_sym(st, me, co);
			a->file = me->file;
			a->line = jm_method_line(me, fr->bci);
			if (a->sym) {
				if (want_inline)
					a->nr_inlined = state_inline_chain(
						st, co, pc, &a->inlined);
				return;
			}
		}
	}
	a->sym = code_sym(st, co);
	me = co->kind == JM_CODE_COMPILED ? jm_state_method(st, co->method)
					  : NULL;
	a->file = me ? me->file : NULL;
}

/* The answer for ADDR at T: in code whose bytes the map kept, a symbol
 * of that code. */
static void state_resolve_one(struct jm_state *st, uint64_t addr, uint64_t t,
			      bool want_inline, struct jm_answer *a)
{
	const struct jm_code *co = jm_state_find_code(st, addr, t);

	memset(a, 0, sizeof(*a));
	if (!co)
		return;
	state_resolve_in(st, co, addr, want_inline, a);
	if (a->sym && co->bytes)
		a->sym = jm_code_sym(st, co, a->sym);
}

#define BATCH_HAS(b, f)                                               \
	((b)->struct_size >=                                          \
		 OPJIT_SIZE_THROUGH(struct opjit_resolve_batch, f) && \
	 (b)->f)

int jm_state_resolve(struct jm_state *st, struct opjit_resolve_batch *b)
{
	/* the chains are 1.2's: an older host's batch ends before them */
	bool inl = BATCH_HAS(b, inlined) && BATCH_HAS(b, nr_inlined);

	if (!BATCH_HAS(b, addrs) || !BATCH_HAS(b, times) ||
	    !BATCH_HAS(b, symbols)) {
		snprintf(st->error, sizeof(st->error),
			 "resolve batch without addresses, times or symbols");
		return -EINVAL;
	}
	for (size_t i = 0; i < b->count; i++) {
		struct jm_answer a;

		state_resolve_one(st, b->addrs[i], b->times[i], inl, &a);
		b->symbols[i] = a.sym;
		if (!a.sym && BATCH_HAS(b, reasons))
			b->reasons[i] = jm_state_why_unknown(st, b->addrs[i],
							     b->times[i]);
		if (BATCH_HAS(b, files))
			b->files[i] = a.sym ? a.file : NULL;
		if (BATCH_HAS(b, lines))
			b->lines[i] = a.sym ? a.line : 0;
		if (inl) {
			b->inlined[i] = a.inlined;
			b->nr_inlined[i] = a.nr_inlined;
		}
	}
	return 0;
}

int jm_state_for_each(struct jm_state *st, jm_symbol_cb cb, void *arg)
{
	/* every piece of code has a symbol, sampled or not */
	for (size_t i = 0; i < st->map.nr_codes; i++)
		if (!code_sym(st, &st->map.codes[i])) {
			snprintf(st->error, sizeof(st->error),
				 "out of memory");
			return -ENOMEM;
		}
	return jm_syms_for_each(st, cb, arg);
}
