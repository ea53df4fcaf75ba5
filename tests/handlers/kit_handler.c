// SPDX-License-Identifier: MIT
/*
 * A perf map handler written with the handler kit (opjit/handler_kit.h):
 * its line parser, and the kit for the rest.  The tests check it with
 * opjit-handler-check on real maps, as a vendor would.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <opjit/anon_handler_claim.h>
#include <opjit/handler_kit.h>

struct kit_state {
	struct opjit_kit_syms syms;
	struct opjit_kit_err err;
};

/* "START SIZE NAME", hex, the name the rest of the line */
static int kit_parse(struct kit_state *st, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	while ((len = getline(&line, &cap, f)) > 0) {
		unsigned long long start, size;
		int name = 0;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%llx %llx %n", &start, &size, &name) < 2 ||
		    !name || !line[name])
			continue;
		if (!opjit_kit_syms_add(&st->syms, start, size, line + name,
					strlen(line + name), NULL, 0)) {
			rc = -ENOMEM;
			break;
		}
	}
	free(line);
	return rc ? rc : opjit_kit_syms_index(&st->syms);
}

static int kit_load(const struct opjit_host *host,
		    const struct opjit_process *proc,
		    const struct opjit_map_candidate *c, void **state,
		    char *err, size_t errlen)
{
	struct kit_state *st;
	char why[256];
	FILE *f;
	int fd = host->open_map(host, proc, c, why, sizeof(why)), rc;

	if (fd == -ENOENT)
		return 0;
	if (fd < 0) {
		snprintf(err, errlen, "%s", why);
		return fd;
	}
	st = calloc(1, sizeof(*st));
	f = st ? fdopen(fd, "r") : NULL;
	if (!f) {
		free(st);
		close(fd);
		snprintf(err, errlen, "%s: out of memory", c->path);
		return -ENOMEM;
	}
	rc = kit_parse(st, f);
	fclose(f);
	if (rc < 0) {
		opjit_kit_syms_free(&st->syms);
		free(st);
		snprintf(err, errlen, "%s: %s", c->path, strerror(-rc));
		return rc;
	}
	*state = st;
	return 1;
}

static int kit_claim(const struct opjit_host *host,
		     const struct opjit_process *proc, void **state, char *err,
		     size_t errlen)
{
	return opjit_claim_first_map(host, proc, OPJIT_KIND(OPJIT_MAP_PERF),
				     kit_load, state, err, errlen);
}

static int kit_resolve(void *state, struct opjit_resolve_batch *b)
{
	struct kit_state *st = state;
	int rc = opjit_kit_resolve(b, opjit_kit_syms_lookup, &st->syms);

	if (rc < 0)
		return opjit_kit_errf(&st->err, rc, "batch of %zu bytes",
				      b->struct_size);
	return 0;
}

static const char *kit_last_error(void *state)
{
	return opjit_kit_err_text(&((struct kit_state *)state)->err);
}

static void kit_release(void *state)
{
	struct kit_state *st = state;

	opjit_kit_syms_free(&st->syms);
	free(st);
}

static uint32_t kit_state_flags(void *state)
{
	(void)state;
	return OPJIT_STATE_TIMELESS;
}

static const struct opjit_handler kit_table = {
	.struct_size = OPJIT_HANDLER_SIZE,
	.abi_major = OPJIT_HANDLER_ABI_MAJOR,
	.abi_minor = OPJIT_HANDLER_ABI_MINOR,
	.name = "kit",
	.description = "perf maps, through the handler kit",
	.claim = kit_claim,
	.resolve = kit_resolve,
	.last_error = kit_last_error,
	.release = kit_release,
	.state_flags = kit_state_flags,
};

OPJIT_KIT_ENTRY(kit_table)
