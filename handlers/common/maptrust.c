// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The trust rules for JIT map files.  Maps live in world-writable /tmp,
 * so anyone could plant one under a pid they expect us to profile; each
 * rule closes one way of doing that.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <opjit/anon_handler.h>

#include "maptrust.h"

/*
 * File systems stamp mtimes from a coarse clock and the recorder knows a
 * process's wall-clock start only to a few milliseconds, so a map written
 * right at exec may look a little older than its process.  A reused pid
 * leaves a far older map behind, which one second still catches.
 */
#define MAPTRUST_SLACK_NS 1000000000LL

const char *maptrust_check(const struct stat *st,
			   const struct opjit_process *proc)
{
	static __thread char buf[64];
	int64_t mtime_ns;

	if (S_ISLNK(st->st_mode))
		return "is a symbolic link";
	if (!S_ISREG(st->st_mode))
		return "not a regular file";
	if (st->st_uid != proc->uid && st->st_uid != 0) {
		snprintf(buf, sizeof(buf), "not owned by uid %u or root",
			 proc->uid);
		return buf;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "writable by group or others";
	mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000LL +
		   st->st_mtim.tv_nsec;
	if (proc->start_unix_ns > 0 &&
	    mtime_ns + MAPTRUST_SLACK_NS < proc->start_unix_ns)
		return "last modified before the process started "
		       "(pid reused?)";
	return NULL;
}

static void refuse(const struct opjit_host *host, const char *path,
		   const char *reason)
{
	char msg[512];

	if (!host || !host->warn)
		return;
	snprintf(msg, sizeof(msg), "%s: %s", path, reason);
	host->warn(host, msg);
}

int maptrust_open(const struct opjit_host *host,
		  const struct opjit_process *proc, const char *path)
{
	const char *why;
	struct stat st;
	int fd;

	/* O_NONBLOCK: a fifo planted under the map's name must not hang
	 * the report before fstat can refuse it. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return -1;
		refuse(host, path, errno == ELOOP ? "is a symbolic link" :
		       strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		refuse(host, path, strerror(errno));
		close(fd);
		return -1;
	}
	why = maptrust_check(&st, proc);
	if (why) {
		refuse(host, path, why);
		close(fd);
		return -1;
	}
	return fd;
}
