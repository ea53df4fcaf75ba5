/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef OPS_FILEIO_INTERNAL_H
#define OPS_FILEIO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int ops_write_all(int fd, const void *data, size_t len);

/* Read all of FD (one sequential read loop; works on /proc files whose
 * size is 0) into a malloc'ed buffer.  At most MAX bytes: more gives
 * -EFBIG. */
int ops_read_fd(int fd, uint64_t max, uint8_t **out, size_t *len);
int ops_read_file(const char *path, uint8_t **out, size_t *len);

/* Replace PATH by DATA: write TMP, optionally fsync, rename.  ERR names
 * the file on failure. */
int ops_write_atomic(const char *path, const char *tmp, const void *data,
		     size_t len, bool sync, char *err, size_t errlen);

/* printf into a fresh malloc'ed string, NULL on failure. */
char *ops_strfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* OPS_FILEIO_INTERNAL_H */
