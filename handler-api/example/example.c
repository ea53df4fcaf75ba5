// SPDX-License-Identifier: MIT
/*
 * A complete, minimal opjit handler.  It claims a process when
 * /tmp/example-<pid>.syms exists and may be trusted, reads lines of a
 * perf map,
 *     START SIZE NAME
 * (hex start and size; NAME is the rest of the line, spaces included, as
 * in node's "JS:*fn /app/x.js:2:17") into the handler kit's symbol
 * store (<opjit/handler_kit.h>), which names samples, keeps the error
 * and hands each host a table of its minor.  Build it against an
 * installed opjit with the Makefile next to it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <opjit/anon_handler.h>
#include <opjit/handler_kit.h>

struct example_state {
	struct opjit_kit_syms syms;
	struct opjit_kit_err err;
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

	if (!st)
		return;
	opjit_kit_syms_free(&st->syms);
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
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		/* the name is everything after the size, not one word */
		name_at = -1;
		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %n", &start, &size,
			   &name_at) != 2 ||
		    name_at < 0 || !line[name_at] || !size)
			continue;
		if (!opjit_kit_syms_add(&st->syms, start, size, line + name_at,
					(size_t)(len - name_at), NULL, 0))
			goto nomem;
	}
	if (opjit_kit_syms_index(&st->syms) < 0)
		goto nomem;
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
	int rc = opjit_kit_resolve(b, opjit_kit_syms_lookup, &st->syms);

	if (rc < 0)
		return opjit_kit_errf(&st->err, rc,
				      "a batch of %zu bytes is too small",
				      b->struct_size);
	return 0;
}

static const char *example_last_error(void *state)
{
	struct example_state *st = state;

	return opjit_kit_err_text(&st->err);
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

/* NULL for a host of another major, which may lay the tables out
 * differently; to a host older than this header, a table of its minor */
OPJIT_KIT_ENTRY(example_handler)
