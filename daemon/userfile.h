/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Opening a file by a name another user controls.  The name may be
 * replaced at any moment by a FIFO (whose open blocks until a writer
 * comes), a device (whose open acts on it) or a symbolic link to either:
 * the name is resolved without opening what it names, the type checked
 * on that descriptor, and only a regular file is opened for reading,
 * without blocking.
 */
#ifndef OPROFILED_USERFILE_H
#define OPROFILED_USERFILE_H

#include <sys/stat.h>

/* A descriptor for reading the regular file PATH, *ST its status; or a
 * negative errno, -ENODATA when PATH names anything but a regular file. */
int userfile_open(const char *path, struct stat *st);

#endif
