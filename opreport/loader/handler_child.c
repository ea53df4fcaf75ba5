// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The helper process's side: copy the handler's code while it may still
 * read it, sandbox itself, load the handler, then answer opreport's
 * calls (handler_wire.h) with the same calls and the same checks as the
 * in-process path.  Whatever the handler does here, opreport only ever
 * sees bytes it checks again; the map files it asks for are opened by
 * opreport, which sends the descriptors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <oputil/u64map.h>

#include "anon_handlers.h"
#include "handler_internal.h"
#include "handler_wire.h"

/* A process as opreport offered it, kept from its claim to its release
 * (its state may look at it), set aside with its state while parked:
 * at an address of its own, which the state may have kept. */
struct child_claim {
	struct opjit_process op;
	struct opjit_map_candidate *cand;
	const struct opjit_map_candidate **candp;
	char *comm, *exe;
	void *state; /* while parked: the handler's state */
	uint32_t state_flags;
};

struct child {
	struct wire w;
	struct anon_handler h;
	struct handler_arena *arena; /* the claimed process's symbols */
	struct handler_collect *collect;
	size_t sent_sym, sent_file;
	struct child_claim *cl;	     /* the claimed process, or NULL */
	struct oputil_u64map parked; /* slot + 1 -> struct child_claim * */
};

static struct child *child_self;

/* The handler's warnings go to opreport, which prints them as its own
 * lines, in order with everything else it says. */
static void child_warn(const struct opjit_host *host, const char *msg)
{
	struct wire *w = &child_self->w;

	(void)host;
	if (!msg)
		return;
	size_t len = strnlen(msg, 1024);

	wire_put_u32(w, WIRE_WARN);
	wire_put_u32(w, (uint32_t)len);
	wire_put(w, msg, len);
	wire_flush(w);
}

/* The host's open_map: opreport opens a candidate it offered (it may
 * read what the helper may not) and checks it; the helper inflates an
 * archived copy itself, so that a bomb costs only the helper's memory.
 * Any other path is the helper's to open, with what it may read. */
static int child_open_map(const struct opjit_host *host,
			  const struct opjit_process *proc,
			  const struct opjit_map_candidate *cand, char *why,
			  size_t whylen)
{
	struct child *c = child_self;
	struct anon_handler *h = &c->h;
	char mine[HANDLER_WHY_LEN];
	uint32_t i;
	int32_t rc;
	int fd = -1;

	if (!why || !whylen) {
		why = mine;
		whylen = sizeof(mine);
	}
	why[0] = '\0';
	if (!c->cl || proc != &c->cl->op || !cand ||
	    cand->struct_size <
		    OPJIT_SIZE_THROUGH(struct opjit_map_candidate, flags) ||
	    !cand->path)
		return -EINVAL;
	for (i = 0; i < c->cl->op.nr_maps; i++)
		if (cand == &c->cl->cand[i] ||
		    (!strcmp(cand->path, c->cl->cand[i].path) &&
		     cand->kind == c->cl->cand[i].kind &&
		     cand->flags == c->cl->cand[i].flags))
			break;
	/* a file of the handler's own naming (as the example handler's):
	 * opened here, as the helper, with the same rules */
	if (i == c->cl->op.nr_maps) {
		rc = handler_trust_open_map(host, proc, cand, why, whylen);
		goto out;
	}
	wire_put_u32(&c->w, WIRE_OPEN);
	wire_put_u32(&c->w, i);
	if (wire_flush(&c->w) < 0 || wire_get_fd(&c->w, &fd) < 0)
		_exit(0);
	rc = (int32_t)wire_get_u32(&c->w);
	if (rc < 0 && rc != -ENOENT && rc != -EINVAL) {
		char *e = NULL;

		wire_get_str(&c->w, &e, HANDLER_WHY_LEN, NULL, NULL);
		snprintf(why, whylen, "%s", e ? e : "refused");
		free(e);
	}
	if (c->w.err || (rc >= 0) != (fd >= 0) || rc > 0)
		_exit(0);
	if (rc == 0)
		rc = handler_trust_map_fd(host, cand, fd, why, whylen);
out:
	if (rc < 0 && rc != -ENOENT && rc != -EINVAL && !h->maps_refused++)
		handler_text_clean(why, h->refused_why,
				   sizeof(h->refused_why));
	return rc;
}

