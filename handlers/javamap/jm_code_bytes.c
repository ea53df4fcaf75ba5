// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Code bytes (ABI 1.4 code_bytes): a sample in code whose bytes the map
 * kept names a symbol of that piece of code, not the method's one
 * symbol, so that the host can ask for the bytes of the very code the
 * sample ran in.  Such a symbol carries its name's fields, copied anew
 * each time it is handed out: opreport, which folds a function's code by
 * name, sees one function as before; opannotate sees each piece of code
 * apart, with its own bytes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "jm_format.h"
#include "jm_resolve.h"

struct jm_csym {
	struct opjit_symbol sym;
	const struct opjit_symbol *base; /* the name's symbol */
	struct jm_csym *next;		 /* the code's other symbols */
};

const struct opjit_symbol *jm_code_sym(struct jm_state *st,
				       const struct jm_code *co,
				       const struct opjit_symbol *base)
{
	size_t i = (size_t)(co - st->map.codes);
	struct jm_csym *cs;

	if (!st->code_syms) {
		st->code_syms =
			calloc(st->map.nr_codes, sizeof(*st->code_syms));
		if (!st->code_syms)
			return NULL;
	}
	/* one per name the code's samples give: its own method's and
	 * those of the methods inlined into it */
	for (cs = st->code_syms[i]; cs; cs = cs->next)
		if (cs->base == base)
			break;
	if (!cs) {
		cs = calloc(1, sizeof(*cs));
		if (!cs)
			return NULL;
		if (oputil_u64map_put(&st->csym_code, (uintptr_t)&cs->sym,
				      i + 1, NULL) < 0) {
			free(cs);
			return NULL;
		}
		cs->base = base;
		cs->next = st->code_syms[i];
		st->code_syms[i] = cs;
	}
	cs->sym = *base;
	return &cs->sym;
}

int jm_state_code_bytes(struct jm_state *st, const struct opjit_symbol *sym,
			const uint8_t **code, uint64_t *len, uint64_t *addr,
			uint64_t *load_ns)
{
	const struct jm_code *co;
	uint64_t v;

	/* a name's own symbol: code the map kept no bytes of */
	if (!oputil_u64map_get(&st->csym_code, (uintptr_t)sym, &v))
		return -ENOENT;
	co = &st->map.codes[v - 1];
	*code = co->bytes;
	*len = co->nr_bytes;
	*addr = co->addr;
	/* replayed code was there before its record's time */
	*load_ns = co->flags & JM_REC_REPLAYED ? 0 : co->t_load;
	return 0;
}

bool jm_state_has_bytes(const struct jm_state *st)
{
	for (size_t i = 0; i < st->map.nr_codes; i++)
		if (st->map.codes[i].bytes)
			return true;
	return false;
}

void jm_code_syms_free(struct jm_state *st)
{
	for (size_t i = 0; st->code_syms && i < st->map.nr_codes; i++) {
		struct jm_csym *cs = st->code_syms[i], *next;

		for (; cs; cs = next) {
			next = cs->next;
			free(cs);
		}
	}
	free(st->code_syms);
	st->code_syms = NULL;
	oputil_u64map_free(&st->csym_code);
}
