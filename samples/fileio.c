// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
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
