// SPDX-License-Identifier: MIT
/*
 * A complete, minimal opjit handler.  It claims a process when
 * /tmp/example-<pid>.syms exists and may be trusted, reads lines of a
 * perf map,
 *     START SIZE NAME
 * (hex start and size; NAME is the rest of the line, spaces included, as
 * in node's "JS:*fn /app/x.js:2:17") and names samples by a linear scan.
 * Build it against an installed opjit with the Makefile next to it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <opjit/anon_handler.h>

struct example_state {
	struct opjit_symbol *syms;
	size_t n;
	char err[256];
};

/* Open PATH for reading through the host, which applies the trust rules
 * every handler must apply to a file in /tmp and warns about a refusal,
 * naming the file and the rule.  NULL when missing or refused. */
static FILE *open_trusted(const struct opjit_host *host,
			  const struct opjit_process *proc, const char *path)
{
	struct opjit_map_candidate c = {
		.struct_size = OPJIT_MAP_CANDIDATE_SIZE_1_0,
		.path = path,
	};
	int fd = host->open_map(host, proc, &c, NULL, 0);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "r");

	if (!f && fd >= 0)
		close(fd);
	return f;
}

static void example_release(void *state)
{
	struct example_state *st = state;
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->n; i++)
		free((char *)st->syms[i].name);
	free(st->syms);
	free(st);
}

static int example_claim(const struct opjit_host *host,
			 const struct opjit_process *proc, void **state,
			 char *err, size_t errlen)
{
	struct example_state *st;
	char path[64], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	uint64_t start, size;
	int name_at;
	FILE *f;

	*state = NULL;
	/* a host older than the one this was built for has no open_map */
	if (host->struct_size < OPJIT_HOST_SIZE_1_0 || !host->open_map)
		return 0;
	snprintf(path, sizeof(path), "/tmp/example-%u.syms", proc->tgid);
	f = open_trusted(host, proc, path);
	if (!f)
		return 0;
	st = calloc(1, sizeof(*st));
	if (!st)
		goto nomem;
	while ((len = getline(&line, &cap, f)) > 0) {
		struct opjit_symbol *v;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		/* the name is everything after the size, not one word */
		name_at = -1;
		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %n", &start, &size,
			   &name_at) != 2 ||
		    name_at < 0 || !line[name_at] || !size)
			continue;
		v = realloc(st->syms, (st->n + 1) * sizeof(*v));
		if (!v)
			goto nomem;
		st->syms = v;
		memset(&v[st->n], 0, sizeof(v[st->n]));
		v[st->n].struct_size = OPJIT_SYMBOL_SIZE_1_0;
		v[st->n].name = strdup(line + name_at);
		v[st->n].start = start;
		v[st->n].size = size;
		if (!v[st->n].name)
			goto nomem;
		st->n++;
	}
	free(line);
	fclose(f);
	*state = st;
	return 1;
nomem:
	free(line);
	fclose(f);
	example_release(st);
	snprintf(err, errlen, "%s: out of memory", path);
	return -ENOMEM;
}

static int example_resolve(void *state, struct opjit_resolve_batch *b)
{
	struct example_state *st = state;
	size_t i, j;

	for (i = 0; i < b->count; i++) {
		for (j = 0; j < st->n; j++)
			if (b->addrs[i] - st->syms[j].start < st->syms[j].size)
				b->symbols[i] = &st->syms[j];
		/* say why a sample stays unnamed, when the host asks */
		if (!b->symbols[i] &&
		    b->struct_size >= OPJIT_RESOLVE_BATCH_SIZE_1_0 &&
		    b->reasons)
			b->reasons[i] = OPJIT_UNRESOLVED_NO_ENTRY;
	}
	return 0;
}

static const char *example_last_error(void *state)
{
	struct example_state *st = state;

	return st->err[0] ? st->err : NULL;
}

static const struct opjit_handler example_handler = {
	.struct_size = OPJIT_HANDLER_SIZE,
	.abi_major = OPJIT_HANDLER_ABI_MAJOR,
	.abi_minor = OPJIT_HANDLER_ABI_MINOR,
	.name = "example",
	.description = "example: /tmp/example-PID.syms (perf map lines)",
	.claim = example_claim,
	.resolve = example_resolve,
	.last_error = example_last_error,
	.release = example_release,
};

OPJIT_HANDLER_EXPORT const struct opjit_handler *
opjit_handler_entry(uint32_t host_abi_major, uint32_t host_abi_minor)
{
	(void)host_abi_minor;
	/* A host of another major may lay the tables out differently. */
	if (host_abi_major != OPJIT_HANDLER_ABI_MAJOR)
		return NULL;
	return &example_handler;
}
