// SPDX-License-Identifier: GPL-3.0-or-later
#include "jitlog_attach.h"

#include <elf.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <opjit/jitlog.h>
#include <oputil/escape.h>

#include "diag.h"
#include "elf_dynsym.h"
#include "procinfo.h"
#include "procmaps.h"
#include "recorder.h"
#include "userfile.h"

#define LIBRARY_NAME "libopjit-jitlog.so"
#define LIBRARY_MAX_BYTES (64u << 20)
/* rounds to try when the control block is not mapped yet (the loader
 * maps the library's data after its code) */
#define MAX_TRIES 200
#define SETTLE_NS 1000000000ull
#define SETTLE_STEP_NS 20000000L

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

#define STATE_OFF offsetof(struct opjit_jitlog_control, state)

bool jitlog_attach_is_library(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, LIBRARY_NAME, strlen(LIBRARY_NAME)) &&
	       (!base[strlen(LIBRARY_NAME)] ||
		base[strlen(LIBRARY_NAME)] == '.');
}

/* What is known of P's library when it was found; the write is made
 * only while all of it still holds (verify()). */
struct jitlog_target {
	int memfd;	   /* /proc/PID/mem, opened when found: the exec
			     * generation (after an exec it reads EOF) */
	int pidfd;	   /* the process, whatever its pid becomes */
	uint64_t ctl;	   /* the control block's address */
	uint64_t file_off; /* its offset in the library's file */
	uint64_t code;	   /* the code mapping it was found from */
	uint64_t dev, ino; /* the library's file, as the maps show it */
	uint64_t start;	   /* /proc/PID/stat's start time */
	uint32_t uid, gid; /* its real, effective, saved and fs ids */
};

static void target_free(struct proc *p)
{
	struct jitlog_target *t = p->jitlog_target;

	if (!t)
		return;
	if (t->memfd >= 0)
		close(t->memfd);
	if (t->pidfd >= 0)
		close(t->pidfd);
	free(t);
	p->jitlog_target = NULL;
}

void jitlog_attach_forget(struct proc *p)
{
	target_free(p);
}

/* A command name is the user's text: escaped, as every outside name. */
#define COMM_TEXT_MAX 80

static void fail(struct proc *p, const char *what, int err)
{
	bool denied = err == EACCES || err == EPERM;
	char comm[COMM_TEXT_MAX];

	p->jitlog = JITLOG_FAILED;
	target_free(p);
	diag("cannot attach to the JIT log of pid %u (%s): %s: "
	     "%s%s; its code is named only if its JIT writes the log "
	     "without a profiler",
	     p->tgid, oputil_escape(comm, sizeof(comm), p->comm), what,
	     strerror(err),
	     denied ? " (attaching needs the process's uid or "
		      "CAP_SYS_PTRACE)"
		    : "");
}

/* A write oprofiled will not make: WHY, once. */
static void refuse(struct proc *p, const char *why)
{
	char comm[COMM_TEXT_MAX];

	p->jitlog = JITLOG_FAILED;
	target_free(p);
	diag("not attaching to the JIT log of pid %u (%s): %s; "
	     "its code is named only if its JIT writes the log without a "
	     "profiler",
	     p->tgid, oputil_escape(comm, sizeof(comm), p->comm), why);
}

/* The library file as the process sees it, whole. */
static int read_library(uint32_t tgid, const char *path, uint8_t **buf,
			size_t *len, struct stat *st)
{
	char where[4200];
	ssize_t n;
	int fd;

	snprintf(where, sizeof(where), "/proc/%u/root%s", tgid, path);
	fd = userfile_open(where, st);
	if (fd < 0)
		return fd;
	if ((uint64_t)st->st_size > LIBRARY_MAX_BYTES) {
		close(fd);
		return -ENOEXEC;
	}
	*buf = malloc((size_t)st->st_size + 1);
	if (!*buf) {
		close(fd);
		return -ENOMEM;
	}
	n = pread(fd, *buf, (size_t)st->st_size, 0);
	close(fd);
	if (n < 0) {
		free(*buf);
		*buf = NULL;
		return -errno;
	}
	*len = (size_t)n;
	return 0;
}

