// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Reads a javamap file (handlers/jitlog/FORMAT.md) record by record.  Every length comes
 * from outside, so each is checked against what is left before it is
 * used; the first record that does not fit ends the map and everything
 * before it is kept.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/crc32c.h>
#include <oputil/search.h>

#include "jm_format.h"
#include "jm_parse.h"

struct cursor {
	const unsigned char *p;
	size_t left;
};

static uint64_t get_le(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = (v << 8) | p[n];
	return v;
}

static int cur_take(struct cursor *c, size_t n, const unsigned char **out)
{
	if (n > c->left)
		return -1;
	*out = c->p;
	c->p += n;
	c->left -= n;
	return 0;
}

/* grow ARR (of ELEM bytes) so that one more fits */
static int arr_reserve(void **arr, size_t *cap, size_t nr, size_t elem)
{
	size_t ncap;
	void *n;

	if (nr < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	n = realloc(*arr, ncap * elem);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

#define ARR_PUSH(m, field, cap, nr)                           \
	arr_reserve((void **)&(m)->field, &(m)->cap, (m)->nr, \
		    sizeof(*(m)->field))

static __attribute__((format(printf, 2, 3))) int
parse_damage(struct jm_map *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->damage, sizeof(m->damage), fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

static char *str_dup(const unsigned char *p, size_t n)
{
	char *s = malloc(n + 1);

	if (s) {
		memcpy(s, p, n);
		s[n] = '\0';
		/* a NUL inside would cut the name short for every reader */
		for (size_t i = 0; i < n; i++)
			if (!s[i])
				s[i] = '?';
	}
	return s;
}

static int line_cmp(const void *a, const void *b)
{
	const struct jm_line *x = a, *y = b;

	return (x->bci > y->bci) - (x->bci < y->bci);
}

static int parse_method(struct jm_map *m, struct cursor *c)
{
	const unsigned char *f, *name, *file, *lines;
	struct jm_method *me;
	size_t nlen, flen, nr;

	if (cur_take(c, JM_METHOD_FIXED, &f))
		return -EBADMSG;
	nlen = (size_t)get_le(f + 8, 4);
	flen = (size_t)get_le(f + 12, 4);
	nr = (size_t)get_le(f + 16, 4);
	if (cur_take(c, nlen, &name) || cur_take(c, flen, &file) ||
	    nr > c->left / JM_LINE_SIZE ||
	    cur_take(c, nr * JM_LINE_SIZE, &lines))
		return -EBADMSG;
	if (ARR_PUSH(m, methods, cap_methods, nr_methods))
		return -ENOMEM;
	me = &m->methods[m->nr_methods];
	memset(me, 0, sizeof(*me));
	me->id = get_le(f, 8);
	me->name = str_dup(name, nlen);
	me->file = flen ? str_dup(file, flen) : NULL;
	me->lines = nr ? malloc(nr * sizeof(*me->lines)) : NULL;
	if (!me->name || (flen && !me->file) || (nr && !me->lines)) {
		free(me->name);
		free(me->file);
		free(me->lines);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nr; i++) {
		me->lines[i].bci = (uint32_t)get_le(lines + i * 8, 4);
		me->lines[i].line = (uint32_t)get_le(lines + i * 8 + 4, 4);
	}
	if (nr > 1)
		qsort(me->lines, nr, sizeof(*me->lines), line_cmp);
	me->nr_lines = (uint32_t)nr;
	m->nr_methods++;
	return 0;
}

static int pc_cmp(const void *a, const void *b)
{
	const struct jm_pc *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

static int parse_code_load(struct jm_map *m, struct cursor *c, unsigned flags,
			   uint64_t t)
{
	const unsigned char *f, *pf, *fr, *bytes = NULL;
	struct jm_code *co;
	size_t nr_pcs, pc0 = m->nr_pcs, fr0 = m->nr_frames, nr_bytes = 0;

	if (cur_take(c, JM_CODE_LOAD_FIXED, &f))
		return -EBADMSG;
	nr_pcs = (size_t)get_le(f + 20, 4);
	if (nr_pcs > c->left / JM_PC_FIXED)
		return -EBADMSG;
	for (size_t i = 0; i < nr_pcs; i++) {
		size_t nf;

		if (cur_take(c, JM_PC_FIXED, &pf))
			goto bad;
		nf = (size_t)get_le(pf + 4, 2);
		if (nf > c->left / JM_FRAME_SIZE)
			goto bad;
		if (ARR_PUSH(m, pcs, cap_pcs, nr_pcs))
			goto nomem;
		m->pcs[m->nr_pcs].off = (uint32_t)get_le(pf, 4);
		m->pcs[m->nr_pcs].nr_frames = (uint32_t)nf;
		m->pcs[m->nr_pcs].frame = m->nr_frames;
		for (size_t j = 0; j < nf; j++) {
			if (cur_take(c, JM_FRAME_SIZE, &fr))
				goto bad;
			if (ARR_PUSH(m, frames, cap_frames, nr_frames))
				goto nomem;
			m->frames[m->nr_frames].method = get_le(fr, 8);
			m->frames[m->nr_frames].bci =
				(int32_t)(uint32_t)get_le(fr + 8, 4);
			m->nr_frames++;
		}
		m->nr_pcs++;
	}
	/* 2.1: the code's bytes may follow the pcs; anything else after
	 * them is a later minor's, and skipped */
	if (m->major == JM_VERSION_FRAMED && m->minor >= 1 &&
	    c->left >= JM_CODE_BYTES_FIXED) {
		cur_take(c, JM_CODE_BYTES_FIXED, &pf);
		nr_bytes = (size_t)get_le(pf, 4);
		if (nr_bytes > get_le(f + 16, 4) ||
		    cur_take(c, nr_bytes, &bytes))
			goto bad;
	}
	if (ARR_PUSH(m, codes, cap_codes, nr_codes))
		goto nomem;
	co = &m->codes[m->nr_codes++];
	memset(co, 0, sizeof(*co));
	co->bytes = nr_bytes ? bytes : NULL;
	co->nr_bytes = (uint32_t)nr_bytes;
	co->kind = JM_CODE_COMPILED;
	co->flags = flags;
	co->method = get_le(f, 8);
	co->addr = get_le(f + 8, 8);
	co->size = get_le(f + 16, 4);
	co->t_load = t;
	co->t_unload = JM_NEVER;
	co->pc = pc0;
	co->nr_pcs = nr_pcs;
	if (nr_pcs > 1)
		qsort(m->pcs + pc0, nr_pcs, sizeof(*m->pcs), pc_cmp);
	return 0;
bad:
	m->nr_pcs = pc0;
	m->nr_frames = fr0;
	return -EBADMSG;
nomem:
	m->nr_pcs = pc0;
	m->nr_frames = fr0;
	return -ENOMEM;
}

struct jm_unload {
	uint64_t method, addr, t;
};

static int parse_dynamic(struct jm_map *m, struct cursor *c, unsigned flags,
			 uint64_t t)
{
	const unsigned char *f, *name;
	struct jm_code *co;
	size_t nlen;
	char *s;

	if (cur_take(c, JM_DYNAMIC_FIXED, &f))
		return -EBADMSG;
	nlen = (size_t)get_le(f + 12, 4);
	if (cur_take(c, nlen, &name))
		return -EBADMSG;
	if (ARR_PUSH(m, codes, cap_codes, nr_codes))
		return -ENOMEM;
	s = str_dup(name, nlen);
	if (!s)
		return -ENOMEM;
	co = &m->codes[m->nr_codes++];
	memset(co, 0, sizeof(*co));
	co->kind = JM_CODE_DYNAMIC;
	co->flags = flags;
	co->name = s;
	co->addr = get_le(f, 8);
	co->size = get_le(f + 8, 4);
	co->t_load = t;
	co->t_unload = JM_NEVER;
	return 0;
}

/* ALLOC and LOCK: an event sample and its stack. */
static int parse_event(struct jm_map *m, unsigned kind, uint64_t t,
		       struct cursor *c)
{
	const unsigned char *f, *what, *fr;
	struct jm_event *ev;
	size_t wlen, nf, fr0 = m->nr_frames;
	char *s;

	if (cur_take(c, JM_EVENT_FIXED, &f))
		return -EBADMSG;
	wlen = (size_t)get_le(f + 24, 4);
	nf = (size_t)get_le(f + 28, 4);
	if (cur_take(c, wlen, &what) || nf > c->left / JM_FRAME_SIZE)
		return -EBADMSG;
	for (size_t j = 0; j < nf; j++) {
		if (cur_take(c, JM_FRAME_SIZE, &fr)) {
			m->nr_frames = fr0;
			return -EBADMSG;
		}
		if (ARR_PUSH(m, frames, cap_frames, nr_frames))
			goto nomem;
		m->frames[m->nr_frames].method = get_le(fr, 8);
		m->frames[m->nr_frames].bci =
			(int32_t)(uint32_t)get_le(fr + 8, 4);
		m->nr_frames++;
	}
	if (ARR_PUSH(m, events, cap_events, nr_events))
		goto nomem;
	s = str_dup(what, wlen);
	if (!s)
		goto nomem;
	ev = &m->events[m->nr_events++];
	ev->kind = kind;
	ev->t = t;
	ev->tid = get_le(f, 8);
	ev->value = get_le(f + 8, 8);
	ev->aux = get_le(f + 16, 8);
	ev->what = s;
	ev->frame = fr0;
	ev->nr_frames = nf;
	return 0;
nomem:
	m->nr_frames = fr0;
	return -ENOMEM;
}

static int code_cmp(const void *a, const void *b)
{
	const struct jm_code *x = a, *y = b;

	if (x->addr != y->addr)
		return (x->addr > y->addr) - (x->addr < y->addr);
	return (x->t_load > y->t_load) - (x->t_load < y->t_load);
}

static int code_same(const struct jm_code *a, const struct jm_code *b)
{
	if (a->kind != b->kind || a->addr != b->addr || a->size != b->size)
		return 0;
	if (a->kind == JM_CODE_DYNAMIC)
		return !strcmp(a->name, b->name);
	return a->method == b->method;
}

static void code_free(struct jm_code *co)
{
	free(co->name);
	co->name = NULL;
}

/* GenerateEvents may repeat code the agent already saw being made: keep
 * the first, which carries the true load time. */
static void codes_drop_replays(struct jm_map *m)
{
	size_t out = 0;

	for (size_t i = 0; i < m->nr_codes; i++) {
		struct jm_code *co = &m->codes[i];

		if (out && (co->flags & JM_REC_REPLAYED) &&
		    code_same(&m->codes[out - 1], co)) {
			code_free(co);
			m->nr_dups++;
			continue;
		}
		m->codes[out++] = *co;
	}
	m->nr_codes = out;
}

/* Close the latest code loaded at the address before the unload. */
static void codes_apply_unload(struct jm_map *m, const struct jm_unload *u)
{
	/* the first code at or above the address */
	size_t lo = oputil_partition(0, m->nr_codes, k,
				     m->codes[k].addr < u->addr);
	struct jm_code *found = NULL;

	for (size_t i = lo; i < m->nr_codes && m->codes[i].addr == u->addr;
	     i++) {
		struct jm_code *co = &m->codes[i];

		if (co->kind == JM_CODE_COMPILED && co->method == u->method &&
		    co->t_unload == JM_NEVER && co->t_load <= u->t)
			found = co;
	}
	if (found)
		found->t_unload = u->t;
	else
		m->nr_unmatched++;
}

static int parse_header(struct jm_map *m, struct cursor *c)
{
	const unsigned char *h;
	size_t hsize;

	if (!jm_is_javamap(c->p, c->left)) {
		snprintf(m->error, sizeof(m->error), "not a javamap file");
		return -EINVAL;
	}
	if (cur_take(c, JM_HEADER_SIZE, &h)) {
		snprintf(m->error, sizeof(m->error), "header cut short");
		return -EINVAL;
	}
	m->major = (uint16_t)get_le(h + 8, 2);
	m->minor = (uint16_t)get_le(h + 10, 2);
	hsize = (size_t)get_le(h + 12, 4);
	m->pid = (uint32_t)get_le(h + 16, 4);
	m->flags = (uint32_t)get_le(h + 20, 4);
	m->start_ns = get_le(h + 24, 8);
	if (m->major < 1 || m->major > JM_VERSION_FRAMED) {
		snprintf(
			m->error, sizeof(m->error),
			"javamap version %u.%u, this reader knows 1.x and %u.x",
			m->major, m->minor, JM_VERSION_FRAMED);
		return -EPROTONOSUPPORT;
	}
	if (hsize < JM_HEADER_SIZE ||
	    cur_take(c, hsize - JM_HEADER_SIZE, &h)) {
		snprintf(m->error, sizeof(m->error),
			 "header size %zu is impossible", hsize);
		return -EINVAL;
	}
	return 0;
}

struct unloads {
	struct jm_unload *v;
	size_t n, cap;
};

/* One record's payload RC, of KIND: 0, -EBADMSG when malformed, or
 * -ENOMEM. */
static int parse_record(struct jm_map *m, unsigned kind, unsigned flags,
			uint64_t t, struct cursor *rc, struct unloads *u)
{
	const unsigned char *p;

	switch (kind) {
	case JM_REC_METHOD:
		return parse_method(m, rc);
	case JM_REC_CODE_LOAD:
		return parse_code_load(m, rc, flags, t);
	case JM_REC_DYNAMIC_CODE:
		return parse_dynamic(m, rc, flags, t);
	case JM_REC_ALLOC:
	case JM_REC_LOCK:
		return parse_event(m, kind, t, rc);
	case JM_REC_CODE_UNLOAD:
		if (cur_take(rc, JM_CODE_UNLOAD_SIZE, &p))
			return -EBADMSG;
		if (arr_reserve((void **)&u->v, &u->cap, u->n, sizeof(*u->v)))
			return -ENOMEM;
		u->v[u->n].method = get_le(p, 8);
		u->v[u->n].addr = get_le(p + 8, 8);
		u->v[u->n].t = t;
		u->n++;
		return 0;
	default:
		/* how the format grows: skip what we do not know */
		m->nr_unknown++;
		return 0;
	}
}

/* Whether the end of the buffer cuts the frame at C, whose record is at
 * H: its record header or its record runs past the end. */
static bool frame_cut_by_end(const struct cursor *c, const unsigned char *h)
{
	size_t room = c->left - (size_t)(h - c->p);

	return room < JM_REC_HEADER_SIZE || (size_t)get_le(h + 4, 4) > room;
}

/*
 * The records from C on.  Version 2 frames each record (FORMAT.md): a
 * u32 sequence number, written last, and a CRC-32C of the record, the
 * frame padded to 8 bytes.  A frame whose number is still 0 was reserved
 * and not yet written: the log ends there for now, as it does at a frame
 * the end of the buffer cuts.  A frame whose check fails was torn by a
 * writer that died: damage, as a record cut short is in version 1.
 */
static int parse_records(struct jm_map *m, struct cursor *c, struct unloads *u,
			 size_t len)
{
	bool framed = m->major == JM_VERSION_FRAMED;
	int ret = 0;

	while (c->left) {
		size_t at = len - c->left, rlen, pad = 0;
		const unsigned char *h, *body = NULL;
		struct cursor rc;
		unsigned kind, flags;
		uint64_t t;

		if (framed) {
			if (c->left < JM_FRAME_HEADER_SIZE ||
			    get_le(c->p, 4) == 0)
				return 0;
		}
		h = c->p + (framed ? JM_FRAME_HEADER_SIZE : 0);
		/* a copy of a log taken while it grows may end inside a
		 * frame that was whole in the log: for this reader it is
		 * not written yet, like a frame whose number is 0 */
		if (framed && frame_cut_by_end(c, h))
			return 0;
		if (c->left - (size_t)(h - c->p) < JM_REC_HEADER_SIZE)
			return parse_damage(m,
					    "record at offset %zu cut "
					    "short after %zu bytes",
					    at, c->left);
		kind = (unsigned)get_le(h, 2);
		flags = (unsigned)get_le(h + 2, 2);
		rlen = (size_t)get_le(h + 4, 4);
		t = get_le(h + 8, 8);
		if (rlen < JM_REC_HEADER_SIZE)
			return parse_damage(m,
					    "record at offset %zu has "
					    "impossible length %zu",
					    at, rlen);
		if (rlen > c->left - (size_t)(h - c->p))
			return parse_damage(
				m,
				"record at offset %zu runs %zu "
				"bytes past the end",
				at, rlen - (c->left - (size_t)(h - c->p)));
		if (framed) {
			if (oputil_crc32c(0, h, rlen) !=
			    (uint32_t)get_le(c->p + 4, 4))
				return parse_damage(m,
						    "frame at offset %zu is "
						    "torn (its check fails)",
						    at);
			pad = (JM_FRAME_HEADER_SIZE + rlen) % 8;
			pad = pad ? 8 - pad : 0;
			cur_take(c, JM_FRAME_HEADER_SIZE, &body);
		}
		cur_take(c, rlen, &body);
		/* the last frame's padding may not be there yet */
		c->p += pad < c->left ? pad : c->left;
		c->left -= pad < c->left ? pad : c->left;
		rc.p = body + JM_REC_HEADER_SIZE;
		rc.left = rlen - JM_REC_HEADER_SIZE;
		ret = parse_record(m, kind, flags, t, &rc, u);
		if (ret == -ENOMEM) {
			snprintf(m->error, sizeof(m->error), "out of memory");
			return ret;
		}
		if (ret)
			return parse_damage(m,
					    "record at offset %zu "
					    "(kind %u) is malformed",
					    at, kind);
		m->nr_records++;
		m->valid_len = len - c->left;
	}
	return 0;
}

int jm_parse(const void *buf, size_t len, struct jm_map *m)
{
	struct cursor c = { buf, len };
	struct unloads unl = { 0 };
	int ret;

	memset(m, 0, sizeof(*m));
	ret = parse_header(m, &c);
	if (ret)
		goto out;
	m->valid_len = len - c.left;
	ret = parse_records(m, &c, &unl, len);
	if (ret == -EBADMSG)
		ret = 0;
	if (ret)
		goto out;
	if (m->nr_codes > 1)
		qsort(m->codes, m->nr_codes, sizeof(*m->codes), code_cmp);
	codes_drop_replays(m);
	for (size_t i = 0; i < unl.n; i++)
		codes_apply_unload(m, &unl.v[i]);
out:
	free(unl.v);
	return ret;
}

void jm_map_free(struct jm_map *m)
{
	for (size_t i = 0; i < m->nr_methods; i++) {
		free(m->methods[i].name);
		free(m->methods[i].file);
		free(m->methods[i].lines);
	}
	for (size_t i = 0; i < m->nr_codes; i++)
		code_free(&m->codes[i]);
	for (size_t i = 0; i < m->nr_events; i++)
		free(m->events[i].what);
	free(m->events);
	free(m->methods);
	free(m->codes);
	free(m->pcs);
	free(m->frames);
	memset(m, 0, sizeof(*m));
}

int jm_is_javamap(const void *buf, size_t len)
{
	return len >= JM_MAGIC_LEN && !memcmp(buf, JM_MAGIC, JM_MAGIC_LEN);
}
