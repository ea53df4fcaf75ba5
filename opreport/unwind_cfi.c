// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libdwfl's x86-64 unwinding step with each pc's rules kept
 * (unwind_cfi.h).  What elfutils 0.188 does, and so what is done here:
 * a frame's pc less one (but the first frame's, or a signal frame's)
 * finds its module and the .eh_frame entry; each of the 17 registers
 * (rax..r15, then the return address) takes its rule in turn, undefined,
 * the same value, or an expression whose failure leaves the register
 * unknown; the return address register's value is the caller's pc, and
 * the walk ends where it is undefined, unknown or 0.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/u64map.h>

#include "unwind_cfi.h"

/* libdwfl's register count for x86-64 (ebl_frame_nregs) */
#define NREGS 17
#define DWARF_RBP 6
#define DWARF_RSP 7
/* expression stack depth handled here; deeper ones go to libdwfl */
#define STACK_MAX 16
/* pcs whose rules are kept at most a layout (2.4 KiB each, 40 MiB);
 * past it, libdwfl steps the frames at other pcs */
#define RULES_MAX (1u << 14)

/* One register's rule: undefined, the same value, or OPS (NOPS). */
enum reg_kind { REG_UNDEFINED, REG_SAME, REG_EXPR };

struct reg_rule {
	enum reg_kind kind;
	const Dwarf_Op *ops; /* into mem, or libdw's interned copy */
	size_t nops;
	Dwarf_Op mem[3];
};

/* The rules at one pc: the frame libdw made for it (kept for its CFA
 * expression), each register's rule, the return address register. */
struct pc_rules {
	Dwarf_Frame *frame;
	const Dwarf_Op *cfa;
	size_t cfa_nops;
	unsigned ra;
	struct reg_rule reg[NREGS];
};

struct unwind_cfi {
	Dwfl *dwfl;
	/* ~pc (the pc the rules are looked up at) to its rules, or to
	 * NO_RULES where libdwfl must step */
	struct oputil_u64map by_pc;
	size_t given_up;
};

#define NO_RULES 1u

/* The rules where no CFI covers the pc (JIT code, hand-written code):
 * libdwfl's x86-64 backend steps by the frame pointer (fp_step) */
static struct pc_rules fp_only;

struct unwind_cfi *unwind_cfi_new(Dwfl *dwfl)
{
	struct unwind_cfi *c = calloc(1, sizeof(*c));

	if (c)
		c->dwfl = dwfl;
	return c;
}

void unwind_cfi_free(struct unwind_cfi *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->by_pc.cap; i++) {
		struct pc_rules *r =
			(struct pc_rules *)(uintptr_t)c->by_pc.slots[i].val;

		if (!c->by_pc.slots[i].key ||
		    c->by_pc.slots[i].val == NO_RULES || r == &fp_only)
			continue;
		free(r->frame);
		free(r);
	}
	oputil_u64map_free(&c->by_pc);
	free(c);
}

void unwind_cfi_stats(const struct unwind_cfi *c, size_t *rules,
		      size_t *given_up)
{
	*rules = c ? c->by_pc.nr : 0;
	*given_up = c ? c->given_up : 0;
}

/* The rules at PC as libdw gives them, from .eh_frame or else
 * .debug_frame as libdwfl looks, or &fp_only where neither has an entry
 * for PC (or no module holds it), or NULL where libdwfl would step
 * another way or a rule is one this file does not follow. */
static struct pc_rules *rules_make(struct unwind_cfi *c, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(c->dwfl, pc);
	Dwarf_CFI *cfi;
	Dwarf_Addr bias, start, end;
	Dwarf_Frame *frame = NULL;
	struct pc_rules *r;
	bool signal;
	int ra, i;

	if (!mod)
		return &fp_only;
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame)) {
		frame = NULL;
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame))
			return &fp_only;
	}
	ra = dwarf_frame_info(frame, &start, &end, &signal);
	r = calloc(1, sizeof(*r));
	if (!r || signal || ra < 0 || ra >= NREGS ||
	    dwarf_frame_cfa(frame, (Dwarf_Op **)&r->cfa, &r->cfa_nops))
		goto fail;
	r->frame = frame;
	r->ra = (unsigned)ra;
	for (i = 0; i < NREGS; i++) {
		struct reg_rule *g = &r->reg[i];
		Dwarf_Op mem[3], *ops;
		size_t nops;

		if (dwarf_frame_register(frame, i, mem, &ops, &nops))
			goto fail;
		if (!nops) {
			/* libdw's way of telling them apart */
			if (ops != mem && ops)
				goto fail;
			g->kind = ops ? REG_UNDEFINED : REG_SAME;
			continue;
		}
		g->kind = REG_EXPR;
		g->nops = nops;
		if (ops == mem) {
			if (nops > 3)
				goto fail;
			memcpy(g->mem, mem, nops * sizeof(*mem));
			g->ops = g->mem;
		} else {
			g->ops = ops;
		}
	}
	return r;
