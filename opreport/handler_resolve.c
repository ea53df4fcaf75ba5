// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Offering a process to the handlers and naming its anonymous samples.
 * The claiming handler's symbols are copied into report-owned memory and
 * its state is released right away, so a report over many processes
 * holds at most one handler state at a time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon_handlers.h"
#include "handler_internal.h"

/* Samples per resolve() call: big enough to amortise the call, small
 * enough that the batch arrays stay in cache-friendly sizes. */
#define RESOLVE_BATCH 65536u

#define MAX_CANDIDATES 16

struct candidates {
	struct opjit_map_candidate c[MAX_CANDIDATES];
	const struct opjit_map_candidate *p[MAX_CANDIDATES];
	char buf[4][128];
	char dump[4200];
	size_t n;
};

static void cand_add(struct candidates *cs, const char *path, uint32_t kind,
		     uint32_t flags)
{
	struct opjit_map_candidate *c;

	if (cs->n == MAX_CANDIDATES)
		return;
	c = &cs->c[cs->n];
	c->struct_size = OPJIT_MAP_CANDIDATE_SIZE_1_0;
	c->path = path;
	c->kind = kind;
	c->flags = flags;
	cs->p[cs->n] = c;
	cs->n++;
}

static uint32_t archived_kind(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (!strncmp(base, "anon.", 5))
		return OPJIT_MAP_ANON;
	if (!strncmp(base, "perf-", 5) && len > 9 &&
	    !strcmp(base + len - 4, ".map"))
		return OPJIT_MAP_PERF;
	if (!strncmp(base, "jit-", 4) && len > 9 &&
	    !strcmp(base + len - 5, ".dump"))
		return OPJIT_MAP_JITDUMP;
	return 0;
}

/* The session's copies first: they were taken while the process was
 * alive, so they cannot describe a later process that reused the pid. */
static void cand_build(struct candidates *cs, struct ops_session *s,
		       uint32_t proc_id, const struct ops_process *p)
{
	const char *const *arch = NULL;
	size_t i, n;

	cs->n = 0;
	n = ops_session_archived_maps(s, proc_id, &arch);
	for (i = 0; i < n && arch; i++) {
		uint32_t kind = archived_kind(arch[i]);

		if (kind)
			cand_add(cs, arch[i], kind, OPJIT_MAP_ARCHIVED);
	}
	/* the jitdump where the process mapped it, seen from its root */
	if (p->jitdump && p->jitdump[0] == '/') {
		if (p->flags & OPS_PROC_OTHER_MNTNS)
			snprintf(cs->dump, sizeof(cs->dump), "/proc/%u/root%s",
				 p->tgid, p->jitdump);
		else
			snprintf(cs->dump, sizeof(cs->dump), "%s", p->jitdump);
		cand_add(cs, cs->dump, OPJIT_MAP_JITDUMP, 0);
	}
	snprintf(cs->buf[0], sizeof(cs->buf[0]), "/tmp/anon.%u", p->tgid);
	snprintf(cs->buf[1], sizeof(cs->buf[1]), "/tmp/perf-%u.map", p->tgid);
	cand_add(cs, cs->buf[0], OPJIT_MAP_ANON, 0);
	cand_add(cs, cs->buf[1], OPJIT_MAP_PERF, 0);
	if (!(p->flags & OPS_PROC_OTHER_MNTNS) && p->nspid == p->tgid)
		return;
	snprintf(cs->buf[2], sizeof(cs->buf[2]), "/proc/%u/root/tmp/anon.%u",
		 p->tgid, p->nspid);
	snprintf(cs->buf[3], sizeof(cs->buf[3]),
		 "/proc/%u/root/tmp/perf-%u.map", p->tgid, p->nspid);
	cand_add(cs, cs->buf[2], OPJIT_MAP_ANON, 0);
	cand_add(cs, cs->buf[3], OPJIT_MAP_PERF, 0);
}

static void proc_build(struct opjit_process *op, const struct ops_process *p,
		       const struct candidates *cs)
{
	memset(op, 0, sizeof(*op));
	op->struct_size = OPJIT_PROCESS_SIZE_1_0;
	op->tgid = p->tgid;
	op->nspid = p->nspid;
	op->uid = p->uid;
	if (p->flags & OPS_PROC_OTHER_MNTNS)
		op->flags |= OPJIT_PROC_OTHER_MNTNS;
	op->start_ns = p->start_ns;
	op->start_unix_ns = p->start_unix_ns;
	op->comm = p->comm ? p->comm : "";
	op->exe = p->exe ? p->exe : "";
	op->maps = cs->p;
	op->nr_maps = cs->n;
}

