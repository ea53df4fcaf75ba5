// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Running a handler in a helper process of its own: opreport forks, the
 * child sandboxes itself and loads the handler (handler_child.c), and
 * every call goes over a socket pair with a time limit.  A helper that
 * dies, hangs or answers something malformed is killed and reaped, the
 * call fails with what happened, and the next process the handler is
 * offered starts a fresh helper.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../diag.h"
#include "anon_handlers.h"
#include "handler_internal.h"
#include "handler_wire.h"

struct handler_proc {
	pid_t pid;
	struct wire w;
	/* the process claimed, whose candidates the helper may ask for,
	 * from claim to release */
	const struct opjit_process *op;
};

/* Everything but the channel closed; stdout to /dev/null, so that a
 * handler printing cannot add to the report. */
static void child_fds(int fd)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
	}
	if (dup2(fd, 3) < 0)
		_exit(127);
	closefrom(4);
}

static int proc_spawn(struct handler_proc *p, const char *path,
		      const char *name)
{
	pid_t parent = getpid();
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	/* nothing buffered may be written twice */
	fflush(NULL);
	p->pid = fork();
	if (p->pid < 0) {
		int rc = -errno;

		close(sv[0]);
		close(sv[1]);
		return rc;
	}
	if (p->pid == 0) {
		struct rlimit core = { 0, 0 };

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		/* a fault ends the helper with its signal, whatever opreport
		 * (or a sanitizer in it) had installed, so the signal can be
		 * named */
		signal(SIGPIPE, SIG_DFL);
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGFPE, SIG_DFL);
		signal(SIGILL, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		setrlimit(RLIMIT_CORE, &core);
		child_fds(sv[1]);
		handler_child_main(3, path, name);
	}
	close(sv[1]);
	fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
	wire_init(&p->w, sv[0], true);
	return 0;
}

/* Wait up to MS for the helper to end by itself. */
static bool proc_reaped(pid_t pid, int *status, unsigned ms)
{
	struct timespec ts = { 0, 1000000 };
	unsigned i;

	for (i = 0; i <= ms; i++) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

/* End the helper and say why the call failed: ERR is the channel's. */
static void proc_end(struct anon_handler *h, int err, char *why, size_t len)
{
	struct handler_proc *p = h->proc;
	int status = 0;

	if (!p)
		return;
	if (err == -ETIMEDOUT) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, &status, 0);
		snprintf(why, len, "took longer than %g s",
			 handler_isolation.timeout_ms / 1000.0);
	} else if (err == -EPROTO) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, &status, 0);
		snprintf(why, len, "sent a malformed answer");
	} else if (err == 0 || err == -ENOMEM) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, &status, 0);
		if (err)
			snprintf(why, len, "could not be read: out of memory");
	} else {
		if (!proc_reaped(p->pid, &status, 1000)) {
			kill(p->pid, SIGKILL);
			waitpid(p->pid, &status, 0);
			snprintf(why, len, "closed its channel");
		} else if (WIFSIGNALED(status)) {
			const char *sig = sigabbrev_np(WTERMSIG(status));

			if (sig)
				snprintf(why, len, "killed by SIG%s", sig);
			else
				snprintf(why, len, "killed by signal %d",
					 WTERMSIG(status));
		} else {
			snprintf(why, len, "exited with status %d",
				 WEXITSTATUS(status));
		}
	}
	close(p->w.fd);
	wire_free(&p->w);
	free(p);
	h->proc = NULL;
}

void handler_proc_close(struct anon_handler *h)
{
	char why[HANDLER_WHY_LEN];

	proc_end(h, 0, why, sizeof(why));
	free(h->description);
	h->description = NULL;
}

/* Start H's helper and read what it says of the handler: 0, or a
 * negative errno with REASON (not reported: the caller names the file). */
static int proc_start(struct anon_handler *h, const char *path,
		      const char *name, char *reason, size_t len)
{
	struct handler_proc *p = calloc(1, sizeof(*p));
	struct wire *w;
	char *desc = NULL;
	int32_t rc;

	if (!p) {
		snprintf(reason, len, "out of memory");
		return -ENOMEM;
	}
	rc = proc_spawn(p, path, name);
	if (rc < 0) {
		snprintf(reason, len, "cannot start its helper process: %s",
			 strerror(-rc));
		free(p);
		return rc;
	}
	h->proc = p;
	h->helper_gen++;
	w = &p->w;
	wire_deadline(w, handler_isolation.timeout_ms);
	rc = (int32_t)wire_get_u32(w);
	if (!w->err && rc < 0) {
		char *r = NULL;

		wire_get_str(w, &r, HANDLER_WHY_LEN, NULL, NULL);
		if (!w->err) {
			handler_text_clean(r ? r : "refused", reason, len);
			free(r);
			proc_end(h, 0, reason, 0);
			return -EPROTO;
		}
	} else if (!w->err) {
		h->tab.abi_major = wire_get_u32(w);
		h->tab.abi_minor = wire_get_u32(w);
		h->tab.struct_size = (size_t)wire_get_u64(w);
		wire_get_str(w, &desc, HANDLER_WHY_LEN, NULL, NULL);
	}
	if (w->err) {
		char why[HANDLER_WHY_LEN];

		free(desc);
		proc_end(h, w->err, why, sizeof(why));
		snprintf(reason, len, "%s while loading", why);
		return -EPROTO;
	}
	free(h->description);
	h->description = desc;
	h->tab.description = desc;
	return 0;
}

