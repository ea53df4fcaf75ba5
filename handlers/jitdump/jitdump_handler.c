// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The jitdump handler: names anonymous samples from the jit-<pid>.dump
 * files that node (--perf-prof), .NET, Mono, wasmtime, Julia, LLVM's
 * JIT listeners and others write for perf, by address and time, with no
 * inject step.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <opjit/anon_handler.h>
#include <oputil/grow.h>
#include <opjit/anon_handler_claim.h>
#include <opjit/handler_kit.h>

#include "jitdump.h"

#define SYM_POOL 4096u

/* A symbol as handed out, with what code_bytes() needs of it: one per
 * life, so that code moved to another address is another symbol, which
 * starts where its samples are. */
struct jdh_sym {
	struct opjit_symbol s;
	uint32_t life;	/* index into jd_index.life */
	uint8_t *bytes; /* its code, read from the dump when first asked */
};

struct jdh_state {
	struct jd_dump d;
	struct jd_index x;
	int fd;		      /* the dump, kept for the code bytes */
	struct jdh_sym **sym; /* per life, made when first hit */
	struct jdh_sym **pools;
	size_t npools, cap_pools, pool_used;
	char err[512];
};

static void warnf(const struct opjit_host *host, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warnf(const struct opjit_host *host, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	if (!host || !host->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	host->warn(host, msg);
}

/* The one place a dump is opened: the host applies the trust rules and
 * says why it refused. */
static int jdh_open(const struct opjit_host *host,
		    const struct opjit_process *proc,
		    const struct opjit_map_candidate *c)
{
	return host->open_map(host, proc, c, NULL, 0);
}

static void jdh_release(void *state)
{
	struct jdh_state *st = state;
	size_t i;

	if (!st)
		return;
	jd_index_free(&st->x);
	jd_free(&st->d);
	free(st->sym);
	for (i = 0; i < st->npools; i++) {
		size_t k, n = i + 1 < st->npools ? SYM_POOL : st->pool_used;

		for (k = 0; k < n; k++)
			free(st->pools[i][k].bytes);
		free(st->pools[i]);
	}
	if (st->fd >= 0)
		close(st->fd);
	free(st->pools);
	free(st);
}

/* Everything a user should know about a dump that was read: one line
 * per malformed record (a few), one for a torn or broken tail, one for
 * a clock we cannot compare. */
static void jdh_report(const struct opjit_host *host, const char *path,
		       const struct jd_dump *d, const struct jd_index *x)
{
	size_t i;

	for (i = 0; i < d->nbad && i < JD_MAX_REPORTED; i++)
		warnf(host, "%s: %s", path, d->bad[i]);
	if (d->nbad > JD_MAX_REPORTED)
		warnf(host, "%s: %zu more malformed records skipped", path,
		      d->nbad - JD_MAX_REPORTED);
	if (d->torn)
		warnf(host,
		      "%s: record cut off at offset %llu, keeping the "
		      "%llu records before it",
		      path, (unsigned long long)d->torn_at,
		      (unsigned long long)d->records);
	if (d->broken)
		warnf(host,
		      "%s: record size %u at offset %llu cannot be, "
		      "keeping the %llu records before it",
		      path, d->broken_size, (unsigned long long)d->broken_at,
		      (unsigned long long)d->records);
	if (x->by_address)
		warnf(host,
		      "%s: records are stamped with the CPU's own "
		      "counter, not CLOCK_MONOTONIC: naming code by address "
		      "only",
		      path);
	if (x->unknown_moves)
		warnf(host, "%s: %zu moves of code that was never loaded",
		      path, x->unknown_moves);
	if (d->names_garbled > d->names_recovered)
		warnf(host,
		      "%s: %llu line-table file names are not text (a "
		      "writer's bug); recovered from their code's name: "
		      "%llu, lines left without a file: %llu",
		      path, (unsigned long long)d->names_garbled,
		      (unsigned long long)d->names_recovered,
		      (unsigned long long)(d->names_garbled -
					   d->names_recovered));
}

/* 1 when PATH is a jitdump we read, 0 when it is not one (said in one
 * line), or a negative errno. */
static int jdh_load(const struct opjit_host *host,
		    const struct opjit_process *proc,
		    const struct opjit_map_candidate *c, void **out, char *err,
		    size_t errlen)
{
	const char *path = c->path;
	struct jdh_state *st = NULL;
	struct jd_src src;
	int fd, rc;

	*out = NULL;
	fd = jdh_open(host, proc, c);
	if (fd < 0)
		return 0;
	st = calloc(1, sizeof(*st));
	if (!st) {
		close(fd);
		rc = -ENOMEM;
		goto fail;
	}
	st->fd = -1;
	st->d.path = path;
	st->fd = fd;
	jd_src_fd(&src, fd);
	rc = jd_parse(&st->d, &src);
	jd_src_free(&src);
	if (rc == 1) {
		warnf(host, "%s: %s", path, st->d.bad[0]);
		jdh_release(st);
		return 0;
	}
	if (rc < 0)
		goto fail;
	rc = jd_index_build(&st->x, &st->d,
			    st->d.flags & JD_FLAGS_ARCH_TIMESTAMP);
	if (rc < 0)
		goto fail;
	st->sym = calloc(st->x.nlife ? st->x.nlife : 1, sizeof(*st->sym));
	if (!st->sym) {
		rc = -ENOMEM;
		goto fail;
	}
	jdh_report(host, path, &st->d, &st->x);
	*out = st;
	return 1;
fail:
	snprintf(err, errlen, "cannot read %s: %s", path,
		 rc == -EFBIG	? "larger than 4 GiB"
		 : rc == -E2BIG ? "too much overlapping code"
				: strerror(-rc));
	jdh_release(st);
	return rc;
}

static int jdh_claim(const struct opjit_host *host,
		     const struct opjit_process *proc, void **state, char *err,
		     size_t errlen)
{
	return opjit_claim_first_map(host, proc, OPJIT_KIND(OPJIT_MAP_JITDUMP),
				     jdh_load, state, err, errlen);
}

static const struct opjit_symbol *sym_get(struct jdh_state *st, uint32_t life)
{
	const struct jd_code *code = &st->d.code[st->x.life[life].code];
	struct jdh_sym *js = st->sym[life];
	struct opjit_symbol *s;

	if (js)
		return &js->s;
	if (!st->npools || st->pool_used == SYM_POOL) {
		if (oputil_grow(&st->pools, &st->cap_pools, st->npools + 1,
				sizeof(*st->pools)))
			return NULL;
		st->pools[st->npools] = calloc(SYM_POOL, sizeof(**st->pools));
		if (!st->pools[st->npools])
			return NULL;
		st->npools++;
		st->pool_used = 0;
	}
	js = &st->pools[st->npools - 1][st->pool_used++];
	js->life = life;
	s = &js->s;
	s->struct_size = OPJIT_SYMBOL_SIZE_1_0;
	s->name = jd_name(&st->d, code->name);
	s->start = st->x.life[life].start;
	s->size = code->size;
	if (code->nlines) {
		const struct jd_line *l = &st->d.lines[code->first_line];

		if (l->file != JD_NO_FILE) {
			s->file = jd_name(&st->d, l->file);
			s->line = l->line;
		}
	}
	st->sym[life] = js;
	return s;
}

/* Why no code lived in segment SEG at TIME: it came later, or it had
 * gone (an unload or a move). */
static uint32_t jdh_why_no_life(const struct jdh_state *st, size_t seg,
				uint64_t time)
{
	const struct jd_seg *sg = &st->x.seg[seg];
	const uint32_t *v = st->x.list + sg->first;

	if (sg->n && time < st->x.life[v[0]].from)
		return OPJIT_UNRESOLVED_BEFORE_LOAD;
	return OPJIT_UNRESOLVED_UNLOADED;
}

static int jdh_resolve(void *state, struct opjit_resolve_batch *b)
{
	struct jdh_state *st = state;
	bool lines = b->struct_size >=
			     OPJIT_SIZE_THROUGH(struct opjit_resolve_batch,
						lines) &&
		     b->files && b->lines;
	size_t i, seg = SIZE_MAX;
	int rc;

	rc = opjit_kit_batch_check(b, st->err, sizeof(st->err));
	if (rc)
		return rc;
	for (i = 0; i < b->count; i++) {
		uint64_t a = b->addrs[i];
		const struct opjit_symbol *s;
		const struct jd_line *l;
		uint32_t life;

		/* sorted addresses mostly land in the segment just found */
		if (seg == SIZE_MAX || a < st->x.seg[seg].start ||
		    a >= st->x.seg[seg].end)
			seg = jd_index_seg(&st->x, a);
		if (seg == SIZE_MAX) {
			if (b->reasons)
				b->reasons[i] = OPJIT_UNRESOLVED_NO_ENTRY;
			continue;
		}
		life = jd_index_life(&st->x, seg, b->times ? b->times[i] : 0);
		if (life == UINT32_MAX) {
			if (b->reasons)
				b->reasons[i] =
					jdh_why_no_life(st, seg, b->times[i]);
			continue;
		}
		s = sym_get(st, life);
		if (!s) {
			snprintf(st->err, sizeof(st->err), "out of memory");
			return -ENOMEM;
		}
		b->symbols[i] = s;
		if (!lines)
			continue;
		l = jd_line_at(&st->d, &st->x, life, a);
		/* a line whose file is unknown still ends the line before */
		if (l && l->file != JD_NO_FILE) {
			b->files[i] = jd_name(&st->d, l->file);
			b->lines[i] = l->line;
		}
	}
	return 0;
}

/* The bytes of SYM's code load, as the record holds them: a record whose
 * code size says more than it holds gives what it holds. */
static int jdh_code_bytes(void *state, const struct opjit_symbol *sym,
			  const uint8_t **code, uint64_t *len, uint64_t *addr,
			  uint64_t *load_ns)
{
	struct jdh_state *st = state;
	const struct jdh_sym *cjs = (const struct jdh_sym *)sym;
	struct jdh_sym *js;
	const struct jd_code *c;
	size_t got = 0;

	if (!sym || cjs->life >= st->x.nlife || !st->sym[cjs->life] ||
	    &st->sym[cjs->life]->s != sym) {
		snprintf(st->err, sizeof(st->err),
			 "code_bytes() was given a symbol of another state");
		return -EINVAL;
	}
	js = st->sym[cjs->life];
	c = &st->d.code[st->x.life[js->life].code];
	if (!c->code_len)
		return -ENOENT;
	if (!js->bytes) {
		js->bytes = malloc(c->code_len);
		if (!js->bytes) {
			snprintf(st->err, sizeof(st->err), "out of memory");
			return -ENOMEM;
		}
		while (got < c->code_len) {
			ssize_t r = pread(st->fd, js->bytes + got,
					  c->code_len - got,
					  (off_t)(c->code_off + got));

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				snprintf(st->err, sizeof(st->err),
					 "%s: cannot read the code of %s: %s",
					 st->d.path, sym->name,
					 r ? strerror(errno)
					   : "the file is shorter now");
				free(js->bytes);
				js->bytes = NULL;
				return r ? -errno : -EIO;
			}
			got += (size_t)r;
		}
	}
	*code = js->bytes;
	*len = c->code_len;
	/* where this life of the code sat, from when */
	*addr = st->x.life[js->life].start;
	*load_ns = st->x.by_address ? 0 : st->x.life[js->life].from;
	return 0;
}

static const char *jdh_last_error(void *state)
{
	struct jdh_state *st = state;

	return st ? st->err : "";
}

static const struct opjit_handler jitdump_handler = {
	.struct_size = OPJIT_HANDLER_SIZE,
	.abi_major = OPJIT_HANDLER_ABI_MAJOR,
	.abi_minor = OPJIT_HANDLER_ABI_MINOR,
	.name = "jitdump",
	.description = "perf jitdump files (jit-PID.dump) from node "
		       "--perf-prof, .NET, Mono, wasmtime, Julia, LLVM",
	.claim = jdh_claim,
	.resolve = jdh_resolve,
	.last_error = jdh_last_error,
	.release = jdh_release,
	.code_bytes = jdh_code_bytes,
};

/* Each host gets a table of its own minor: one older than 1.4 one
 * without code_bytes, as the growth rules ask. */
OPJIT_KIT_ENTRY(jitdump_handler)
