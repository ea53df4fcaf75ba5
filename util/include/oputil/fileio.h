/* SPDX-License-Identifier: MIT */
/*
 * The file loops every part would write again: a buffer written whole,
 * a descriptor read to its end.  Both go on after a short count and
 * after EINTR, as read(2) and write(2) ask of their callers.
 */
#ifndef OPUTIL_FILEIO_H
#define OPUTIL_FILEIO_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <oputil/grow.h>

/* How much more room a read to the end asks for when it runs out: a
 * /proc file, which says size 0, is read in pieces of about this. */
#define OPUTIL_READ_STEP 65536u

/* LEN bytes of DATA to FD, in as many write() calls as that takes.  0,
 * or a negative errno (-EIO when write() wrote nothing). */
static inline int oputil_write_all(int fd, const void *data, size_t len)
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

/*
 * All of FD, read to its end, into *OUT (malloc'ed, *LEN bytes and a NUL
 * byte after them, so that text can be taken as a string).  A regular
 * file's size is only a hint, for the first read (a live file grows, a
 * /proc or /sys file says 0).  More than MAX bytes is -EFBIG.  0, or a
 * negative errno with *OUT NULL.
 */
static inline int oputil_read_fd(int fd, uint64_t max, uint8_t **out,
				 size_t *len)
{
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;
	struct stat st;
	ssize_t r;
	int ret = 0;

	*out = NULL;
	*len = 0;
	/* room for the whole file and its end in one read each */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < max)
		ret = oputil_grow(&buf, &cap, (size_t)st.st_size + 2, 1);
	while (!ret) {
		if (cap - n < 2 &&
		    oputil_grow(&buf, &cap, n + OPUTIL_READ_STEP, 1)) {
			ret = -ENOMEM;
			break;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max)
			ret = -EFBIG;
	}
	if (ret) {
		free(buf);
		return ret;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* oputil_read_fd() of the file PATH, opened for it. */
static inline int oputil_read_file(const char *path, uint64_t max,
				   uint8_t **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	*out = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	ret = oputil_read_fd(fd, max, out, len);
	close(fd);
	return ret;
}

#endif
