// SPDX-License-Identifier: GPL-3.0-or-later
#include "jitlog_attach.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <opjit/jitlog.h>

#include "elf_dynsym.h"
#include "recorder.h"
#include "userfile.h"

#define LIBRARY_NAME "libopjit-jitlog.so"
#define LIBRARY_MAX_BYTES (64u << 20)
/* rounds to try when the control block is not mapped yet (the loader
 * maps the library's data after its code) */
#define MAX_TRIES 200
#define SETTLE_NS 1000000000ull
#define SETTLE_STEP_NS 20000000L

#define STATE_OFF offsetof(struct opjit_jitlog_control, state)

bool jitlog_attach_is_library(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, LIBRARY_NAME, strlen(LIBRARY_NAME)) &&
	       (!base[strlen(LIBRARY_NAME)] ||
		base[strlen(LIBRARY_NAME)] == '.');
}

static void fail(struct proc *p, const char *what, int err)
{
	bool denied = err == EACCES || err == EPERM;

	p->jitlog = JITLOG_FAILED;
	fprintf(stderr,
		"oprofiled: cannot attach to the JIT log of pid %u (%s): %s: "
		"%s%s; its code is named only if its JIT writes the log "
		"without a profiler\n",
		p->tgid, p->comm, what, strerror(err),
		denied ? " (attaching needs the process's uid or "
			 "CAP_SYS_PTRACE)"
		       : "");
}

/* The library file as the process sees it, whole. */
static int read_library(uint32_t tgid, const char *path, uint8_t **buf,
			size_t *len)
{
	char where[4200];
	struct stat st;
	ssize_t n;
	int fd;

	snprintf(where, sizeof(where), "/proc/%u/root%s", tgid, path);
	fd = userfile_open(where, &st);
	if (fd < 0)
		return fd;
	if ((uint64_t)st.st_size > LIBRARY_MAX_BYTES) {
		close(fd);
		return -ENOEXEC;
	}
	*buf = malloc((size_t)st.st_size + 1);
	if (!*buf) {
		close(fd);
		return -ENOMEM;
	}
	n = pread(fd, *buf, (size_t)st.st_size, 0);
	close(fd);
	if (n < 0) {
		free(*buf);
		return -errno;
	}
	*len = (size_t)n;
	return 0;
}

void jitlog_attach_found(struct recorder *r, struct proc *p, const char *path,
			 uint64_t start, uint64_t pgoff)
{
	uint8_t *buf = NULL;
	uint64_t delta;
	size_t len = 0;
	int rc;

	if (p->jitlog != JITLOG_NONE || path[0] != '/')
		return;
	rc = read_library(p->tgid, path, &buf, &len);
	if (!rc)
		rc = elf_dynsym_delta(buf, len, OPJIT_JITLOG_CONTROL_SYMBOL,
				      pgoff, PF_R | PF_X, &delta);
	free(buf);
	if (rc == -ENOENT) {
		/* a version before on-attach, or a mapping of another
		 * segment: nothing to attach to there */
		return;
	}
	if (rc) {
		fail(p, path, -rc);
		return;
	}
	p->jitlog_ctl = start + delta;
	p->jitlog = JITLOG_PENDING;
	p->jitlog_tries = 0;
	r->jitlog_pending++;
}

/* Read P's control block into C through FD, its /proc/PID/mem. */
static int control_read(int fd, const struct proc *p,
			struct opjit_jitlog_control *c)
{
	ssize_t n = pread(fd, c, sizeof(*c), (off_t)p->jitlog_ctl);

	if (n < 0)
		return -errno;
	if ((size_t)n != sizeof(*c))
		return -EIO;
	if (memcmp(c->magic, OPJIT_JITLOG_CONTROL_MAGIC, sizeof(c->magic)) ||
	    c->version != OPJIT_JITLOG_CONTROL_VERSION)
		return -EPROTO;
	return 0;
}

