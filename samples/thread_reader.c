// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * samples.hist's threads (FORMAT.md, CONTEXT_THREADS and THREADS): each
 * context's thread, and the threads' names, the last record of each
 * thread holding.
 */
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "block_internal.h"
#include "reader_internal.h"

/* The fewest bytes a THREADS record takes: tgid, tid, a 1-byte name. */
#define THREAD_MIN 4

const char *ops_hist_context_threads(struct ops_hist_data *h, const uint8_t *p,
				     size_t len)
{
	struct ops_cur c;
	uint32_t first, n, i;
	uint64_t tid;

	ops_cur_init(&c, p, len);
	first = ops_cur_varint32(&c);
	n = ops_cur_varint32(&c);
	if (!c.ok || first != h->nr_ctx_threads)
		return "context thread ids out of order";
	if (n > h->nr_contexts - first || n > ops_cur_left(&c))
		return "bad context thread count";
	for (i = 0; i < n; i++) {
		tid = ops_cur_varint(&c);
		if (!c.ok || tid > UINT32_MAX)
			break;
		h->contexts[first + i].tid = (uint32_t)tid;
	}
	if (i < n || ops_cur_left(&c)) {
		/* dropped whole */
		while (i--)
			h->contexts[first + i].tid = 0;
		return "bad context thread record";
	}
	h->nr_ctx_threads += n;
	return NULL;
}

const char *ops_hist_threads(struct ops_hist_data *h, const uint8_t *p,
			     size_t len, bool *oom)
{
	size_t start = h->nr_threads;
	struct ops_cur c;
	uint64_t n, i;

	ops_cur_init(&c, p, len);
	n = ops_cur_varint(&c);
	if (!c.ok || n > ops_cur_left(&c) / THREAD_MIN)
		goto bad;
	if (oputil_grow(&h->threads, &h->cap_threads, start + n,
			sizeof(*h->threads))) {
		*oom = true;
		return "out of memory";
	}
	for (i = 0; i < n; i++) {
		struct ops_thread *t = &h->threads[h->nr_threads];
		uint64_t tgid = ops_cur_varint(&c), tid = ops_cur_varint(&c);
		char *name;

		if (!c.ok || !tid || tid > UINT32_MAX || tgid > UINT32_MAX ||
		    !ops_cur_str(&c, &name))
			goto bad;
		t->tgid = (uint32_t)tgid;
		t->tid = (uint32_t)tid;
		t->name = name;
		h->nr_threads++;
		if (!name[0] || strlen(name) > OPS_THREAD_NAME_MAX)
			goto bad;
	}
	if (!ops_cur_left(&c))
		return NULL;
bad:
	while (h->nr_threads > start)
		free((char *)h->threads[--h->nr_threads].name);
	return "bad thread record";
}

/* Records in file order, compared by (tgid, tid, place in the file),
 * through their indices: qsort is not stable. */
static int thread_cmp(const void *pa, const void *pb, void *arg)
{
	const struct ops_thread *v = arg;
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	const struct ops_thread *a = &v[ia], *b = &v[ib];

	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return (ia > ib) - (ia < ib);
}

void ops_hist_threads_finish(struct ops_hist_data *h)
{
	struct ops_thread *out;
	size_t *idx, i, n = 0;

	if (h->nr_threads < 2)
		return;
	idx = malloc(h->nr_threads * sizeof(*idx));
	out = malloc(h->nr_threads * sizeof(*out));
	if (!idx || !out) {
		/* names unsorted are names lost: keep none */
		free(idx);
		free(out);
		ops_hist_threads_free(h);
		return;
	}
	for (i = 0; i < h->nr_threads; i++)
		idx[i] = i;
	qsort_r(idx, h->nr_threads, sizeof(*idx), thread_cmp, h->threads);
	for (i = 0; i < h->nr_threads; i++) {
		const struct ops_thread *t = &h->threads[idx[i]];

		if (n && out[n - 1].tgid == t->tgid &&
		    out[n - 1].tid == t->tid) {
			free((char *)out[n - 1].name);
			out[n - 1] = *t;
		} else {
			out[n++] = *t;
		}
	}
	free(idx);
	free(h->threads);
	h->threads = out;
	h->cap_threads = h->nr_threads;
	h->nr_threads = n;
}

void ops_hist_threads_free(struct ops_hist_data *h)
{
	for (size_t i = 0; i < h->nr_threads; i++)
		free((char *)h->threads[i].name);
	free(h->threads);
	h->threads = NULL;
	h->nr_threads = h->cap_threads = 0;
}
