// SPDX-License-Identifier: GPL-3.0-or-later
#include "elf_plt.h"
#include "elf_read.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <oputil/grow.h>
#include <oputil/search.h>

struct plt_reloc {
	uint64_t slot; /* r_offset: the GOT slot */
	uint32_t sym;  /* index in the dynamic table; 0: none */
	int64_t addend;
};

static int reloc_cmp(const void *pa, const void *pb)
{
	const struct plt_reloc *a = pa, *b = pb;

	return (a->slot > b->slot) - (a->slot < b->slot);
}

/* A stub found, to be named once all are found (name_pending()). */
struct plt_pend {
	const struct plt_reloc *r;
	uint64_t vma, end;
	uint64_t stroff; /* its symbol's name, in the dynamic strings */
	char *name;	 /* NULL: unreadable, the stub goes unnamed */
};

/* A piece of the file read at once, for reads in ascending order. */
struct plt_win {
	unsigned char *buf;
	uint64_t off, len; /* what buf holds */
	size_t cap;
};

struct plt_ctx {
	bfd *abfd;
	const struct elf_shdr *shdrs;
	unsigned shnum, dynsym;
	const struct elf_shdr *syms, *strs; /* the dynamic table's */
	struct plt_reloc *rel;		    /* sorted by slot */
	size_t nrel;
	struct elf_plt *out;
	size_t cap, names_len, names_cap;
	struct plt_pend *pend;
	size_t npend, cap_pend;
	struct plt_win win;
};

/* The dynamic relocations: every RELA section of the dynamic table. */
static int read_relocs(struct plt_ctx *c)
{
	unsigned i;
	int err = 0;

	for (i = 0; i < c->shnum; i++) {
		const struct elf_shdr *s = &c->shdrs[i];
		unsigned char *raw;
		uint64_t k, n;
		struct plt_reloc *grown;

		if (s->type != SHT_RELA || s->link != c->dynsym ||
		    s->entsize != sizeof(Elf64_Rela))
			continue;
		raw = elf_read_section(c->abfd, s, &err);
		if (!raw) {
			if (err)
				return err;
			continue;
		}
		n = s->size / sizeof(Elf64_Rela);
		grown = realloc(c->rel, (c->nrel + n + 1) * sizeof(*grown));
		if (!grown) {
			free(raw);
			return -ENOMEM;
		}
		c->rel = grown;
		for (k = 0; k < n; k++) {
			const unsigned char *p = raw + k * sizeof(Elf64_Rela);
			uint64_t info = bfd_get_64(
				c->abfd, p + offsetof(Elf64_Rela, r_info));

			c->rel[c->nrel++] = (struct plt_reloc){
				bfd_get_64(c->abfd,
					   p + offsetof(Elf64_Rela, r_offset)),
				(uint32_t)ELF64_R_SYM(info),
				(int64_t)bfd_get_64(c->abfd,
						    p + offsetof(Elf64_Rela,
								 r_addend))
			};
		}
		free(raw);
	}
	if (c->nrel)
		qsort(c->rel, c->nrel, sizeof(*c->rel), reloc_cmp);
	return 0;
}

static const struct plt_reloc *reloc_at(const struct plt_ctx *c, uint64_t slot)
{
	size_t i = oputil_partition(0, c->nrel, m, c->rel[m].slot < slot);

	return i < c->nrel && c->rel[i].slot == slot ? &c->rel[i] : NULL;
}

/* Longer names exist (C++), but not as PLT stubs anyone reads. */
#define PLT_NAME_MAX 4096

/* A piece is at least this long: node's 486 stubs name symbols near
 * each other, and a seek and a read of each name and each symbol on its
 * own were a tenth of opannotate's time. */
#define PLT_WIN 16384

/*
 * LEN bytes at OFF, LIMIT or less, through C's piece: read from OFF as
 * PLT_WIN bytes (up to LIMIT) when the piece does not hold them, or as
 * LEN bytes alone when a short file cannot give so many.  NULL when
 * they cannot be read, with *ERR set when out of memory.
 */
static const unsigned char *win_get(struct plt_ctx *c, uint64_t off,
				    uint64_t len, uint64_t limit, int *err)
{
	struct plt_win *w = &c->win;
	uint64_t want = limit - off < PLT_WIN ? limit - off : PLT_WIN;

	if (w->buf && off >= w->off && off - w->off + len <= w->len)
		return w->buf + (off - w->off);
	if (want < len)
		want = len;
	if (oputil_grow(&w->buf, &w->cap, want + 1, 1)) {
		*err = -ENOMEM;
		return NULL;
	}
	w->len = 0;
	if (bfd_seek(c->abfd, (file_ptr)off, SEEK_SET) ||
	    bfd_bread(w->buf, want, c->abfd) != want) {
		want = len;
		if (bfd_seek(c->abfd, (file_ptr)off, SEEK_SET) ||
		    bfd_bread(w->buf, want, c->abfd) != want)
			return NULL;
	}
	w->off = off;
	w->len = want;
	return w->buf;
}

