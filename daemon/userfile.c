// SPDX-License-Identifier: GPL-3.0-or-later
#include "userfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int userfile_open(const char *path, struct stat *st)
{
	struct stat again;
	char self[64];
	int pfd, fd;

	/* O_PATH resolves the name and opens nothing: no FIFO waits for
	 * a writer, no device's open runs */
	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, st)) {
		fd = -errno;
		goto out;
	}
	if (!S_ISREG(st->st_mode)) {
		fd = -ENODATA;
		goto out;
	}
	/* the same inode, now for reading: reopened through the
	 * descriptor, never the name, which may have changed since */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		goto out;
	}
	if (fstat(fd, &again) || !S_ISREG(again.st_mode) ||
	    again.st_ino != st->st_ino || again.st_dev != st->st_dev) {
		close(fd);
		fd = -ENODATA;
	}
out:
	close(pfd);
	return fd;
}
