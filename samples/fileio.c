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

#include "fileio_internal.h"

int ops_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ops_read_fd(int fd, uint64_t max, uint8_t **out, size_t *len)
{
	size_t cap = 0, n = 0;
	uint8_t *buf = NULL, *p;
	struct stat st;
	ssize_t r;
	int ret = 0;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		cap = (size_t)st.st_size + 1;
	for (;;) {
		if (n == cap || !buf) {
			cap = n < cap ? cap : cap ? cap * 2 : 65536;
			p = realloc(buf, cap);
			if (!p) {
				ret = -ENOMEM;
				goto out;
			}
			buf = p;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			ret = -EFBIG;
			goto out;
		}
	}
	*out = buf;
	*len = n;
	buf = NULL;
out:
	free(buf);
	return ret;
}

int ops_read_file(const char *path, uint8_t **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = ops_read_fd(fd, UINT64_MAX, out, len);
	close(fd);
	return ret;
}

int ops_create_at(int dfd, const char *name, int mode, bool replace_leftover)
{
	int fd;

	if (replace_leftover && unlinkat(dfd, name, 0) && errno != ENOENT)
		return -errno;
	fd = openat(dfd, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    mode);
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
	ret = ops_write_all(fd, data, len);
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
	uint8_t *buf = NULL, *p;
	struct stat st;
	size_t n = 0;
	int fd, ret;

	*out = NULL;
	*len = 0;
	fd = ops_file_open(path, max, &st);
	if (fd < 0)
		return fd;
	/* st_size is only a hint (/proc files say 0, a live file grows) */
	ret = ops_read_fd(fd, max, &buf, &n);
	close(fd);
	if (ret)
		return ret;
	p = realloc(buf, n + 1);
	if (!p) {
		free(buf);
		return -ENOMEM;
	}
	p[n] = '\0';
	*out = (char *)p;
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
