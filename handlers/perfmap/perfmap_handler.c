// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The perfmap handler: names anonymous samples from the perf map text
 * (/tmp/perf-<pid>.map, or /tmp/anon.<pid> holding the same text) that
 * node, .NET, Mono, the JDK's jcmd and Python 3.12+ write.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <opjit/anon_handler.h>
#include <oputil/grow.h>
#include <opjit/anon_handler_claim.h>
#include <opjit/handler_kit.h>

#include "perfmap.h"

struct pm_state {
	struct perfmap map; /* while loading */
	struct perfmap_table tab;
	/* One symbol per entry, made the first time a sample hits it, in
	 * chunks that never move; sym_of[key] (perfmap_table_entry()'s key)
	 * is the symbol's number + 1, 0 for none. */
	uint32_t *sym_of;
	struct opjit_symbol **chunks;
	size_t nsyms, nchunks, cap_chunks;
	char err[512];
};

/* Bytes read at a time: the map is parsed as it is read, so a big map
 * never sits in memory twice. */
#define READ_CHUNK (1u << 20)

struct map_reader {
	char *buf;
	size_t len, cap; /* bytes held: the tail of an unfinished line */
	size_t scanned;	 /* of them, known to hold no newline */
	uint64_t total;
	int checked;   /* -1 not yet, 0 not perf map text, 1 it is */
	bool skipping; /* dropping the rest of an over-long line */
};

/* No runtime writes a line this long; a longer one is a bad line, and
 * is dropped as it is read instead of being held whole. */
#define MAX_LINE (1u << 20)

/* Drop the held bytes up to the end of the over-long line being
 * skipped. */
static void reader_skip(struct map_reader *r)
{
	const char *nl = memchr(r->buf, '\n', r->len);
	size_t upto = nl ? (size_t)(nl - r->buf) + 1 : r->len;

	memmove(r->buf, r->buf + upto, r->len - upto);
	r->len -= upto;
	r->scanned = 0;
	r->skipping = !nl;
}

/* Parse the complete lines held (all of them at EOF), keep the rest. */
static int reader_parse(struct map_reader *r, struct perfmap *m, bool eof,
			bool need_check)
{
	const char *nl;
	size_t upto;
	int rc;

	if (r->skipping)
		reader_skip(r);
	if (r->skipping)
		return 0;
	if (eof) {
		upto = r->len;
	} else {
		/* only the new bytes: a map without newlines must not be
		 * scanned again at every read */
		nl = memrchr(r->buf + r->scanned, '\n', r->len - r->scanned);
		if (!nl && r->len > MAX_LINE) {
			m->lines++;
			if (!m->bad_lines++)
				m->first_bad = m->lines;
			if (need_check && r->checked < 0)
				r->checked = 0;
			r->skipping = true;
			reader_skip(r);
			return 0;
		}
		if (!nl) {
			r->scanned = r->len;
			return 0;
		}
		upto = (size_t)(nl - r->buf) + 1;
	}
	if (need_check && r->checked < 0) {
		bool blank = true;
		size_t i;

		for (i = 0; i < upto && blank; i++)
			blank = r->buf[i] == ' ' || r->buf[i] == '\t' ||
				r->buf[i] == '\r' || r->buf[i] == '\n';
		if (!blank || eof)
			r->checked = perfmap_looks_like(r->buf, upto);
		if (!r->checked)
			return 0;
	}
	rc = perfmap_parse(m, r->buf, upto);
	if (rc < 0)
		return rc;
	memmove(r->buf, r->buf + upto, r->len - upto);
	r->len -= upto;
	r->scanned = r->len; /* after the last newline */
	return 0;
}

/*
 * Read FD to its end (a live runtime may still be appending) and parse
 * it into M.  With NEED_CHECK, stop early and return 0 when the first
 * non-blank line is not perf map text.  1 when parsed, or a negative
 * errno.
 */