/* Set the state in P's control block through FD. */
static int control_set(int fd, const struct proc *p, uint32_t state)
{
	ssize_t n = pwrite(fd, &state, sizeof(state),
			   (off_t)(p->jitlog_ctl + STATE_OFF));

	if (n < 0)
		return -errno;
	return (size_t)n == sizeof(state) ? 0 : -EIO;
}

static int control_open(const struct proc *p, int flags)
{
	char mem[64];

	snprintf(mem, sizeof(mem), "/proc/%u/mem", p->tgid);
	return open(mem, flags | O_CLOEXEC);
}

/* One try: 0 when attached or to try again, else a negative errno. */
static int attach(struct proc *p)
{
	struct opjit_jitlog_control c;
	int fd = control_open(p, O_RDWR), rc;

	if (fd < 0)
		return -errno;
	rc = control_read(fd, p, &c);
	if (rc == -EIO) {
		/* not mapped yet: the next round */
		close(fd);
		return ++p->jitlog_tries < MAX_TRIES ? 0 : -EIO;
	}
	if (!rc && (c.state == OPJIT_JITLOG_DETACHED ||
		    c.state == OPJIT_JITLOG_DETACH))
		rc = control_set(fd, p, OPJIT_JITLOG_ATTACH);
	close(fd);
	if (!rc)
		p->jitlog = JITLOG_ATTACHED;
	return rc;
}

void jitlog_attach_pending(struct recorder *r)
{
	if (!r->jitlog_pending)
		return;
	r->jitlog_pending = 0;
	proctab_for_each(&r->procs, i, p)
	{
		int rc;

		if (p->jitlog != JITLOG_PENDING)
			continue;
		rc = attach(p);
		if (rc == -ENOENT || rc == -ESRCH)
			p->jitlog = JITLOG_NONE; /* gone */
		else if (rc)
			fail(p, "its control block", -rc);
		else if (p->jitlog == JITLOG_PENDING)
			r->jitlog_pending++;
	}
}

/* Whether P's library still has to write its table: attached, logs
 * open on attach, and not yet OBSERVING. */
static bool unsettled(const struct proc *p)
{
	struct opjit_jitlog_control c;
	int fd, rc;

	if (p->jitlog != JITLOG_ATTACHED)
		return false;
	fd = control_open(p, O_RDONLY);
	if (fd < 0)
		return false;
	rc = control_read(fd, p, &c);
	close(fd);
	return !rc && c.on_attach_logs && c.state == OPJIT_JITLOG_ATTACH;
}

void jitlog_attach_settle(struct recorder *r)
{
	const struct timespec step = { 0, SETTLE_STEP_NS };
	uint64_t waited = 0;
	bool any = true;

	jitlog_attach_pending(r);
	while (any && waited < SETTLE_NS) {
		any = false;
		proctab_for_each(&r->procs, i, p)
		{
			if (unsettled(p)) {
				any = true;
				break;
			}
		}
		if (any) {
			nanosleep(&step, NULL);
			waited += SETTLE_STEP_NS;
		}
	}
}

void jitlog_attach_detach(struct recorder *r)
{
	proctab_for_each(&r->procs, i, p)
	{
		struct opjit_jitlog_control c;
		int fd, rc;

		if (p->jitlog != JITLOG_ATTACHED)
			continue;
		p->jitlog = JITLOG_NONE;
		/* a process that has exited needs nothing; its pid may be
		 * another's now: write only where the block still is */
		if (p->exited)
			continue;
		fd = control_open(p, O_RDWR);
		if (fd < 0)
			continue;
		rc = control_read(fd, p, &c)
			     ? 0
			     : control_set(fd, p, OPJIT_JITLOG_DETACH);
		/* EIO: the block went with the library meanwhile */
		if (rc && rc != -EIO)
			fprintf(stderr,
				"oprofiled: cannot detach from the JIT log of "
				"pid %u (%s): %s\n",
				p->tgid, p->comm, strerror(-rc));
		close(fd);
	}
}