/* Longer names exist (C++), but not as PLT stubs anyone reads. */
#define PLT_NAME_MAX 4096

/*
 * The name of stub P's symbol at its offset: up to its NUL, or
 * PLT_NAME_MAX - 1 bytes or the strings' end; a first short read, then
 * the rest, as each name read on its own was.  0 with P's name NULL when
 * it cannot be read, or -ENOMEM.
 */
static int pend_name(struct plt_ctx *c, struct plt_pend *p)
{
	uint64_t left = c->strs->size - p->stroff, end, n;
	const unsigned char *b;
	int err = 0;

	n = left < 128 ? left : 128;
	end = c->strs->offset + c->strs->size;
	b = win_get(c, c->strs->offset + p->stroff, n, end, &err);
	if (b && !memchr(b, '\0', n)) {
		n = left < PLT_NAME_MAX - 1 ? left : PLT_NAME_MAX - 1;
		b = win_get(c, c->strs->offset + p->stroff, n, end, &err);
	}
	if (!b)
		return err;
	p->name = malloc(n + 1);
	if (!p->name)
		return -ENOMEM;
	memcpy(p->name, b, n);
	p->name[n] = '\0';
	return 0;
}

static int pend_by_sym(const void *pa, const void *pb)
{
	const struct plt_pend *a = *(const struct plt_pend *const *)pa;
	const struct plt_pend *b = *(const struct plt_pend *const *)pb;

	return (a->r->sym > b->r->sym) - (a->r->sym < b->r->sym);
}

static int pend_by_name(const void *pa, const void *pb)
{
	const struct plt_pend *a = *(const struct plt_pend *const *)pa;
	const struct plt_pend *b = *(const struct plt_pend *const *)pb;

	return (a->stroff > b->stroff) - (a->stroff < b->stroff);
}

/*
 * The names of the stubs found that have a symbol: their symbols read in
 * the table's order, then their names in the strings' order, each
 * through one piece of the file.  0 or -ENOMEM.
 */
static int name_pending(struct plt_ctx *c)
{
	struct plt_pend **o;
	size_t i, k, n = 0;
	int err = 0;

	o = malloc((c->npend ? c->npend : 1) * sizeof(*o));
	if (!o)
		return -ENOMEM;
	for (i = 0; i < c->npend; i++)
		if (c->pend[i].r->sym)
			o[n++] = &c->pend[i];
	qsort(o, n, sizeof(*o), pend_by_sym);
	for (i = k = 0; i < n && !err; i++) {
		uint64_t at = c->syms->offset +
			      (uint64_t)o[i]->r->sym * sizeof(Elf64_Sym);
		const unsigned char *ent;

		if (o[i]->r->sym >= c->syms->size / sizeof(Elf64_Sym))
			continue;
		ent = win_get(c, at, sizeof(Elf64_Sym),
			      c->syms->offset + c->syms->size, &err);
		if (!ent)
			continue;
		o[i]->stroff = bfd_get_32(c->abfd,
					  ent + offsetof(Elf64_Sym, st_name));
		if (o[i]->stroff < c->strs->size)
			o[k++] = o[i];
	}
	qsort(o, k, sizeof(*o), pend_by_name);
	for (i = 0; i < k && !err; i++)
		err = pend_name(c, o[i]);
	free(o);
	return err;
}

/* The name libbfd gives the stub of R: its symbol's, "+0x" and the
 * addend when there is one, then "@plt"; "*ABS*" with no symbol. */
