// SPDX-License-Identifier: GPL-3.0-or-later
#include "elf_symcover.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <oputil/bump.h>
#include <oputil/grow.h>
#include <oputil/search.h>

/* A pass reads the table this many bytes at a time, into one buffer
 * kept for all passes: a buffer of the whole table would be memory
 * mapped afresh, page by page. */
#define COVER_WINDOW 65536
/* Names are read in pieces of at least this size; sorted by offset,
 * neighbours share a piece. */
#define NAME_WINDOW 4096

struct elf_symcover {
	bfd *abfd;
	bool dynamic; /* the dynamic table, its sizes as libbfd's */
	struct elf_symtab_loc loc;
	uint64_t nsyms;
	unsigned char *buf; /* COVER_WINDOW bytes */
	/* all the names, once a place held no symbol whose name
	 * elf_symtab_code() takes: from then on the passes leave those
	 * symbols out themselves */
	char *strtab;
	struct oputil_bump names; /* names read one by one */
	char *win;		  /* the piece of names last read */
	uint64_t win_off, win_len;
	size_t win_cap;
};

/* A symbol met in a pass: its entry and address, and whether it is a
 * code symbol (else an entry of the dynamic table that only lends its
 * size, dyn_sizes()). */
struct cover_ent {
	struct elf_sym e;
	uint64_t vma;
	const char *name;
	bool code;
	size_t slot; /* of the pass (struct slots) */
};

/* CODE: E is a code symbol, else (in a dynamic table's pass alone) any
 * other entry. */
typedef int (*cover_fn)(void *arg, const struct elf_sym *e, uint64_t vma,
			bool code);

static int cover_open(struct elf_symcover **out, bfd *abfd, bool dynamic)
{
	struct elf_symcover *c;
	struct elf_symtab_loc loc;
	int err = elf_symtab_locate(&loc, abfd, dynamic);

	*out = NULL;
	if (err || !loc.secs)
		return err;
	c = calloc(1, sizeof(*c));
	if (c)
		c->buf = malloc(COVER_WINDOW);
	if (!c || !c->buf) {
		free(c);
		free(loc.secs);
		return -ENOMEM;
	}
	c->abfd = abfd;
	c->dynamic = dynamic;
	c->loc = loc;
	c->nsyms = loc.symsize / loc.entsize;
	c->names = (struct oputil_bump)OPUTIL_BUMP_INIT(16384);
	*out = c;
	return 0;
}

int elf_symcover_open(struct elf_symcover **out, bfd *abfd)
{
	return cover_open(out, abfd, false);
}

int elf_symcover_open_dynamic(struct elf_symcover **out, bfd *abfd)
{
	return cover_open(out, abfd, true);
}

void elf_symcover_free(struct elf_symcover *c)
{
	if (!c)
		return;
	free(c->loc.secs);
	free(c->buf);
	free(c->strtab);
	free(c->win);
	oputil_bump_free(&c->names);
	free(c);
}

/* FN for each code symbol of the table (ALL: and each other entry with
 * a name), in the table's order, but for its name unless the names are
 * read; entry 0 is the null symbol.  0, FN's error, or -EIO. */
