// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * TIME_SLICES blocks (FORMAT.md): gathered as records, and, when a
 * report asks for a time window, made the session's counts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "block_internal.h"
#include "reader_internal.h"

/* The fewest bytes a record can take, to bound counts before allocating. */
#define COUNT_MIN 3
/* A slice longer than an hour is not a slice. */
#define SLICE_MAX_NS (3600ull * 1000000000ull)

/* One section: its records appended to H->slices. */
static const char *slice_section(struct ops_hist_data *h, struct ops_cur *c,
				 uint32_t kind, uint64_t start, uint64_t len,
				 bool *oom)
{
	uint64_t n = ops_cur_varint(c), i, ctx = 0, key = 0, d;
	size_t at = h->nr_slices;

	if (!c->ok || n > ops_cur_left(c) / COUNT_MIN)
		return "bad count of slice counts";
	if (oputil_grow(&h->slices, &h->cap_slices, at + n,
			sizeof(*h->slices))) {
		*oom = true;
		return "out of memory";
	}
	for (i = 0; i < n; i++) {
		struct ops_time_count *e = &h->slices[at + i];

		d = ops_cur_varint(c);
		ctx += d;
		if (i && !d)
			key += ops_cur_varint(c);
		else
			key = ops_cur_varint(c);
		*e = (struct ops_time_count){ start,	     len,
					      key,	     ops_cur_varint(c),
					      (uint32_t)ctx, kind };
		if (!c->ok || d > UINT32_MAX)
			return "bad slice record";
		if (kind == OPS_TIME_COPIES ? ctx || key >= h->nr_copies
					    : ctx >= h->nr_contexts)
			return "count for an unknown context";
		if (kind == OPS_TIME_STACKS && key >= h->nr_stacks)
			return "count for an unknown stack";
	}
	h->nr_slices = at + n;
	return NULL;
}

/* A slice's sections of KINDS[0..N), the payload P of a TIME_SLICES or
 * PIECED_COPY_SLICES block. */
static const char *slice_block(struct ops_hist_data *h, const uint8_t *p,
			       size_t len, const uint32_t *kinds, size_t n,
			       bool *oom)
{
	size_t before = h->nr_slices;
	uint64_t slice_ns, index;
	const char *why = NULL;
	struct ops_cur c;
	size_t k;

	ops_cur_init(&c, p, len);
	slice_ns = ops_cur_varint(&c);
	index = ops_cur_varint(&c);
	if (!c.ok || !slice_ns || slice_ns > SLICE_MAX_NS ||
	    index > UINT64_MAX / 2 / slice_ns)
		why = "bad time slice";
	for (k = 0; k < n && !why; k++)
		why = slice_section(h, &c, kinds[k], index * slice_ns,
				    slice_ns, oom);
	if (!why && ops_cur_left(&c))
		why = "trailing bytes in time slice block";
	if (why)
		h->nr_slices = before; /* a bad block adds none */
	return why;
}

const char *ops_hist_time_slices(struct ops_hist_data *h, const uint8_t *p,
				 size_t len, bool *oom)
{
	static const uint32_t kinds[] = { OPS_TIME_COUNTS, OPS_TIME_COPIES,
					  OPS_TIME_STACKS };

	return slice_block(h, p, len, kinds, 3, oom);
}

const char *ops_hist_copy_slices(struct ops_hist_data *h, const uint8_t *p,
				 size_t len, bool *oom)
{
	static const uint32_t kinds[] = { OPS_TIME_COPIES };

	return slice_block(h, p, len, kinds, 1, oom);
}

bool ops_slice_in(const struct ops_time_count *t, uint64_t from, uint64_t to)
{
	uint64_t mid = t->start_ns + t->len_ns / 2;

	return mid >= from && mid < to;
}

int ops_hist_window(struct ops_hist_data *h, uint64_t from, uint64_t to)
{
	size_t i, ne = 0, ns = 0;

	h->win_from = from;
	h->win_to = to;
	for (i = 0; i < h->nr_slices; i++) {
		const struct ops_time_count *t = &h->slices[i];

		ne += t->kind == OPS_TIME_COUNTS;
		ns += t->kind == OPS_TIME_STACKS;
	}
	if (oputil_grow(&h->entries, &h->cap_entries, ne,
			sizeof(*h->entries)) ||
	    oputil_grow(&h->stack_counts, &h->cap_stack_counts, ns,
			sizeof(*h->stack_counts)))
		return -ENOMEM;
	h->nr_entries = h->nr_stack_counts = 0;
	for (i = 0; i < h->nr_copies; i++)
		h->copies[i].count = 0;
	for (i = 0; i < h->nr_slices; i++) {
		const struct ops_time_count *t = &h->slices[i];

		if (!ops_slice_in(t, from, to))
			continue;
		if (t->kind == OPS_TIME_COUNTS)
			h->entries[h->nr_entries++] =
				(struct ops_hist_entry){ .ctx = t->ctx,
							 .offset = t->key,
							 .count = t->count };
		else if (t->kind == OPS_TIME_STACKS)
			h->stack_counts[h->nr_stack_counts++] =
				(struct ops_stack_count){ t->ctx,
							  (uint32_t)t->key,
							  t->count };
		else
			h->copies[t->key].count =
				ops_add_sat(h->copies[t->key].count, t->count);
	}
	ops_hist_merge(h);
	ops_hist_stacks_finish(h);
	return 0;
}

void ops_hist_slices_finish(struct ops_hist_data *h)
{
	uint64_t all = 0, timed = 0;
	size_t i;

	for (i = 0; i < h->nr_entries; i++)
		all = ops_add_sat(all, h->entries[i].count);
	for (i = 0; i < h->nr_slices; i++)
		if (h->slices[i].kind == OPS_TIME_COUNTS)
			timed = ops_add_sat(timed, h->slices[i].count);
	h->untimed = all > timed ? all - timed : 0;
}
