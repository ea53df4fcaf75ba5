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

#include "perfmap.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parse a hex number at *P, advancing it; false on no digits/overflow. */
static bool parse_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int d, digits = 0;

	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	while (s < end && (d = hexval(*s)) >= 0) {
		if (v >> 60)
			return false;
		v = v << 4 | (uint64_t)d;
		s++;
		digits++;
	}
	if (!digits)
		return false;
	*p = s;
	*out = v;
	return true;
}

/* Skip spaces and tabs; false when there were none. */
static bool skip_sep(const char **p, const char *end)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == *p)
		return false;
	*p = s;
	return true;
}

/* One line without its '\n'.  NAME points into the line. */
static bool parse_line(const char *p, const char *end, uint64_t *start,
		       uint64_t *size, const char **name, size_t *nlen)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (!parse_hex(&p, end, start) || !skip_sep(&p, end) ||
	    !parse_hex(&p, end, size) || !skip_sep(&p, end))
		return false;
	while (end > p && is_blank(end[-1]))
		end--;
	if (end == p || memchr(p, '\0', (size_t)(end - p)))
		return false;
	if (*size > UINT32_MAX || *size > UINT64_MAX - *start)
		return false;
	*name = p;
	*nlen = (size_t)(end - p);
	return true;
}

static bool line_blank(const char *p, const char *end)
{
	for (; p < end; p++)
		if (!is_blank(*p))
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
			return parse_line(p, le, &s, &z, &name, &nlen);
		p = nl ? nl + 1 : end;
	}
	return false;
}

/* FNV-1a: names are short and this is fast enough to intern a million. */
static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int names_rehash(struct perfmap_names *nm)
{
	size_t ns = nm->nslots ? nm->nslots * 2 : 1024, i;
	uint32_t *slot = calloc(ns, sizeof(*slot));
	uint32_t *hash = malloc(ns * sizeof(*hash));

	if (!slot || !hash) {
		free(slot);
		free(hash);
		return -ENOMEM;
	}
	for (i = 0; i < nm->nslots; i++) {
		size_t j;

		if (!nm->slot[i])
			continue;
		for (j = nm->hash[i] & (ns - 1); slot[j];
		     j = (j + 1) & (ns - 1))
			;
		slot[j] = nm->slot[i];
		hash[j] = nm->hash[i];
	}
	free(nm->slot);
	free(nm->hash);
	nm->slot = slot;
	nm->hash = hash;
	nm->nslots = ns;
	return 0;
}

/* Offset of NAME in the name buffer, adding it the first time. */
static int names_intern(struct perfmap_names *nm, const char *name, size_t len,
			uint32_t *off)
{
	uint32_t h = (uint32_t)name_hash(name, len);
	size_t j;
	int rc;

	if ((nm->count + 1) * 2 > nm->nslots) {
		rc = names_rehash(nm);
		if (rc < 0)
			return rc;
	}
	for (j = h & (nm->nslots - 1); nm->slot[j];
	     j = (j + 1) & (nm->nslots - 1)) {
		const char *s = nm->buf + nm->slot[j] - 1;

		if (nm->hash[j] == h && !memcmp(s, name, len) &&
		    s[len] == '\0') {
			*off = nm->slot[j] - 1;
			return 0;
		}
	}
	/* below PERFMAP_WHOLE, the flag perfmap_pack() sets */
	if (nm->len + len + 1 > PERFMAP_WHOLE)
		return -EFBIG;
	if (nm->len + len + 1 > nm->cap) {
		size_t cap = nm->cap ? nm->cap : 4096;
		char *b;

		while (cap < nm->len + len + 1)
			cap *= 2;
		b = realloc(nm->buf, cap);
		if (!b)
			return -ENOMEM;
		nm->buf = b;
		nm->cap = cap;
	}
	memcpy(nm->buf + nm->len, name, len);
	nm->buf[nm->len + len] = '\0';
	*off = (uint32_t)nm->len;
	nm->slot[j] = (uint32_t)nm->len + 1;
	nm->hash[j] = h;
	nm->len += len + 1;
	nm->count++;
	return 0;
}

static int entry_add(struct perfmap *m, uint64_t start, uint64_t size,
		     const char *name, size_t nlen)
{
	uint32_t off;
	int rc;

	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		struct perfmap_entry *e = realloc(m->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		m->e = e;
		m->cap = cap;
	}
	rc = names_intern(&m->names, name, nlen, &off);
	if (rc < 0)
		return rc;
	m->e[m->n].start = start;
	m->e[m->n].size = (uint32_t)size; /* parse_line() bounds it */
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
		} else if (parse_line(p, le, &start, &size, &name, &nlen)) {
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

	free(m->names.slot);
	free(m->names.hash);
	m->names.slot = NULL;
	m->names.hash = NULL;
	m->names.nslots = 0;
	m->names.count = 0;
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
	free(m->names.slot);
	free(m->names.hash);
	memset(m, 0, sizeof(*m));
}