fail:
	free(r);
	free(frame);
	return NULL;
}

/* PC's rules, kept; NULL where libdwfl must step. */
static struct pc_rules *rules_at(struct unwind_cfi *c, uint64_t pc)
{
	uint64_t v;
	struct pc_rules *r;

	if (oputil_u64map_get(&c->by_pc, ~pc, &v))
		return v == NO_RULES ? NULL : (struct pc_rules *)(uintptr_t)v;
	if (c->by_pc.nr >= RULES_MAX)
		return NULL;
	r = rules_make(c, pc);
	if (oputil_u64map_put(&c->by_pc, ~pc,
			      r ? (uint64_t)(uintptr_t)r : NO_RULES,
			      NULL) < 0) {
		if (r && r != &fp_only) {
			free(r->frame);
			free(r);
		}
		return NULL;
	}
	return r;
}

/* A frame's registers: values and which are known. */
struct regs {
	uint64_t v[NREGS];
	uint32_t set;
};

static bool reg_get(const struct regs *s, uint64_t regno, uint64_t *val)
{
	if (regno >= NREGS || !(s->set & (1u << regno)))
		return false;
	*val = s->v[regno];
	return true;
}

/* What an expression gave: a value, a failure (libdwfl leaves the
 * register unknown), or an operation libdwfl's expr_eval knows and
 * this one does not (the walk is libdwfl's). */
enum eval { EVAL_OK, EVAL_FAIL, EVAL_OTHER };

struct walk {
	unwind_cfi_read *read;
	void *arg;
};

/* libdwfl's expr_eval of OPS (NOPS) in frame S under rules R (NULL
 * inside the CFA's own expression). */
static enum eval eval(const struct walk *w, const struct regs *s,
		      const struct pc_rules *r, const Dwarf_Op *ops,
		      size_t nops, uint64_t *result)
{
	uint64_t stack[STACK_MAX], a, b;
	size_t n = 0, i;
	bool location = false;
	enum eval e;

	if (!nops)
		return EVAL_FAIL;
	for (i = 0; i < nops; i++) {
		const Dwarf_Op *op = &ops[i];
		uint8_t atom = op->atom;

		if (n >= STACK_MAX)
			return EVAL_OTHER;
		if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) {
			stack[n++] = atom - DW_OP_lit0;
		} else if ((atom >= DW_OP_const1u && atom <= DW_OP_consts)) {
			stack[n++] = op->number;
		} else if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) {
			if (!reg_get(s, atom - DW_OP_reg0, &a))
				return EVAL_FAIL;
			stack[n++] = a;
		} else if (atom == DW_OP_regx) {
			if (!reg_get(s, op->number, &a))
				return EVAL_FAIL;
			stack[n++] = a;
		} else if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
			if (!reg_get(s, atom - DW_OP_breg0, &a))
				return EVAL_FAIL;
			stack[n++] = a + op->number;
		} else if (atom == DW_OP_bregx) {
			if (!reg_get(s, op->number, &a))
				return EVAL_FAIL;
			stack[n++] = a + op->number2;
		} else if (atom == DW_OP_plus_uconst) {
			if (!n)
				return EVAL_FAIL;
			stack[n - 1] += op->number;
		} else if (atom == DW_OP_plus || atom == DW_OP_minus) {
			if (n < 2)
				return EVAL_FAIL;
			b = stack[--n];
			a = stack[--n];
			stack[n++] = atom == DW_OP_plus ? a + b : a - b;
		} else if (atom == DW_OP_deref) {
			if (!n ||
			    !w->read(stack[n - 1], &stack[n - 1], w->arg))
				return EVAL_FAIL;
		} else if (atom == DW_OP_nop) {
		} else if (atom == DW_OP_call_frame_cfa) {
			if (!r)
				return EVAL_FAIL;
			e = eval(w, s, NULL, r->cfa, r->cfa_nops, &a);
			if (e != EVAL_OK)
				return e;
			stack[n++] = a;
			location = true;
		} else if (atom == DW_OP_stack_value) {
			location = false;
		} else {
			return EVAL_OTHER;
		}
	}
	if (!n)
		return EVAL_FAIL;
	*result = stack[n - 1];
	if (location && !w->read(*result, result, w->arg))
		return EVAL_FAIL;
	return EVAL_OK;
}