static int name_stub(struct plt_ctx *c, const struct plt_pend *p)
{
	const struct plt_reloc *r = p->r;
	const char *sym = r->sym ? p->name : "*ABS*";
	char addend[24] = "";
	size_t len;

	if (!sym)
		return 0;
	if (r->addend)
		snprintf(addend, sizeof(addend), "+0x%" PRIx64,
			 (uint64_t)r->addend);
	len = strlen(sym) + strlen(addend) + sizeof("@plt");
	if (c->out->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct elf_code_sym *v = realloc(c->out->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->out->v = v;
		c->cap = cap;
	}
	if (c->names_len + len > c->names_cap) {
		size_t cap = (c->names_cap + len) * 2;
		char *names = realloc(c->out->names, cap);

		if (!names)
			return -ENOMEM;
		c->out->names = names;
		c->names_cap = cap;
	}
	snprintf(c->out->names + c->names_len, len, "%s%s@plt", sym, addend);
	/* an offset for now: the names may still move */
	c->out->v[c->out->n++] = (struct elf_code_sym){
		p->vma, p->end, 0, (const char *)(uintptr_t)c->names_len, -1
	};
	c->names_len += len;
	return 0;
}

/*
 * Each entry of a PLT section that jumps through a GOT slot (jmp
 * *disp32(%rip), with or without a bnd or endbr64 before it) is the
 * stub of that slot's relocation.  The first entry of a lazy .plt jumps
 * to the resolver through a slot no relocation names.
 */
static int scan_plt(struct plt_ctx *c, const struct elf_shdr *s,
		    uint64_t entsize)
{
	unsigned char *b;
	uint64_t e, k;
	int err = 0;

	b = elf_read_section(c->abfd, s, &err);
	if (!b)
		return err;
	for (e = 0; e + entsize <= s->size && !err; e += entsize) {
		for (k = e; k + 6 <= e + entsize; k++) {
			const struct plt_reloc *r;
			int32_t disp;

			if (b[k] != 0xff || b[k + 1] != 0x25)
				continue;
			disp = (int32_t)bfd_get_32(c->abfd, b + k + 2);
			r = reloc_at(c, s->addr + k + 6 + (int64_t)disp);
			if (r && oputil_grow(&c->pend, &c->cap_pend,
					     c->npend + 1, sizeof(*c->pend)))
				err = -ENOMEM;
			else if (r)
				c->pend[c->npend++] =
					(struct plt_pend){ r, s->addr + e,
							   s->addr + s->size,
							   0, NULL };
			break;
		}
	}
	free(b);
	return err;
}

static uint64_t plt_entsize(const struct elf_shdr *s, const char *name)
{
	if (s->entsize == 8 || s->entsize == 16)
		return s->entsize;
	return strcmp(name, ".plt.got") ? 16 : 8;
}

static int scan_plts(struct plt_ctx *c, const struct elf_ehdr *h)
{
	static const char *const plts[] = { ".plt", ".plt.sec", ".plt.bnd",
					    ".plt.got" };
	char *shstr;
	unsigned i, k;
	int err = 0;

	if (h->shstrndx >= c->shnum)
		return 0;
	shstr = elf_read_section(c->abfd, &c->shdrs[h->shstrndx], &err);
	if (!shstr)
		return err;
	for (i = 0; i < c->shnum && !err; i++) {
		const struct elf_shdr *s = &c->shdrs[i];
		const char *name;

		if (s->type != SHT_PROGBITS || !(s->flags & SHF_EXECINSTR) ||
		    s->name >= c->shdrs[h->shstrndx].size)
			continue;
		name = shstr + s->name;
		for (k = 0; k < sizeof(plts) / sizeof(plts[0]); k++)
			if (!strcmp(name, plts[k]))
				err = scan_plt(c, s, plt_entsize(s, name));
	}
	free(shstr);
	return err;
}

int elf_plt_read(struct elf_plt *out, bfd *abfd)
{
	struct plt_ctx c = { .abfd = abfd };
	struct elf_plt p = { 0 };
	struct elf_shdr *shdrs, *tab = NULL;
	struct elf_ehdr h;
	size_t i;
	int err = 0;

	if (!elf_read_ehdr(abfd, &h) || !h.is64 || h.machine != EM_X86_64 ||
	    h.relocatable)
		return 0;
	shdrs = elf_read_shdrs(abfd, &h, &err);
	if (!shdrs)
		return err;
	for (i = 0; i < h.shnum && !tab; i++)
		if (shdrs[i].type == SHT_DYNSYM)
			tab = &shdrs[i];
	if (!tab) {
		free(shdrs);
		return 0;
	}
	c.shdrs = shdrs;
	c.shnum = h.shnum;
	c.dynsym = (unsigned)(tab - shdrs);
	c.out = &p;
	if (tab->entsize != sizeof(Elf64_Sym) || tab->link >= h.shnum ||
	    shdrs[tab->link].type != SHT_STRTAB)
		goto done; /* malformed: no stubs */
	c.syms = tab;
	c.strs = &shdrs[tab->link];
	err = read_relocs(&c);
	if (!err)
		err = scan_plts(&c, &h);
	if (!err)
		err = name_pending(&c);
	for (i = 0; i < c.npend && !err; i++)
		err = name_stub(&c, &c.pend[i]);
	for (i = 0; i < p.n && !err; i++)
		p.v[i].name = p.names + (uintptr_t)p.v[i].name;
done:
	for (i = 0; i < c.npend; i++)
		free(c.pend[i].name);
	free(c.pend);
	free(c.win.buf);
	free(shdrs);
	free(c.rel);
	if (err) {
		elf_plt_free(&p);
		return err;
	}
	*out = p;
	return 1;
}

void elf_plt_free(struct elf_plt *p)
{
	free(p->v);
	free(p->names);
	memset(p, 0, sizeof(*p));
}