static void claim_free(struct child_claim *cl)
{
	size_t i;

	if (!cl)
		return;
	for (i = 0; cl->cand && i < cl->op.nr_maps; i++)
		free((char *)cl->cand[i].path);
	free(cl->cand);
	free(cl->candp);
	free(cl->comm);
	free(cl->exe);
	free(cl);
}

/* What the naming of the claimed process built, and the process. */
static void child_forget(struct child *c)
{
	handler_collect_free(c->collect);
	c->collect = NULL;
	handler_arena_free(c->arena);
	c->arena = NULL;
	c->sent_sym = c->sent_file = 0;
	claim_free(c->cl);
	c->cl = NULL;
}

static int child_read_proc(struct child *c)
{
	struct wire *w = &c->w;
	struct child_claim *cl;
	struct opjit_process *op;
	size_t i;

	child_forget(c);
	cl = c->cl = calloc(1, sizeof(*cl));
	if (!cl)
		return -ENOMEM;
	op = &cl->op;
	op->struct_size = HANDLER_GIVES_PROCESS;
	op->tgid = wire_get_u32(w);
	op->nspid = wire_get_u32(w);
	op->uid = wire_get_u32(w);
	op->flags = wire_get_u32(w);
	op->start_ns = wire_get_u64(w);
	op->start_unix_ns = (int64_t)wire_get_u64(w);
	wire_get_str(w, &cl->comm, 4096, NULL, NULL);
	wire_get_str(w, &cl->exe, 4096, NULL, NULL);
	op->nr_maps = wire_get_u32(w);
	if (w->err || op->nr_maps > 64) {
		op->nr_maps = 0;
		return -EPROTO;
	}
	cl->cand = calloc(op->nr_maps + 1, sizeof(*cl->cand));
	cl->candp = calloc(op->nr_maps + 1, sizeof(*cl->candp));
	if (!cl->cand || !cl->candp)
		return -ENOMEM;
	for (i = 0; i < op->nr_maps; i++) {
		char *path = NULL;

		cl->cand[i].struct_size = HANDLER_GIVES_CANDIDATE;
		wire_get_str(w, &path, 4096, NULL, NULL);
		cl->cand[i].path = path ? path : strdup("");
		cl->cand[i].kind = wire_get_u32(w);
		cl->cand[i].flags = wire_get_u32(w);
		cl->candp[i] = &cl->cand[i];
	}
	op->comm = cl->comm ? cl->comm : "";
	op->exe = cl->exe ? cl->exe : "";
	op->maps = cl->candp;
	return w->err;
}

static void child_claim(struct child *c)
{
	char why[HANDLER_WHY_LEN];
	int rc;

	if (child_read_proc(c) < 0)
		_exit(0);
	rc = handler_call_claim(&c->h, &c->cl->op, why, sizeof(why));
	wire_put_u32(&c->w, (uint32_t)rc);
	wire_put_u32(&c->w, c->h.maps_refused);
	if (c->h.maps_refused)
		wire_put_str(&c->w, c->h.refused_why);
	if (rc < 0)
		wire_put_str(&c->w, why);
	if (rc == 1) {
		wire_put_u32(&c->w, c->h.state_flags);
		wire_put_u64(&c->w, c->h.state_bytes);
	}
	wire_flush(&c->w);
}

static void child_send_new(struct child *c)
{
	const struct handler_table *t = handler_collect_table(c->collect);
	struct wire *w = &c->w;
	size_t i;

	wire_put_u32(w, (uint32_t)(t->nsym - c->sent_sym));
	for (i = c->sent_sym; i < t->nsym; i++) {
		wire_put_u64(w, t->sym[i]->start);
		wire_put_u64(w, t->sym[i]->size);
		wire_put_u32(w, t->sym[i]->line);
		wire_put_str(w, t->sym[i]->name);
		wire_put_str(w, t->sym[i]->file);
		wire_put_u32(w, (uint32_t)t->sym[i]->code_err);
		wire_put_u64(w, t->sym[i]->code_len);
		if (!t->sym[i]->code_len)
			continue;
		wire_put_u64(w, t->sym[i]->code_addr);
		wire_put_u64(w, t->sym[i]->code_load_ns);
		wire_put(w, t->sym[i]->code, t->sym[i]->code_len);
	}
	wire_put_u64(w, t->malformed);
	wire_put_u64(w, t->malformed_inl);
	wire_put_u32(w, (uint32_t)(t->nfile - c->sent_file));
	for (i = c->sent_file; i < t->nfile; i++)
		wire_put_str(w, t->file[i]);
	c->sent_sym = t->nsym;
	c->sent_file = t->nfile;
}

