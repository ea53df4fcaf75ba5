/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The GNU build-id of an ELF file, for images that the kernel did not
 * describe with one (mappings read from /proc/PID/maps).  Read once per
 * new image, never per sample.
 */
#ifndef OPROFILED_BUILDID_H
#define OPROFILED_BUILDID_H

#include <stddef.h>
#include <stdint.h>

#define BUILDID_MAX 20
/* Only this much of the file is read: linkers put the note up front. */
#define BUILDID_SCAN_BYTES 65536

/* Find the build-id in the first LEN bytes of an ELF file: 0 and the id,
 * -ENOENT when there is none, -EINVAL when the bytes are not ELF. */
int buildid_parse(const unsigned char *buf, size_t len,
		  uint8_t id[BUILDID_MAX], uint8_t *id_size);
int buildid_read(int fd, uint8_t id[BUILDID_MAX], uint8_t *id_size);

#endif