int handler_proc_load(struct anon_handler *h, const char *path,
		      const char *name, char *reason, size_t len)
{
	int rc;

	memset(h, 0, sizeof(*h));
	h->name = strdup(name);
	h->path = strdup(path);
	if (!h->name || !h->path) {
		rc = -ENOMEM;
		snprintf(reason, len, "out of memory");
		goto out;
	}
	h->tab.name = h->name;
	/* the warnings of the maps opened here for the helper */
	handler_host_init(h);
	rc = proc_start(h, path, name, reason, len);
out:
	if (rc < 0) {
		free(h->name);
		free(h->path);
		free(h->description);
		memset(h, 0, sizeof(*h));
	}
	return rc;
}

/* A reason the helper sent, cleaned into WHY; without one, NONE (NULL:
 * WHY is left as it is). */
static void proc_get_why(struct wire *w, const char *none, char *why,
			 size_t len)
{
	char *e = NULL;

	wire_get_str(w, &e, HANDLER_WHY_LEN, NULL, NULL);
	if (!w->err && (e || none))
		handler_text_clean(e ? e : none, why, len);
	free(e);
}

/* A map file the helper asked for: opened and checked here, by whoever
 * runs opreport, and sent as a descriptor.  Refusals are warned of here,
 * in their place among the helper's own warnings. */
static void proc_open(struct anon_handler *h)
{
	struct handler_proc *p = h->proc;
	struct wire *w = &p->w;
	char why[HANDLER_WHY_LEN];
	uint32_t i = wire_get_u32(w);
	int fd;

	if (w->err)
		return;
	if (!p->op || i >= p->op->nr_maps) {
		w->err = -EPROTO;
		return;
	}
	fd = handler_trust_open_raw(&h->host, p->op, p->op->maps[i], why,
				    sizeof(why));
	wire_send_fd(w, fd < 0 ? fd : 0, fd);
	if (fd >= 0)
		close(fd);
	else if (fd != -ENOENT && fd != -EINVAL)
		wire_put_str(w, why);
	wire_flush(w);
}

/* The helper's answer code, after printing the warnings before it and
 * answering its requests for maps. */
static int32_t proc_answer(struct anon_handler *h)
{
	struct wire *w = &h->proc->w;
	uint32_t v = wire_get_u32(w);

	while (!w->err && (v == WIRE_WARN || v == WIRE_OPEN)) {
		char *msg = NULL;

		if (v == WIRE_OPEN) {
			proc_open(h);
		} else {
			wire_get_str(w, &msg, 1024, NULL, NULL);
			if (!w->err)
				handler_warn(h, msg);
			free(msg);
		}
		v = wire_get_u32(w);
	}
	return (int32_t)v;
}

/* -HANDLER_BROKE with WHY, the helper gone. */
static int proc_broke(struct anon_handler *h, char *why, size_t len)
{
	proc_end(h, h->proc ? h->proc->w.err : 0, why, len);
	return -HANDLER_BROKE;
}

