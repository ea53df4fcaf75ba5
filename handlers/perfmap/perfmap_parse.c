// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The perf map text format, in every dialect real runtimes write:
 *   START SIZE NAME
 * START and SIZE in hex, with or without 0x, any case (the JDK's jcmd
 * writes 0x, .NET writes 16 upper-case digits); NAME is the rest of the
 * line and may hold spaces; CRLF or LF; the last line may lack its
 * newline.  Anything else is a bad line: counted, never fatal.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/hash.h>
#include <oputil/idxset.h>
#include <oputil/perfmap_line.h>

#include "perfmap.h"

static bool line_blank(const char *p, const char *end)
{
	for (; p < end; p++)
		if (!oputil_perfmap_blank(*p))
			return false;
	return true;
}

bool perfmap_looks_like(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		uint64_t s, z;
		const char *name;
		size_t nlen;

		if (!line_blank(p, le))
			return oputil_perfmap_line(p, le, &s, &z, &name,
						   &nlen);
		p = nl ? nl + 1 : end;
	}
	return false;
}

/* Whether the NUL-terminated S is the LEN bytes of NAME. */
static bool name_is(const char *s, const char *name, size_t len)
{
	return !memcmp(s, name, len) && s[len] == '\0';
}

/*
 * Offset of NAME in the name buffer for the entry about to be added,
 * m->e[m->n], adding the name the first time.  The set holds, by name,
 * the first entry to carry each one: an entry's name is its key, so the
 * set needs no array of its own.
 */
static int names_intern(struct perfmap *m, const char *name, size_t len,
			uint32_t *off)
{
	struct perfmap_names *nm = &m->names;
	uint32_t h = (uint32_t)oputil_hash_bytes(OPUTIL_HASH_SEED, name, len);
	struct oputil_idxset_pos pos;
	uint32_t i;
	int rc;

	/* 1024 slots to start, as before: a smaller set's arrays, once
	 * outgrown and freed, would sit in malloc's thread cache */
	if (!nm->first.cap && oputil_idxset_reserve(&nm->first, 512))
		return -ENOMEM;
	/* the kept hash first: a name is a read at a random place, and
	 * loading a million names measurably slower without it */
	i = oputil_idxset_find(&nm->first, h, &pos, k,
			       nm->first.hash[k] == h &&
				       name_is(nm->buf + m->e[k].name, name,
					       len));
	if (i != OPUTIL_IDXSET_NONE) {
		*off = m->e[i].name;
		return 0;
	}
	/* below PERFMAP_WHOLE, the flag perfmap_pack() sets */
	if (nm->len + len + 1 > PERFMAP_WHOLE)
		return -EFBIG;
	if (oputil_grow(&nm->buf, &nm->cap, nm->len + len + 1, 1))
		return -ENOMEM;
	/* a map within PERFMAP_MAX_BYTES has far fewer entries than
	 * OPUTIL_IDXSET_NONE */
	rc = oputil_idxset_put(&nm->first, &pos, (uint32_t)m->n);
	if (rc < 0)
		return rc;
	memcpy(nm->buf + nm->len, name, len);
	nm->buf[nm->len + len] = '\0';
	*off = (uint32_t)nm->len;
	nm->len += len + 1;
	return 0;
}

static int entry_add(struct perfmap *m, uint64_t start, uint64_t size,
		     const char *name, size_t nlen)
{
	uint32_t off;
	int rc;

	if (oputil_grow(&m->e, &m->cap, m->n + 1, sizeof(*m->e)))
		return -ENOMEM;
	rc = names_intern(m, name, nlen, &off);
	if (rc < 0)
		return rc;
	m->e[m->n].start = start;
	m->e[m->n].size = (uint32_t)size; /* oputil_perfmap_line() bounds it */
	m->e[m->n].name = off;
	m->n++;
	return 0;
}

int perfmap_parse(struct perfmap *m, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	int rc;

	if (len > PERFMAP_MAX_BYTES)
		return -EFBIG;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		uint64_t start, size;
		const char *name;
		size_t nlen;

		m->lines++;
		if (line_blank(p, le)) {
			m->blank_lines++;
		} else if (oputil_perfmap_line(p, le, &start, &size, &name,
					       &nlen)) {
			rc = entry_add(m, start, size, name, nlen);
			if (rc < 0)
				return rc;
		} else if (!m->bad_lines++) {
			m->first_bad = m->lines;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

void perfmap_compact(struct perfmap *m)
{
	struct perfmap_entry *e;
	char *b;

	oputil_idxset_free(&m->names.first);
	if (m->n && m->n < m->cap) {
		e = realloc(m->e, m->n * sizeof(*e));
		if (e) {
			m->e = e;
			m->cap = m->n;
		}
	}
	if (m->names.len && m->names.len < m->names.cap) {
		b = realloc(m->names.buf, m->names.len);
		if (b) {
			m->names.buf = b;
			m->names.cap = m->names.len;
		}
	}
}

void perfmap_free(struct perfmap *m)
{
	free(m->e);
	free(m->names.buf);
	oputil_idxset_free(&m->names.first);
	memset(m, 0, sizeof(*m));
}
