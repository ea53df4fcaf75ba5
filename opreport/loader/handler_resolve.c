// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Offering a process to the handlers and naming its anonymous samples.
 * The claiming handler's symbols are copied into report-owned memory and
 * its state is released right away, so a report over many processes
 * holds at most one handler state at a time.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "../diag.h"
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
	c->struct_size = HANDLER_GIVES_CANDIDATE;
	c->path = path;
	c->kind = kind;
	c->flags = flags;
	cs->p[cs->n] = c;
	cs->n++;
}

_Static_assert(OPS_JIT_MAP_ANON == OPJIT_MAP_ANON &&
		       OPS_JIT_MAP_PERF == OPJIT_MAP_PERF &&
		       OPS_JIT_MAP_JITDUMP == OPJIT_MAP_JITDUMP,
	       "the session's map kinds are the ABI's");

static uint32_t archived_kind(const char *path)
{
	char name[256];

	return ops_jit_map_kind(
		ops_archived_map_name(path, name, sizeof(name)));
}

/* The anon and perf maps of process PID in directory DIR, as BUF[0] and
 * BUF[1]. */
static void cand_add_tmp(struct candidates *cs, char (*buf)[128],
			 const char *dir, uint32_t pid)
{
	if (!ops_jit_map_path(buf[0], sizeof(buf[0]), dir, OPS_JIT_MAP_ANON,
			      pid))
		cand_add(cs, buf[0], OPJIT_MAP_ANON, 0);
	if (!ops_jit_map_path(buf[1], sizeof(buf[1]), dir, OPS_JIT_MAP_PERF,
			      pid))
		cand_add(cs, buf[1], OPJIT_MAP_PERF, 0);
}

/* The session's copies first: they were taken while the process was
 * alive, so they cannot describe a later process that reused the pid. */
static void cand_build(struct candidates *cs, struct ops_session *s,
		       uint32_t proc_id, const struct ops_process *p)
{
	const char *const *arch = NULL;
	char root[64];
	size_t i, n;

	cs->n = 0;
	n = ops_session_archived_maps(s, proc_id, &arch);
	for (i = 0; i < n && arch; i++) {
		uint32_t kind = archived_kind(arch[i]);

		if (kind)
			cand_add(cs, arch[i], kind, OPJIT_MAP_ARCHIVED);
	}
	/* the jitdump where the process mapped it, seen from its root */
	if (p->jitdump && p->jitdump[0] == '/' &&
	    !ops_jit_map_dump_path(cs->dump, sizeof(cs->dump), p->tgid,
				   p->flags & OPS_PROC_OTHER_MNTNS,
				   p->jitdump))
		cand_add(cs, cs->dump, OPJIT_MAP_JITDUMP, 0);
	cand_add_tmp(cs, &cs->buf[0], "/tmp", p->tgid);
	if (!(p->flags & OPS_PROC_OTHER_MNTNS) && p->nspid == p->tgid)
		return;
	snprintf(root, sizeof(root), "/proc/%u/root/tmp", p->tgid);
	cand_add_tmp(cs, &cs->buf[2], root, p->nspid);
}

