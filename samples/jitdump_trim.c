// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A jitdump holds every piece of code a runtime made, with its bytes, and
 * node writes megabytes of it before the user's code runs, while a
 * session's samples fall in a few pieces.  The archived copy keeps the
 * records that name those: which code names an address at a time depends
 * only on the code that covered the address (loaded there, or moved
 * there), so a copy with all of that names every sample as the whole dump
 * does.  Each kept record is copied byte for byte, in file order.
 */
#include <byteswap.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/u64map.h>

#include "map_trim_internal.h"

#define JD_MAGIC 0x4A695444u
#define JD_HEADER_SIZE 40
#define JD_RECORD_HEADER 16
#define JD_MAX_RECORD (256u << 20)

enum { JD_LOAD, JD_MOVE, JD_DEBUG_INFO, JD_CLOSE, JD_UNWINDING_INFO };

struct jd_rec {
	uint64_t at, index;
	uint32_t id, total;
	bool keep;
};

struct jd_walk {
	const uint8_t *buf;
	size_t len;
	bool swapped;
	struct jd_rec *rec;
	size_t nr, cap;
	size_t end; /* where whole records stop: the rest is copied */
};

static uint32_t rd32(const struct jd_walk *w, size_t at)
{
	uint32_t v;

	memcpy(&v, w->buf + at, sizeof(v));
	return w->swapped ? bswap_32(v) : v;
}

static uint64_t rd64(const struct jd_walk *w, size_t at)
{
	uint64_t v;

	memcpy(&v, w->buf + at, sizeof(v));
	return w->swapped ? bswap_64(v) : v;
}

/* Code indexes as map keys: 0 is not a key there. */
static int index_put(struct oputil_u64map *m, bool *max, uint64_t index)
{
	if (index == UINT64_MAX) {
		*max = true;
		return 0;
	}
	return oputil_u64map_put(m, index + 1, 0, NULL) == -ENOMEM ? -ENOMEM
								   : 0;
}

static bool index_has(const struct oputil_u64map *m, bool max, uint64_t index)
{
	return index == UINT64_MAX ? max
				   : oputil_u64map_get(m, index + 1, NULL);
}

/* The records after the header, up to the first that is cut off or whose
 * size leaves no way to the next: those bytes are kept as they are. */
static int jd_records(struct jd_walk *w, size_t pos)
{
	while (w->len - pos >= JD_RECORD_HEADER) {
		uint32_t id = rd32(w, pos), total = rd32(w, pos + 4);
		struct jd_rec *r;

		if (total < JD_RECORD_HEADER || total > JD_MAX_RECORD ||
		    total > w->len - pos)
			break;
		if (w->nr == w->cap && oputil_grow((void **)&w->rec, &w->cap,
						   w->nr + 1, sizeof(*w->rec)))
			return -ENOMEM;
		r = &w->rec[w->nr++];
		*r = (struct jd_rec){ .at = pos, .id = id, .total = total };
		pos += total;
	}
	w->end = pos;
	return 0;
}

/* Which records to keep: every load and move of code that covered one of
 * ADDRS; the line table and unwinding table of a kept load (written
 * before it); and every other record (close, types newer than us). */
static int jd_choose(struct jd_walk *w, const uint64_t *addrs, size_t n)
{
	struct oputil_u64map kept = { 0 };
	bool kept_max = false;
	size_t i;
	int ret = 0;

	/* load: code_addr at +32, code_size +40, code_index +48; move:
	 * new_code_addr +40, code_size +48, code_index +56 */
	for (i = 0; i < w->nr && !ret; i++) {
		struct jd_rec *r = &w->rec[i];
		uint64_t addr, size;

		if (r->id == JD_LOAD && r->total >= JD_RECORD_HEADER + 40) {
			addr = rd64(w, r->at + 32);
			size = rd64(w, r->at + 40);
			r->index = rd64(w, r->at + 48);
		} else if (r->id == JD_MOVE &&
			   r->total >= JD_RECORD_HEADER + 48) {
			addr = rd64(w, r->at + 40);
			size = rd64(w, r->at + 48);
			r->index = rd64(w, r->at + 56);
		} else {
			continue;
		}
		if (ops_trim_holds_one(addrs, n, addr, size))
			ret = index_put(&kept, &kept_max, r->index);
	}
	/* a load too short to read is kept, as the reader says why */
	for (i = 0; i < w->nr; i++) {
		struct jd_rec *r = &w->rec[i];

		if (r->id == JD_LOAD && r->total >= JD_RECORD_HEADER + 40)
			r->keep = index_has(&kept, kept_max, r->index);
		else if (r->id == JD_MOVE && r->total >= JD_RECORD_HEADER + 48)
			r->keep = index_has(&kept, kept_max, r->index);
		else
			r->keep = r->id != JD_DEBUG_INFO &&
				  r->id != JD_UNWINDING_INFO;
	}
	/* a line table goes to the next load of its address, unless
	 * another table comes first; an unwinding table to the next load */
	for (i = 0; i < w->nr; i++) {
		struct jd_rec *r = &w->rec[i];
		uint64_t addr;

		if (r->id == JD_UNWINDING_INFO) {
			for (size_t j = i + 1; j < w->nr; j++)
				if (w->rec[j].id == JD_LOAD) {
					r->keep = w->rec[j].keep;
					break;
				}
			continue;
		}
		if (r->id != JD_DEBUG_INFO)
			continue;
		if (r->total < JD_RECORD_HEADER + 8) {
			r->keep = true; /* the reader says why */
			continue;
		}
		addr = rd64(w, r->at + 16);
		for (size_t j = i + 1; j < w->nr; j++) {
			const struct jd_rec *l = &w->rec[j];

			if (l->id == JD_DEBUG_INFO)
				break;
			if (l->id == JD_LOAD &&
			    l->total >= JD_RECORD_HEADER + 40 &&
			    rd64(w, l->at + 32) == addr) {
				r->keep = l->keep;
				break;
			}
		}
	}
	oputil_u64map_free(&kept);
	return ret;
}

int ops_jitdump_trim(const uint8_t *data, size_t len, const uint64_t *addrs,
		     size_t n, struct ops_buf *out)
{
	struct jd_walk w = { .buf = data, .len = len };
	uint32_t magic, hdr;
	int ret;

	if (len < JD_HEADER_SIZE)
		return -EINVAL;
	memcpy(&magic, data, sizeof(magic));
	if (magic != JD_MAGIC && magic != bswap_32(JD_MAGIC))
		return -EINVAL;
	w.swapped = magic != JD_MAGIC;
	/* Mono's version 2 puts a pointer's size in the header size */
	hdr = rd32(&w, 8);
	if (hdr < JD_HEADER_SIZE)
		hdr = JD_HEADER_SIZE;
	if (hdr > len)
		hdr = (uint32_t)len;
	ret = jd_records(&w, hdr);
	ret = ret ? ret : jd_choose(&w, addrs, n);
	ret = ret ? ret : ops_buf_put(out, data, hdr);
	for (size_t i = 0; !ret && i < w.nr; i++)
		if (w.rec[i].keep)
			ret = ops_buf_put(out, data + w.rec[i].at,
					  w.rec[i].total);
	if (!ret && w.end < len)
		ret = ops_buf_put(out, data + w.end, len - w.end);
	free(w.rec);
	return ret;
}
