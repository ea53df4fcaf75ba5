// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The calls into a handler's table, made where the handler runs: inside
 * opreport with --handler-isolation=none, or inside its helper process.
 * This file and handler_open.c are the loader's only users of the
 * handler's function slots.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "anon_handlers.h"
#include "handler_internal.h"

static void host_warn(const struct opjit_host *host, const char *msg)
{
	handler_warn(host->host_data, msg);
}

/* The trust rules, counted so that a process no handler could claim
 * because its map was refused says so in its summary line. */
static int host_open_map(const struct opjit_host *host,
			 const struct opjit_process *proc,
			 const struct opjit_map_candidate *c, char *why,
			 size_t whylen)
{
	struct anon_handler *h = host->host_data;
	char mine[HANDLER_WHY_LEN];
	int rc;

	/* the report says why, even to a handler that does not ask */
	if (!why || !whylen) {
		why = mine;
		whylen = sizeof(mine);
	}
	rc = handler_trust_open_map(host, proc, c, why, whylen);

	if (rc < 0 && rc != -ENOENT && rc != -EINVAL && !h->maps_refused++)
		handler_text_clean(why, h->refused_why,
				   sizeof(h->refused_why));
	return rc;
}

void handler_host_init(struct anon_handler *h)
{
	h->host.struct_size = HANDLER_GIVES_HOST;
	h->host.abi_major = OPJIT_HANDLER_ABI_MAJOR;
	h->host.abi_minor = OPJIT_HANDLER_ABI_MINOR;
	h->host.warn = host_warn;
	h->host.host_data = h;
	h->host.open_map = host_open_map;
}

static void said(const struct anon_handler *h, void *state, char *why,
		 size_t len)
{
	const char *e = h->tab.last_error ? h->tab.last_error(state) : NULL;

	if (e && e[0])
		handler_text_clean(e, why, len);
	else
		snprintf(why, len, "no reason given");
}

/* The bytes malloc has handed out, mapped chunks included: exact for
 * glibc's malloc, 0 under a sanitizer's allocator. */
static size_t heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

size_t handler_statm_bytes(unsigned field)
{
	unsigned long v[HANDLER_STATM_DATA + 1];
	FILE *f = fopen("/proc/self/statm", "re");
	unsigned n = 0;

	while (f && n <= field && n <= HANDLER_STATM_DATA &&
	       fscanf(f, "%lu", &v[n]) == 1)
		n++;
	if (f)
		fclose(f);
	return n > field ? v[field] * (size_t)sysconf(_SC_PAGESIZE) : 0;
}

/* The bytes of the process's data mappings, or 0: what a helper's
 * address-space limit counts, a handler's own mappings and a
 * sanitizer's allocator included. */
static size_t data_mapped(void)
{
	return handler_statm_bytes(HANDLER_STATM_DATA);
}

/* The larger growth of the two since BEFORE (heap, mapped). */
static size_t grown(const size_t before[2])
{
	size_t h = heap_used(), m = data_mapped();
	size_t dh = h > before[0] ? h - before[0] : 0;
	size_t dm = m > before[1] ? m - before[1] : 0;

	return dh > dm ? dh : dm;
}

int handler_call_claim(struct anon_handler *h, const struct opjit_process *op,
		       char *why, size_t len)
{
	char err[HANDLER_WHY_LEN] = "";
	void *state = NULL;
	size_t before[2] = { heap_used(), data_mapped() };
	int rc;

	h->maps_refused = 0;
	h->refused_why[0] = '\0';
	rc = h->tab.claim(&h->host, op, &state, err, sizeof(err));
	if (rc < 0) {
		/* the handler's text, however it ended */
		err[sizeof(err) - 1] = '\0';
		if (err[0])
			handler_text_clean(err, why, len);
		else
			snprintf(why, len, "no reason given");
		return -HANDLER_SAID;
	}
	if (rc == 0)
		return 0;
	h->state = state;
	/* what holding the state costs, about: the heap it grew by (a
	 * report holds no more than HANDLER_HELD_BYTES of them) */
	h->state_bytes = grown(before);
	/* the slot is there when the table was long enough to hold it */
	h->state_flags = h->tab.state_flags ? h->tab.state_flags(state) : 0;
	return 1;
}

/* The code of the handler's symbol OS, into S (ABI 1.4).  A failure is
 * kept in S, for the annotation to say, and costs nothing else. */
static void call_code(void *ctx, const struct opjit_symbol *os,
		      struct anon_symbol *s)
{
	struct anon_handler *h = ctx;
	const uint8_t *code = NULL;
	uint64_t len = 0, addr = 0, load_ns = 0;
	int rc;

