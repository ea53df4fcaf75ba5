// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The trust rules for JIT map files, offered to every handler as the
 * host's open_map service so that there is one implementation of them.
 * Maps live in world-writable /tmp, so anyone could plant one under a pid
 * they expect us to profile; each rule closes one way of doing that, and
 * each refusal names its rule.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <opjit/samples.h>

#include "handler_internal.h"

/*
 * File systems stamp mtimes from a coarse clock and the recorder knows a
 * process's wall-clock start only to a clock tick, so a map written right
 * at exec may look a little older than its process.  A reused pid leaves
 * a far older map behind, which one second still catches.
 */
#define TRUST_SLACK_NS 1000000000LL

static int64_t stat_mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000LL +
	       st->st_mtim.tv_nsec;
}

static int64_t clock_now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * When the process that holds pid TGID now started, on CLOCK_MONOTONIC
 * (as the recorder stamps process starts) and on the wall clock; false
 * when there is none or it cannot be read.  /proc/PID/stat counts from
 * boot in clock ticks, suspend included, as the recorder converts it.
 */
static bool live_start(uint32_t tgid, int64_t *mono_ns, int64_t *unix_ns)
{
	char path[64], buf[1024];
	unsigned long long ticks;
	const char *p;
	ssize_t n;
	long hz = sysconf(_SC_CLK_TCK);
	int fd, field = 2;
	int64_t boot_ns, boot_now;

	snprintf(path, sizeof(path), "/proc/%u/stat", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || hz <= 0)
		return false;
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: fields follow the last ')' */
	p = strrchr(buf, ')');
	if (!p)
		return false;
	for (p++; *p && field < 22; p++)
		if (*p == ' ' && p[1] != ' ')
			field++;
	if (field != 22 || sscanf(p, "%llu", &ticks) != 1)
		return false;
	boot_ns = (int64_t)(ticks / (unsigned long long)hz) * 1000000000LL +
		  (int64_t)(ticks % (unsigned long long)hz * 1000000000ULL /
			    (unsigned long long)hz);
	boot_now = clock_now_ns(CLOCK_BOOTTIME);
	*mono_ns = boot_ns - (boot_now - clock_now_ns(CLOCK_MONOTONIC));
	*unix_ns = clock_now_ns(CLOCK_REALTIME) - (boot_now - boot_ns);
	return true;
}

/*
 * Whether pid TGID now belongs to a process that started after PROC, and
 * when (wall clock).  The monotonic clock decides when the recorder knew
 * it: time suspended since only makes the live start look earlier, so a
 * process is never taken for a later one; the wall clock, which may be
 * stepped, decides only when nothing else is known.
 */
static bool pid_taken_later(const struct opjit_process *proc,
			    int64_t *later_unix_ns)
{
	int64_t mono, wall;

	if (!proc->tgid || !live_start(proc->tgid, &mono, &wall))
		return false;
	*later_unix_ns = wall;
	if (proc->start_ns)
		return mono > (int64_t)proc->start_ns + TRUST_SLACK_NS;
	return proc->start_unix_ns > 0 &&
	       wall > proc->start_unix_ns + TRUST_SLACK_NS;
}

