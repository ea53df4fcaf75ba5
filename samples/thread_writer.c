// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The names of a session's threads (FORMAT.md, THREADS): kept by
 * (tgid, tid), and written when new or changed, so that a rename costs
 * one record and a compaction writes one record a thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "writer_internal.h"

/* Records a THREADS block holds, as COUNTS blocks hold counts. */
#define THREADS_PER_BLOCK 65536

int ops_writer_thread(struct ops_writer *w, uint32_t tgid, uint32_t tid,
		      const char *name)
{
	struct ops_hist_writer *h = &w->hist;
	size_t len = name ? strlen(name) : 0;
	struct ops_thread_name *t;
	uint32_t id;
	int ret;

	if (!w->threads || !tid || !len || len > OPS_THREAD_NAME_MAX)
		return ops_writer_fail(
			w, -EINVAL, "%s/samples.hist: invalid thread %u name",
			w->dir, tid);
	w->records.len = 0;
	ret = ops_buf_put_varint(&w->records, tgid);
	ret = ret ? ret : ops_buf_put_varint(&w->records, tid);
	ret = ret ? ret
		  : oputil_grow(&h->thread_names, &h->cap_thread_names,
				(size_t)h->threads.nr + 1,
				sizeof(*h->thread_names));
	ret = ret ? ret
		  : oputil_grow(&h->threads_dirty, &h->cap_threads_dirty,
				(size_t)h->nr_threads_dirty + 1,
				sizeof(*h->threads_dirty));
	if (ret)
		goto fail;
	/* a new id is threads.nr: its slot is zero until named */
	if (h->threads.nr < h->cap_thread_names)
		memset(&h->thread_names[h->threads.nr], 0,
		       sizeof(*h->thread_names));
	ret = ops_keyset_add(&h->threads, w->records.data, w->records.len,
			     &id);
	if (ret)
		goto fail;
	t = &h->thread_names[id];
	if (t->name && !strcmp(t->name, name))
		return 0;
	free(t->name);
	t->name = strdup(name);
	if (!t->name) {
		ret = -ENOMEM;
		goto fail;
	}
	if (!t->dirty) {
		t->dirty = true;
		h->threads_dirty[h->nr_threads_dirty++] = id;
	}
	return 0;
fail:
	return ops_writer_fail(w, ret,
			       "%s/samples.hist: cannot add thread: %s",
			       w->dir, strerror(-ret));
}

/* Thread ID's record: its key (tgid, tid) and its name. */
static int thread_record(struct ops_writer *w, uint32_t id)
{
	const struct ops_hist_writer *h = &w->hist;
	size_t n;
	const uint8_t *k = ops_keyset_key(&h->threads, id, &n);
	int ret = ops_buf_put(&w->payload, k, n);

	return ret ? ret
		   : ops_buf_put_str(&w->payload, h->thread_names[id].name);
}

int ops_thread_put(struct ops_writer *w, bool all)
{
	struct ops_hist_writer *h = &w->hist;
	uint32_t n = all ? h->threads.nr : h->nr_threads_dirty, i, end;
	int ret = 0;

	for (i = 0; i < n && !ret; i = end) {
		end = n - i > THREADS_PER_BLOCK ? i + THREADS_PER_BLOCK : n;
		w->payload.len = 0;
		ret = ops_buf_put_varint(&w->payload, end - i);
		for (uint32_t j = i; j < end && !ret; j++)
			ret = thread_record(w, all ? j : h->threads_dirty[j]);
		ret = ret ? ret
			  : ops_block_frame(&w->out, OPS_HIST_THREADS,
					    w->payload.data, w->payload.len);
	}
	return ret;
}

void ops_thread_written(struct ops_hist_writer *h)
{
	for (uint32_t i = 0; i < h->nr_threads_dirty; i++)
		h->thread_names[h->threads_dirty[i]].dirty = false;
	h->nr_threads_dirty = 0;
}

void ops_thread_writer_free(struct ops_hist_writer *h)
{
	for (uint32_t i = 0; i < h->threads.nr; i++)
		free(h->thread_names[i].name);
	free(h->thread_names);
	free(h->threads_dirty);
	ops_keyset_free(&h->threads);
}
