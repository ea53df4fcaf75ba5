// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The index of a kallsyms table, built once per boot beside the
 * recorder's kept table (the daemon's cache), so that the trim at each
 * stop searches it instead of reading the 150k lines of the session's
 * copy twice (kallsyms_index_trim.c).  It holds every code line's
 * address, byte offset and length, grouped as the trim groups them: the
 * kernel's lines, each module's (in the order of their names), and the
 * lines of every module together (the kernel's samples in a module's
 * code); within a group in order of address, then of offset.
 *
 * Its bytes, in the machine's own byte order (the cache never leaves
 * the machine), each part at a multiple of 8:
 *
 *   "OKSYMIX1", u64 table size, u32 groups G (>= 2), u32 entries N,
 *   u32 names' bytes, u32 0
 *   u32 group_at[G + 1]: group g is entries [group_at[g], group_at[g+1])
 *   the G - 2 modules' names, each with a NUL
 *   N entries { u64 address; u32 offset; u32 length (no newline) }
 *
 * The parse checks the structure, not the entries: the trim checks
 * every line it keeps against the table, and a mismatch makes it read
 * the table instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <opjit/samples.h>

#include "kallsyms_trim_internal.h"

#define IX_MAGIC "OKSYMIX1"

struct ix_head {
	char magic[8];
	uint64_t table_size;
	uint32_t nr_groups, nr_entries, names_len, zero;
};

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

struct ix_line {
	const char *module;
	size_t module_len;
	uint64_t addr;
	uint32_t off, len;
};

static int addr_off_cmp(const struct ix_line *a, const struct ix_line *b)
{
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return (a->off > b->off) - (a->off < b->off);
}

static int line_cmp(const void *pa, const void *pb)
{
	const struct ix_line *a = pa, *b = pb;
	int c = ops_ksym_module_cmp(a->module, a->module_len, b->module,
				    b->module_len);

	return c ? c : addr_off_cmp(a, b);
}

static int line_addr_cmp(const void *pa, const void *pb)
{
	return addr_off_cmp(pa, pb);
}

/* The code lines of TEXT (LEN bytes) into *OUT (*N), sorted by module,
 * address and offset. */
static int code_lines(const char *text, size_t len, struct ix_line **out,
		      size_t *n)
{
	size_t pos, cap = 1;
	struct ix_line *v;

	for (pos = 0; pos < len; pos++)
		cap += text[pos] == '\n';
	v = calloc(cap, sizeof(*v));
	*out = v;
	*n = 0;
	if (!v)
		return -ENOMEM;
	for (pos = 0; pos < len;) {
		const char *line = text + pos,
			   *nl = memchr(line, '\n', len - pos);
		size_t l = (size_t)((nl ? nl : text + len) - line);
		struct ix_line *e = &v[*n];

		if (ops_kallsyms_scan_code(line, l, &e->addr, &e->module,
					   &e->module_len)) {
			e->off = (uint32_t)pos;
			e->len = (uint32_t)l;
			++*n;
		}
		pos += l + 1;
	}
	qsort(v, *n, sizeof(*v), line_cmp);
	return 0;
}

/* Whether sorted line V[I] is the first of its module's group. */
static bool group_starts(const struct ix_line *v, size_t i)
{
	return v[i].module_len &&
	       (!i || ops_ksym_module_cmp(v[i - 1].module, v[i - 1].module_len,
					  v[i].module, v[i].module_len));
}

/* The groups of sorted lines V (N): the kernel's (maybe empty), one a
 * module, and the last of every module's lines, left empty here. */
static uint32_t count_groups(const struct ix_line *v, size_t n,
			     size_t *names_len)
{
	uint32_t g = 2;
	size_t i;

	*names_len = 0;
	for (i = 0; i < n; i++)
		if (group_starts(v, i)) {
			g++;
			*names_len += v[i].module_len + 1;
		}
	return g;
}

/* Lay out the index of sorted lines V (N; NMOD of them a module's), NG
 * groups, into P: all but the last group, whose NMOD entries are left
 * for the caller. */
static void lay_out(uint8_t *p, size_t table_size, const struct ix_line *v,
		    size_t n, size_t nmod, uint32_t ng, size_t names_len)
{
	struct ix_head h = { .table_size = table_size,
			     .nr_groups = ng,
			     .nr_entries = (uint32_t)(n + nmod),
			     .names_len = (uint32_t)names_len };
	uint32_t *at = (uint32_t *)(p + sizeof(h)), g = 0;
	char *names = (char *)(p + sizeof(h) + pad8((ng + 1) * 4u));
	struct ops_ksym_index_entry *e =
		(struct ops_ksym_index_entry *)(p + sizeof(h) +
						pad8((ng + 1) * 4u) +
						pad8(names_len));
	size_t i;

	memcpy(h.magic, IX_MAGIC, 8);
	memcpy(p, &h, sizeof(h));
	at[0] = 0;
	for (i = 0; i < n; i++) {
		if (group_starts(v, i)) {
			at[++g] = (uint32_t)i;
			memcpy(names, v[i].module, v[i].module_len);
			names += v[i].module_len;
			*names++ = '\0';
		}
		e[i] = (struct ops_ksym_index_entry){ v[i].addr, v[i].off,
						      v[i].len };
	}
	/* group 0, the kernel's, may be empty: it is [0, at[1]) */
	at[++g] = (uint32_t)n;
	at[++g] = (uint32_t)(n + nmod);
}

