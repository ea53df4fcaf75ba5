// SPDX-License-Identifier: MIT
/*
 * On attach, the table's index from an id to its live entry.  A log hands
 * ids out in order, so the ids of what lives are dense and those made
 * together sit together: the index is an array of pages of offsets,
 * indexed by the id itself.  An event touches one page that the events
 * before it touched too, where a hash of the id would touch a random
 * cache line of a table as large as all that lives.  A page is freed when
 * its last id dies, and the array keeps only the pages from the oldest
 * live id to the newest.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "jitlog_internal.h"

/* A page of JL_IDS_PER_PAGE offsets, each + 1, 0 for an id not live. */
struct opjit_jl_id_page {
	uint32_t live;
	uint64_t off[JL_IDS_PER_PAGE];
};

static uint64_t page_of(uint64_t id)
{
	return id / JL_IDS_PER_PAGE;
}

static size_t index_in_page(uint64_t id)
{
	return id % JL_IDS_PER_PAGE;
}

/* The page of ID, or NULL when none of its ids lives. */
static struct opjit_jl_id_page *page_find(const struct opjit_jl_ids *x,
					  uint64_t id)
{
	uint64_t p = page_of(id);

	if (x->lo == x->hi || p < x->base + x->lo || p >= x->base + x->hi)
		return NULL;
	return x->slot[p - x->base];
}

/* Room in the array for page P, the array's slots outside lo..hi NULL. */
static int slots_cover(struct opjit_jl_ids *x, uint64_t p)
{
	size_t need, cap, d;

	if (x->lo == x->hi)
		x->base = p, x->lo = x->hi = 0;
	if (p < x->base) {
		d = x->base - p;
		need = x->hi + d;
	} else {
		/* drop the slots before the oldest live page first */
		if (x->lo && p - x->base >= x->cap) {
			memmove(x->slot, x->slot + x->lo,
				(x->hi - x->lo) * sizeof(*x->slot));
			memset(x->slot + x->hi - x->lo, 0,
			       x->lo * sizeof(*x->slot));
			x->base += x->lo, x->hi -= x->lo, x->lo = 0;
		}
		d = 0;
		need = p - x->base + 1;
	}
	if (need > x->cap) {
		cap = x->cap;
		if (oputil_grow(&x->slot, &x->cap, need, sizeof(*x->slot)))
			return -ENOMEM;
		memset(x->slot + cap, 0, (x->cap - cap) * sizeof(*x->slot));
	}
	if (d) {
		memmove(x->slot + d, x->slot, x->hi * sizeof(*x->slot));
		memset(x->slot, 0, d * sizeof(*x->slot));
		x->base = p, x->lo += d, x->hi += d;
	}
	if (p - x->base < x->lo)
		x->lo = p - x->base;
	if (p - x->base >= x->hi)
		x->hi = p - x->base + 1;
	return 0;
}

/* The page of ID, made if it does not exist. */
static struct opjit_jl_id_page *page_make(struct opjit_jl_ids *x, uint64_t id)
{
	struct opjit_jl_id_page **s;
	uint64_t p = page_of(id);

	if (slots_cover(x, p))
		return NULL;
	s = &x->slot[p - x->base];
	if (!*s) {
		/* a page whose last id died is all zeros: keep one for the
		 * next, so that a load and its unload cost no malloc */
		*s = x->spare ? x->spare : calloc(1, sizeof(**s));
		x->spare = NULL;
	}
	return *s;
}

bool opjit_jl_ids_get(const struct opjit_jl_ids *x, uint64_t id, size_t *off)
{
	const struct opjit_jl_id_page *pg = page_find(x, id);
	uint64_t v = pg ? pg->off[index_in_page(id)] : 0;

	if (v)
		*off = (size_t)(v - 1);
	return v != 0;
}

int opjit_jl_ids_put(struct opjit_jl_ids *x, uint64_t id, size_t off)
{
	struct opjit_jl_id_page *pg = page_find(x, id);
	uint64_t *v;

	if (!pg)
		pg = page_make(x, id);
	if (!pg)
		return -ENOMEM;
	v = &pg->off[index_in_page(id)];
	pg->live += !*v;
	*v = (uint64_t)off + 1;
	return 0;
}

/* Let go of slot S's page, which holds no live id, and trim the ends. */
static void page_drop(struct opjit_jl_ids *x, size_t s)
{
	if (x->spare)
		free(x->slot[s]);
	else
		x->spare = x->slot[s];
	x->slot[s] = NULL;
	while (x->lo < x->hi && !x->slot[x->lo])
		x->lo++;
	while (x->hi > x->lo && !x->slot[x->hi - 1])
		x->hi--;
}

bool opjit_jl_ids_del(struct opjit_jl_ids *x, uint64_t id, size_t *off)
{
	struct opjit_jl_id_page *pg = page_find(x, id);
	uint64_t *v = pg ? &pg->off[index_in_page(id)] : NULL;

	if (!v || !*v)
		return false;
	*off = (size_t)(*v - 1);
	*v = 0;
	if (!--pg->live)
		page_drop(x, page_of(id) - x->base);
	return true;
}

void opjit_jl_ids_free(struct opjit_jl_ids *x)
{
	size_t s;

	for (s = x->lo; s < x->hi; s++)
		free(x->slot[s]);
	free(x->slot);
	free(x->spare);
	memset(x, 0, sizeof(*x));
}
