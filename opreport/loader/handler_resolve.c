// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Offering a process to the handlers and naming its anonymous samples.
 * The claiming handler's symbols are copied into report-owned memory and
 * its state is released once they are named, so a report over many
 * processes holds at most one handler state at a time: the one offer
 * kept open between anon_handlers_timeless() and the naming.
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
	size_t room; /* samples the arrays above hold, but inl's */
	anon_batch_fn sink;
	void *sink_ctx;
	char why[HANDLER_WHY_LEN];
};

/* Whether handler H has had lines about process PROC_ID of session S in
 * PART of an offer (HANDLER_SAID_*); with SPOKE, that it has now. */
static bool said(struct anon_handlers *hs, const struct anon_handler *h,
		 const struct ops_session *s, uint32_t proc_id, uint32_t part,
		 bool spoke)
{
	uint64_t key = (uint64_t)(h - hs->v + 1) << 32 | proc_id, parts = 0;
	uint64_t *ref;

	if (hs->said_session != s) {
		hs->said_session = s;
		oputil_u64map_clear(&hs->said);
	}
	if (!spoke) {
		oputil_u64map_get(&hs->said, key, &parts);
		return parts & part;
	}
	/* out of memory, the next offer says it again: better than never */
	ref = oputil_u64map_ref(&hs->said, key, NULL);
	if (!ref)
		return false;
	parts = *ref;
	*ref |= part;
	return parts & part;
}

/* One line about what handler H did with the process, unless an
 * earlier offer of it had its lines (the handler's own warnings go
 * through handler_warn(), which asks the same). */
