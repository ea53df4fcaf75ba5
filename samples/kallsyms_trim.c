// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The kallsyms trim in two passes over the table, without indexing or
 * sorting its lines: a table has 100k and more of them, while a session's
 * kernel samples are a few hundred addresses.  Lines are grouped by
 * module, and a module's lines need not be in address order (nor the
 * modules be contiguous), so each code line is placed by a binary search
 * among its module's sampled addresses, between the two it falls in.
 *
 * For a sample s of a module, LO(s) is the highest address of a code
 * line at or below s, HI(s) the lowest above it.  A line at address a
 * whose place among the sorted samples s[0] < s[1] < ... is
 * s[j - 1] < a <= s[j] is a candidate LO for s[j] and HI for s[j - 1]
 * only (the first pass keeps the best of each); a sample with no line
 * between it and its neighbour shares the neighbour's.  The second pass
 * keeps every line at a LO and the first at each HI.  Nothing of
 * the table is held beyond the line at hand and the lines kept.
 *
 * The recorder files every kernel sample under the kernel's image, those
 * in a module's code too (perf_event says nothing of modules): so the
 * kernel's samples are also the samples of one more group, of the lines
 * of every module together, whose LO names the module a report finds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <oputil/search.h>
#include <oputil/u64map.h>

#include "kallsyms_trim_internal.h"

/* The length of the prefix of P (LEN bytes, no NUL) without a blank. */
static size_t strcspn_len(const char *p, size_t len)
{
	const char *tab = memchr(p, '\t', len), *sp;

	if (tab)
		len = (size_t)(tab - p);
	sp = memchr(p, ' ', len);
	return sp ? (size_t)(sp - p) : len;
}