static int slurp(uint32_t tgid, const char *file, char *buf, size_t size,
		 size_t *len)
{
	char path[64];
	size_t got = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/%s", tgid, file);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got < size - 1 && (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	*len = got;
	return 0;
}

/* The four ids on the status line KEY ("Uid:", "Gid:"): 0 when all are
 * the same, *ID; -EPERM when the process runs set-id. */
static int one_id(const char *status, const char *key, uint32_t *id)
{
	const char *line = strstr(status, key);
	unsigned long v[4];

	if (!line || (line != status && line[-1] != '\n') ||
	    sscanf(line + strlen(key), "%lu %lu %lu %lu", &v[0], &v[1], &v[2],
		   &v[3]) != 4)
		return -EPROTO;
	if (v[0] != v[1] || v[0] != v[2] || v[0] != v[3])
		return -EPERM;
	*id = (uint32_t)v[0];
	return 0;
}

/* Whether the program was started with AT_SECURE (set-id or file
 * capabilities): -EPERM if so, -EPROTO when it cannot be told. */
static int secure_exec(uint32_t tgid)
{
	uint64_t auxv[512];
	size_t len, i;
	int rc;

	rc = slurp(tgid, "auxv", (char *)auxv, sizeof(auxv), &len);
	if (rc)
		return rc;
	for (i = 0; i + 1 < len / sizeof(uint64_t); i += 2) {
		if (auxv[i] == AT_NULL)
			break;
		if (auxv[i] == AT_SECURE)
			return auxv[i + 1] ? -EPERM : 0;
	}
	return -EPROTO;
}

/* P's credentials and start time now: *WHY says what is wrong. */
static int read_identity(struct proc *p, uint32_t *uid, uint32_t *gid,
			 uint64_t *start, const char **why)
{
	char buf[4096];
	size_t len;
	int rc;

	*why = "its credentials cannot be read";
	rc = slurp(p->tgid, "status", buf, sizeof(buf), &len);
	if (rc)
		return rc;
	rc = one_id(buf, "Uid:", uid);
	if (!rc)
		rc = one_id(buf, "Gid:", gid);
	if (rc == -EPERM)
		*why = "it runs set-user-ID or set-group-ID";
	if (rc)
		return rc;
	rc = secure_exec(p->tgid);
	if (rc == -EPERM)
		*why = "it was started set-user-ID, set-group-ID or with file "
		       "capabilities";
	if (rc)
		return rc;
	rc = slurp(p->tgid, "stat", buf, sizeof(buf), &len);
	if (!rc && procinfo_parse_starttime(buf, start))
		rc = -EPROTO;
	return rc;
}

/* Whether the maps of P hold the library's code at T->code and its
 * control block, in the file's writable data at the symbol's offset, of
 * the same file (T->dev, T->ino; 0 for both: learn them). */
static int check_maps(uint32_t tgid, struct jitlog_target *t, uint64_t pgoff)
{
	bool code = false, data = false;
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/maps", tgid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		struct procmaps_line m;
		uint64_t dev;

		if (procmaps_parse_line(line, &m))
			continue;
		dev = makedev(m.dev_major, m.dev_minor);
		if (m.start == t->code && m.exec && !t->ino &&
		    m.pgoff == pgoff && m.inode) {
			t->dev = dev;
			t->ino = m.inode;
		}
		if (!t->ino || dev != t->dev || m.inode != t->ino)
			continue;
		if (m.start == t->code && m.exec)
			code = true;
		if (m.write && !m.exec && !m.shared && t->ctl >= m.start &&
		    t->ctl < m.end &&
		    m.end - t->ctl >= sizeof(struct opjit_jitlog_control) &&
		    m.pgoff + (t->ctl - m.start) == t->file_off)
			data = true;
	}
	free(line);
	fclose(f);
	if (!code)
		return -ESRCH;
	return data ? 0 : -EAGAIN;
}