static void say(struct anon_handler *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(struct anon_handler *h, const char *fmt, ...)
{
	va_list ap;

	h->spoke = true;
	if (h->quiet)
		return;
	va_start(ap, fmt);
	vdiag(fmt, ap);
	va_end(ap);
}

/* The line for handler H that broke on process P. */
static void broke(struct anon_handler *h, const struct ops_process *p,
		  const char *doing, const char *why, bool stays)
{
	char comm[64];

	say(h, "handler %s %s while %s tgid %u (%s)%s", h->name, why, doing,
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
		say(c->h,
		    "%s: %zu malformed %s%s for process %u (%s): a reserved "
		    "field set, or fields past ABI %u.%u; %s",
		    c->h->name, n, what, n == 1 ? "" : "s", p->tgid,
		    p->comm ? p->comm : "?", OPJIT_HANDLER_ABI_MAJOR,
		    OPJIT_HANDLER_ABI_MINOR, fate);
}

/* The batch-sized arrays of C, but the inline frames' (grown apart):
 * each is given a new value by resolve_room() or never used again. */
static void resolve_arrays_free(struct resolve_ctx *c)
{
	free(c->addrs);
	free(c->times);
	free(c->ans.sym);
	free(c->ans.file);
	free(c->ans.line);
	free(c->ans.reason);
	free(c->ans.nr_inl);
	free(c->batch.syms);
	free(c->batch.files);
	free(c->batch.lines);
	free(c->batch.reasons);
	free(c->batch.inl);
	free(c->batch.nr_inl);
	free(c->ask);
	free(c->inl_at);
	c->room = 0;
}

/* Room in C's arrays for batches of K samples: 0 or -HANDLER_NOMEM. */
static int resolve_room(struct resolve_ctx *c, size_t k)
{
	if (k <= c->room)
		return 0;
	resolve_arrays_free(c);
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
	c->ask = malloc(k * sizeof(*c->ask));
	c->inl_at = malloc(k * sizeof(*c->inl_at));
	if (!c->addrs || !c->times || !c->ans.sym || !c->ans.file ||
	    !c->ans.line || !c->ans.reason || !c->batch.syms ||
	    !c->batch.files || !c->batch.lines || !c->batch.reasons ||
	    !c->ans.nr_inl || !c->batch.inl || !c->batch.nr_inl || !c->ask ||
	    !c->inl_at)
		return -HANDLER_NOMEM;
	c->room = k;
	return 0;
}

/* Name the N SAMPLES, one part of a process's, batch by batch, into the
 * sink.  0, or -HANDLER_* with c->why (not reported: name_by() says
 * it). */
static int resolve_all(struct resolve_ctx *c,
		       const struct ops_anon_sample *samples, size_t n)
{
	size_t base, i, chunk = n < RESOLVE_BATCH ? n : RESOLVE_BATCH;
	bool timeless = c->h->state_flags & OPJIT_STATE_TIMELESS;
	int rc;

	if (resolve_room(c, chunk ? chunk : 1))
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
	return 0;
}

/*
 * The offer of one process to the handlers, from the first claim to the
 * naming of its samples.  anon_handlers_timeless() makes it and leaves
 * the claiming handler's state claimed, so that the naming takes that
 * state rather than claim the process again (a perf map of 100k
 * functions is parsed once, not twice).  It holds what the host gave
 * the handlers, which a claimed state may still look at, and what they
 * answered.  A call graph asks about every process before it names
 * any: each offer is kept until its naming (HS->offers), its state set
 * aside (parked) while the handler claims others, at most
 * HANDLER_HELD_MAX states at once.
 */
struct handler_offer {
	const struct ops_session *s;
	uint32_t proc_id;
	struct anon_handler *h; /* the one that claimed it, or NULL */
	/* its state is H's claimed one (H->current is this offer), or
	 * set aside in HELD; neither once released */
	bool parked;
	struct handler_held held;
	size_t bytes; /* the heap its claim grew by, while held */
	struct candidates cs;
	struct opjit_process op;
	/* when none claimed it: a map refused, a claim that failed */
	bool map_refused;
	char refused_why[HANDLER_WHY_LEN];
	char declined_why[2 * HANDLER_WHY_LEN];
};

/* Handler H begins PART (HANDLER_SAID_*) of offer O: quiet when an
 * earlier offer of the process had that part's lines. */
static void part_begin(struct anon_handlers *hs, struct anon_handler *h,
		       const struct handler_offer *o, uint32_t part)
{
	h->quiet = said(hs, h, o->s, o->proc_id, part, false);
	h->spoke = false;
}

/* ... and ends it: what it said there stops the later offers of the
 * process from saying it again. */
static void part_end(struct anon_handlers *hs, struct anon_handler *h,
		     const struct handler_offer *o, uint32_t part)
{
	if (h->spoke)
		said(hs, h, o->s, o->proc_id, part, true);
	h->quiet = false;
}

/* Offer O's process P to H, with every line it calls for: 1 when H
 * claimed it (its state is then H's), 0 when not, or -ENOMEM (reported). */
static int claim_one(struct anon_handlers *hs, struct anon_handler *h,
		     struct handler_offer *o, const struct ops_process *p)
{
	char why[HANDLER_WHY_LEN];
	int rc;

	part_begin(hs, h, o, HANDLER_SAID_CLAIM);
	rc = ops()->claim(h, &o->op, why, sizeof(why));
	if (rc == -HANDLER_SAID)
		say(h, "%s: cannot read the map of process %u (%s): %s",
		    h->name, p->tgid, o->op.comm, why);
	else if (rc == -HANDLER_BROKE)
		broke(h, p, "claiming", why, false);
	if ((rc == -HANDLER_SAID || rc == -HANDLER_BROKE) &&
	    !o->declined_why[0])
		snprintf(o->declined_why, sizeof(o->declined_why), "%s: %s",
			 h->name, why);
	part_end(hs, h, o, HANDLER_SAID_CLAIM);
	if (rc > 0)
		return 1;
	if (rc == -HANDLER_NOMEM) {
		diag("cannot name the samples of process %u: out of memory",
		     p->tgid);
		return -ENOMEM;
	}
	return 0;
}

/* Offer O holds a claimed state no more. */
static void held_drop(struct anon_handlers *hs, const struct handler_offer *o)
{
	hs->nr_held--;
	hs->held_bytes -= o->bytes;
}

/* Release offer O's state, if it still has one, quietly: its process
 * is offered again should its samples be named, and that offer's
 * naming says what goes wrong then. */
static void offer_release(struct anon_handlers *hs, struct handler_offer *o)
{
	struct anon_handler *h = o->h;
	char why[HANDLER_WHY_LEN];

	if (!h)
		return;
	if (o->parked && h->current)
		offer_release(hs, h->current);
	h->quiet = true;
	if (o->parked) {
		/* claimed again to be released, unless its helper is gone */
		if (ops()->unpark(h, &o->held, &o->op, why, sizeof(why)) == 1)
			ops()->release(h, why, sizeof(why));
	} else if (h->current == o) {
		ops()->release(h, why, sizeof(why));
		h->current = NULL;
	}
	h->quiet = false;
	o->h = NULL;
	o->parked = false;
	held_drop(hs, o);
}

/* Offer O is done with: its state released, and itself forgotten. */
static void offer_close(struct anon_handlers *hs, struct handler_offer *o)
{
	offer_release(hs, o);
	oputil_u64map_del(&hs->offers, (uint64_t)o->proc_id + 1, NULL);
	free(o);
}

/* Handler H's claimed state set aside, or released when a report holds
 * as many as it may or it cannot be set aside: H claims no process
 * after. */
static void offer_set_aside(struct anon_handlers *hs, struct anon_handler *h)
{
	struct handler_offer *o = h->current;
	char why[HANDLER_WHY_LEN];

	if (!o)
		return;
	if (hs->nr_held < HANDLER_HELD_MAX &&
	    hs->held_bytes <= HANDLER_HELD_BYTES) {
		h->current = NULL;
		h->quiet = true;
		o->parked = !ops()->park(h, &o->held, o->proc_id, why,
					 sizeof(why));
		h->quiet = false;
		if (o->parked)
			return;
		/* the state is gone with the failure */
		o->h = NULL;
		held_drop(hs, o);
	}
	offer_close(hs, o);
}

/* Every offer closed, every state released. */
static void offers_close(struct anon_handlers *hs)
{
	size_t i;

	/* the current states first: a parked one is claimed again to be
	 * released, which needs its handler free */
	for (i = 0; i < hs->n; i++)
		if (hs->v[i].current)
			offer_release(hs, hs->v[i].current);
	for (i = 0; i < hs->offers.cap; i++)
		if (hs->offers.slots[i].key) {
			struct handler_offer *o =
				(struct handler_offer *)(uintptr_t)hs->offers
					.slots[i]
					.val;

			offer_release(hs, o);
			free(o);
		}
	oputil_u64map_clear(&hs->offers);
	hs->nr_held = hs->held_bytes = 0;
}

void handler_offer_free(struct anon_handlers *hs)
{
	offers_close(hs);
	oputil_u64map_free(&hs->offers);
}

/* Offer O's claimed state made its handler's current one again: 1, or 0
 * when it is gone (the state released, O->h NULL). */
static int offer_resume(struct anon_handlers *hs, struct handler_offer *o)
{
	struct anon_handler *h = o->h;
	char why[HANDLER_WHY_LEN];
	int rc;

	if (!h)
		return 0;
	if (h->current == o)
		return 1;
	offer_set_aside(hs, h);
	h->quiet = true;
	rc = ops()->unpark(h, &o->held, &o->op, why, sizeof(why));
	h->quiet = false;
	o->parked = false;
	if (rc == 1) {
		h->current = o;
		return 1;
	}
	return 0;
}

/* The offer of process PROC_ID (P) of S: the one kept, or a new one,
 * made by offering P to each handler in order until one claims it.
 * NULL out of memory: reported when a handler ran out, else *NOMEM is
 * set, for the caller to say. */
static struct handler_offer *offer_get(struct anon_handlers *hs,
				       struct ops_session *s, uint32_t proc_id,
				       const struct ops_process *p,
				       bool *nomem)
{
	uint64_t key = (uint64_t)proc_id + 1, v;
	struct handler_offer *o;
	size_t i;
	int rc;

	if (hs->offers_session != s) {
		offers_close(hs);
		hs->offers_session = s;
	}
	if (oputil_u64map_get(&hs->offers, key, &v)) {
		o = (struct handler_offer *)(uintptr_t)v;
		/* none claimed it, or its claim is still held */
		if (!o->h || offer_resume(hs, o))
			return o;
		/* its state is gone (its helper ended): offered again */
		offer_close(hs, o);
	}
	o = calloc(1, sizeof(*o));
	if (!o || oputil_u64map_put(&hs->offers, key, (uint64_t)(uintptr_t)o,
				    NULL) < 0) {
		free(o);
		*nomem = true;
		return NULL;
	}
	o->s = s;
	o->proc_id = proc_id;
	cand_build(&o->cs, s, proc_id, p);
	proc_build(&o->op, p, &o->cs);
	for (i = 0; i < hs->n; i++) {
		struct anon_handler *h = &hs->v[i];

		offer_set_aside(hs, h);
		h->maps_refused = 0;
		rc = claim_one(hs, h, o, p);
		if (rc < 0) {
			offer_close(hs, o);
			return NULL;
		}
		if (rc > 0) {
			o->h = h;
			h->current = o;
			o->bytes = h->state_bytes;
			hs->nr_held++;
			hs->held_bytes += o->bytes;
			break;
		}
		if (h->maps_refused && !o->map_refused) {
			o->map_refused = true;
			snprintf(o->refused_why, sizeof(o->refused_why), "%s",
				 h->refused_why);
		}
	}
	return o;
}

/* Name the samples of offer O's process P, which O->h claimed, and
 * release its state: 1, or a negative errno; each failure is reported
 * here. */
static int name_by(struct anon_handlers *hs, struct handler_offer *o,
		   const struct ops_process *p, anon_samples_fn give,
		   void *give_ctx, anon_batch_fn sink, void *sink_ctx,
		   struct anon_resolved *res)
{
	struct anon_handler *h = o->h;
	const struct ops_anon_sample *samples = NULL;
	size_t n = 0;
	struct resolve_ctx c = { .hs = hs,
				 .h = h,
				 .sink = sink,
				 .sink_ctx = sink_ctx };
	char rwhy[HANDLER_WHY_LEN];
	int rc, rrc;

	part_begin(hs, h, o, HANDLER_SAID_NAMING);
	memset(res, 0, sizeof(*res));
	res->handler = c.batch.handler = h->name;
	/* the samples are asked for once it is known whether one an
	 * address will do, a part at a time until none is left */
	do {
		rc = give(give_ctx, h->state_flags & OPJIT_STATE_TIMELESS,
			  &samples, &n)
			     ? -HANDLER_NOMEM
		     : n ? resolve_all(&c, samples, n)
			 : 0;
	} while (!rc && n);
	if (!rc) {
		malformed_note(&c, p, c.t.malformed, "symbol",
			       "counted as (malformed symbol)");
		malformed_note(&c, p, c.t.malformed_inl, "inline frame",
			       "each ends its chain");
	}
	if (rc == -HANDLER_SAID)
		say(h, "%s: cannot name the samples of process %u (%s): %s",
		    h->name, p->tgid, p->comm ? p->comm : "?", c.why);
	else if (rc == -HANDLER_BROKE)
		broke(h, p, "resolving", c.why, true);
	rrc = ops()->release(h, rwhy, sizeof(rwhy));
	if (rc == 0 && rrc == -HANDLER_BROKE)
		broke(h, p, "releasing", rwhy, true);
	if (rc == 0)
		rc = rrc ? rrc : 1;
	handler_table_free(&c.t);
	resolve_arrays_free(&c);
	free(c.ans.inl);
	free(c.inl);
	part_end(hs, h, o, HANDLER_SAID_NAMING);
	/* released: the offer is done */
	h->current = NULL;
	o->h = NULL;
	held_drop(hs, o);
	offer_close(hs, o);
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
	const struct handler_offer *o;
	bool nomem = false;

	if (!hs || hs->n == 0 || !(p = ops_session_process(s, proc_id)))
		return 1;
	/* the offer the naming takes, lines and all; without memory for
	 * it, the answer that holds whatever the handler (each sample
	 * keeps its time), and the naming offers the process again */
	o = offer_get(hs, s, proc_id, p, &nomem);
	if (!o)
		return nomem ? 0 : -ENOMEM;
	return !o->h || (o->h->state_flags & OPJIT_STATE_TIMELESS);
}

/* anon_handlers_resolve()'s samples, given as they are, in one part. */
struct given {
	const struct ops_anon_sample *samples;
	size_t n;
};

static int give_all(void *ctx, bool timeless,
		    const struct ops_anon_sample **samples, size_t *n)
{
	struct given *g = ctx;

	(void)timeless;
	*samples = g->samples;
	*n = g->n;
	g->n = 0;
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
	struct handler_offer *o;
	bool nomem = false;

	if (!hs || hs->n == 0)
		return 0;
	p = ops_session_process(s, proc_id);
	if (!p)
		return 0;
	memset(res, 0, sizeof(*res));
	o = offer_get(hs, s, proc_id, p, &nomem);
	if (!o && nomem)
		diag("cannot name the samples of process %u: out of memory",
		     p->tgid);
	if (!o)
		return -ENOMEM;
	if (o->h)
		return name_by(hs, o, p, give, give_ctx, sink, sink_ctx, res);
	/* the offer goes: what it says is kept in HS for the caller */
	res->map_refused = o->map_refused;
	if (o->map_refused) {
		snprintf(hs->refused_why, sizeof(hs->refused_why), "%s",
			 o->refused_why);
		res->refused_why = hs->refused_why;
	}
	if (o->declined_why[0]) {
		snprintf(hs->declined_why, sizeof(hs->declined_why), "%s",
			 o->declined_why);
		res->declined_why = hs->declined_why;
	}
	if (!res->map_refused && !res->declined_why)
		res->would = would_claim(hs, &o->op);
	offer_close(hs, o);
	return 0;
}