/* Each byte's hex value + 1, or 0 for a byte that is no hex digit. */
static const uint8_t hex1[256] = {
	['0'] = 1,  ['1'] = 2,	['2'] = 3,  ['3'] = 4,	['4'] = 5,  ['5'] = 6,
	['6'] = 7,  ['7'] = 8,	['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
	['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
	['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* The address at the head of LINE (1 to 16 hex digits and a space): the
 * number of its digits, or 0 when there is none.  A 64-bit kernel writes
 * 16 digits: those are read without a branch a digit. */
static size_t scan_addr(const char *line, size_t len, uint64_t *addr)
{
	const uint8_t *u = (const uint8_t *)line;
	uint64_t a = 0;
	unsigned bad = 0;
	size_t i;

	if (len > 16 && line[16] == ' ') {
		for (i = 0; i < 16; i++) {
			a = a << 4 | (uint64_t)(hex1[u[i]] - 1);
			bad |= !hex1[u[i]];
		}
		if (!bad) {
			*addr = a;
			return 16;
		}
		a = 0;
	}
	for (i = 0; i < len && hex1[u[i]]; i++) {
		if (i == 16)
			return 0;
		a = a << 4 | (uint64_t)(hex1[u[i]] - 1);
	}
	*addr = a;
	return i < len && line[i] == ' ' ? i : 0;
}

bool ops_kallsyms_scan_code(const char *line, size_t len, uint64_t *addr,
			    const char **module, size_t *module_len)
{
	size_t i, t, name, mod;
	uint64_t a;

	t = scan_addr(line, len, &a) + 1;
	if (t == 1)
		return false;
	if (t + 1 >= len || line[t + 1] != ' ' || !a)
		return false;
	if (line[t] != 't' && line[t] != 'T' && line[t] != 'w' &&
	    line[t] != 'W')
		return false;
	/* the name, up to a blank; a NUL anywhere makes the line junk */
	name = t + 2;
	if (name >= len || memchr(line + name, '\0', len - name))
		return false;
	i = name + strcspn_len(line + name, len - name);
	if (i == name)
		return false;
	*module = line + len;
	*module_len = 0;
	if (i == len)
		goto out;
	for (mod = i + 1; mod < len && (line[mod] == ' ' || line[mod] == '\t');
	     mod++)
		;
	if (mod == len)
		goto out;
	if (line[mod] != '[' || len - mod < 3 || line[len - 1] != ']')
		return false;
	*module = line + mod + 1;
	*module_len = len - mod - 2;
out:
	*addr = a;
	return true;
}

struct ktrim_group {
	const char *module;
	size_t module_len;
	size_t at, n;	     /* its samples: addr[at .. at + n), ascending */
	size_t cursor;	     /* where its last line fell among them */
	size_t nall, nfirst; /* after the first pass: the kept addresses */
};

enum { KT_LO = 1, KT_HI = 2, KT_TAKEN = 4 };

struct ktrim {
	struct ktrim_group *groups;
	size_t ngroups;
	struct ktrim_group *any; /* the kernel's samples among modules' lines */
	/* per sample: its address, LO and HI, and which of them it has;
	 * after the first pass each group's part holds its kept addresses */
	uint64_t *addr, *lo, *hi;
	uint8_t *flags;
	/* the module of the last line looked up, and its group */
	const char *last_module;
	size_t last_len;
	struct ktrim_group *last;
	/* every kept address of every group: most lines of the second
	 * pass are passed over on their address alone */
	struct oputil_u64map kept;
};

static int want_cmp(const void *pa, const void *pb)
{
	const struct ops_ksym_want *a = pa, *b = pb;
	size_t n = a->module_len < b->module_len ? a->module_len
						 : b->module_len;
	int c = n ? memcmp(a->module, b->module, n) : 0;

	if (c)
		return c;
	if (a->module_len != b->module_len)
		return a->module_len < b->module_len ? -1 : 1;
	return (a->addr > b->addr) - (a->addr < b->addr);
}

static bool same_module(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && (!alen || !memcmp(a, b, alen));
}

/* The group of MODULE, or NULL when it has no samples.  A module's lines
 * come together in a real table, so the last answer mostly serves. */
static struct ktrim_group *ktrim_group(struct ktrim *kt, const char *module,
				       size_t len)
{
	size_t g;

	if (kt->last_module &&
	    same_module(kt->last_module, kt->last_len, module, len))
		return kt->last;
	kt->last_module = module;
	kt->last_len = len;
	kt->last = NULL;
	for (g = 0; g < kt->ngroups; g++) {
		struct ktrim_group *gr = &kt->groups[g];

		if (gr != kt->any &&
		    same_module(gr->module, gr->module_len, module, len)) {
			kt->last = gr;
			break;
		}
	}
	return kt->last;
}

/* The samples of WANT (sorted), each address once, by module; the
 * kernel's (first when there are any: their module sorts first) once
 * more in the group of every module's lines. */
static int ktrim_init(struct ktrim *kt, const struct ops_ksym_want *want,
		      size_t n)
{
	size_t i, u = 0, cap = 2 * n + 1;

	kt->groups = calloc(cap, sizeof(*kt->groups));
	kt->addr = calloc(cap, sizeof(*kt->addr));
	kt->lo = calloc(cap, sizeof(*kt->lo));
	kt->hi = calloc(cap, sizeof(*kt->hi));
	kt->flags = calloc(cap, sizeof(*kt->flags));
	if (!kt->groups || !kt->addr || !kt->lo || !kt->hi || !kt->flags)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct ktrim_group *g =
			kt->ngroups ? &kt->groups[kt->ngroups - 1] : NULL;

		if (!g || !same_module(g->module, g->module_len,
				       want[i].module, want[i].module_len)) {
			g = &kt->groups[kt->ngroups++];
			g->module = want[i].module;
			g->module_len = want[i].module_len;
			g->at = u;
		} else if (kt->addr[u - 1] == want[i].addr) {
			continue;
		}
		kt->addr[u++] = want[i].addr;
		g->n++;
	}
	if (kt->ngroups && !kt->groups[0].module_len) {
		struct ktrim_group *k = &kt->groups[0];

		kt->any = &kt->groups[kt->ngroups++];
		kt->any->at = u;
		kt->any->n = k->n;
		memcpy(kt->addr + u, kt->addr + k->at,
		       k->n * sizeof(*kt->addr));
	}
	return 0;
}

/* Where the lines come from: TEXT in memory, or FD read from its start
 * in chunks through BUF, so that a table of megabytes costs a buffer of
 * a few pages (every fresh page is a fault, and faults cost more than
 * the parse). */
struct ksrc {
	const char *text;
	size_t len, pos;
	int fd;
	char *buf;
	size_t cap, start, end;
	bool eof;
	int err;
};

#define KSRC_CHUNK (64u << 10)

static void ksrc_rewind(struct ksrc *src)
{
	src->pos = src->start = src->end = 0;
	src->eof = false;
	if (src->fd >= 0 && lseek(src->fd, 0, SEEK_SET) < 0)
		src->err = -errno;
}

/* Read more of the file; false at its end or on an error (in ERR). */
static bool ksrc_fill(struct ksrc *src)
{
	ssize_t r;

	if (src->eof || src->err)
		return false;
	memmove(src->buf, src->buf + src->start, src->end - src->start);
	src->end -= src->start;
	src->start = 0;
	if (src->end == src->cap) { /* a line longer than the buffer */
		char *p = realloc(src->buf, src->cap * 2);

		if (!p) {
			src->err = -ENOMEM;
			return false;
		}
		src->buf = p;
		src->cap *= 2;
	}
	do
		r = read(src->fd, src->buf + src->end, src->cap - src->end);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		src->err = -errno;
	else if (!r)
		src->eof = true;
	else
		src->end += (size_t)r;
	return r > 0;
}

/* The next line (*L bytes at *LINE, without its newline); false at the
 * end of the table or on an error (in ERR). */
static bool ksrc_line(struct ksrc *src, const char **line, size_t *l)
{
	const char *nl;

	if (src->fd < 0) {
		if (src->pos >= src->len)
			return false;
		*line = src->text + src->pos;
		nl = memchr(*line, '\n', src->len - src->pos);
		*l = nl ? (size_t)(nl - *line) : src->len - src->pos;
		src->pos += *l + 1;
		return true;
	}
	for (;;) {
		*line = src->buf + src->start;
		nl = memchr(*line, '\n', src->end - src->start);
		if (nl) {
			*l = (size_t)(nl - *line);
			src->start += *l + 1;
			return true;
		}
		if (!ksrc_fill(src))
			break;
	}
	if (src->err || src->start == src->end)
		return false;
	*line = src->buf + src->start; /* the last line, without a newline */
	*l = src->end - src->start;
	src->start = src->end;
	return true;
}

/* A code line at A of group G as a candidate LO and HI. */
static void ktrim_place(struct ktrim *kt, struct ktrim_group *g, uint64_t a)
{
	const uint64_t *s = kt->addr + g->at;
	size_t j = g->cursor;

	/* where A falls among the samples: mostly where the line before
	 * fell, or just after, as the kernel's lines ascend */
	if ((j && s[j - 1] >= a) || (j < g->n && a > s[j])) {
		if (j < g->n && a > s[j] && (j + 1 == g->n || a <= s[j + 1]))
			j++;
		else
			j = oputil_partition(0, g->n, k, s[k] < a);
	}
	g->cursor = j;
	if (j < g->n &&
	    (!(kt->flags[g->at + j] & KT_LO) || kt->lo[g->at + j] < a)) {
		kt->lo[g->at + j] = a;
		kt->flags[g->at + j] |= KT_LO;
	}
	if (j && (!(kt->flags[g->at + j - 1] & KT_HI) ||
		  kt->hi[g->at + j - 1] > a)) {
		kt->hi[g->at + j - 1] = a;
		kt->flags[g->at + j - 1] |= KT_HI;
	}
}

/* The first pass: each code line's address as a candidate LO and HI.
 * Returns whether the table has a code line at all. */
static bool ktrim_candidates(struct ktrim *kt, struct ksrc *src)
{
	const char *line, *mod;
	size_t l, mlen;
	bool any = false;
	uint64_t a;

	while (ksrc_line(src, &line, &l)) {
		struct ktrim_group *g;

		if (!ops_kallsyms_scan_code(line, l, &a, &mod, &mlen))
			continue;
		any = true;
		g = ktrim_group(kt, mod, mlen);
		if (g)
			ktrim_place(kt, g, a);
		if (mlen && kt->any)
			ktrim_place(kt, kt->any, a);
	}
	return any;
}

/* Each group's kept addresses from the candidates, in place: lo[at ..]
 * every line at them, hi[at ..] the first line at them (flags KT_TAKEN
 * once it is kept).  A sample without a candidate of its own has the LO
 * and HI of a neighbour, which are kept already; a sample below every
 * line of its module keeps nothing, so HI counts only from the first LO
 * on.  Candidates lie between consecutive samples: each list ascends. */
static int ktrim_settle(struct ktrim *kt)
{
	size_t g, i;

	for (g = 0; g < kt->ngroups; g++) {
		struct ktrim_group *gr = &kt->groups[g];
		uint64_t *lo = kt->lo + gr->at, *hi = kt->hi + gr->at;
		uint8_t *f = kt->flags + gr->at;

		for (i = 0; i < gr->n; i++) {
			uint8_t fi = f[i];

			f[i] = 0;
			if (fi & KT_LO) {
				if (oputil_u64map_put(&kt->kept, lo[i], 1,
						      NULL) < 0)
					return -ENOMEM;
				lo[gr->nall++] = lo[i];
			}
			if ((fi & KT_HI) && gr->nall) {
				if (oputil_u64map_put(&kt->kept, hi[i], 1,
						      NULL) < 0)
					return -ENOMEM;
				hi[gr->nfirst++] = hi[i];
			}
		}
	}
	return 0;
}

/* Whether the code line at A of group G is kept. */
static bool ktrim_keep(struct ktrim *kt, const struct ktrim_group *g,
		       uint64_t a)
{
	const uint64_t *all = kt->lo + g->at, *first = kt->hi + g->at;
	size_t i = oputil_partition(0, g->nall, k, all[k] < a);

	if (i < g->nall && all[i] == a)
		return true;
	i = oputil_partition(0, g->nfirst, k, first[k] < a);
	if (i == g->nfirst || first[i] != a || kt->flags[g->at + i] & KT_TAKEN)
		return false;
	kt->flags[g->at + i] |= KT_TAKEN;
	return true;
}

static void ktrim_free(struct ktrim *kt)
{
	free(kt->groups);
	free(kt->addr);
	free(kt->lo);
	free(kt->hi);
	free(kt->flags);
	oputil_u64map_free(&kt->kept);
}

static int ktrim_run(struct ksrc *src, struct ops_ksym_want *want, size_t n,
		     struct ops_buf *out)
{
	struct ktrim kt = { 0 };
	const char *line, *mod;
	size_t l, mlen;
	uint64_t a;
	int ret;

	if (n)
		qsort(want, n, sizeof(*want), want_cmp);
	ret = ktrim_init(&kt, want, n);
	if (ret)
		goto out;
	if (!ktrim_candidates(&kt, src)) {
		ret = src->err ? src->err : 1;
		goto out;
	}
	ret = ktrim_settle(&kt);
	if (ret)
		goto out;
	kt.last_module = NULL;
	ksrc_rewind(src);
	while (ksrc_line(src, &line, &l)) {
		struct ktrim_group *g;
		bool keep = false;

		if (!scan_addr(line, l, &a) ||
		    !oputil_u64map_get(&kt.kept, a, NULL) ||
		    !ops_kallsyms_scan_code(line, l, &a, &mod, &mlen))
			continue;
		g = ktrim_group(&kt, mod, mlen);
		if (g)
			keep = ktrim_keep(&kt, g, a);
		/* both groups see the line: each takes its first once */
		if (mlen && kt.any)
			keep |= ktrim_keep(&kt, kt.any, a);
		if (!keep)
			continue;
		ret = ops_buf_reserve(out, l + 1);
		if (ret)
			goto out;
		memcpy(out->data + out->len, line, l);
		out->data[out->len + l] = '\n';
		out->len += l + 1;
	}
	ret = src->err;
out:
	ktrim_free(&kt);
	return ret;
}

int ops_kallsyms_trim(const char *text, size_t len, struct ops_ksym_want *want,
		      size_t n, struct ops_buf *out)
{
	struct ksrc src = { .text = text, .len = len, .fd = -1 };

	return ktrim_run(&src, want, n, out);
}

int ops_kallsyms_trim_fd(int fd, struct ops_ksym_want *want, size_t n,
			 struct ops_buf *out)
{
	struct ksrc src = { .fd = fd, .cap = KSRC_CHUNK };
	int ret;

	src.buf = malloc(src.cap);
	if (!src.buf)
		return -ENOMEM;
	ksrc_rewind(&src);
	ret = src.err ? src.err : ktrim_run(&src, want, n, out);
	free(src.buf);
	return ret;
}