/* How a step ended: the caller's pc set, the outermost frame reached,
 * no step (libdwfl's error), or a step this file does not make. */
enum step { STEP_PC, STEP_END, STEP_FAIL, STEP_OTHER };

/* libdwfl's step where no CFI covers the pc, the x86-64 backend's
 * frame-pointer fallback (x86_64_unwind): the caller's rbp at rbp (0
 * where that cannot be read), its pc at rbp + 8, its rsp rbp + 16, and
 * no step unless that rsp is above the frame's own (0 when unknown).
 * JIT code, which has no CFI. */
static enum step fp_step(const struct walk *w, const struct regs *s,
			 struct regs *up, uint64_t *pc)
{
	uint64_t fp, sp, prev;

	if (!reg_get(s, DWARF_RBP, &fp) || !fp)
		return STEP_FAIL;
	if (!reg_get(s, DWARF_RSP, &sp))
		sp = 0;
	if (!w->read(fp, &prev, w->arg))
		prev = 0;
	if (!w->read(fp + 8, pc, w->arg) || sp >= fp + 16)
		return STEP_FAIL;
	up->set = 1u << DWARF_RBP | 1u << DWARF_RSP;
	up->v[DWARF_RBP] = prev;
	up->v[DWARF_RSP] = fp + 16;
	return STEP_PC;
}

/* libdwfl's handle_cfi: frame S at PC unwound by rules R into *UP. */
static enum step step(const struct walk *w, const struct regs *s,
		      const struct pc_rules *r, struct regs *up, uint64_t *pc)
{
	bool undefined = false;
	unsigned i;

	up->set = 0;
	for (i = 0; i < NREGS; i++) {
		const struct reg_rule *g = &r->reg[i];
		uint64_t v;

		if (g->kind == REG_UNDEFINED) {
			undefined |= i == r->ra;
			continue;
		}
		if (g->kind == REG_SAME) {
			if (!reg_get(s, i, &v))
				continue;
		} else {
			enum eval e = eval(w, s, r, g->ops, g->nops, &v);

			if (e == EVAL_OTHER)
				return STEP_OTHER;
			if (e == EVAL_FAIL)
				continue;
		}
		up->v[i] = v;
		up->set |= 1u << i;
	}
	if (undefined || !reg_get(up, r->ra, pc) || !*pc)
		return STEP_END;
	return STEP_PC;
}

bool unwind_cfi_walk(struct unwind_cfi *c, uint64_t ip, uint64_t bp,
		     uint64_t sp, unwind_cfi_read *read, void *arg,
		     struct unwind_frame *fr, size_t max, size_t *nr, int *ret)
{
	const struct walk w = { read, arg };
	struct regs s = { .set = 1u << DWARF_RBP | 1u << DWARF_RSP }, up;
	uint64_t pc = ip, next;
	bool initial = true;
	size_t n = 0;

	s.v[DWARF_RBP] = bp;
	s.v[DWARF_RSP] = sp;
	for (;;) {
		const struct pc_rules *r;
		struct unwind_frame *f;
		enum step e;

		/* unwind.c's frame callback */
		if (!pc || n >= max) {
			*nr = n;
			*ret = DWARF_CB_ABORT;
			return true;
		}
		f = &fr[n++];
		f->pc = pc;
		f->bp = s.set & 1u << DWARF_RBP ? s.v[DWARF_RBP] : 0;
		f->sp = s.set & 1u << DWARF_RSP ? s.v[DWARF_RSP] : 0;
		f->known = (s.set & 1u << DWARF_RBP ? UNWIND_KNOWN_BP : 0) |
			   (s.set & 1u << DWARF_RSP ? UNWIND_KNOWN_SP : 0);
		if (n >= max) {
			*nr = n;
			*ret = DWARF_CB_ABORT;
			return true;
		}
		/* a caller's pc is a return address: its call is before */
		r = rules_at(c, initial ? pc : pc - 1);
		if (!r)
			e = STEP_OTHER;
		else if (r == &fp_only)
			e = fp_step(&w, &s, &up, &next);
		else
			e = step(&w, &s, r, &up, &next);
		if (e == STEP_OTHER) {
			c->given_up++;
			return false;
		}
		if (e != STEP_PC) {
			*nr = n;
			*ret = e == STEP_END ? 0 : -1;
			return true;
		}
		s = up;
		pc = next;
		initial = false;
	}
}