static int cover_scan(struct elf_symcover *c, cover_fn fn, void *arg, bool all)
{
	const struct elf_symtab_loc *l = &c->loc;
	uint64_t per = COVER_WINDOW / l->entsize, i, k, cnt;
	int ret;

	for (i = 1; i < c->nsyms; i += cnt) {
		cnt = c->nsyms - i < per ? c->nsyms - i : per;
		if (bfd_seek(c->abfd, (file_ptr)(l->symoff + i * l->entsize),
			     SEEK_SET) ||
		    bfd_bread(c->buf, cnt * l->entsize, c->abfd) !=
			    cnt * l->entsize)
			return -EIO;
		for (k = 0; k < cnt; k++) {
			struct elf_sym e;
			bool code;

			elf_read_sym(c->abfd, c->buf + k * l->entsize, l->is64,
				     &e);
			if (e.name >= l->strsize)
				continue;
			code = elf_symtab_code_ent(&e, l->secs, l->nr_secs) &&
			       (!c->strtab ||
				elf_symtab_code_name(c->strtab + e.name));
			if (!code && !all)
				continue;
			ret = fn(arg, &e,
				 l->relocatable && code
					 ? l->secs[e.shndx].addr + e.value
					 : e.value,
				 code);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * The pass: the asked addresses cut the address space into slots, slot
 * k holding (vmas[k - 1], vmas[k]], and each slot keeps the least and
 * greatest code-symbol address in it.  The greatest of slot k is the
 * last symbol address at or below vmas[k]; the least of slot k is the
 * first one above vmas[k - 1].  Those are the places, and every entry at
 * one is wanted.  As the pass goes a slot's least only falls and its
 * greatest only rises, so an entry that is at neither now never will be:
 * the entries are kept in the table's order and those dropped from time
 * to time, and one pass does what a pass for the places and another for
 * their entries did (node's table read twice was a tenth of
 * opannotate's time).
 */
struct slots {
	const uint64_t *vmas;
	size_t n;
	uint64_t *lo, *hi; /* n + 1 of each */
	bool *used;
};

/* Whether an entry at VMA in slot K may still be at a place. */
static bool slot_may_hold(const struct slots *s, size_t k, uint64_t vma)
{
	return !s->used[k] || (k > 0 && vma <= s->lo[k]) ||
	       (k < s->n && vma >= s->hi[k]);
}

/* Whether an entry at VMA in slot K is at a place, once the pass is
 * done. */
static bool slot_holds(const struct slots *s, size_t k, uint64_t vma)
{
	return s->used[k] &&
	       ((k > 0 && vma == s->lo[k]) || (k < s->n && vma == s->hi[k]));
}

/* The places, ascending, each once, into W (room for 2n). */
static size_t slot_places(const struct slots *s, uint64_t *w)
{
	size_t k, nw = 0;

	for (k = 0; k <= s->n; k++) {
		if (!s->used[k])
			continue;
		if (k > 0 && (!nw || w[nw - 1] != s->lo[k]))
			w[nw++] = s->lo[k];
		if (k < s->n && (!nw || w[nw - 1] != s->hi[k]))
			w[nw++] = s->hi[k];
	}
	return nw;
}

/* The pass's state, and then every entry at a place, in the table's
 * order, with the places. */
struct gather {
	struct slots s;
	const uint64_t *w;
	size_t nw;
	struct cover_ent *v;
	size_t n, cap;
};

/* G's entries that may still be at a place (ALL: that are at one). */
static void gather_drop(struct gather *g, bool all)
{
	size_t i, j;

	for (i = j = 0; i < g->n; i++)
		if (all ? slot_holds(&g->s, g->v[i].slot, g->v[i].vma)
			: slot_may_hold(&g->s, g->v[i].slot, g->v[i].vma))
			g->v[j++] = g->v[i];
	g->n = j;
}

static int gather_add(void *arg, const struct elf_sym *e, uint64_t vma,
		      bool code)
{
	struct gather *g = arg;
	struct slots *s = &g->s;
	size_t k = oputil_partition(0, s->n, m, s->vmas[m] < vma);

	if (code && !s->used[k]) {
		s->used[k] = true;
		s->lo[k] = s->hi[k] = vma;
	} else if (code && vma < s->lo[k]) {
		s->lo[k] = vma;
	} else if (code && vma > s->hi[k]) {
		s->hi[k] = vma;
	} else if (!slot_may_hold(s, k, vma)) {
		return 0;
	}
	/* full: drop what no place holds, and grow unless that freed
	 * half, so that the pass stays linear */
	if (g->n == g->cap) {
		gather_drop(g, false);
		if (g->n >= g->cap / 2 &&
		    oputil_grow(&g->v, &g->cap, g->cap + 1, sizeof(*g->v)))
			return -ENOMEM;
	}
	g->v[g->n++] = (struct cover_ent){ *e, vma, NULL, code, k };
	return 0;
}

/* The name at OFF (< strsize) in the window, read when it is not there:
 * up to its NUL, or the table's end as elf_symtab_read() ends it.  NULL
 * with *ERR set when it cannot be read. */
static const char *name_read(struct elf_symcover *c, uint64_t off, int *err)
{
	const struct elf_symtab_loc *l = &c->loc;
	uint64_t len = NAME_WINDOW;

	if (c->win && off >= c->win_off && off < c->win_off + c->win_len &&
	    (c->win_off + c->win_len == l->strsize ||
	     memchr(c->win + (off - c->win_off), 0,
		    c->win_off + c->win_len - off)))
		return c->win + (off - c->win_off);
	for (;;) {
		if (len > l->strsize - off)
			len = l->strsize - off;
		if (oputil_grow(&c->win, &c->win_cap, len + 1, 1)) {
			*err = -ENOMEM;
			return NULL;
		}
		c->win_len = 0;
		if (bfd_seek(c->abfd, (file_ptr)(l->stroff + off), SEEK_SET) ||
		    bfd_bread(c->win, len, c->abfd) != len) {
			*err = -EIO;
			return NULL;
		}
		c->win[len] = '\0';
		c->win_off = off;
		c->win_len = len;
		if (off + len == l->strsize || memchr(c->win, 0, len))
			return c->win;
		len *= 2;
	}
}

static int by_name(const void *pa, const void *pb)
{
	const struct cover_ent *a = *(const struct cover_ent *const *)pa;
	const struct cover_ent *b = *(const struct cover_ent *const *)pb;

	return (a->e.name > b->e.name) - (a->e.name < b->e.name);
}

/* The names of G's symbols, read in the order they lie in the table.
 * 0, -ENOMEM or -EIO. */
static int names_read(struct elf_symcover *c, struct gather *g)
{
	struct cover_ent **order;
	const char *prev = NULL;
	size_t i;
	int err = 0;

	if (c->strtab) {
		for (i = 0; i < g->n; i++)
			g->v[i].name = c->strtab + g->v[i].e.name;
		return 0;
	}
	order = malloc((g->n ? g->n : 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < g->n; i++)
		order[i] = &g->v[i];
	qsort(order, g->n, sizeof(*order), by_name);
	for (i = 0; i < g->n && !err; i++) {
		const char *s;
		char *copy;
		size_t len;

		if (i && order[i]->e.name == order[i - 1]->e.name) {
			order[i]->name = prev;
			continue;
		}
		s = name_read(c, order[i]->e.name, &err);
		if (!s)
			break;
		len = strlen(s);
		copy = oputil_bump_alloc(&c->names, len + 1);
		if (!copy) {
			err = -ENOMEM;
			break;
		}
		memcpy(copy, s, len + 1);
		order[i]->name = prev = copy;
	}
	free(order);
	return err;
}

/* Whether every place keeps a symbol once the names are seen: else the
 * place is not one, and the passes must be made again without the
 * symbols whose names elf_symtab_code() leaves out. */
static bool places_named(const struct gather *g)
{
	bool *named = calloc(g->nw ? g->nw : 1, sizeof(*named));
	size_t i;
	bool all = true;

	if (!named)
		return false;
	for (i = 0; i < g->n; i++)
		if (g->v[i].code && elf_symtab_code_name(g->v[i].name))
			named[oputil_partition(0, g->nw, m,
					       g->w[m] < g->v[i].vma)] = true;
	for (i = 0; i < g->nw; i++)
		all = all && named[i];
	free(named);
	return all;
}

static int by_place(const void *pa, const void *pb)
{
	const struct cover_ent *a = *(const struct cover_ent *const *)pa;
	const struct cover_ent *b = *(const struct cover_ent *const *)pb;

	if (a->vma != b->vma)
		return a->vma < b->vma ? -1 : 1;
	if (a->e.name != b->e.name)
		return a->e.name < b->e.name ? -1 : 1;
	return (a > b) - (a < b);
}

/*
 * The sizes libbfd's reading of a dynamic table gives, as image_bfd took
 * them from the whole table (elf_symtab_size()): a code symbol's is the
 * first nonzero st_size, by name offset, of the entries at its address
 * with its name, "@VERSION" of its own aside.  Those entries all lie at
 * its place, and the pass kept every entry there.  0 or -ENOMEM.
 */
static int dyn_sizes(struct gather *g)
{
	struct cover_ent **o = malloc((g->n ? g->n : 1) * sizeof(*o));
	uint64_t *size = malloc((g->n ? g->n : 1) * sizeof(*size));
	size_t i, j, a, b;

	if (!o || !size) {
		free(o);
		free(size);
		return -ENOMEM;
	}
	for (i = 0; i < g->n; i++)
		o[i] = &g->v[i];
	qsort(o, g->n, sizeof(*o), by_place);
	for (a = 0; a < g->n; a = b) {
		for (b = a + 1; b < g->n && o[b]->vma == o[a]->vma; b++)
			;
		for (i = a; i < b; i++) {
			size_t len = strcspn(o[i]->name, "@");

			size[i] = 0;
			for (j = a; j < b && !size[i]; j++)
				if (o[j]->e.size &&
				    strlen(o[j]->name) == len &&
				    !memcmp(o[j]->name, o[i]->name, len))
					size[i] = o[j]->e.size;
		}
	}
	for (i = 0; i < g->n; i++)
		o[i]->e.size = size[i];
	free(o);
	free(size);
	return 0;
}

int elf_symcover_find(struct elf_symcover *c, const uint64_t *vmas, size_t n,
		      struct elf_code_sym **out, size_t *nr)
{
	struct gather g = {
		{ vmas, n, NULL, NULL, NULL }, NULL, 0, NULL, 0, 0
	};
	struct slots *s = &g.s;
	uint64_t *w = NULL;
	size_t i, k;
	int err;

	*out = NULL;
	*nr = 0;
	if (!n)
		return 0;
again:
	err = -ENOMEM;
	s->lo = calloc(n + 1, sizeof(*s->lo));
	s->hi = calloc(n + 1, sizeof(*s->hi));
	s->used = calloc(n + 1, sizeof(*s->used));
	w = malloc((2 * n + 1) * sizeof(*w));
	if (!s->lo || !s->hi || !s->used || !w)
		goto out;
	err = cover_scan(c, gather_add, &g, c->dynamic);
	if (err)
		goto out;
	gather_drop(&g, true);
	g.w = w;
	g.nw = slot_places(s, w);
	err = names_read(c, &g);
	if (err)
		goto out;
	if (!c->strtab && !places_named(&g)) {
		c->strtab = elf_read_at(c->abfd, c->loc.stroff, c->loc.strsize,
					1, &err);
		if (!c->strtab) {
			err = err ? err : -EIO;
			goto out;
		}
		free(s->lo);
		free(s->hi);
		free(s->used);
		free(w);
		free(g.v);
		g = (struct gather){
			{ vmas, n, NULL, NULL, NULL }, NULL, 0, NULL, 0, 0
		};
		goto again;
	}
	if (c->dynamic) {
		err = dyn_sizes(&g);
		if (err)
			goto out;
	}
	err = -ENOMEM;
	*out = malloc((g.n ? g.n : 1) * sizeof(**out));
	if (!*out)
		goto out;
	for (i = k = 0; i < g.n; i++)
		if (g.v[i].code && elf_symtab_code_name(g.v[i].name))
			elf_symtab_code_sym(&g.v[i].e, c->loc.secs,
					    c->loc.relocatable, g.v[i].name,
					    &(*out)[k++]);
	*nr = k;
	err = 0;
out:
	free(s->lo);
	free(s->hi);
	free(s->used);
	free(w);
	free(g.v);
	return err;
}
