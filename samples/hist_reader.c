// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * samples.hist reader: definitions are checked against what came before
 * them, count deltas are gathered, then sorted and summed once.  A block
 * that fails a check is dropped whole (its effects rolled back) and ends
 * the parse, like a bad checksum would.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "block_internal.h"
#include "reader_internal.h"

/* The fewest bytes a record can take, to bound counts before allocating. */
#define IMAGE_MIN 5
#define CONTEXT_MIN 4
#define COUNT_MIN 3

struct hist_parse {
	struct ops_hist_data *h;
	bool oom;
	bool parent_ids; /* a version 2 file: stack parents as ids */
};

static int grow32(void **p, uint32_t *cap, size_t need, size_t size)
{
	size_t c = *cap;
	int ret;

	if (need > UINT32_MAX)
		return -ENOMEM;
	ret = oputil_grow(p, &c, need, size);
	*cap = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
	return ret;
}

static const char *hist_images(struct hist_parse *hp, struct ops_cur *c)
{
	struct ops_hist_data *h = hp->h;
	uint32_t first = ops_cur_varint32(c), n = ops_cur_varint32(c), i;
	uint32_t start = h->nr_images;
	const char *why = NULL;

	if (!c->ok || first != h->nr_images)
		return "image ids out of order";
	if (n > ops_cur_left(c) / IMAGE_MIN ||
	    (uint64_t)first + n > UINT32_MAX)
		return "bad image count";
	if (grow32((void **)&h->images, &h->cap_images, (size_t)first + n,
		   sizeof(*h->images))) {
		hp->oom = true;
		return "out of memory";
	}
	for (i = 0; i < n; i++) {
		struct ops_image *img = &h->images[h->nr_images];
		char *path;
		uint64_t kind;

		memset(img, 0, sizeof(*img));
		kind = ops_cur_varint(c);
		if (!ops_cur_str(c, &path))
			break;
		img->path = path;
		h->nr_images++;
		img->kind = (uint32_t)kind;
		img->build_id_size = ops_cur_u8(c);
		if (kind > OPS_IMAGE_MODULE) {
			why = "bad image kind";
			goto bad;
		}
		if (img->build_id_size > OPS_BUILD_ID_MAX) {
			why = "bad build-id size";
			goto bad;
		}
		ops_cur_bytes(c, img->build_id, img->build_id_size);
		img->size = ops_cur_varint(c);
		img->mtime_ns = ops_cur_svarint(c);
	}
	if (c->ok && !ops_cur_left(c))
		return NULL;
	why = c->ok ? "trailing bytes in image block" : "bad image record";
bad:
	while (h->nr_images > start)
		free((char *)h->images[--h->nr_images].path);
	return why;
}

static const char *hist_contexts(struct hist_parse *hp, struct ops_cur *c)
{
	struct ops_hist_data *h = hp->h;
	uint32_t first = ops_cur_varint32(c), n = ops_cur_varint32(c), i;

	if (!c->ok || first != h->nr_contexts)
		return "context ids out of order";
	if (n > ops_cur_left(c) / CONTEXT_MIN ||
	    (uint64_t)first + n > UINT32_MAX)
		return "bad context count";
	if (grow32((void **)&h->contexts, &h->cap_contexts, (size_t)first + n,
		   sizeof(*h->contexts))) {
		hp->oom = true;
		return "out of memory";
	}
	for (i = 0; i < n && c->ok; i++) {
		struct ops_context *x = &h->contexts[first + i];
		int64_t cpu;

		x->app = ops_cur_varint32(c);
		x->image = ops_cur_varint32(c);
		x->tgid = ops_cur_varint32(c);
		cpu = ops_cur_svarint(c);
		if (!c->ok)
			break;
		if (x->app >= h->nr_images || x->image >= h->nr_images)
			return "context names an unknown image";
		if (cpu < INT32_MIN || cpu > INT32_MAX)
			return "bad cpu in context";
		x->cpu = (int32_t)cpu;
		x->tid = 0;
		x->event = 0;
	}
	if (!c->ok)
		return "bad context record";
	if (ops_cur_left(c))
		return "trailing bytes in context block";
	h->nr_contexts += n;
	return NULL;
}

