// SPDX-License-Identifier: MIT
/*
 * A complete, minimal opjit handler.  It claims a process when
 * /tmp/example-<pid>.syms exists and may be trusted, reads lines of
 *     START END NAME
 * (hex addresses, END exclusive) and names samples by a linear scan.
 * Build it against an installed opjit with the Makefile next to it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <opjit/anon_handler.h>

struct example_state {
	struct opjit_symbol *syms;
	size_t n;
	char err[256];
};

static char claim_err[256];

/* The trust rules every handler applies to a file in /tmp: no symlink, a
 * regular file owned by the process's user or root, writable only by its
 * owner, and not older than the process (a reused pid). */
static FILE *open_trusted(const struct opjit_host *host,
			  const struct opjit_process *proc, const char *path)
{
	char msg[512];
	const char *why = NULL;
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		if (errno != ENOENT) {
			snprintf(msg, sizeof(msg), "%s: %s", path,
				 strerror(errno));
			host->warn(host, msg);
		}
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (st.st_uid != proc->uid && st.st_uid != 0)
		why = "not owned by the process's user or root";
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		why = "writable by group or others";
	else if (proc->start_unix_ns > 0 &&
		 (int64_t)st.st_mtime + 1 < proc->start_unix_ns / 1000000000)
		why = "last modified before the process started";
	if (why) {
		snprintf(msg, sizeof(msg), "%s: %s", path, why);
		host->warn(host, msg);
		close(fd);
		return NULL;
	}
	return fdopen(fd, "r");
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
			 const struct opjit_process *proc, void **state)
{
	struct example_state *st;
	char path[64], name[256];
	uint64_t start, end;
	FILE *f;

	*state = NULL;
	snprintf(path, sizeof(path), "/tmp/example-%u.syms", proc->tgid);
	f = open_trusted(host, proc, path);
	if (!f)
		return 0;
	st = calloc(1, sizeof(*st));
	if (!st)
		goto nomem;
	while (fscanf(f, "%" SCNx64 " %" SCNx64 " %255s", &start, &end,
		      name) == 3) {
		struct opjit_symbol *v;

		if (end <= start)
			continue;
		v = realloc(st->syms, (st->n + 1) * sizeof(*v));
		if (!v)
			goto nomem;
		st->syms = v;
		memset(&v[st->n], 0, sizeof(v[st->n]));
		v[st->n].struct_size = sizeof(v[st->n]);
		v[st->n].name = strdup(name);
		v[st->n].start = start;
		v[st->n].size = end - start;
		if (!v[st->n].name)
			goto nomem;
		st->n++;
	}
	fclose(f);
	*state = st;
	return 1;
nomem:
	fclose(f);
	example_release(st);
	snprintf(claim_err, sizeof(claim_err), "%s: out of memory", path);
	return -ENOMEM;
}

static int example_resolve(void *state, struct opjit_resolve_batch *b)
{
	struct example_state *st = state;
	size_t i, j;

	for (i = 0; i < b->count; i++)
		for (j = 0; j < st->n; j++)
			if (b->addrs[i] - st->syms[j].start < st->syms[j].size)
				b->symbols[i] = &st->syms[j];
	return 0;
}

static const char *example_last_error(void *state)
{
	struct example_state *st = state;

	return st ? st->err : claim_err;
}

static const struct opjit_handler example_handler = {
	.struct_size = sizeof(struct opjit_handler),
	.abi_major = OPJIT_HANDLER_ABI_MAJOR,
	.abi_minor = OPJIT_HANDLER_ABI_MINOR,
	.name = "example",
	.description = "example: /tmp/example-PID.syms (START END NAME)",
	.claim = example_claim,
	.resolve = example_resolve,
	.for_each_symbol = NULL, /* not supported */
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