static void child_batch(struct child *c)
{
	char why[HANDLER_WHY_LEN];
	struct handler_answer ans = { 0 };
	uint64_t *addrs = NULL, *times = NULL;
	struct wire *w = &c->w;
	uint32_t n = wire_get_u32(w);
	size_t k = n ? n : 1;
	int rc = -HANDLER_NOMEM;

	snprintf(why, sizeof(why), "ran out of memory");
	addrs = malloc(k * sizeof(*addrs));
	times = malloc(k * sizeof(*times));
	ans.sym = malloc(k * sizeof(*ans.sym));
	ans.file = malloc(k * sizeof(*ans.file));
	ans.line = malloc(k * sizeof(*ans.line));
	ans.reason = malloc(k * sizeof(*ans.reason));
	ans.nr_inl = malloc(k * sizeof(*ans.nr_inl));
	if (!c->collect)
		c->collect = handler_collect_new(&c->arena);
	if (!addrs || !times || !ans.sym || !ans.file || !ans.line ||
	    !ans.reason || !ans.nr_inl || !c->collect)
		goto out;
	if (wire_get(w, addrs, n * sizeof(*addrs)) ||
	    wire_get(w, times, n * sizeof(*times)))
		_exit(0);
	rc = handler_call_resolve(&c->h, c->collect, addrs, times, n, &ans,
				  why, sizeof(why));
	if (rc == -HANDLER_NOMEM)
		rc = -HANDLER_BROKE;
out:
	wire_put_u32(w, (uint32_t)rc);
	if (rc < 0) {
		wire_put_str(w, why);
	} else {
		child_send_new(c);
		wire_put(w, ans.sym, n * sizeof(*ans.sym));
		wire_put(w, ans.file, n * sizeof(*ans.file));
		wire_put(w, ans.line, n * sizeof(*ans.line));
		wire_put(w, ans.reason, n * sizeof(*ans.reason));
		wire_put(w, ans.nr_inl, n * sizeof(*ans.nr_inl));
		wire_put_u32(w, (uint32_t)ans.len_inl);
		wire_put(w, ans.inl, ans.len_inl * sizeof(*ans.inl));
	}
	wire_flush(w);
	free(addrs);
	free(times);
	free(ans.sym);
	free(ans.file);
	free(ans.line);
	free(ans.reason);
	free(ans.nr_inl);
	free(ans.inl);
}

/* PARK: the claimed state and its process set aside as SLOT, none
 * claimed.  Parked between its claim and its naming, it has built
 * nothing to send yet. */
static void child_park(struct child *c)
{
	uint32_t slot = wire_get_u32(&c->w);
	struct child_claim *cl = c->cl;
	int32_t rc = 0;

	if (c->w.err || !c->h.state || !cl || c->collect)
		_exit(0);
	cl->state = c->h.state;
	cl->state_flags = c->h.state_flags;
	if (oputil_u64map_put(&c->parked, (uint64_t)slot + 1,
			      (uint64_t)(uintptr_t)cl, NULL) != 0) {
		/* out of memory, or a slot already parked: released */
		handler_call_release(&c->h);
		rc = -HANDLER_NOMEM;
	}
	c->h.state = NULL;
	c->h.state_flags = 0;
	c->cl = rc ? c->cl : NULL;
	child_forget(c);
	wire_put_u32(&c->w, (uint32_t)rc);
	wire_flush(&c->w);
}

