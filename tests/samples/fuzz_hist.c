// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer target: the samples.hist reader on arbitrary bytes. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_blocks.h"
#include "reader_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void count_warning(void *arg, const char *msg)
{
	(*(int *)arg)++;
	if (!*msg)
		abort();
}

/* where the copies' bytes are read to, so that no read is optimised out */
static volatile uint8_t hist_byte_sink;

/* The promises a report relies on. */
static void check_hist(struct ops_hist_data *h)
{
	size_t i;

	for (i = 0; i < h->nr_images; i++)
		if (!h->images[i].path ||
		    h->images[i].build_id_size > OPS_BUILD_ID_MAX)
			abort();
	for (i = 0; i < h->nr_contexts; i++)
		if (h->contexts[i].app >= h->nr_images ||
		    h->contexts[i].image >= h->nr_images)
			abort();
	for (i = 0; i < h->nr_entries; i++) {
		const struct ops_hist_entry *e = &h->entries[i];

		if (e->ctx >= h->nr_contexts)
			abort();
		if (i && (e[-1].ctx > e->ctx ||
			  (e[-1].ctx == e->ctx && e[-1].offset >= e->offset)))
			abort();
	}
	for (i = 0; i < h->nr_stacks; i++) {
		const struct ops_stack *st = ops_hist_stack(h, (uint32_t)i);
		uint32_t f;

		if (!st || !st->nr_frames ||
		    st->nr_frames > OPS_STACK_MAX_FRAMES ||
		    st->nr_kernel > st->nr_frames)
			abort();
		for (f = 0; f < st->nr_frames; f++)
			if (st->frames[f].kind > OPS_FRAME_UNKNOWN ||
			    (st->frames[f].kind == OPS_FRAME_IMAGE &&
			     st->frames[f].image >= h->nr_images))
				abort();
	}
	/* from version 5: every delta names a node of the table */
	for (i = 0; i < h->nr_deltas; i++)
		if (h->delta_node[i] >= h->nr_stacks)
			abort();
	for (i = 0; i < h->nr_stack_counts; i++) {
		const struct ops_stack_count *e = &h->stack_counts[i];

		if (e->ctx >= h->nr_contexts || e->stack >= h->nr_stacks)
			abort();
		if (i && (e[-1].ctx > e->ctx ||
			  (e[-1].ctx == e->ctx && e[-1].stack >= e->stack)))
			abort();
	}
	for (i = 0; i < h->nr_copies; i++) {
		const struct ops_stack_copy *c = &h->copies[i];

		if (c->ctx >= h->nr_contexts || c->stack >= h->nr_stacks ||
		    c->size > OPS_STACK_COPY_MAX || (c->size && !c->piece_ids))
			abort();
		/* every byte readable (ASan checks) */
		for (uint32_t b = 0; b < c->size; b++) {
			uint8_t v;

			if (!ops_stack_copy_read(c, c->sp + b, &v, 1))
				abort();
			hist_byte_sink = v;
		}
	}
	for (i = 0; i < h->nr_pmaps; i++) {
		const struct ops_process_map *m = &h->pmaps[i];

		if (m->app >= h->nr_images || m->image >= h->nr_images ||
		    !m->len || m->start + m->len < m->start)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ops_hist_data h;
	int warnings = 0;
	uint8_t *buf;
	size_t len;

	buf = fuzz_blocks_input(data, size, &len);
	if (!ops_hist_parse(&h, buf, len, "fuzz/samples.hist", count_warning,
			    &warnings)) {
		if (warnings > 1)
			abort();
		check_hist(&h);
		if (ops_hist_stack(&h, h.nr_stacks))
			abort();
		/* a session of two events: every context's event within
		 * them once checked */
		ops_hist_events_check(&h, 2);
		for (uint32_t i = 0; i < h.nr_contexts; i++)
			if (h.contexts[i].event >= 2)
				abort();
	}
	ops_hist_data_free(&h);
	free(buf);
	return 0;
}
