// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Reading the process mappings of samples.hist (FORMAT.md,
 * PROCESS_MAPS).  A damaged block is dropped whole.
 */
#include <errno.h>
#include <oputil/grow.h>

#include "bytes_internal.h"
#include "reader_internal.h"

/* The smallest record: six one-byte varints. */
#define PMAP_MIN 6

const char *ops_hist_pmaps(struct ops_hist_data *h, const uint8_t *p,
			   size_t len, bool *oom)
{
	size_t start = h->nr_pmaps;
	uint64_t n, i;
	int rc;
	struct ops_cur c;

	ops_cur_init(&c, p, len);
	rc = ops_cur_block_head(&c, start, PMAP_MIN, &n);
	if (rc)
		return rc == -ERANGE ? "bad count of process maps"
				     : "bad process map block";
	if (oputil_grow(&h->pmaps, &h->cap_pmaps, start + n,
			sizeof(*h->pmaps))) {
		*oom = true;
		return "out of memory";
	}
	for (i = 0; i < n; i++) {
		struct ops_process_map *m = &h->pmaps[start + i];
		uint64_t tgid, app, image;

		tgid = ops_cur_varint(&c);
		app = ops_cur_varint(&c);
		image = ops_cur_varint(&c);
		m->start = ops_cur_varint(&c);
		m->len = ops_cur_varint(&c);
		m->pgoff = ops_cur_varint(&c);
		if (!c.ok || tgid > UINT32_MAX || !m->len ||
		    m->start + m->len < m->start)
			return "bad process map record";
		if (app >= h->nr_images || image >= h->nr_images)
			return "process map of an unknown image";
		m->tgid = (uint32_t)tgid;
		m->app = (uint32_t)app;
		m->image = (uint32_t)image;
	}
	if (ops_cur_left(&c))
		return "trailing bytes in process map block";
	h->nr_pmaps = start + n;
	return NULL;
}