static int proc_claim(struct anon_handler *h, const struct opjit_process *op,
		      char *why, size_t len)
{
	struct wire *w;
	size_t i;
	int32_t rc;

	if (h->broken)
		return 0;
	if (!h->proc) {
		char reason[HANDLER_WHY_LEN];

		if (proc_start(h, h->path, h->name, reason, sizeof(reason)) <
		    0) {
			diag("skipping handler %s: %s", h->path, reason);
			h->broken = true;
			return 0;
		}
	}
	w = &h->proc->w;
	h->proc->op = op;
	wire_deadline(w, handler_isolation.timeout_ms);
	wire_put_u32(w, WIRE_CLAIM);
	wire_put_u32(w, op->tgid);
	wire_put_u32(w, op->nspid);
	wire_put_u32(w, op->uid);
	wire_put_u32(w, op->flags);
	wire_put_u64(w, op->start_ns);
	wire_put_u64(w, (uint64_t)op->start_unix_ns);
	wire_put_str(w, op->comm);
	wire_put_str(w, op->exe);
	wire_put_u32(w, (uint32_t)op->nr_maps);
	for (i = 0; i < op->nr_maps; i++) {
		wire_put_str(w, op->maps[i]->path);
		wire_put_u32(w, op->maps[i]->kind);
		wire_put_u32(w, op->maps[i]->flags);
	}
	wire_flush(w);
	rc = proc_answer(h);
	h->maps_refused = wire_get_u32(w);
	h->refused_why[0] = '\0';
	if (!w->err && h->maps_refused)
		proc_get_why(w, NULL, h->refused_why, sizeof(h->refused_why));
	if (!w->err && rc < 0) {
		proc_get_why(w, "no reason given", why, len);
		if (!w->err && rc != -HANDLER_SAID && rc != -HANDLER_BROKE)
			w->err = -EPROTO;
	} else if (!w->err && rc > 1) {
		w->err = -EPROTO;
	}
	h->state_flags = !w->err && rc == 1 ? wire_get_u32(w) : 0;
	h->state_bytes = !w->err && rc == 1 ? wire_get_u64(w) : 0;
	if (w->err)
		return proc_broke(h, why, len);
	if (rc != 1)
		h->proc->op = NULL;
	return rc;
}

static void *arena_alloc(void *ctx, size_t n)
{
	return handler_arena_alloc(ctx, n);
}

/* The new table entries of a batch of N samples, checked: a sample
 * brings at most its symbol and the frames it was inlined into. */
static int proc_read_new(struct wire *w, struct handler_arena **arena,
			 struct handler_table *t, size_t n, char *why,
			 size_t len)
{
	const size_t most = n * (1 + (size_t)OPJIT_INLINE_MAX);
	uint32_t i, k = wire_get_u32(w);

	if (!w->err && k > most)
		w->err = -EPROTO;
	for (i = 0; i < k && !w->err; i++) {
		struct anon_symbol *s = handler_arena_alloc(arena, sizeof(*s));
		char *name = NULL, *file = NULL;

		if (!s) {
			w->err = -ENOMEM;
			break;
		}
		s->start = wire_get_u64(w);
		s->size = wire_get_u64(w);
		s->line = wire_get_u32(w);
		wire_get_str(w, &name, HANDLER_MAX_TEXT, arena_alloc, arena);
		wire_get_str(w, &file, HANDLER_MAX_TEXT, arena_alloc, arena);
		s->name = name;
		s->file = file;
		s->code_err = (int32_t)wire_get_u32(w);
		s->code_len = wire_get_u64(w);
		if (!w->err && s->code_len > HANDLER_MAX_CODE)
			w->err = -EPROTO;
		if (!w->err && s->code_len) {
			uint8_t *code =
				handler_arena_alloc(arena, s->code_len);

			s->code_addr = wire_get_u64(w);
			s->code_load_ns = wire_get_u64(w);
			if (!code)
				w->err = -ENOMEM;
			else
				wire_get(w, code, s->code_len);
			s->code = code;
		}
		if (w->err)
			break;
		if (handler_sym_check(s, why, len) < 0 ||
		    handler_table_add_sym(t, s) < 0)
			w->err = -EPROTO;
	}
	t->malformed = (size_t)wire_get_u64(w);
	t->malformed_inl = (size_t)wire_get_u64(w);
	k = wire_get_u32(w);
	if (!w->err && k > most)
		w->err = -EPROTO;
	for (i = 0; i < k && !w->err; i++) {
		char *f = NULL;

		wire_get_str(w, &f, HANDLER_MAX_TEXT, arena_alloc, arena);
		if (!w->err && (!f || handler_table_add_file(t, f) < 0))
			w->err = -EPROTO;
	}
	return w->err;
}

/* The inline frames of a batch of N samples, checked against T. */
static void proc_read_inline(struct wire *w, const struct handler_table *t,
			     size_t n, struct handler_answer *ans)
{
	size_t i, total = 0;
	uint32_t len;

	wire_get(w, ans->nr_inl, n * sizeof(*ans->nr_inl));
	for (i = 0; i < n && !w->err; i++) {
		if (ans->nr_inl[i] > OPJIT_INLINE_MAX ||
		    (ans->nr_inl[i] && !ans->sym[i]))
			w->err = -EPROTO;
		total += ans->nr_inl[i];
	}
	len = wire_get_u32(w);
	if (!w->err && len != total)
		w->err = -EPROTO;
	if (w->err)
		return;
	ans->len_inl = 0;
	if (handler_answer_inl_reserve(ans, len) < 0) {
		w->err = -ENOMEM;
		return;
	}
	wire_get(w, ans->inl, len * sizeof(*ans->inl));
	for (i = 0; i < len && !w->err; i++)
		if (!ans->inl[i].sym || ans->inl[i].sym > t->nsym ||
		    ans->inl[i].file > t->nfile)
			w->err = -EPROTO;
	ans->len_inl = w->err ? 0 : len;
}