int ops_kallsyms_index_build(const char *text, size_t len, uint8_t **out,
			     size_t *out_len)
{
	struct ix_line *v = NULL, *mods = NULL;
	size_t n = 0, names_len, nmod = 0, i, size;
	uint32_t ng;
	int ret;

	*out = NULL;
	*out_len = 0;
	if (len >= UINT32_MAX)
		return -EFBIG;
	ret = code_lines(text, len, &v, &n);
	if (ret)
		goto out;
	ng = count_groups(v, n, &names_len);
	for (i = 0; i < n; i++)
		nmod += v[i].module_len != 0;
	size = sizeof(struct ix_head) + pad8((ng + 1) * 4u) + pad8(names_len) +
	       (n + nmod) * sizeof(struct ops_ksym_index_entry);
	ret = -ENOMEM;
	mods = calloc(nmod + 1, sizeof(*mods));
	*out = calloc(1, size);
	if (!mods || !*out)
		goto out;
	/* the modules' lines by address, after them by module */
	lay_out(*out, len, v, n, nmod, ng, names_len);
	for (i = 0, nmod = 0; i < n; i++)
		if (v[i].module_len)
			mods[nmod++] = v[i];
	qsort(mods, nmod, sizeof(*mods), line_addr_cmp);
	{
		struct ops_ksym_index_entry *e =
			(struct ops_ksym_index_entry *)(*out + size) - nmod;

		for (i = 0; i < nmod; i++)
			e[i] = (struct ops_ksym_index_entry){ mods[i].addr,
							      mods[i].off,
							      mods[i].len };
	}
	*out_len = size;
	ret = 0;
out:
	if (ret) {
		free(*out);
		*out = NULL;
	}
	free(v);
	free(mods);
	return ret;
}

int ops_kallsyms_index_parse(const void *p, size_t len,
			     struct ops_ksym_index *ix)
{
	const uint8_t *b = p;
	struct ix_head h;
	uint64_t at_size, size;
	const char *names;
	uint32_t g, k;
	size_t i;

	memset(ix, 0, sizeof(*ix));
	if (len < sizeof(h) || (uintptr_t)p % 8)
		return -EINVAL;
	memcpy(&h, b, sizeof(h));
	if (memcmp(h.magic, IX_MAGIC, 8) || h.zero || h.nr_groups < 2 ||
	    h.nr_groups > 1u << 20)
		return -EINVAL;
	at_size = pad8(((size_t)h.nr_groups + 1) * 4);
	size = sizeof(h) + at_size + pad8(h.names_len) +
	       (uint64_t)h.nr_entries * sizeof(struct ops_ksym_index_entry);
	if (size != len)
		return -EINVAL;
	ix->group_at = (const uint32_t *)(b + sizeof(h));
	if (ix->group_at[0] || ix->group_at[h.nr_groups] != h.nr_entries)
		return -EINVAL;
	for (g = 0; g < h.nr_groups; g++)
		if (ix->group_at[g] > ix->group_at[g + 1])
			return -EINVAL;
	/* the G - 2 names, each ending in the NUL before the next */
	names = (const char *)(b + sizeof(h) + at_size);
	if (h.names_len ? names[h.names_len - 1] != '\0' : h.nr_groups != 2)
		return -EINVAL;
	ix->names = calloc(h.nr_groups, sizeof(*ix->names));
	ix->name_lens = calloc(h.nr_groups, sizeof(*ix->name_lens));
	if (!ix->names || !ix->name_lens) {
		ops_kallsyms_index_free(ix);
		return -ENOMEM;
	}
	for (i = 0, k = 1; i < h.names_len; k++) {
		size_t l = strlen(names + i);

		if (k > h.nr_groups - 2 || !l) {
			ops_kallsyms_index_free(ix);
			return -EINVAL;
		}
		ix->names[k] = names + i;
		ix->name_lens[k] = l;
		i += l + 1;
	}
	if (k != h.nr_groups - 1) {
		ops_kallsyms_index_free(ix);
		return -EINVAL;
	}
	ix->names[0] = "";
	ix->table_size = h.table_size;
	ix->nr_groups = h.nr_groups;
	ix->e = (const struct ops_ksym_index_entry *)(b + sizeof(h) + at_size +
						      pad8(h.names_len));
	return 0;
}

void ops_kallsyms_index_free(struct ops_ksym_index *ix)
{
	free(ix->names);
	free(ix->name_lens);
	memset(ix, 0, sizeof(*ix));
}
