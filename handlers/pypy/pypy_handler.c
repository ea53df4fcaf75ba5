// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The pypy handler: names PyPy's JIT loops and bridges from the map the
 * opjit_pypy module writes, or from PyPy's own log (FORMAT.md), both at
 * /tmp/anon.<pid>.  Built twice: libpypy.so gives each bridge a row of
 * its own; libpypy-loops.so (PYPY_FOLD_BRIDGES) names a bridge after the
 * loop it leaves, for one row per loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <opjit/anon_handler.h>
#include <opjit/anon_handler_claim.h>
#include <opjit/handler_kit.h>

#include "pypy.h"

#ifdef PYPY_FOLD_BRIDGES
#define HANDLER_NAME "pypy-loops"
#define HANDLER_DESC                                         \
	"PyPy JIT loops, each with its bridges (opjit_pypy " \
	"module map or PYPYLOG)"
#else
#define HANDLER_NAME "pypy"
#define HANDLER_DESC                                         \
	"PyPy JIT loops and bridges (opjit_pypy module map " \
	"or PYPYLOG)"
#endif

/* a module map written this long before the process started is an
 * earlier process's with the same pid */
#define START_SLACK_NS 50000000ull

struct pp_state {
	struct pypy_map map;
	struct opjit_symbol *sym; /* one per code, named when first hit */
	char **text, **file;	  /* their names and source files */
	char err[512];
};

static void pp_release(void *state)
{
	struct pp_state *st = state;
	size_t i;

	if (!st)
		return;
	for (i = 0; st->text && st->file && i < st->map.n; i++) {
		free(st->text[i]);
		free(st->file[i]);
	}
	free(st->text);
	free(st->file);
	free(st->sym);
	pypy_free(&st->map);
	free(st);
}

static int read_all(int fd, char **out, size_t *len)
{
	struct stat st;
	size_t cap, n = 0;
	char *buf;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ESPIPE;
	if ((uint64_t)st.st_size > PYPY_MAX_BYTES)
		return -EFBIG;
	/* a live PyPy may still be appending: read to the end */
	cap = (size_t)st.st_size + 4096;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *b = cap * 2 > PYPY_MAX_BYTES
					  ? NULL
					  : realloc(buf, cap * 2);

			if (!b) {
				free(buf);
				return cap * 2 > PYPY_MAX_BYTES ? -EFBIG
								: -ENOMEM;
			}
			buf = b;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return -errno;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*out = buf;
	*len = n;
	return 0;
}

