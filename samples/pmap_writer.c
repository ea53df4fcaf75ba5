// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The process mappings of samples.hist (FORMAT.md, PROCESS_MAPS): where
 * the images of a process with stack copies were mapped, so that a
 * report can place the return addresses it unwinds.  The recorder gives
 * a process's mappings again whenever they changed; each is interned
 * as its record and written once.
 */
#include <errno.h>
#include <string.h>

#include "writer_internal.h"

int ops_writer_process_map(struct ops_writer *w,
			   const struct ops_process_map *m)
{
	struct ops_hist_writer *h = &w->hist;
	struct ops_buf *k = &h->copy_key;
	uint32_t id;
	int ret;

	if (m->app >= h->images.nr || m->image >= h->images.nr || !m->len ||
	    m->start + m->len < m->start)
		return ops_writer_fail(w, -EINVAL,
				       "%s/samples.hist: invalid process map",
				       w->dir);
	k->len = 0;
	ret = ops_buf_put_varint(k, m->tgid);
	ret = ret ? ret : ops_buf_put_varint(k, m->app);
	ret = ret ? ret : ops_buf_put_varint(k, m->image);
	ret = ret ? ret : ops_buf_put_varint(k, m->start);
	ret = ret ? ret : ops_buf_put_varint(k, m->len);
	ret = ret ? ret : ops_buf_put_varint(k, m->pgoff);
	ret = ret ? ret : ops_keyset_add(&h->pmaps, k->data, k->len, &id);
	if (ret)
		return ops_writer_fail(
			w, ret, "%s/samples.hist: cannot add process map: %s",
			w->dir, strerror(-ret));
	return 0;
}