static const char *handler_error(const struct anon_handler *h, void *state)
{
	static char buf[512];
	const char *e = h->tab.last_error ? h->tab.last_error(state) : NULL;

	return e && e[0] ? handler_text_clean(e, buf, sizeof(buf)) :
	       "no reason given";
}

_Static_assert(ANON_REASON_MAP_REFUSED == OPJIT_UNRESOLVED_MAP_REFUSED &&
	       ANON_NR_REASONS == OPJIT_UNRESOLVED_MAP_REFUSED + 1,
	       "the report's reasons are the ABI's");

const char *anon_reason_text(uint32_t r)
{
	static const char *const text[ANON_NR_REASONS] = {
		[OPJIT_UNRESOLVED_UNKNOWN] = "no reason given",
		[OPJIT_UNRESOLVED_NO_ENTRY] = "no entry",
		[OPJIT_UNRESOLVED_BEFORE_LOAD] = "before load",
		[OPJIT_UNRESOLVED_UNLOADED] = "after unload",
		[OPJIT_UNRESOLVED_MAP_REFUSED] = "map refused",
	};

	return r < ANON_NR_REASONS ? text[r] : text[0];
}

bool handler_tail_zero(const void *p, size_t known, size_t size)
{
	const unsigned char *b = p;
	size_t i;

	if (size > HANDLER_STRUCT_MAX)
		return false;
	for (i = known; i < size; i++)
		if (b[i])
			return false;
	return true;
}

/* Pointer-keyed table: one report copy per handler symbol, so that the
 * core can group samples by pointer as the handler did. */
struct sym_map {
	const void **key;
	void **val;
	size_t cap, n;
};

static size_t ptr_hash(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x;
}

static int sym_map_grow(struct sym_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 1024, i;
	const void **key = calloc(cap, sizeof(*key));
	void **val = calloc(cap, sizeof(*val));

	if (!key || !val) {
		free(key);
		free(val);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->key[i])
			continue;
		for (j = ptr_hash(m->key[i]) & (cap - 1); key[j];
		     j = (j + 1) & (cap - 1))
			;
		key[j] = m->key[i];
		val[j] = m->val[i];
	}
	free(m->key);
	free(m->val);
	m->key = key;
	m->val = val;
	m->cap = cap;
	return 0;
}

static void **sym_map_slot(struct sym_map *m, const void *k, int *rc)
{
	size_t j;

	*rc = 0;
	if ((m->n + 1) * 2 > m->cap) {
		*rc = sym_map_grow(m);
		if (*rc < 0)
			return NULL;
	}
	for (j = ptr_hash(k) & (m->cap - 1); m->key[j];
	     j = (j + 1) & (m->cap - 1))
		if (m->key[j] == k)
			return &m->val[j];
	m->key[j] = k;
	m->n++;
	return &m->val[j];
}

static void sym_map_free(struct sym_map *m)
{
	free(m->key);
	free(m->val);
}

/* Whether OS is a symbol this host can honour: every 1.0 field there,
 * the reserved field zero, and nothing set past what it knows. */
static bool sym_valid(const struct opjit_symbol *os)
{
	if (os->struct_size < OPJIT_SIZE_THROUGH(struct opjit_symbol, size) ||
	    !os->name)
		return false;
	if (os->struct_size >= OPJIT_SYMBOL_SIZE_1_0 && os->reserved)
		return false;
	return handler_tail_zero(os, OPJIT_SYMBOL_SIZE_1_0, os->struct_size);
}