static int read_map(int fd, struct perfmap *m, bool need_check)
{
	struct map_reader r = { .checked = -1 };
	struct stat st;
	int rc = 0;

	/* refuse what fstat already knows is too big before reading it */
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ESPIPE;
	if ((uint64_t)st.st_size > PERFMAP_MAX_BYTES)
		return -EFBIG;
	for (;;) {
		ssize_t n;

		if (r.cap - r.len < READ_CHUNK) {
			/* doubling: one long line costs linear time */
			size_t cap = r.len + READ_CHUNK > 2 * r.cap
					     ? r.len + READ_CHUNK
					     : 2 * r.cap;
			char *b = realloc(r.buf, cap);

			if (!b) {
				rc = -ENOMEM;
				goto out;
			}
			r.buf = b;
			r.cap = cap;
		}
		n = read(fd, r.buf + r.len, READ_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			goto out;
		}
		r.total += (uint64_t)n;
		if (r.total > PERFMAP_MAX_BYTES) {
			rc = -EFBIG;
			goto out;
		}
		r.len += (size_t)n;
		rc = reader_parse(&r, m, n == 0, need_check);
		if (rc < 0)
			goto out;
		if (need_check && r.checked == 0)
			break;
		if (n == 0)
			break;
	}
	rc = need_check && r.checked != 1 ? 0 : 1;
out:
	free(r.buf);
	return rc;
}

static void warn_lines(const struct opjit_host *host, const char *path,
		       const struct perfmap *m)
{
	char msg[640];
	int len = 0;

	if (!m->bad_lines && !m->blank_lines)
		return;
	if (!host || !host->warn)
		return;
	len = snprintf(msg, sizeof(msg), "%s:", path);
	if (m->bad_lines)
		len += snprintf(msg + len, sizeof(msg) - (size_t)len,
				" %zu malformed line%s (first at line %zu)%s",
				m->bad_lines, m->bad_lines == 1 ? "" : "s",
				m->first_bad, m->blank_lines ? "," : "");
	if (m->blank_lines && len > 0 && (size_t)len < sizeof(msg))
		snprintf(msg + len, sizeof(msg) - (size_t)len,
			 " %zu blank line%s", m->blank_lines,
			 m->blank_lines == 1 ? "" : "s");
	host->warn(host, msg);
}

static void pm_release(void *state)
{
	struct pm_state *st = state;
	size_t i;

	if (!st)
		return;
	perfmap_free(&st->map);
	perfmap_table_free(&st->tab);
	free(st->sym_of);
	for (i = 0; i < st->nchunks; i++)
		free(st->chunks[i]);
	free(st->chunks);
	free(st);
}

/* Load PATH's text into a new state.  0 when it is not ours (an anon
 * file in another format), 1 when claimed, or a negative errno. */
static int load_map(const struct opjit_host *host,
		    const struct opjit_process *proc,
		    const struct opjit_map_candidate *c, void **out, char *err,
		    size_t errlen)
{
	struct pm_state *st;
	struct perfmap_seg *segs;
	size_t nsegs;
	int fd, rc;

	*out = NULL;
	/* the host applies the trust rules and says why it refused */
	fd = host->open_map(host, proc, c, NULL, 0);
	if (fd < 0)
		return 0;
	st = calloc(1, sizeof(*st));
	if (!st) {
		close(fd);
		rc = -ENOMEM;
		goto fail;
	}
	rc = read_map(fd, &st->map, c->kind == OPJIT_MAP_ANON);
	close(fd);
	if (rc <= 0)
		goto fail;
	perfmap_compact(&st->map);
	warn_lines(host, c->path, &st->map);
	rc = perfmap_index(&st->map, &segs, &nsegs);
	if (rc == 0)
		rc = perfmap_pack(&st->map, segs, nsegs, &st->tab);
	if (rc < 0)
		goto fail;
	*out = st;
	return 1;
fail:
	if (rc < 0)
		snprintf(err, errlen, "cannot read %s: %s", c->path,
			 rc == -EFBIG	 ? "larger than 1 GiB"
			 : rc == -ESPIPE ? "not a regular file"
					 : strerror(-rc));
	pm_release(st);
	return rc;
}

static int pm_claim(const struct opjit_host *host,
		    const struct opjit_process *proc, void **state, char *err,
		    size_t errlen)
{
	return opjit_claim_first_map(host, proc,
				     OPJIT_KIND(OPJIT_MAP_ANON) |
					     OPJIT_KIND(OPJIT_MAP_PERF),
				     load_map, state, err, errlen);
}

