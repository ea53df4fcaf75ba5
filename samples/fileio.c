// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <opjit/samples.h>
#include <oputil/fileio.h>

#include "fileio_internal.h"

int ops_create_at(int dfd, const char *name, int mode, bool replace_leftover)
{
	int fd;

	if (replace_leftover && unlinkat(dfd, name, 0) && errno != ENOENT)
		return -errno;
	/* read too: a compaction copies blocks from the file it replaces */
	fd = openat(dfd, name,
		    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	return fd < 0 ? -errno : fd;
}

int ops_write_atomic(int dfd, const char *dir, const char *name,
		     const char *tmp, const void *data, size_t len, bool sync,
		     char *err, size_t errlen)
{
	int fd, ret = 0;

	fd = ops_create_at(dfd, tmp, 0644, true);
	if (fd < 0) {
		ret = fd;
		snprintf(err, errlen, "cannot create %s/%s: %s", dir, tmp,
			 strerror(-ret));
		return ret;
	}
	ret = oputil_write_all(fd, data, len);
	if (!ret && sync && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (ret) {
		snprintf(err, errlen, "cannot write %s/%s: %s", dir, tmp,
			 strerror(-ret));
		goto out;
	}
	if (renameat(dfd, tmp, dfd, name)) {
		ret = -errno;
		snprintf(err, errlen, "cannot rename %s/%s to %s/%s: %s", dir,
			 tmp, dir, name, strerror(-ret));
	}
out:
	if (ret)
		unlinkat(dfd, tmp, 0);
	return ret;
}

char *ops_strfmt(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

int ops_file_open(const char *path, uint64_t max, struct stat *st)
{
	int fd, ret;

	/* O_NONBLOCK: opening a FIFO for reading must not wait for a
	 * writer before fstat can refuse it. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st)) {
		ret = -errno;
		goto fail;
	}
	if (!S_ISREG(st->st_mode)) {
		ret = -ESPIPE;
		goto fail;
	}
	if ((uint64_t)st->st_size > max) {
		ret = -EFBIG;
		goto fail;
	}
	/* a regular file never blocks, but a reader should not see EAGAIN
	 * from a file system that honours the flag */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
fail:
	close(fd);
	return ret;
}

int ops_file_read(const char *path, uint64_t max, char **out, size_t *len)
{
	uint8_t *buf = NULL;
	struct stat st;
	size_t n = 0;
	int fd, ret;

	*out = NULL;
	*len = 0;
	fd = ops_file_open(path, max, &st);
	if (fd < 0)
		return fd;
	/* st_size is only a hint (/proc files say 0, a live file grows);
	 * the text comes NUL-terminated */
	ret = oputil_read_fd(fd, max, &buf, &n);
	close(fd);
	if (ret)
		return ret;
	*out = (char *)buf;
	*len = n;
	return 0;
}

const char *ops_file_strerror(int err)
{
	if (err == -ESPIPE)
		return "not a regular file";
	if (err == -EFBIG)
		return "larger than its format allows";
	return strerror(err < 0 ? -err : err);
}