/*
 * Before each write: the process is the one found (its pidfd, its start
 * time), runs with the same ids and not set-id, and maps the same file's
 * writable data at the control block.  An exec since the library was
 * found leaves the held /proc/PID/mem reading EOF, so the write cannot
 * reach the new program even if an exec was hidden by lost records; the
 * rest is proven afresh each time, lost records or not.  0, -EAGAIN (the
 * data is not mapped yet), -ESRCH (gone, or no longer the library's
 * process), or another negative errno with *WHY.
 */
static int verify(struct proc *p, const char **why)
{
	struct jitlog_target *t = p->jitlog_target;
	uint32_t uid, gid;
	uint64_t start;
	int rc;

	*why = NULL;
	rc = read_identity(p, &uid, &gid, &start, why);
	if (rc == -ENOENT || rc == -ESRCH)
		return -ESRCH;
	if (rc)
		return rc;
	if (start != t->start)
		return -ESRCH;
	if (uid != t->uid || gid != t->gid) {
		*why = "its credentials changed since it mapped the library";
		return -EPERM;
	}
	rc = check_maps(p->tgid, t, 0);
	if (rc == -ENOENT)
		rc = -ESRCH;
	if (rc)
		return rc;
	/* the pid was the process's all along: it still lives */
	if (syscall(SYS_pidfd_send_signal, t->pidfd, 0, NULL, 0))
		return -ESRCH;
	return 0;
}

void jitlog_attach_found(struct recorder *r, struct proc *p, const char *path,
			 uint64_t start, uint64_t pgoff)
{
	struct jitlog_target *t;
	uint8_t *buf = NULL;
	const char *why;
	char mem[64];
	struct stat st;
	size_t len = 0;
	int rc;

	if (p->jitlog != JITLOG_NONE || path[0] != '/')
		return;
	t = calloc(1, sizeof(*t));
	if (!t) {
		fail(p, path, ENOMEM);
		return;
	}
	t->memfd = t->pidfd = -1;
	t->code = start;
	p->jitlog_target = t;
	/* first the process and its memory as they are now, then what
	 * they hold: anything older could be another program's */
	t->pidfd = (int)syscall(SYS_pidfd_open, p->tgid, 0);
	if (t->pidfd < 0) {
		rc = -errno;
		goto out;
	}
	snprintf(mem, sizeof(mem), "/proc/%u/mem", p->tgid);
	t->memfd = open(mem, O_RDWR | O_CLOEXEC);
	if (t->memfd < 0) {
		rc = -errno;
		goto out;
	}
	rc = read_identity(p, &t->uid, &t->gid, &t->start, &why);
	if (rc == -EPERM || rc == -EPROTO) {
		refuse(p, why);
		return;
	}
	if (rc)
		goto out;
	rc = read_library(p->tgid, path, &buf, &len, &st);
	if (!rc)
		rc = elf_dynsym_delta(buf, len, OPJIT_JITLOG_CONTROL_SYMBOL,
				      pgoff, PF_R | PF_X, &t->ctl);
	if (!rc) {
		t->ctl += start;
		rc = elf_dynsym_writable(buf, len, OPJIT_JITLOG_CONTROL_SYMBOL,
					 sizeof(struct opjit_jitlog_control),
					 &t->file_off);
	}
	free(buf);
	if (rc == -EFAULT) {
		refuse(p, "its " OPJIT_JITLOG_CONTROL_SYMBOL
			  " lies outside the library's writable data");
		return;
	}
	if (!rc) {
		rc = check_maps(p->tgid, t, pgoff);
		if (rc == -EAGAIN)
			rc = 0; /* the data follows the code */
	}
	/* the file read is the one mapped (the inode alone: overlay file
	 * systems show another device) */
	if (!rc && st.st_ino != t->ino)
		rc = -ESRCH;
out:
	if (rc == -ENOENT || rc == -ESRCH) {
		/* a version before on-attach, a mapping of another segment,
		 * or gone: nothing to attach to there */
		target_free(p);
		return;
	}
	if (rc) {
		fail(p, path, -rc);
		return;
	}
	p->jitlog = JITLOG_PENDING;
	p->jitlog_tries = 0;
	r->jitlog_pending++;
}

