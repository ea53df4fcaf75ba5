// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A container file's write, with ranges of another container file in it
 * copied by the kernel (a plain append has none): a compaction puts back
 * the STACK_DELTAS blocks
 * its file had, most of a JIT recording's bytes, and copying them into
 * memory kept them there for the whole run (memory that grew with it,
 * and a page fault for every 4 KiB) and through it again at the close.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <oputil/fileio.h>

#include "block_internal.h"

/* LEN bytes at OFF of FROM to TO's position: by copy_file_range(), or
 * through a buffer where the file system or kernel cannot.  0, or a
 * negative errno, *READING saying whether reading FROM failed (-EIO:
 * FROM ends before). */
static int splice_copy(int from, uint64_t off, int to, uint64_t len,
		       bool *reading)
{
	char *buf = NULL;
	ssize_t n;
	int ret = 0;

	*reading = false;
	while (len) {
		loff_t o = (loff_t)off;

		n = copy_file_range(from, &o, to, NULL, len, 0);
		if (n > 0) {
			off += (uint64_t)n;
			len -= (uint64_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0) {
			*reading = true;
			return -EIO;
		}
		if (errno != EXDEV && errno != ENOSYS && errno != EOPNOTSUPP &&
		    errno != EINVAL)
			return -errno;
		break;
	}
	if (len && !(buf = malloc(65536)))
		return -ENOMEM;
	while (len && !ret) {
		n = pread(from, buf, len < 65536 ? len : 65536, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*reading = true;
			ret = n ? -errno : -EIO;
			break;
		}
		ret = oputil_write_all(to, buf, (size_t)n);
		off += (uint64_t)n;
		len -= (uint64_t)n;
	}
	free(buf);
	return ret;
}

int ops_blockfile_append_spliced(struct ops_blockfile *bf, const void *data,
				 size_t len, const struct ops_splice *splices,
				 size_t nr, const struct ops_blockfile *from,
				 char *err, size_t errlen)
{
	const uint8_t *p = data;
	uint64_t added = 0;
	size_t at = 0, i;
	bool reading = false;
	int ret = 0;

	if (bf->fd < 0) {
		snprintf(err, errlen, "cannot write: the session is closed");
		return -EBADF;
	}
	/* the data before each range, then the range; the data's rest */
	for (i = 0; i <= nr && !ret; i++) {
		size_t to = i < nr ? splices[i].at : len;

		ret = oputil_write_all(bf->fd, p + at, to - at);
		added += to - at;
		at = to;
		if (!ret && i < nr) {
			ret = splice_copy(from->fd, splices[i].off, bf->fd,
					  splices[i].len, &reading);
			added += splices[i].len;
		}
	}
	if (ret) {
		if (reading)
			snprintf(err, errlen, "cannot read %s: %s", from->path,
				 ret == -EIO ? "shorter than written"
					     : strerror(-ret));
		else
			snprintf(err, errlen, "cannot write %s: %s", bf->path,
				 strerror(-ret));
		/* O_APPEND is not used, so rewind as well as cut: a later
		 * append cannot land after a torn block */
		if (ftruncate(bf->fd, (off_t)bf->size) == 0)
			lseek(bf->fd, (off_t)bf->size, SEEK_SET);
		return ret;
	}
	bf->size += added;
	return 0;
}