static const char *hist_counts(struct hist_parse *hp, struct ops_cur *c)
{
	struct ops_hist_data *h = hp->h;
	uint64_t n = ops_cur_varint(c), i, ctx = 0, off = 0, d;
	size_t start = h->nr_entries;

	if (!c->ok || n > ops_cur_left(c) / COUNT_MIN)
		return "bad count of counts";
	if (oputil_grow(&h->entries, &h->cap_entries, start + n,
			sizeof(*h->entries))) {
		hp->oom = true;
		return "out of memory";
	}
	for (i = 0; i < n; i++) {
		struct ops_hist_entry *e = &h->entries[start + i];

		d = ops_cur_varint(c);
		ctx += d;
		if (d > UINT32_MAX || ctx >= h->nr_contexts)
			goto bad;
		/* offsets are relative within a run of one context */
		if (i && !d)
			off += ops_cur_varint(c);
		else
			off = ops_cur_varint(c);
		e->ctx = (uint32_t)ctx;
		e->offset = off;
		e->count = ops_cur_varint(c);
		if (!c->ok)
			goto bad;
	}
	if (ops_cur_left(c)) {
		h->nr_entries = start;
		return "trailing bytes in count block";
	}
	h->nr_entries = start + n;
	return NULL;
bad:
	h->nr_entries = start;
	return c->ok ? "count for an unknown context" : "bad count record";
}

/* Six counts; a later version may append more, which are skipped. */
static const char *hist_totals(struct hist_parse *hp, struct ops_cur *c)
{
	struct ops_session_info t = { 0 };
	uint64_t processes;

	t.samples = ops_cur_varint(c);
	t.samples_lost = ops_cur_varint(c);
	t.samples_unattributed = ops_cur_varint(c);
	t.samples_anon = ops_cur_varint(c);
	t.samples_kernel = ops_cur_varint(c);
	processes = ops_cur_varint(c);
	if (!c->ok)
		return "bad totals record";
	t.processes = processes > UINT32_MAX ? UINT32_MAX
					     : (uint32_t)processes;
	hp->h->totals = t;
	hp->h->have_totals = true;
	return NULL;
}

static const char *hist_block(void *arg, uint16_t type, const uint8_t *p,
			      size_t len, uint64_t offset)
{
	struct ops_cur c;

	ops_cur_init(&c, p, len);
	switch (type) {
	case OPS_HIST_IMAGES:
		return hist_images(arg, &c);
	case OPS_HIST_CONTEXTS:
		return hist_contexts(arg, &c);
	case OPS_HIST_COUNTS:
		return hist_counts(arg, &c);
	case OPS_HIST_STACKS:
		return ops_hist_stacks(((struct hist_parse *)arg)->h, p, len,
				       ((struct hist_parse *)arg)->parent_ids,
				       &((struct hist_parse *)arg)->oom);
	case OPS_HIST_STACK_DELTAS:
		return ops_hist_stack_deltas(((struct hist_parse *)arg)->h, p,
					     len,
					     &((struct hist_parse *)arg)->oom);
	case OPS_HIST_STACK_COUNTS:
		return ops_hist_stack_counts(((struct hist_parse *)arg)->h, p,
					     len,
					     &((struct hist_parse *)arg)->oom);
	case OPS_HIST_TOTALS:
		return hist_totals(arg, &c);
	case OPS_HIST_STACK_COPIES:
		return ops_hist_copies(((struct hist_parse *)arg)->h, p, len,
				       &((struct hist_parse *)arg)->oom);
	case OPS_HIST_COPY_COUNTS:
	case OPS_HIST_PIECED_COPY_COUNTS:
		return ops_hist_copy_counts(((struct hist_parse *)arg)->h, p,
					    len);
	case OPS_HIST_COPY_PIECES:
		return ops_hist_copy_pieces(((struct hist_parse *)arg)->h, p,
					    len,
					    &((struct hist_parse *)arg)->oom);
	case OPS_HIST_PIECED_COPIES:
		return ops_hist_pieced_copies(
			((struct hist_parse *)arg)->h, p, len,
			&((struct hist_parse *)arg)->oom);
	case OPS_HIST_PIECED_COPY_SLICES:
		return ops_hist_copy_slices(((struct hist_parse *)arg)->h, p,
					    len,
					    &((struct hist_parse *)arg)->oom);
	case OPS_HIST_PROCESS_MAPS:
		return ops_hist_pmaps(((struct hist_parse *)arg)->h, p, len,
				      &((struct hist_parse *)arg)->oom);
	case OPS_HIST_CONTEXT_THREADS:
		return ops_hist_context_threads(((struct hist_parse *)arg)->h,
						p, len);
	case OPS_HIST_CONTEXT_EVENTS:
		return ops_hist_context_events(((struct hist_parse *)arg)->h,
					       p, len);
	case OPS_HIST_THREADS:
		return ops_hist_threads(((struct hist_parse *)arg)->h, p, len,
					&((struct hist_parse *)arg)->oom);
	case OPS_HIST_TIME_SLICES:
		return ops_hist_time_slices(((struct hist_parse *)arg)->h, p,
					    len,
					    &((struct hist_parse *)arg)->oom);
	}
	return NULL; /* a later version's block: skip it */
}