#define CHUNK_SHIFT 12 /* symbols a chunk */
#define CHUNK_MASK ((1u << CHUNK_SHIFT) - 1)

/* Symbol number K. */
static struct opjit_symbol *sym_at(const struct pm_state *st, size_t k)
{
	return &st->chunks[k >> CHUNK_SHIFT][k & CHUNK_MASK];
}

/* The symbol of range SEG, which starts at START. */
static const struct opjit_symbol *sym_get(struct pm_state *st, size_t seg,
					  uint64_t start)
{
	struct opjit_symbol *s;
	struct perfmap_entry e;
	size_t k, key;

	if (!st->sym_of) {
		st->sym_of = calloc(st->tab.nsegs + st->tab.nsplit,
				    sizeof(*st->sym_of));
		if (!st->sym_of)
			return NULL;
	}
	e = perfmap_table_entry(&st->tab, seg, start, &key);
	if (st->sym_of[key])
		return sym_at(st, st->sym_of[key] - 1);
	k = st->nsyms;
	if (!(k & CHUNK_MASK)) {
		struct opjit_symbol *c;

		if (oputil_grow(&st->chunks, &st->cap_chunks, st->nchunks + 1,
				sizeof(*st->chunks)))
			return NULL;
		c = calloc(1u << CHUNK_SHIFT, sizeof(*c));
		if (!c)
			return NULL;
		st->chunks[st->nchunks++] = c;
	}
	s = sym_at(st, k);
	s->struct_size = OPJIT_SYMBOL_SIZE_1_0;
	s->name = st->tab.names + e.name;
	s->start = e.start;
	s->size = e.size;
	st->sym_of[key] = (uint32_t)++st->nsyms;
	return s;
}

static int pm_resolve(void *state, struct opjit_resolve_batch *b)
{
	struct pm_state *st = state;
	size_t i, hint = SIZE_MAX;
	struct perfmap_cursor cur = { 0, 0 };
	uint64_t start = 0, end = 0;
	int rc;

	rc = opjit_kit_batch_check(b, st->err, sizeof(st->err));
	if (rc)
		return rc;
	for (i = 0; i < b->count; i++) {
		uint64_t a = b->addrs[i];
		const struct opjit_symbol *s;

		/* Sorted addresses mostly land in the range just found. */
		if (hint == SIZE_MAX || a < start || a >= end)
			hint = perfmap_table_lookup(&st->tab, a, &cur, &start,
						    &end);
		if (hint == SIZE_MAX) {
			/* a perf map has no times: all it can say */
			if (b->reasons)
				b->reasons[i] = OPJIT_UNRESOLVED_NO_ENTRY;
			continue;
		}
		s = sym_get(st, hint, start);
		if (!s) {
			snprintf(st->err, sizeof(st->err), "out of memory");
			return -ENOMEM;
		}
		b->symbols[i] = s;
	}
	return 0;
}

static const char *pm_last_error(void *state)
{
	struct pm_state *st = state;

	return st && st->err[0] ? st->err : NULL;
}

/* A perf map carries no times: its names hold at any time. */
static uint32_t pm_state_flags(void *state)
{
	(void)state;
	return OPJIT_STATE_TIMELESS;
}

/* Each host gets a table of its own minor (OPJIT_KIT_ENTRY): one older
 * than 1.3 one without state_flags. */
static const struct opjit_handler perfmap_handler = {
	.struct_size = OPJIT_HANDLER_SIZE,
	.abi_major = OPJIT_HANDLER_ABI_MAJOR,
	.abi_minor = OPJIT_HANDLER_ABI_MINOR,
	.name = "perfmap",
	.description = "perf map text (/tmp/perf-PID.map, /tmp/anon.PID) "
		       "from node, .NET, Mono, the JDK and Python",
	.claim = pm_claim,
	.resolve = pm_resolve,
	.last_error = pm_last_error,
	.release = pm_release,
	.state_flags = pm_state_flags,
};

OPJIT_KIT_ENTRY(perfmap_handler)
