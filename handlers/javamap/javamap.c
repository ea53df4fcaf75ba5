// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libjavamap.so: the handler for maps written by libjavamap-agent.so.
 * It claims a process only when one of its anon.<pid> candidates starts
 * with the javamap magic, so perf-map text is left to the perfmap handler.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <opjit/anon_handler.h>
#include <opjit/anon_handler_claim.h>
#include <opjit/handler_kit.h>

#include "jm_format.h"
#include "jm_resolve.h"

/* a map larger than this is not one a JVM wrote */
#define JM_MAX_FILE (1ull << 31)

/*
 * The agent starts inside the JVM, after the process did; the recorder
 * knows the process's start to a clock tick.  An agent that started
 * earlier than this before the process belongs to an earlier process
 * that had the same pid: a JVM takes far longer than this to start.
 */
#define JM_START_SLACK_NS 50000000ull

static __attribute__((format(printf, 2, 3))) void
jm_warn(const struct opjit_host *host, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!host ||
	    host->struct_size < OPJIT_SIZE_THROUGH(struct opjit_host, warn) ||
	    !host->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	host->warn(host, msg);
}

/* Read all of FD, which fstat says is ST. */
static int jm_read_all(int fd, const struct stat *st, unsigned char **out,
		       size_t *len)
{
	size_t cap = (size_t)st->st_size + 1, n = 0;
	unsigned char *buf;

	if (!S_ISREG(st->st_mode))
		return -ESPIPE;
	if ((unsigned long long)st->st_size > JM_MAX_FILE)
		return -EFBIG;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t r;

		if (n == cap) {
			/* the JVM is still writing: take what is there */
			break;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return -errno;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	*out = buf;
	*len = n;
	return 0;
}

/*
 * Open C when it may be trusted and is a javamap.  Returns a descriptor,
 * or -1 to go on to the next candidate: missing, refused (the host has
 * warned), or another format, which is another handler's.
 */
static int jm_open_candidate(const struct opjit_host *host,
			     const struct opjit_process *proc,
			     const struct opjit_map_candidate *c,
			     struct stat *st)
{
	char magic[JM_MAGIC_LEN];
	int fd;

	fd = host->open_map(host, proc, c, NULL, 0);
	if (fd < 0)
		return -1;
	/* nothing is read from a FIFO or device, whoever vouched for it */
	if (fstat(fd, st) || !S_ISREG(st->st_mode) ||
	    pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	    !jm_is_javamap(magic, sizeof(magic))) {
		close(fd);
		return -1;
	}
	return fd;
}

static uint32_t jm_proc_pid(const struct opjit_process *proc)
{
	if (proc->struct_size >=
		    OPJIT_SIZE_THROUGH(struct opjit_process, nspid) &&
	    proc->nspid)
		return proc->nspid;
	return proc->tgid;
}

/*
 * The map's own word on whose it is, against the process: the pid the
 * writer had, and when its agent started.  NULL when it is PROC's, or the
 * reason, naming the rule.
 */
static const char *jm_identity(const struct jm_map *map,
			       const struct opjit_process *proc, char *buf,
			       size_t len)
{
	if (map->pid != jm_proc_pid(proc)) {
		snprintf(buf, len,
			 "written by pid %u, not %u (trust rule: "
			 "writer's pid)",
			 map->pid, jm_proc_pid(proc));
		return buf;
	}
	if (proc->start_ns &&
	    map->start_ns + JM_START_SLACK_NS < proc->start_ns) {
		snprintf(buf, len,
			 "written by a JVM that started %.3f s "
			 "before the process, pid reused? (trust rule: "
			 "writer's start time)",
			 (double)(proc->start_ns - map->start_ns) / 1e9);
		return buf;
	}
	return NULL;
}

/* 1 and *OUT when C is a usable javamap, 0 to try the next, or a
 * negative errno when it is ours but cannot be read (ERR says why). */
static int jm_load(const struct opjit_host *host,
		   const struct opjit_process *proc,
		   const struct opjit_map_candidate *c, void **out, char *err,
		   size_t errlen)
{
	const char *path = c->path, *why;
	char whybuf[160];
	struct jm_state *st = NULL;
	unsigned char *buf = NULL;
	struct stat sb;
	size_t len = 0;
	int fd, ret;

	fd = jm_open_candidate(host, proc, c, &sb);
	if (fd < 0)
		return 0;
	ret = jm_read_all(fd, &sb, &buf, &len);
	if (ret) {
		snprintf(err, errlen, "cannot read %s: %s", path,
			 ret == -ESPIPE	 ? "not a regular file"
			 : ret == -EFBIG ? "larger than 2 GiB"
					 : strerror(-ret));
		goto out;
	}
	st = malloc(sizeof(*st));
	if (!st) {
		ret = -ENOMEM;
		snprintf(err, errlen, "cannot load %s: out of memory", path);
		goto out;
	}
	ret = jm_state_init(st, buf, len);
	/* code bytes point into it: the state keeps it while they do */
	if (!ret && jm_state_has_bytes(st)) {
		st->buf = buf;
		buf = NULL;
	}
	if (ret) {
		snprintf(err, errlen, "cannot use %s: %s", path, st->error);
		goto out;
	}
	why = jm_identity(&st->map, proc, whybuf, sizeof(whybuf));
	if (why) {
		jm_warn(host, "%s: %s", path, why);
		goto out;
	}
	if (st->map.damage[0])
		jm_warn(host, "%s: %s; keeping the %zu records before it",
			path, st->map.damage, st->map.nr_records);
	*out = st;
	st = NULL;
	ret = 1;
out:
	if (st) {
		jm_state_free(st);
		free(st);
	}
	free(buf);
	close(fd);
	return ret;
}

static int jm_claim(const struct opjit_host *host,
		    const struct opjit_process *proc, void **state, char *err,
		    size_t errlen)
{
	return opjit_claim_first_map(host, proc, OPJIT_KIND(OPJIT_MAP_ANON),
				     jm_load, state, err, errlen);
}

static int jm_resolve(void *state, struct opjit_resolve_batch *batch)
{
	return jm_state_resolve(state, batch);
}

static int jm_code_bytes(void *state, const struct opjit_symbol *sym,
			 const uint8_t **code, uint64_t *len, uint64_t *addr,
			 uint64_t *load_ns)
{
	return jm_state_code_bytes(state, sym, code, len, addr, load_ns);
}

static const char *jm_last_error(void *state)
{
	struct jm_state *st = state;

	return st && st->error[0] ? st->error : NULL;
}

static void jm_release(void *state)
{
	struct jm_state *st = state;

	if (!st)
		return;
	jm_state_free(st);
	free(st);
}

/* Built twice: libjavamap.so for the JVM's agent, and libjitlog.so for
 * every JIT that writes the same format through libopjit-jitlog. */
#ifndef JM_HANDLER_NAME
#define JM_HANDLER_NAME "javamap"
#define JM_HANDLER_DESC                                                \
	"Java methods, lines and inlining from libjavamap-agent.so's " \
	"time-stamped maps"
#else
#define JM_HANDLER_DESC                                                     \
	"JIT code, lines and inlining from libopjit-jitlog's time-stamped " \
	"maps (and the JVM agent's)"
#endif

static const struct opjit_handler jm_handler = {
	.struct_size = OPJIT_HANDLER_SIZE,
	.abi_major = OPJIT_HANDLER_ABI_MAJOR,
	.abi_minor = OPJIT_HANDLER_ABI_MINOR,
	.name = JM_HANDLER_NAME,
	.description = JM_HANDLER_DESC,
	.claim = jm_claim,
	.resolve = jm_resolve,
	.last_error = jm_last_error,
	.release = jm_release,
	.code_bytes = jm_code_bytes,
};

/* Each host gets a table of its own minor: one older than 1.4 one
 * without code_bytes, as the growth rules ask. */
OPJIT_KIT_ENTRY(jm_handler)
