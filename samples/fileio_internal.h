/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef OPS_FILEIO_INTERNAL_H
#define OPS_FILEIO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Writing a buffer whole and reading a descriptor or file to its end:
 * oputil_write_all(), oputil_read_fd() and oputil_read_file()
 * (oputil/fileio.h), the loops the recorder's kernel symbol cache uses
 * too. */
#include <oputil/fileio.h>

/*
 * Create NAME (relative to the directory DFD) for writing, never through
 * a symbolic link and never into a file that exists: the session
 * directory may sit where another user can plant names.  With
 * REPLACE_LEFTOVER a file of that name (a writer's temporary file left by
 * a crash) is removed first.  A descriptor, or a negative errno.
 */
int ops_create_at(int dfd, const char *name, int mode, bool replace_leftover);

/* Replace DFD/NAME by DATA: write DFD/TMP, optionally fsync, rename.
 * DIR is DFD's path, for ERR, which names the file on failure. */
int ops_write_atomic(int dfd, const char *dir, const char *name,
		     const char *tmp, const void *data, size_t len, bool sync,
		     char *err, size_t errlen);

/* printf into a fresh malloc'ed string, NULL on failure. */
char *ops_strfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* OPS_FILEIO_INTERNAL_H */