/* Copy only the fields the handler's symbol has. */
static const struct anon_symbol *sym_copy(struct anon_handlers *hs,
					  struct sym_map *m,
					  const struct opjit_symbol *os,
					  size_t *malformed, int *rc)
{
	struct anon_symbol *as;
	void **slot = sym_map_slot(m, os, rc);

	if (!slot)
		return NULL;
	if (*slot)
		return *slot;
	as = handler_arena_alloc(&hs->arena, sizeof(*as));
	if (!as)
		goto nomem;
	memset(as, 0, sizeof(*as));
	if (!sym_valid(os)) {
		(*malformed)++;
		as->name = "(malformed symbol)";
		*slot = as;
		return as;
	}
	as->name = handler_arena_strdup(&hs->arena, os->name);
	if (!as->name)
		goto nomem;
	as->start = os->start;
	as->size = os->size;
	if (os->struct_size >= OPJIT_SIZE_THROUGH(struct opjit_symbol, file) &&
	    os->file) {
		as->file = handler_arena_strdup(&hs->arena, os->file);
		if (!as->file)
			goto nomem;
	}
	if (os->struct_size >= OPJIT_SIZE_THROUGH(struct opjit_symbol, line))
		as->line = os->line;
	*slot = as;
	return as;
nomem:
	*rc = -ENOMEM;
	return NULL;
}

struct resolve_ctx {
	struct anon_handlers *hs;
	const struct anon_handler *h;
	void *state;
	struct sym_map syms, files;
	uint64_t *addrs, *times;
	const struct opjit_symbol **osyms;
	const char **ofiles;
	uint32_t *olines;
	uint32_t *oreasons;
	size_t malformed; /* distinct symbols this host could not honour */
};

static int batch_copy(struct resolve_ctx *c, size_t base, size_t n,
		      struct anon_resolved *res)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < n; i++) {
		if (c->osyms[i]) {
			res->syms[base + i] = sym_copy(c->hs, &c->syms,
						       c->osyms[i],
						       &c->malformed, &rc);
			if (rc < 0)
				return rc;
		}
		if (c->ofiles[i]) {
			void **slot = sym_map_slot(&c->files, c->ofiles[i],
						   &rc);

			if (!slot)
				return rc;
			if (!*slot)
				*slot = handler_arena_strdup(&c->hs->arena,
							     c->ofiles[i]);
			if (!*slot)
				return -ENOMEM;
			res->files[base + i] = *slot;
		}
		res->lines[base + i] = c->olines[i];
		if (!c->osyms[i])
			res->reasons[base + i] =
				c->oreasons[i] < ANON_NR_REASONS ?
				c->oreasons[i] : OPJIT_UNRESOLVED_UNKNOWN;
	}
	return 0;
}

static int resolve_all(struct resolve_ctx *c, const struct ops_process *p,
		       const struct ops_anon_sample *samples, size_t n,
		       struct anon_resolved *res)
{
	struct opjit_resolve_batch b;
	size_t base, i, chunk = n < RESOLVE_BATCH ? n : RESOLVE_BATCH;
	int rc;

	c->addrs = malloc((chunk ? chunk : 1) * sizeof(*c->addrs));
	c->times = malloc((chunk ? chunk : 1) * sizeof(*c->times));
	c->osyms = malloc((chunk ? chunk : 1) * sizeof(*c->osyms));
	c->ofiles = malloc((chunk ? chunk : 1) * sizeof(*c->ofiles));
	c->olines = malloc((chunk ? chunk : 1) * sizeof(*c->olines));
	c->oreasons = malloc((chunk ? chunk : 1) * sizeof(*c->oreasons));
	if (!c->addrs || !c->times || !c->osyms || !c->ofiles || !c->olines ||
	    !c->oreasons)
		return -ENOMEM;
	for (base = 0; base < n; base += chunk) {
		size_t m = n - base < chunk ? n - base : chunk;

		for (i = 0; i < m; i++) {
			c->addrs[i] = samples[base + i].addr;
			c->times[i] = samples[base + i].time_ns;
		}
		memset(c->osyms, 0, m * sizeof(*c->osyms));
		memset(c->ofiles, 0, m * sizeof(*c->ofiles));
		memset(c->olines, 0, m * sizeof(*c->olines));
		memset(c->oreasons, 0, m * sizeof(*c->oreasons));
		memset(&b, 0, sizeof(b));
		b.struct_size = OPJIT_RESOLVE_BATCH_SIZE_1_0;
		b.count = m;
		b.addrs = c->addrs;
		b.times = c->times;
		b.symbols = c->osyms;
		b.files = c->ofiles;
		b.lines = c->olines;
		b.reasons = c->oreasons;
		rc = c->h->tab.resolve(c->state, &b);
		if (rc < 0) {
			fprintf(stderr, "opreport: %s: cannot name the "
				"samples of process %u (%s): %s\n",
				c->h->name, p->tgid, p->comm ? p->comm : "?",
				handler_error(c->h, c->state));
			return rc;
		}
		rc = batch_copy(c, base, m, res);
		if (rc < 0)
			return rc;
	}
	if (c->malformed)
		fprintf(stderr, "opreport: %s: %zu malformed symbol%s for "
			"process %u (%s): no name, a reserved field set, or "
			"fields past ABI %u.%u; counted as (malformed "
			"symbol)\n",
			c->h->name, c->malformed, c->malformed == 1 ? "" : "s",
			p->tgid, p->comm ? p->comm : "?",
			OPJIT_HANDLER_ABI_MAJOR, OPJIT_HANDLER_ABI_MINOR);
	return 0;
}

