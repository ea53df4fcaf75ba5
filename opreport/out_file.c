// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The -o file.  opreport is often run by root in directories other users
 * can write, or own: the output file is made without following a link
 * (another user's link on the way there is not followed either, see
 * ops_path_parent), and a file that exists is left alone unless --force
 * says to replace it.  Then the report goes to a temporary file beside it
 * that is renamed over the name once written: the name is replaced, never
 * the file it names, so neither a link planted in the meantime nor a
 * hard link to another user's file is written through.  A FIFO or a
 * character device (a pipe to a reader, /dev/null) is written as it is,
 * but a FIFO nobody reads never blocks the report.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <opjit/samples.h>

#include "out.h"

/* A fresh name beside LEAF for the replacement: ".LEAF.PID-N". */
static int out_file_tmp(struct out_file *of)
{
	size_t len = strlen(of->leaf) + 32;
	unsigned int n;
	int fd;

	of->tmp = malloc(len);
	if (!of->tmp)
		return -ENOMEM;
	for (n = 0; n < 100; n++) {
		snprintf(of->tmp, len, ".%s.%ld-%u", of->leaf, (long)getpid(),
			 n);
		fd = openat(of->dfd, of->tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    0644);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

/* FD for the existing LEAF, whose lstat is ST, or a negative errno with
 * of->why set. */
static int out_file_existing(struct out_file *of, const struct stat *st,
			     bool force)
{
	struct stat now;
	int fd;

	if (S_ISLNK(st->st_mode)) {
		snprintf(of->why, sizeof(of->why),
			 "is a symbolic link; not writing through it");
		return -ELOOP;
	}
	if (S_ISREG(st->st_mode)) {
		if (!force) {
			snprintf(of->why, sizeof(of->why),
				 "exists; use --force to replace it");
			return -EEXIST;
		}
		fd = out_file_tmp(of);
		if (fd < 0) {
			free(of->tmp);
			of->tmp = NULL;
			snprintf(of->why, sizeof(of->why), "%s",
				 strerror(-fd));
		}
		return fd;
	}
	if (!S_ISFIFO(st->st_mode) && !S_ISCHR(st->st_mode)) {
		snprintf(of->why, sizeof(of->why), "not a regular file");
		return -EINVAL;
	}
	fd = openat(of->dfd, of->leaf,
		    O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(of->why, sizeof(of->why), "%s",
			 errno == ENXIO	  ? "a FIFO that nobody reads"
			 : errno == ELOOP ? "is a symbolic link; not writing "
					    "through it"
					  : strerror(errno));
		return -errno;
	}
	/* what was opened is what was looked at, and is written with
	 * blocking writes */
	if (fstat(fd, &now) ||
	    (now.st_mode & S_IFMT) != (st->st_mode & S_IFMT) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		close(fd);
		snprintf(of->why, sizeof(of->why), "changed while opened");
		return -EAGAIN;
	}
	return fd;
}

int out_file_open(struct out_file *of, const char *path, bool force)
{
	struct stat st;
	int fd, ret;

	memset(of, 0, sizeof(*of));
	of->dfd = -1;
	ret = ops_path_parent(path, false, &of->dfd, &of->leaf, of->why,
			      sizeof(of->why));
	if (ret)
		return ret;
	fd = openat(of->dfd, of->leaf,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0644);
	if (fd < 0 && errno == EEXIST) {
		if (fstatat(of->dfd, of->leaf, &st, AT_SYMLINK_NOFOLLOW))
			fd = -errno;
		else
			fd = out_file_existing(of, &st, force);
		if (fd < 0) {
			ret = fd;
			goto fail;
		}
	} else if (fd < 0) {
		ret = -errno;
		snprintf(of->why, sizeof(of->why), "%s", strerror(errno));
		goto fail;
	}
	of->f = fdopen(fd, "w");
	if (!of->f) {
		ret = -errno;
		snprintf(of->why, sizeof(of->why), "%s", strerror(errno));
		close(fd);
		goto fail;
	}
	return 0;
fail:
	if (!of->why[0])
		snprintf(of->why, sizeof(of->why), "%s", strerror(-ret));
	out_file_close(of, false);
	return ret;
}

int out_file_close(struct out_file *of, bool ok)
{
	int ret = 0;

	if (of->f && fclose(of->f))
		ret = -errno;
	of->f = NULL;
	if (of->tmp &&
	    (ret || !ok || renameat(of->dfd, of->tmp, of->dfd, of->leaf))) {
		ret = ret ? ret : ok ? -errno : 0;
		unlinkat(of->dfd, of->tmp, 0);
	}
	if (of->dfd >= 0)
		close(of->dfd);
	of->dfd = -1;
	free(of->leaf);
	free(of->tmp);
	of->leaf = of->tmp = NULL;
	return ret;
}