static void warn(const struct opjit_host *host, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(const struct opjit_host *host, const char *fmt, ...)
{
	char msg[640];
	va_list ap;

	if (!host->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	host->warn(host, msg);
}

/* Whether the module map M was written by process PROC; one warning when
 * not. */
static bool map_is_of(const struct opjit_host *host,
		      const struct opjit_process *proc, const char *path,
		      const struct pypy_map *m)
{
	uint32_t pid = proc->nspid ? proc->nspid : proc->tgid;

	if (m->format != PYPY_MODULE_MAP)
		return true;
	if (m->pid != pid) {
		warn(host, "%s: written by process %u, not by %u", path,
		     m->pid, pid);
		return false;
	}
	if (proc->start_ns && m->start_ns + START_SLACK_NS < proc->start_ns) {
		warn(host,
		     "%s: written before process %u started: an "
		     "earlier process with the same pid wrote it",
		     path, pid);
		return false;
	}
	return true;
}

static void warn_lines(const struct opjit_host *host, const char *path,
		       const struct pypy_map *m)
{
	if (m->bad_lines)
		warn(host, "%s: %zu malformed line%s (first at line %zu)",
		     path, m->bad_lines, m->bad_lines == 1 ? "" : "s",
		     m->first_bad);
	if (m->torn)
		warn(host,
		     "%s: the last line is incomplete (the writer was "
		     "stopped while writing); read up to it",
		     path);
}

/* 1 claimed with *OUT, 0 not ours, or a negative errno with ERR. */
static int load(const struct opjit_host *host,
		const struct opjit_process *proc,
		const struct opjit_map_candidate *c, void **out, char *err,
		size_t errlen)
{
	struct pp_state *st = NULL;
	char *text = NULL;
	size_t len = 0;
	int fd, rc;

	*out = NULL;
	fd = host->open_map(host, proc, c, NULL, 0);
	if (fd < 0)
		return 0;
	rc = read_all(fd, &text, &len);
	close(fd);
	if (rc == 0) {
		st = calloc(1, sizeof(*st));
		rc = st ? pypy_parse(&st->map, text, len) : -ENOMEM;
	}
	free(text);
	if (rc > 0 && !map_is_of(host, proc, c->path, &st->map))
		rc = 0;
	if (rc > 0) {
		rc = pypy_index(&st->map);
		st->sym = calloc(st->map.n + 1, sizeof(*st->sym));
		st->text = calloc(st->map.n + 1, sizeof(*st->text));
		st->file = calloc(st->map.n + 1, sizeof(*st->file));
		rc = rc ?: st->sym && st->text && st->file ? 1 : -ENOMEM;
	}
	if (rc <= 0) {
		if (rc < 0)
			snprintf(err, errlen, "cannot read %s: %s", c->path,
				 rc == -EFBIG	 ? "larger than 256 MiB"
				 : rc == -ESPIPE ? "not a regular file"
						 : strerror(-rc));
		pp_release(st);
		return rc;
	}
	warn_lines(host, c->path, &st->map);
	*out = st;
	return 1;
}

static int pp_claim(const struct opjit_host *host,
		    const struct opjit_process *proc, void **state, char *err,
		    size_t errlen)
{
	return opjit_claim_first_map(host, proc, OPJIT_KIND(OPJIT_MAP_ANON),
				     load, state, err, errlen);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* "loop 1 collatz (pp.py:2-4)" */
static char *loop_text(const struct pypy_map *m, const struct pypy_code *c)
{
	const char *where = pypy_str(m, c->where);
	char *s = NULL;

	if (asprintf(&s, where[0] ? "loop %u %s (%s)" : "loop %u %s",
		     c->loop_no, pypy_str(m, c->func), base_name(where)) < 0)
		return NULL;
	return s;
}

/* "bridge from guard 0x7f... in loop 1 (collatz)" */
static char *bridge_text(const struct pypy_map *m, const struct pypy_code *c)
{
	size_t loop = c->loop_no ? pypy_loop(m, c->loop_no) : SIZE_MAX;
	char *s = NULL;
	int rc;

	if (loop != SIZE_MAX)
		rc = asprintf(
			&s, "bridge from guard 0x%" PRIx64 " in loop %u (%s)",
			c->guard, c->loop_no, pypy_str(m, m->code[loop].func));
	else if (c->loop_no)
		rc = asprintf(&s, "bridge from guard 0x%" PRIx64 " in loop %u",
			      c->guard, c->loop_no);
	else
		rc = asprintf(&s, "bridge from guard 0x%" PRIx64, c->guard);
	return rc < 0 ? NULL : s;
}

static const struct opjit_symbol *sym_get(struct pp_state *st, size_t i)
{
	const struct pypy_map *m = &st->map;
	const struct pypy_code *c = &m->code[i];
	struct opjit_symbol *s;

#ifdef PYPY_FOLD_BRIDGES
	/* a bridge is its loop's: one symbol, so one row */
	if (c->kind == PYPY_BRIDGE && c->loop_no) {
		size_t loop = pypy_loop(m, c->loop_no);

		if (loop != SIZE_MAX) {
			i = loop;
			c = &m->code[i];
		}
	}
#endif
	s = &st->sym[i];
	if (s->name)
		return s;
	st->text[i] = c->kind == PYPY_LOOP ? loop_text(m, c)
					   : bridge_text(m, c);
	if (!st->text[i])
		return NULL;
	s->struct_size = OPJIT_SYMBOL_SIZE_1_0;
	s->name = st->text[i];
	s->start = c->start;
	s->size = c->size;
	if (c->kind == PYPY_LOOP) {
		/* "file:first-last": the file and the first line */
		const char *w = pypy_str(m, c->where);
		const char *colon = strrchr(w, ':');
		unsigned line;

		if (colon && sscanf(colon + 1, "%u", &line) == 1) {
			st->file[i] = strndup(w, (size_t)(colon - w));
			s->file = st->file[i];
			s->line = st->file[i] ? line : 0;
		}
	}
	return s;
}

static int pp_resolve(void *state, struct opjit_resolve_batch *b)
{
	struct pp_state *st = state;
	size_t i;
	int rc;

	rc = opjit_kit_batch_check(b, st->err, sizeof(st->err));
	if (rc)
		return rc;
	for (i = 0; i < b->count; i++) {
		uint32_t why = OPJIT_UNRESOLVED_NO_ENTRY;
		size_t k = pypy_lookup(&st->map, b->addrs[i],
				       b->times ? b->times[i] : 0, &why);

		if (k == SIZE_MAX) {
			if (b->reasons)
				b->reasons[i] = why;
			continue;
		}
		b->symbols[i] = sym_get(st, k);
		if (!b->symbols[i]) {
			snprintf(st->err, sizeof(st->err), "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

static const char *pp_last_error(void *state)
{
	struct pp_state *st = state;

	return st && st->err[0] ? st->err : NULL;
}

static const struct opjit_handler pypy_handler = {
	.struct_size = OPJIT_HANDLER_SIZE,
	.abi_major = OPJIT_HANDLER_ABI_MAJOR,
	.abi_minor = OPJIT_HANDLER_ABI_MINOR,
	.name = HANDLER_NAME,
	.description = HANDLER_DESC,
	.claim = pp_claim,
	.resolve = pp_resolve,
	.last_error = pp_last_error,
	.release = pp_release,
};

OPJIT_KIT_ENTRY(pypy_handler)