const char *handler_trust_check(const struct stat *st,
				const struct opjit_process *proc, bool live,
				char *buf, size_t len)
{
	int64_t mtime_ns = stat_mtime_ns(st);
	int64_t start = proc->start_unix_ns;

	if (S_ISLNK(st->st_mode))
		return "is a symbolic link (trust rule: no symlinks)";
	if (!S_ISREG(st->st_mode))
		return "not a regular file (trust rule: regular file)";
	if (st->st_uid != proc->uid && st->st_uid != 0) {
		snprintf(buf, len,
			 "owned by uid %u, not by uid %u or root "
			 "(trust rule: owner)",
			 (unsigned)st->st_uid, proc->uid);
		return buf;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "writable by group or others (trust rule: mode)";
	if (start > 0 && mtime_ns + TRUST_SLACK_NS < start)
		return "last modified before the process started, pid reused? "
		       "(trust rule: map older than the process)";
	/*
	 * The other way round: the pid now belongs to a later process, and
	 * the map was written after that one started, so it is probably
	 * the later process's map.  Only a live file can be that; a copy
	 * in the session was taken while our process ran.
	 */
	if (live) {
		int64_t later;

		if (pid_taken_later(proc, &later) &&
		    mtime_ns + TRUST_SLACK_NS >= later) {
			snprintf(buf, len,
				 "written after pid %u went to a "
				 "later process (trust rule: map newer than "
				 "the process)",
				 proc->tgid);
			return buf;
		}
	}
	return NULL;
}

static __attribute__((format(printf, 4, 5))) int
refuse(const struct opjit_host *host, char *why, size_t whylen,
       const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (why && whylen)
		snprintf(why, whylen, "%s", msg);
	if (host && host->warn)
		host->warn(host, msg);
	return -EPERM;
}

int handler_trust_open_raw(const struct opjit_host *host,
			   const struct opjit_process *proc,
			   const struct opjit_map_candidate *c, char *why,
			   size_t whylen)
{
	char buf[128];
	const char *reason;
	struct stat st;
	int fd, err;

	if (why && whylen)
		why[0] = '\0';
	if (!proc || !c || !c->path ||
	    proc->struct_size <
		    OPJIT_SIZE_THROUGH(struct opjit_process, start_unix_ns) ||
	    c->struct_size <
		    OPJIT_SIZE_THROUGH(struct opjit_map_candidate, flags))
		return -EINVAL;
	/* O_NONBLOCK: a fifo planted under the map's name must not hang
	 * the report before fstat can refuse it. */
	fd = open(c->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		err = errno;
		if (err == ENOENT || err == ENOTDIR)
			return -ENOENT;
		if (err == ELOOP)
			return refuse(host, why, whylen,
				      "%s: is a symbolic "
				      "link (trust rule: no symlinks)",
				      c->path);
		refuse(host, why, whylen, "%s: %s", c->path, strerror(err));
		return -err;
	}
	if (fstat(fd, &st) < 0) {
		err = errno;
		close(fd);
		refuse(host, why, whylen, "%s: %s", c->path, strerror(err));
		return -err;
	}
	reason = handler_trust_check(
		&st, proc, !(c->flags & OPJIT_MAP_ARCHIVED), buf, sizeof(buf));
	if (reason) {
		close(fd);
		return refuse(host, why, whylen, "%s: %s", c->path, reason);
	}
	return fd;
}

int handler_trust_map_fd(const struct opjit_host *host,
			 const struct opjit_map_candidate *c, int fd,
			 char *why, size_t whylen)
{
	/* the session keeps its copies compressed: the handler reads the
	 * map as the process wrote it */
	if (c->flags & OPJIT_MAP_ARCHIVED) {
		char zwhy[256];

		fd = ops_archived_map_fd(fd, c->path, zwhy, sizeof(zwhy));
		if (fd < 0)
			return refuse(host, why, whylen, "%s: %s", c->path,
				      zwhy);
	}
	return fd;
}

int handler_trust_open_map(const struct opjit_host *host,
			   const struct opjit_process *proc,
			   const struct opjit_map_candidate *c, char *why,
			   size_t whylen)
{
	int fd = handler_trust_open_raw(host, proc, c, why, whylen);

	return fd < 0 ? fd : handler_trust_map_fd(host, c, fd, why, whylen);
}

/*
 * Handler directories and libraries run as code of whoever runs opreport,
 * often root: only root or that user may have put them there.  OWNER is
 * the invoking user.
 */
static const char *trust_code_owner(const struct stat *st, uid_t owner,
				    char *buf, size_t len)
{
	if (st->st_uid != 0 && st->st_uid != owner) {
		if (owner == 0)
			snprintf(buf, len,
				 "owned by uid %u, not by root "
				 "(trust rule: owner)",
				 (unsigned)st->st_uid);
		else
			snprintf(buf, len,
				 "owned by uid %u, not by root or "
				 "uid %u (trust rule: owner)",
				 (unsigned)st->st_uid, (unsigned)owner);
		return buf;
	}
	/* a sticky bit does not help: anyone may still add a library */
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "writable by group or others (trust rule: mode)";
	return NULL;
}

const char *handler_trust_dir(const struct stat *st, uid_t owner, char *buf,
			      size_t len)
{
	if (!S_ISDIR(st->st_mode))
		return "not a directory (trust rule: directory)";
	return trust_code_owner(st, owner, buf, len);
}

/*
 * The library is opened once, and everything is checked on what was
 * opened: the directory that really holds it (after symbolic links, so
 * that a link cannot lead out of the checked directory), opened and
 * checked as a descriptor, then the file in it, opened without following
 * a link and checked by fstat.  The caller loads that descriptor, so the
 * file checked is the file loaded, whatever is renamed meanwhile.
 */
int handler_trust_lib_open(const char *path, uid_t owner, char *reason,
			   size_t len)
{
	char *real = NULL, *slash, sub[160];
	const char *base, *why;
	int dfd = -1, fd = -1, rc;
	struct stat st;

	real = realpath(path, NULL);
	if (!real) {
		rc = -errno;
		snprintf(reason, len, "%s", strerror(errno));
		goto out;
	}
	slash = strrchr(real, '/');
	*slash = '\0';
	base = slash + 1;
	dfd = open(slash == real ? "/" : real,
		   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st) < 0) {
		rc = -errno;
		snprintf(reason, len, "%s: %s", slash == real ? "/" : real,
			 strerror(errno));
		goto out;
	}
	why = handler_trust_dir(&st, owner, sub, sizeof(sub));
	if (why) {
		rc = -EPERM;
		snprintf(reason, len, "in %s, which is %s",
			 slash == real ? "/" : real, why);
		goto out;
	}
	/* O_NONBLOCK: a FIFO put there must not hang the open */
	fd = openat(dfd, base,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = -errno;
		snprintf(reason, len, "%s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = -EPERM;
		snprintf(reason, len,
			 "not a regular file (trust rule: regular file)");
		goto out;
	}
	why = trust_code_owner(&st, owner, sub, sizeof(sub));
	if (why) {
		rc = -EPERM;
		snprintf(reason, len, "%s", why);
		goto out;
	}
	rc = fd;
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	free(real);
	return rc;
}