/* Read P's control block through the /proc/PID/mem held since found. */
static int control_read(const struct proc *p, struct opjit_jitlog_control *c)
{
	const struct jitlog_target *t = p->jitlog_target;
	ssize_t n = pread(t->memfd, c, sizeof(*c), (off_t)t->ctl);

	if (n < 0)
		return -errno;
	if (n == 0)
		return -ESRCH; /* its memory is gone: exec or exit */
	if ((size_t)n != sizeof(*c))
		return -EIO;
	if (memcmp(c->magic, OPJIT_JITLOG_CONTROL_MAGIC, sizeof(c->magic)) ||
	    c->version != OPJIT_JITLOG_CONTROL_VERSION)
		return -EPROTO;
	return 0;
}

/* Set the state in P's control block, once verify() says it may be. */
static int control_set(struct proc *p, uint32_t state, const char **why)
{
	const struct jitlog_target *t = p->jitlog_target;
	struct opjit_jitlog_control c;
	ssize_t n;
	int rc;

	rc = verify(p, why);
	if (!rc)
		rc = control_read(p, &c);
	if (rc)
		return rc;
	n = pwrite(t->memfd, &state, sizeof(state),
		   (off_t)(t->ctl + STATE_OFF));
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ESRCH;
	return (size_t)n == sizeof(state) ? 0 : -EIO;
}

/* One try: 0 when attached or to try again, else a negative errno. */
static int attach(struct proc *p, const char **why)
{
	struct opjit_jitlog_control c;
	int rc;

	rc = verify(p, why);
	if (!rc)
		rc = control_read(p, &c);
	if (rc == -EAGAIN || rc == -EIO) {
		/* not mapped yet: the next round */
		if (++p->jitlog_tries < MAX_TRIES)
			return 0;
		*why = "its control block is not in the library's writable "
		       "data as mapped";
		return -EFAULT;
	}
	if (!rc && (c.state == OPJIT_JITLOG_DETACHED ||
		    c.state == OPJIT_JITLOG_DETACH))
		rc = control_set(p, OPJIT_JITLOG_ATTACH, why);
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
		const char *why = NULL;
		int rc;

		if (p->jitlog != JITLOG_PENDING)
			continue;
		rc = attach(p, &why);
		if (rc == -ENOENT || rc == -ESRCH) {
			p->jitlog = JITLOG_NONE; /* gone */
			target_free(p);
		} else if (rc && why) {
			refuse(p, why);
		} else if (rc) {
			fail(p, "its control block", -rc);
		} else if (p->jitlog == JITLOG_PENDING) {
			r->jitlog_pending++;
		}
	}
}

/* Whether P's library still has to write its table: attached, logs
 * open on attach, and not yet OBSERVING. */
static bool unsettled(const struct proc *p)
{
	struct opjit_jitlog_control c;

	if (p->jitlog != JITLOG_ATTACHED)
		return false;
	return !control_read(p, &c) && c.on_attach_logs &&
	       c.state == OPJIT_JITLOG_ATTACH;
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
		const char *why = NULL;
		char comm[COMM_TEXT_MAX];
		int rc;

		if (p->jitlog != JITLOG_ATTACHED)
			continue;
		p->jitlog = JITLOG_NONE;
		/* a process that has exited needs nothing */
		rc = p->exited ? -ESRCH
			       : control_set(p, OPJIT_JITLOG_DETACH, &why);
		target_free(p);
		/* ESRCH: gone, or another program now; EIO, EAGAIN: the
		 * block went with the library meanwhile */
		if (rc && rc != -ESRCH && rc != -EIO && rc != -EAGAIN)
			diag("cannot detach from the JIT log of "
			     "pid %u (%s): %s",
			     p->tgid,
			     oputil_escape(comm, sizeof(comm), p->comm),
			     why ? why : strerror(-rc));
	}
}