static void proc_build(struct opjit_process *op, const struct ops_process *p,
		       const struct candidates *cs)
{
	memset(op, 0, sizeof(*op));
	op->struct_size = HANDLER_GIVES_PROCESS;
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

static const struct handler_ops *ops(void)
{
	return handler_isolation.none ? &handler_call_ops : &handler_proc_ops;
}

struct resolve_ctx {
	struct anon_handlers *hs;
	struct anon_handler *h;
	struct handler_table t;
	uint64_t *addrs, *times;
	struct handler_answer ans;
	struct anon_resolved batch; /* what the sink gets, batch-sized */
	struct anon_inline *inl;    /* the batch's inline frames */
	size_t cap_inl;
	/* a handler whose names do not depend on the times is asked once an
	 * address: per sample, the address it was asked as (an index into
	 * the answer), and per address, where its inline frames start */
	uint32_t *ask;
	size_t *inl_at;
	anon_batch_fn sink;
	void *sink_ctx;
	char why[HANDLER_WHY_LEN];
};

/* Whether handler H has had lines about process PROC_ID of session S;
 * with SPOKE, that it has now. */
static bool said(struct anon_handlers *hs, const struct anon_handler *h,
		 const struct ops_session *s, uint32_t proc_id, bool spoke)
{
	struct handler_said k = { proc_id, (uint32_t)(h - hs->v) };
	size_t i;

	if (hs->said_session != s) {
		hs->said_session = s;
		hs->nr_said = 0;
	}
	for (i = 0; i < hs->nr_said; i++)
		if (hs->said[i].proc == k.proc &&
		    hs->said[i].handler == k.handler)
			return true;
	/* out of memory, the next offer says it again: better than never */
	if (spoke && !oputil_grow(&hs->said, &hs->cap_said, hs->nr_said + 1,
				  sizeof(*hs->said)))
		hs->said[hs->nr_said++] = k;
	return false;
}

/* One line about what the handler did with the process, unless an
 * earlier offer of it had its lines (the handler's own warnings go
 * through handler_warn(), which asks the same). */
static void say(struct resolve_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(struct resolve_ctx *c, const char *fmt, ...)
{
	va_list ap;

	c->h->spoke = true;
	if (c->h->quiet)
		return;
	va_start(ap, fmt);
	vdiag(fmt, ap);
	va_end(ap);
}

/* The line for a handler that broke on process P. */
static void broke(struct resolve_ctx *c, const struct ops_process *p,
		  const char *doing, const char *why, bool stays)
{
	char comm[64];

	say(c, "handler %s %s while %s tgid %u (%s)%s", c->h->name, why, doing,
	    p->tgid,
	    handler_text_clean(p->comm ? p->comm : "?", comm, sizeof(comm)),
	    stays ? "; its samples stay anonymous" : "");
}

/* Point the batch's N samples at the table entries the answer names:
 * sample I's is answer c->ask[I] (I itself without c->ask) of the NA
 * answers.  0 or -HANDLER_NOMEM (not reported). */
static int answer_apply(struct resolve_ctx *c, size_t n, size_t na,
			const uint32_t *ask)
{
	struct anon_resolved *b = &c->batch;
	const struct handler_inline *hi = c->ans.inl;
	size_t i, j, k, used = 0;

	if (oputil_grow(&c->inl, &c->cap_inl, c->ans.len_inl, sizeof(*c->inl)))
		return -HANDLER_NOMEM;
	for (j = 0; j < na; j++) {
		c->inl_at[j] = used;
		for (k = 0; k < c->ans.nr_inl[j]; k++, used++)
			c->inl[used] = (struct anon_inline){
				c->t.sym[hi[used].sym - 1],
				hi[used].file ? c->t.file[hi[used].file - 1]
					      : NULL,
				hi[used].line
			};
	}
	for (i = 0; i < n; i++) {
		uint32_t s, f;

		j = ask ? ask[i] : i;
		s = c->ans.sym[j];
		f = c->ans.file[j];
		b->syms[i] = s ? c->t.sym[s - 1] : NULL;
		b->files[i] = f ? c->t.file[f - 1] : NULL;
		b->lines[i] = c->ans.line[j];
		b->reasons[i] = c->ans.reason[j];
		b->nr_inl[i] = c->ans.nr_inl[j];
		b->inl[i] = b->nr_inl[i] ? c->inl + c->inl_at[j] : NULL;
	}
	return 0;
}

/* One line for N structures (WHAT) of the handler that this host could
 * not honour, and what became of them (FATE). */
static void malformed_note(struct resolve_ctx *c, const struct ops_process *p,
			   size_t n, const char *what, const char *fate)
{
	if (n)
		say(c,
		    "%s: %zu malformed %s%s for process %u (%s): a reserved "
		    "field set, or fields past ABI %u.%u; %s",
		    c->h->name, n, what, n == 1 ? "" : "s", p->tgid,
		    p->comm ? p->comm : "?", OPJIT_HANDLER_ABI_MAJOR,
		    OPJIT_HANDLER_ABI_MINOR, fate);
}

/* Name the N SAMPLES of P, batch by batch, into the sink.  0 (the
 * malformed entries said), or -HANDLER_* with c->why (not reported:
 * claim_by() says it). */
static int resolve_all(struct resolve_ctx *c, const struct ops_process *p,
		       const struct ops_anon_sample *samples, size_t n)
{
	size_t base, i, chunk = n < RESOLVE_BATCH ? n : RESOLVE_BATCH;
	size_t k = chunk ? chunk : 1;
	bool timeless = c->h->state_flags & OPJIT_STATE_TIMELESS;
	int rc;

	c->addrs = malloc(k * sizeof(*c->addrs));
	c->times = malloc(k * sizeof(*c->times));
	c->ans.sym = malloc(k * sizeof(*c->ans.sym));
	c->ans.file = malloc(k * sizeof(*c->ans.file));
	c->ans.line = malloc(k * sizeof(*c->ans.line));
	c->ans.reason = malloc(k * sizeof(*c->ans.reason));
	c->batch.syms = malloc(k * sizeof(*c->batch.syms));
	c->batch.files = malloc(k * sizeof(*c->batch.files));
	c->batch.lines = malloc(k * sizeof(*c->batch.lines));
	c->batch.reasons = malloc(k * sizeof(*c->batch.reasons));
	c->ans.nr_inl = malloc(k * sizeof(*c->ans.nr_inl));
	c->batch.inl = malloc(k * sizeof(*c->batch.inl));
	c->batch.nr_inl = malloc(k * sizeof(*c->batch.nr_inl));
	if (!c->addrs || !c->times || !c->ans.sym || !c->ans.file ||
	    !c->ans.line || !c->ans.reason || !c->batch.syms ||
	    !c->batch.files || !c->batch.lines || !c->batch.reasons ||
	    !c->ans.nr_inl || !c->batch.inl || !c->batch.nr_inl)
		return -HANDLER_NOMEM;
	c->ask = malloc(k * sizeof(*c->ask));
	c->inl_at = malloc(k * sizeof(*c->inl_at));
	if (!c->ask || !c->inl_at)
		return -HANDLER_NOMEM;
	for (base = 0; base < n; base += chunk) {
		size_t m = n - base < chunk ? n - base : chunk, na = 0;

		for (i = 0; i < m; i++) {
			const struct ops_anon_sample *smp = &samples[base + i];

			/* the samples come sorted by address: a timeless
			 * handler is asked each address once, at the time
			 * of its first sample */
			if (!timeless || !na ||
			    c->addrs[na - 1] != smp->addr) {
				c->addrs[na] = smp->addr;
				c->times[na++] = smp->time_ns;
			}
			c->ask[i] = (uint32_t)(na - 1);
		}
		rc = ops()->resolve(c->h, &c->hs->arena, &c->t, c->addrs,
				    c->times, na, &c->ans, c->why,
				    sizeof(c->why));
		if (rc < 0)
			return rc;
		if (answer_apply(c, m, na, timeless ? c->ask : NULL) < 0)
			return -HANDLER_NOMEM;
		/* the sink can only run out of memory */
		if (c->sink(c->sink_ctx, &c->batch, base, m) < 0)
			return -HANDLER_NOMEM;
	}
	malformed_note(c, p, c->t.malformed, "symbol",
		       "counted as (malformed symbol)");
	malformed_note(c, p, c->t.malformed_inl, "inline frame",
		       "each ends its chain");
	return 0;
}

/* Offer process P (PROC_ID of S) to H and, when H claims it, name its
 * samples: 1, 0 when H did not claim it, or a negative errno; each
 * failure is reported here. */
static int claim_by(struct anon_handlers *hs, struct anon_handler *h,
		    const struct ops_session *s, uint32_t proc_id,
		    const struct ops_process *p,
		    const struct opjit_process *op, anon_samples_fn give,
		    void *give_ctx, anon_batch_fn sink, void *sink_ctx,
		    struct anon_resolved *res)
{
	const struct ops_anon_sample *samples = NULL;
	size_t n = 0;
	struct resolve_ctx c = { .hs = hs,
				 .h = h,
				 .sink = sink,
				 .sink_ctx = sink_ctx };
	char rwhy[HANDLER_WHY_LEN];
	int rc, rrc;

	h->quiet = said(hs, h, s, proc_id, false);
	h->spoke = false;
	rc = ops()->claim(h, op, c.why, sizeof(c.why));
	if (rc == -HANDLER_SAID)
		say(&c, "%s: cannot read the map of process %u (%s): %s",
		    h->name, p->tgid, op->comm, c.why);
	else if (rc == -HANDLER_BROKE)
		broke(&c, p, "claiming", c.why, false);
	if ((rc == -HANDLER_SAID || rc == -HANDLER_BROKE) &&
	    !hs->declined_why[0]) {
		snprintf(hs->declined_why, sizeof(hs->declined_why), "%s: %s",
			 h->name, c.why);
		res->declined_why = hs->declined_why;
	}
	if (rc == -HANDLER_NOMEM)
		goto out;
	if (rc <= 0) {
		rc = 0; /* the next handler is offered it */
		goto out;
	}
	memset(res, 0, sizeof(*res));
	res->handler = c.batch.handler = h->name;
	/* the samples are asked for once it is known whether one an
	 * address will do */
	rc = give(give_ctx, h->state_flags & OPJIT_STATE_TIMELESS, &samples,
		  &n)
		     ? -HANDLER_NOMEM
		     : resolve_all(&c, p, samples, n);
	if (rc == -HANDLER_SAID)
		say(&c, "%s: cannot name the samples of process %u (%s): %s",
		    h->name, p->tgid, p->comm ? p->comm : "?", c.why);
	else if (rc == -HANDLER_BROKE)
		broke(&c, p, "resolving", c.why, true);
	rrc = ops()->release(h, rwhy, sizeof(rwhy));
	if (rc == 0 && rrc == -HANDLER_BROKE)
		broke(&c, p, "releasing", rwhy, true);
	if (rc == 0)
		rc = rrc ? rrc : 1;
out:
	handler_table_free(&c.t);
	free(c.addrs);
	free(c.times);
	free(c.ans.sym);
	free(c.ans.file);
	free(c.ans.line);
	free(c.ans.reason);
	free(c.batch.syms);
	free(c.batch.files);
	free(c.batch.lines);
	free(c.batch.reasons);
	free(c.ans.nr_inl);
	free(c.ans.inl);
	free(c.batch.inl);
	free(c.batch.nr_inl);
	free(c.inl);
	free(c.ask);
	free(c.inl_at);
	if (h->spoke)
		said(hs, h, s, proc_id, true);
	h->quiet = false;
	if (rc == -HANDLER_NOMEM) {
		diag("cannot name the samples of process %u: out of memory",
		     p->tgid);
		return -ENOMEM;
	}
	return rc < 0 ? -EIO : rc;
}

/* Which installed handler that was not asked would claim OP: its name,
 * valid as long as HS, or NULL.  Only asked, quietly: its lines about a
 * process it is not naming would be noise. */
static const char *would_claim(struct anon_handlers *hs,
			       const struct opjit_process *op)
{
	struct anon_handlers *sp = handler_spares(hs);
	char why[HANDLER_WHY_LEN];
	size_t i;
	int rc;

	for (i = 0; sp && i < sp->n; i++) {
		struct anon_handler *h = &sp->v[i];

		h->quiet = true;
		rc = ops()->claim(h, op, why, sizeof(why));
		if (rc > 0)
			ops()->release(h, why, sizeof(why));
		h->quiet = false;
		if (rc > 0)
			return h->name;
	}
	return NULL;
}

int anon_handlers_timeless(struct anon_handlers *hs, struct ops_session *s,
			   uint32_t proc_id)
{
	const struct ops_process *p;
	struct opjit_process op;
	struct candidates cs;
	char why[HANDLER_WHY_LEN];
	size_t i;
	int rc = 0;

	if (!hs || hs->n == 0 || !(p = ops_session_process(s, proc_id)))
		return 1;
	cand_build(&cs, s, proc_id, p);
	proc_build(&op, p, &cs);
	/* offered as anon_handlers_resolve() will, quietly: what a handler
	 * says of the process it says then */
	for (i = 0; i < hs->n && rc == 0; i++) {
		struct anon_handler *h = &hs->v[i];

		h->quiet = true;
		rc = ops()->claim(h, &op, why, sizeof(why));
		if (rc > 0) {
			rc = h->state_flags & OPJIT_STATE_TIMELESS ? 1 : 2;
			ops()->release(h, why, sizeof(why));
		}
		h->quiet = false;
		if (rc == -HANDLER_NOMEM)
			return -ENOMEM;
		/* one that failed is offered it again, and says why then */
		if (rc < 0)
			return 0;
	}
	return rc != 2;
}

/* anon_handlers_resolve()'s samples, given as they are. */
struct given {
	const struct ops_anon_sample *samples;
	size_t n;
};

static int give_all(void *ctx, bool timeless,
		    const struct ops_anon_sample **samples, size_t *n)
{
	const struct given *g = ctx;

	(void)timeless;
	*samples = g->samples;
	*n = g->n;
	return 0;
}

int anon_handlers_resolve(struct anon_handlers *hs, struct ops_session *s,
			  uint32_t proc_id,
			  const struct ops_anon_sample *samples, size_t n,
			  anon_batch_fn sink, void *sink_ctx,
			  struct anon_resolved *res)
{
	struct given g = { samples, n };

	return anon_handlers_resolve_by(hs, s, proc_id, give_all, &g, sink,
					sink_ctx, res);
}

int anon_handlers_resolve_by(struct anon_handlers *hs, struct ops_session *s,
			     uint32_t proc_id, anon_samples_fn give,
			     void *give_ctx, anon_batch_fn sink,
			     void *sink_ctx, struct anon_resolved *res)
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
	hs->declined_why[0] = '\0';
	for (i = 0; i < hs->n; i++) {
		hs->v[i].maps_refused = 0;
		rc = claim_by(hs, &hs->v[i], s, proc_id, p, &op, give,
			      give_ctx, sink, sink_ctx, res);
		if (rc != 0)
			return rc;
		if (hs->v[i].maps_refused && !res->map_refused) {
			res->map_refused = true;
			res->refused_why = hs->v[i].refused_why;
		}
	}
	if (!res->map_refused && !res->declined_why)
		res->would = would_claim(hs, &op);
	return 0;
}