static int resolved_alloc(struct anon_handlers *hs, size_t n,
			  struct anon_resolved *res)
{
	size_t k = n ? n : 1;

	res->syms = handler_arena_alloc(&hs->arena, k * sizeof(*res->syms));
	res->files = handler_arena_alloc(&hs->arena, k * sizeof(*res->files));
	res->lines = handler_arena_alloc(&hs->arena, k * sizeof(*res->lines));
	res->reasons = handler_arena_alloc(&hs->arena,
					   k * sizeof(*res->reasons));
	if (!res->syms || !res->files || !res->lines || !res->reasons)
		return -ENOMEM;
	memset(res->syms, 0, k * sizeof(*res->syms));
	memset(res->files, 0, k * sizeof(*res->files));
	memset(res->lines, 0, k * sizeof(*res->lines));
	memset(res->reasons, 0, k * sizeof(*res->reasons));
	return 0;
}

static int claim_by(struct anon_handlers *hs, const struct anon_handler *h,
		    const struct ops_process *p,
		    const struct opjit_process *op,
		    const struct ops_anon_sample *samples, size_t n,
		    struct anon_resolved *res)
{
	struct resolve_ctx c = { .hs = hs, .h = h };
	char err[512] = "", clean[512];
	int rc;

	rc = h->tab.claim(&h->host, op, &c.state, err, sizeof(err));
	if (rc < 0) {
		/* the handler's text, however it ended */
		err[sizeof(err) - 1] = '\0';
		fprintf(stderr, "opreport: %s: cannot read the map of process "
			"%u (%s): %s\n", h->name, p->tgid, op->comm,
			err[0] ? handler_text_clean(err, clean,
						    sizeof(clean)) :
				 "no reason given");
		return 0;
	}
	if (rc == 0)
		return 0;
	memset(res, 0, sizeof(*res));
	res->handler = h->name;
	rc = resolved_alloc(hs, n, res);
	if (rc == 0)
		rc = resolve_all(&c, p, samples, n, res);
	h->tab.release(c.state);
	sym_map_free(&c.syms);
	sym_map_free(&c.files);
	free(c.addrs);
	free(c.times);
	free(c.osyms);
	free(c.ofiles);
	free(c.olines);
	free(c.oreasons);
	if (rc == -ENOMEM)
		fprintf(stderr, "opreport: cannot name the samples of process "
			"%u: out of memory\n", p->tgid);
	return rc < 0 ? rc : 1;
}

int anon_handlers_resolve(struct anon_handlers *hs, struct ops_session *s,
			  uint32_t proc_id,
			  const struct ops_anon_sample *samples, size_t n,
			  struct anon_resolved *res)
{
	const struct ops_process *p;
	struct opjit_process op;
	struct candidates cs;
	size_t i;
	int rc;

	if (!hs || hs->n == 0)
		return 0;
	p = ops_session_process(s, proc_id);
	if (!p)
		return 0;
	cand_build(&cs, s, proc_id, p);
	proc_build(&op, p, &cs);
	memset(res, 0, sizeof(*res));
	for (i = 0; i < hs->n; i++) {
		hs->v[i].maps_refused = 0;
		rc = claim_by(hs, &hs->v[i], p, &op, samples, n, res);
		if (rc != 0)
			return rc;
		if (hs->v[i].maps_refused)
			res->map_refused = true;
	}
	return 0;
}