static int entry_cmp(const void *a, const void *b)
{
	const struct ops_hist_entry *x = a, *y = b;

	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return 0;
}

void ops_hist_merge(struct ops_hist_data *h)
{
	struct ops_hist_entry *e = h->entries;
	size_t i, n = 0;

	if (!h->nr_entries)
		return;
	qsort(e, h->nr_entries, sizeof(*e), entry_cmp);
	for (i = 1; i < h->nr_entries; i++) {
		if (e[i].ctx == e[n].ctx && e[i].offset == e[n].offset)
			e[n].count = ops_add_sat(e[n].count, e[i].count);
		else
			e[++n] = e[i];
	}
	h->nr_entries = n + 1;
}

const char *ops_hist_context_events(struct ops_hist_data *h, const uint8_t *p,
				    size_t len)
{
	struct ops_cur c;
	uint32_t first, n, i;
	uint64_t ev;

	ops_cur_init(&c, p, len);
	first = ops_cur_varint32(&c);
	n = ops_cur_varint32(&c);
	if (!c.ok || first != h->nr_ctx_events)
		return "context event ids out of order";
	if (n > h->nr_contexts - first || n > ops_cur_left(&c))
		return "bad context event count";
	/* the list's length is checked against session.meta's once the
	 * file is read (ops_hist_events_check) */
	for (i = 0; i < n; i++) {
		ev = ops_cur_varint(&c);
		if (!c.ok || ev > UINT32_MAX)
			break;
		h->contexts[first + i].event = (uint32_t)ev;
	}
	if (i < n || ops_cur_left(&c)) {
		/* dropped whole */
		while (i--)
			h->contexts[first + i].event = 0;
		return "bad context event record";
	}
	h->nr_ctx_events += n;
	return NULL;
}

int ops_hist_events_check(struct ops_hist_data *h, uint32_t nr_events)
{
	uint32_t i;

	for (i = 0; i < h->nr_contexts; i++)
		if (h->contexts[i].event >= nr_events)
			break;
	if (i == h->nr_contexts)
		return 0;
	for (i = 0; i < h->nr_contexts; i++)
		h->contexts[i].event = 0;
	return -EINVAL;
}

int ops_hist_parse(struct ops_hist_data *h, const uint8_t *buf, size_t len,
		   const char *path, ops_warn_fn warn, void *warn_arg)
{
	struct hist_parse hp = { .h = h };

	memset(h, 0, sizeof(*h));
	/* the header itself is checked by the block parser */
	hp.parent_ids = len >= OPS_FILE_HEADER_SIZE &&
			ops_le32_load(buf + 8) <= OPS_FORMAT_VERSION_STACK_IDS;
	ops_blocks_parse(buf, len, OPS_HIST_MAGIC, path, hist_block, &hp, warn,
			 warn_arg);
	ops_hist_merge(h);
	if (ops_hist_deltas_finish(h))
		hp.oom = true;
	ops_hist_stacks_finish(h);
	ops_hist_copies_finish(h);
	ops_hist_slices_finish(h);
	ops_hist_threads_finish(h);
	return hp.oom ? -ENOMEM : 0;
}

void ops_hist_data_free(struct ops_hist_data *h)
{
	uint32_t i;

	for (i = 0; i < h->nr_images; i++)
		free((char *)h->images[i].path);
	free(h->images);
	free(h->contexts);
	ops_hist_threads_free(h);
	free(h->entries);
	ops_hist_stacks_free(h);
	ops_hist_copies_free(h);
	free(h->pmaps);
	free(h->slices);
	memset(h, 0, sizeof(*h));
}