/* UNPARK: the state set aside as SLOT claimed again. */
static void child_unpark(struct child *c)
{
	uint32_t slot = wire_get_u32(&c->w);
	uint64_t v;
	bool had;

	if (c->w.err || c->h.state)
		_exit(0);
	had = oputil_u64map_del(&c->parked, (uint64_t)slot + 1, &v);
	if (had) {
		child_forget(c);
		c->cl = (struct child_claim *)(uintptr_t)v;
		c->h.state = c->cl->state;
		c->h.state_flags = c->cl->state_flags;
		c->cl->state = NULL;
	}
	wire_put_u32(&c->w, had ? 1 : 0);
	wire_flush(&c->w);
}

/* A handler that calls exit() ends the helper with its status and
 * nothing else: the exit handlers the helper inherited (a sanitizer's
 * leak check, which needs ptrace, among them) must not run inside the
 * sandbox and turn the status into a signal. */
static void child_on_exit(int status, void *arg)
{
	(void)arg;
	_exit(status);
}

/* A copy of the handler's code in memory, made while the helper may
 * still read the file (checked first by the trust rules, as opreport
 * would): nobody may not read it where it lies.  Its name for dlopen in
 * DLPATH; the descriptor, or a negative errno with REASON. */
static int child_copy_code(const char *path, char *dlpath, size_t dlen,
			   char *reason, size_t len)
{
	char buf[65536];
	int in, out, rc = 0;
	ssize_t r;

	/* the file the trust rules checked is the file copied */
	in = handler_trust_lib_open(path, geteuid(), reason, len);
	if (in < 0)
		return in;
	out = memfd_create("opjit-handler", MFD_CLOEXEC);
	if (out < 0)
		rc = -errno;
	while (!rc && (r = read(in, buf, sizeof(buf))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || write(out, buf, (size_t)r) != r)
			rc = r < 0 ? -errno : -EIO;
	}
	close(in);
	if (rc < 0) {
		snprintf(reason, len, "cannot copy its code: %s",
			 strerror(-rc));
		if (out >= 0)
			close(out);
		return rc;
	}
	snprintf(dlpath, dlen, "/proc/self/fd/%d", out);
	return out;
}

void handler_child_main(int fd, const char *path, const char *name)
{
	static struct child c;
	char reason[512], dlpath[64];
	int rc, code;

	on_exit(child_on_exit, NULL);
	wire_init(&c.w, fd, false);
	code = child_copy_code(path, dlpath, sizeof(dlpath), reason,
			       sizeof(reason));
	rc = code < 0 ? code
		      : handler_sandbox_enter(fd, reason, sizeof(reason));
	if (rc == 0)
		rc = handler_open_checked(&c.h, path, dlpath, name, reason,
					  sizeof(reason));
	/* loaded (mapped) or refused: the copy's descriptor is done */
	if (code >= 0)
		close(code);
	wire_put_u32(&c.w, (uint32_t)rc);
	if (rc < 0) {
		wire_put_str(&c.w, reason);
	} else {
		wire_put_u32(&c.w, c.h.tab.abi_major);
		wire_put_u32(&c.w, c.h.tab.abi_minor);
		wire_put_u64(&c.w, c.h.tab.struct_size);
		wire_put_str(&c.w, c.h.tab.description);
	}
	if (wire_flush(&c.w) < 0 || rc < 0)
		_exit(0);
	handler_host_init(&c.h);
	child_self = &c;
	c.h.host.warn = child_warn;
	c.h.host.open_map = child_open_map;
	for (;;) {
		uint32_t call = wire_get_u32(&c.w);

		if (c.w.err)
			_exit(0);
		switch (call) {
		case WIRE_CLAIM:
			child_claim(&c);
			break;
		case WIRE_BATCH:
			child_batch(&c);
			break;
		case WIRE_PARK:
			child_park(&c);
			break;
		case WIRE_UNPARK:
			child_unpark(&c);
			break;
		case WIRE_RELEASE:
			if (c.h.state)
				handler_call_release(&c.h);
			child_forget(&c);
			wire_put_u32(&c.w, 0);
			wire_flush(&c.w);
			break;
		default:
			_exit(0);
		}
		if (c.w.err)
			_exit(0);
	}
}