	rc = h->tab.code_bytes(h->state, os, &code, &len, &addr, &load_ns);
	if (rc < 0) {
		s->code_err = rc >= -4095 ? rc : -EPROTO;
		return;
	}
	if (len > HANDLER_MAX_CODE) {
		s->code_err = -EFBIG;
		return;
	}
	if (!code || !len) {
		s->code_err = -ENOENT;
		return;
	}
	s->code = code;
	s->code_len = len;
	s->code_addr = addr;
	s->code_load_ns = load_ns;
}

int handler_call_resolve(struct anon_handler *h, struct handler_collect *c,
			 const uint64_t *addrs, const uint64_t *times,
			 size_t n, struct handler_answer *ans, char *why,
			 size_t len)
{
	struct opjit_resolve_batch b;
	size_t k = n ? n : 1;
	int rc;

	memset(&b, 0, sizeof(b));
	b.struct_size = HANDLER_GIVES_BATCH;
	b.count = n;
	b.addrs = addrs;
	b.times = times;
	b.symbols = calloc(k, sizeof(*b.symbols));
	b.files = calloc(k, sizeof(*b.files));
	b.lines = calloc(k, sizeof(*b.lines));
	b.reasons = calloc(k, sizeof(*b.reasons));
	b.inlined = calloc(k, sizeof(*b.inlined));
	b.nr_inlined = calloc(k, sizeof(*b.nr_inlined));
	if (!b.symbols || !b.files || !b.lines || !b.reasons || !b.inlined ||
	    !b.nr_inlined) {
		snprintf(why, len, "out of memory");
		rc = -HANDLER_NOMEM;
		goto out;
	}
	rc = h->tab.resolve(h->state, &b);
	if (rc < 0) {
		said(h, h->state, why, len);
		rc = -HANDLER_SAID;
		goto out;
	}
	/* the slot is there when the table was long enough to hold it */
	handler_collect_code(
		c, handler_want_code && h->tab.code_bytes ? call_code : NULL,
		h);
	rc = handler_collect_batch(c, &b, ans, why, len);
out:
	free(b.symbols);
	free(b.files);
	free(b.lines);
	free(b.reasons);
	free(b.inlined);
	free(b.nr_inlined);
	return rc;
}

void handler_call_release(struct anon_handler *h)
{
	h->tab.release(h->state);
	h->state = NULL;
	h->state_flags = 0;
}

/* ---- the in-process path ---- */

static int inproc_claim(struct anon_handler *h, const struct opjit_process *op,
			char *why, size_t len)
{
	return handler_call_claim(h, op, why, len);
}

static int inproc_resolve(struct anon_handler *h, struct handler_arena **arena,
			  struct handler_table *t, const uint64_t *addrs,
			  const uint64_t *times, size_t n,
			  struct handler_answer *ans, char *why, size_t len)
{
	const struct handler_table *ct;
	size_t i;
	int rc;

	if (!h->collect) {
		h->collect = handler_collect_new(arena);
		if (!h->collect)
			goto nomem;
	}
	rc = handler_call_resolve(h, h->collect, addrs, times, n, ans, why,
				  len);
	if (rc < 0)
		return rc;
	/* the caller's table mirrors the collector's, as a helper's does */
	ct = handler_collect_table(h->collect);
	for (i = t->nsym; i < ct->nsym; i++)
		if (handler_table_add_sym(t, ct->sym[i]) < 0)
			goto nomem;
	for (i = t->nfile; i < ct->nfile; i++)
		if (handler_table_add_file(t, ct->file[i]) < 0)
			goto nomem;
	t->malformed = ct->malformed;
	t->malformed_inl = ct->malformed_inl;
	return 0;
nomem:
	snprintf(why, len, "out of memory");
	return -HANDLER_NOMEM;
}

static int inproc_release(struct anon_handler *h, char *why, size_t len)
{
	handler_call_release(h);
	handler_collect_free(h->collect);
	h->collect = NULL;
	return 0;
}

/* In-process, a state set aside is the handler's pointer, kept. */
static int inproc_park(struct anon_handler *h, struct handler_held *held,
		       uint32_t slot, char *why, size_t len)
{
	(void)why;
	(void)len;
	*held = (struct handler_held){ .state = h->state,
				       .collect = h->collect,
				       .state_flags = h->state_flags,
				       .slot = slot };
	h->state = NULL;
	h->collect = NULL;
	h->state_flags = 0;
	return 0;
}

static int inproc_unpark(struct anon_handler *h, struct handler_held *held,
			 const struct opjit_process *op, char *why, size_t len)
{
	(void)op;
	(void)why;
	(void)len;
	h->state = held->state;
	h->collect = held->collect;
	h->state_flags = held->state_flags;
	memset(held, 0, sizeof(*held));
	return 1;
}

const struct handler_ops handler_call_ops = {
	.claim = inproc_claim,
	.resolve = inproc_resolve,
	.release = inproc_release,
	.park = inproc_park,
	.unpark = inproc_unpark,
};