static int proc_resolve(struct anon_handler *h, struct handler_arena **arena,
			struct handler_table *t, const uint64_t *addrs,
			const uint64_t *times, size_t n,
			struct handler_answer *ans, char *why, size_t len)
{
	struct wire *w;
	size_t i;
	int32_t rc;

	if (!h->proc)
		return -HANDLER_BROKE;
	w = &h->proc->w;
	wire_deadline(w, handler_isolation.timeout_ms);
	wire_put_u32(w, WIRE_BATCH);
	wire_put_u32(w, (uint32_t)n);
	wire_put(w, addrs, n * sizeof(*addrs));
	wire_put(w, times, n * sizeof(*times));
	wire_flush(w);
	rc = proc_answer(h);
	if (!w->err && rc < 0) {
		proc_get_why(w, "no reason given", why, len);
		if (!w->err && (rc == -HANDLER_SAID || rc == -HANDLER_BROKE))
			return rc;
		w->err = -EPROTO;
	} else if (!w->err && rc != 0) {
		w->err = -EPROTO;
	}
	if (!w->err)
		proc_read_new(w, arena, t, n, why, len);
	wire_get(w, ans->sym, n * sizeof(*ans->sym));
	wire_get(w, ans->file, n * sizeof(*ans->file));
	wire_get(w, ans->line, n * sizeof(*ans->line));
	wire_get(w, ans->reason, n * sizeof(*ans->reason));
	for (i = 0; i < n && !w->err; i++)
		if (ans->sym[i] > t->nsym || ans->file[i] > t->nfile ||
		    ans->reason[i] >= ANON_NR_REASONS ||
		    (ans->sym[i] && ans->reason[i]))
			w->err = -EPROTO;
	if (!w->err)
		proc_read_inline(w, t, n, ans);
	if (w->err)
		return proc_broke(h, why, len);
	return 0;
}

static int proc_release(struct anon_handler *h, char *why, size_t len)
{
	struct wire *w;

	if (!h->proc)
		return 0;
	w = &h->proc->w;
	wire_deadline(w, handler_isolation.timeout_ms);
	wire_put_u32(w, WIRE_RELEASE);
	wire_flush(w);
	if (proc_answer(h) != 0 && !w->err)
		w->err = -EPROTO;
	h->proc->op = NULL;
	if (w->err)
		return proc_broke(h, why, len);
	return 0;
}

/* One call of PARK or UNPARK on SLOT: the helper's answer, or
 * -HANDLER_BROKE with WHY (the helper gone). */
static int proc_slot_call(struct anon_handler *h, uint32_t call, uint32_t slot,
			  char *why, size_t len)
{
	struct wire *w = &h->proc->w;
	int32_t rc;

	wire_deadline(w, handler_isolation.timeout_ms);
	wire_put_u32(w, call);
	wire_put_u32(w, slot);
	wire_flush(w);
	rc = proc_answer(h);
	if (!w->err && (call == WIRE_PARK ? rc != 0 && rc != -HANDLER_NOMEM
					  : rc != 0 && rc != 1))
		w->err = -EPROTO;
	if (w->err)
		return proc_broke(h, why, len);
	return rc;
}

static int proc_park(struct anon_handler *h, struct handler_held *held,
		     uint32_t slot, char *why, size_t len)
{
	int rc;

	memset(held, 0, sizeof(*held));
	if (!h->proc)
		return -HANDLER_BROKE;
	held->slot = slot;
	held->helper = h->helper_gen;
	held->state_flags = h->state_flags;
	h->state_flags = 0;
	h->proc->op = NULL;
	rc = proc_slot_call(h, WIRE_PARK, slot, why, len);
	if (rc == -HANDLER_NOMEM)
		snprintf(why, len, "out of memory");
	return rc;
}

static int proc_unpark(struct anon_handler *h, struct handler_held *held,
		       const struct opjit_process *op, char *why, size_t len)
{
	int rc;

	if (!h->proc || h->helper_gen != held->helper)
		return 0;
	rc = proc_slot_call(h, WIRE_UNPARK, held->slot, why, len);
	if (rc == 1) {
		h->proc->op = op;
		h->state_flags = held->state_flags;
	}
	return rc;
}

const struct handler_ops handler_proc_ops = {
	.claim = proc_claim,
	.resolve = proc_resolve,
	.release = proc_release,
	.park = proc_park,
	.unpark = proc_unpark,
};
