// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The kallsyms trim by the table's index (kallsyms_index.c): each
 * sample's neighbours found by a binary search in its group's lines,
 * and only the lines kept read from the table, where the two passes of
 * kallsyms_trim.c read all 150k.  What it keeps is what they keep (and
 * the sort of kallsyms_trim_ref.c): for a sample with a line of its
 * group at or below it, every line at the highest such address and the
 * first line at the lowest address above it; the kernel's samples in
 * the kernel's group and in that of every module's lines.
 *
 * An index is trusted no further than the lines it keeps: each must be
 * a whole line of the table, the code line of the index's address and
 * group, or the index is not the table's (-ESTALE).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <oputil/grow.h>
#include <oputil/search.h>

#include "kallsyms_trim_internal.h"

struct kept {
	struct ops_ksym_index_entry *v;
	size_t n, cap;
};

/* The group of module M (LEN bytes), or 0 when it has none. */
static uint32_t module_group(const struct ops_ksym_index *ix, const char *m,
			     size_t len)
{
	size_t g = oputil_partition(1, ix->nr_groups - 1, k,
				    ops_ksym_module_cmp(ix->names[k],
							ix->name_lens[k], m,
							len) < 0);

	return g < ix->nr_groups - 1 &&
			       !ops_ksym_module_cmp(ix->names[g],
						    ix->name_lens[g], m, len)
		       ? (uint32_t)g
		       : 0;
}

/* Whether entry E of group G is a whole code line of TEXT (LEN) at its
 * address, of G's module. */
static bool entry_true(const char *text, size_t len,
		       const struct ops_ksym_index *ix, uint32_t g,
		       const struct ops_ksym_index_entry *e)
{
	const char *mod;
	size_t mlen;
	uint64_t a;

	if ((uint64_t)e->off + e->len > len ||
	    (e->off && text[e->off - 1] != '\n') ||
	    ((uint64_t)e->off + e->len < len &&
	     text[e->off + e->len] != '\n') ||
	    !ops_kallsyms_scan_code(text + e->off, e->len, &a, &mod, &mlen) ||
	    a != e->addr)
		return false;
	if (g == ix->nr_groups - 1)
		return mlen != 0;
	return !ops_ksym_module_cmp(mod, mlen, ix->names[g], ix->name_lens[g]);
}

static int keep(struct kept *k, const struct ops_ksym_index_entry *e)
{
	if (oputil_grow(&k->v, &k->cap, k->n + 1, sizeof(*k->v)))
		return -ENOMEM;
	k->v[k->n++] = *e;
	return 0;
}

/* The lines group G keeps for a sample at ADDR into K. */
static int keep_sample(const char *text, size_t len,
		       const struct ops_ksym_index *ix, uint32_t g,
		       uint64_t addr, struct kept *k)
{
	const struct ops_ksym_index_entry *e = ix->e;
	size_t b = ix->group_at[g], end = ix->group_at[g + 1];
	size_t lo = oputil_partition(b, end, i, e[i].addr <= addr), i;
	int ret = 0;

	if (lo == b)
		return 0;
	for (i = lo - 1; !ret && i >= b && e[i].addr == e[lo - 1].addr; i--) {
		if (!entry_true(text, len, ix, g, &e[i]))
			return -ESTALE;
		ret = keep(k, &e[i]);
		if (i == b)
			break;
	}
	if (!ret && lo < end) {
		if (!entry_true(text, len, ix, g, &e[lo]))
			return -ESTALE;
		ret = keep(k, &e[lo]);
	}
	return ret;
}

static int off_cmp(const void *pa, const void *pb)
{
	const struct ops_ksym_index_entry *a = pa, *b = pb;

	return (a->off > b->off) - (a->off < b->off);
}

int ops_kallsyms_trim_index(const char *text, size_t len,
			    const struct ops_ksym_index *ix,
			    const struct ops_ksym_want *want, size_t n,
			    struct ops_buf *out)
{
	struct kept k = { 0 };
	uint32_t any = ix->nr_groups - 1;
	size_t i, was = out->len;
	int ret = 0;

	if (ix->table_size != len)
		return -ESTALE;
	if (!ix->group_at[ix->nr_groups])
		return 1; /* no code line: the table stays whole */
	for (i = 0; !ret && i < n; i++) {
		uint32_t g = want[i].module_len
				     ? module_group(ix, want[i].module,
						    want[i].module_len)
				     : 0;

		if (g || !want[i].module_len)
			ret = keep_sample(text, len, ix, g, want[i].addr, &k);
		if (!ret && !want[i].module_len)
			ret = keep_sample(text, len, ix, any, want[i].addr,
					  &k);
	}
	if (k.n)
		qsort(k.v, k.n, sizeof(*k.v), off_cmp);
	for (i = 0; !ret && i < k.n; i++) {
		if (i && k.v[i].off == k.v[i - 1].off)
			continue;
		ret = ops_buf_reserve(out, k.v[i].len + 1);
		if (ret)
			break;
		memcpy(out->data + out->len, text + k.v[i].off, k.v[i].len);
		out->data[out->len + k.v[i].len] = '\n';
		out->len += k.v[i].len + 1;
	}
	if (ret)
		out->len = was;
	free(k.v);
	return ret;
}
