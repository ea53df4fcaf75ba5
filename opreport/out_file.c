// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The -o file.  opreport is often run by root in directories other users
 * can write (/tmp), so the output file is opened the way a careful tool
 * opens one there: a symbolic link is not followed when its directory is
 * sticky (anybody could have planted it), a file with other hard links is
 * not truncated, and a FIFO nobody reads never blocks the report.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out.h"

/* Whether PATH's directory is sticky (/tmp and its like). */
static bool out_dir_sticky(const char *path)
{
	char *copy = strdup(path);
	struct stat st;
	bool sticky;

	if (!copy)
		return true; /* the careful answer */
	sticky = stat(dirname(copy), &st) || (st.st_mode & S_ISVTX);
	free(copy);
	return sticky;
}

FILE *out_file_open(const char *path, const char **why)
{
	int flags = O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC;
	struct stat st;
	FILE *f;
	int fd;

	*why = NULL;
	if (out_dir_sticky(path)) {
		/* the kernel's protected_symlinks may answer EACCES before
		 * O_NOFOLLOW says ELOOP: name the real reason */
		if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
			*why = "is a symbolic link in a sticky directory";
			return NULL;
		}
		flags |= O_NOFOLLOW;
	}
	fd = open(path, flags, 0644);
	if (fd < 0) {
		*why = errno == ELOOP
			       ? "is a symbolic link in a sticky directory"
		       : errno == ENXIO ? "a FIFO that nobody reads"
					: strerror(errno);
		return NULL;
	}
	if (fstat(fd, &st)) {
		*why = strerror(errno);
		goto fail;
	}
	if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
		*why = "has other hard links; not overwriting it";
		goto fail;
	}
	if (S_ISREG(st.st_mode) && ftruncate(fd, 0)) {
		*why = strerror(errno);
		goto fail;
	}
	/* the report is written with blocking writes */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		*why = strerror(errno);
		goto fail;
	}
	f = fdopen(fd, "w");
	if (!f) {
		*why = strerror(errno);
		goto fail;
	}
	return f;
fail:
	close(fd);
	return NULL;
}
