// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Reading an archived map back: a compressed copy is inflated into
 * memory behind a descriptor (memfd), so that a handler reads, stats or
 * maps it as it would the original file.  Handlers run in a sandbox
 * that may not write files: the memory is filled through a shared
 * mapping, not write().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <opjit/samples.h>

/* The length of S without OPS_ARCHIVE_SUFFIX, when it ends with it. */
static size_t plain_len(const char *s)
{
	size_t n = strlen(s), sl = strlen(OPS_ARCHIVE_SUFFIX);

	return n > sl && !strcmp(s + n - sl, OPS_ARCHIVE_SUFFIX) ? n - sl : n;
}

const char *ops_archived_map_name(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	snprintf(buf, len, "%.*s", (int)plain_len(base), base);
	return buf;
}

/*
 * A gzip stream can inflate a thousand times over: a small archived map
 * must not make the reader commit gigabytes.  The copy is inflated twice:
 * once into a scratch buffer, only counting, and refused as soon as the
 * count passes OPS_ARCHIVE_MAX_RATIO times its compressed size (with a
 * floor for small files) or OPS_ARCHIVE_MAX_INFLATED; then, its size
 * known, straight into memory of that size.
 */

/* The most bytes a compressed copy of COMPRESSED bytes may inflate to. */
static uint64_t inflate_limit(uint64_t compressed)
{
	uint64_t by_ratio = compressed > OPS_ARCHIVE_MAX_INFLATED
				    ? OPS_ARCHIVE_MAX_INFLATED
				    : compressed * OPS_ARCHIVE_MAX_RATIO;

	if (by_ratio < OPS_ARCHIVE_RATIO_FLOOR)
		by_ratio = OPS_ARCHIVE_RATIO_FLOOR;
	return by_ratio < OPS_ARCHIVE_MAX_INFLATED ? by_ratio
						   : OPS_ARCHIVE_MAX_INFLATED;
}

/*
 * Inflate the gzip stream in FD (read from offset 0 with pread, so the
 * two passes need no seek) into OUT (CAP bytes), or, with OUT NULL, into
 * a scratch buffer only to count.  *LEN is the inflated size.  More than
 * LIMIT bytes is -EFBIG.
 */
static int inflate_pass(int fd, uint8_t *out, uint64_t cap, uint64_t limit,
			uint64_t *len, char *why, size_t whylen)
{
	uint8_t in[65536], scratch[65536];
	uint64_t used = 0;
	off_t off = 0;
	z_stream z;
	uInt before;
	ssize_t r;
	int zr = Z_OK, ret = 0;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	while (!ret && zr != Z_STREAM_END) {
		if (!z.avail_in) {
			r = pread(fd, in, sizeof(in), off);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				ret = r ? -errno : -EINVAL;
				snprintf(why, whylen, "%s",
					 r ? strerror(errno)
					   : "compressed copy cut short");
				break;
			}
			off += r;
			z.next_in = in;
			z.avail_in = (uInt)r;
		}
		if (out) {
			uint64_t room = cap - used;

			z.next_out = out + used;
			z.avail_out = (uInt)(room < 65536 ? room : 65536);
		} else {
			z.next_out = scratch;
			z.avail_out = sizeof(scratch);
		}
		/* one byte past the end of OUT: the stream grew since */
		if (out && !z.avail_out) {
			z.next_out = scratch;
			z.avail_out = 1;
		}
		before = z.avail_out;
		zr = inflate(&z, Z_NO_FLUSH);
		used += before - z.avail_out;
		if (used > limit || (out && used > cap)) {
			ret = -EFBIG;
			snprintf(why, whylen,
				 "compressed copy inflates past %llu bytes",
				 (unsigned long long)limit);
		} else if (zr != Z_OK && zr != Z_STREAM_END &&
			   zr != Z_BUF_ERROR) {
			ret = -EINVAL;
			snprintf(why, whylen, "corrupt compressed copy (%s)",
				 z.msg ? z.msg : "zlib error");
		}
	}
	inflateEnd(&z);
	*len = used;
	return ret;
}

/* A descriptor of LEN bytes of memory, filled by inflating FD again
 * through a shared mapping, then sealed: what a handler gets cannot
 * change the map. */
static int memory_fd(int fd, uint64_t len, char *why, size_t whylen)
{
	const int seals = F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW |
			  F_SEAL_WRITE;
	int mfd = memfd_create("opjit-archived-map",
			       MFD_CLOEXEC | MFD_ALLOW_SEALING);
	void *m = MAP_FAILED;
	uint64_t got = 0;
	int ret = 0;

	if (mfd < 0 || (len && ftruncate(mfd, (off_t)len)))
		goto sys;
	if (len) {
		m = mmap(NULL, len, PROT_WRITE, MAP_SHARED, mfd, 0);
		if (m == MAP_FAILED)
			goto sys;
		ret = inflate_pass(fd, m, len, len, &got, why, whylen);
		munmap(m, len);
		if (ret == -EFBIG || (!ret && got != len)) {
			ret = -EINVAL;
			snprintf(why, whylen,
				 "compressed copy changed while read");
		}
		if (ret)
			goto fail;
	}
	if (fcntl(mfd, F_ADD_SEALS, seals))
		goto sys;
	return mfd;
sys:
	ret = -ENOMEM;
	snprintf(why, whylen, "cannot hold the inflated copy: %s",
		 strerror(errno));
fail:
	if (mfd >= 0)
		close(mfd);
	return ret;
}

int ops_archived_map_fd(int fd, const char *path, char *why, size_t whylen)
{
	uint64_t len = 0;
	struct stat st;
	int ret;

	if (plain_len(path) == strlen(path))
		return fd; /* a plain copy, as older sessions hold */
	if (fstat(fd, &st)) {
		ret = -errno;
		snprintf(why, whylen, "%s", strerror(errno));
		goto out;
	}
	ret = inflate_pass(fd, NULL, 0, inflate_limit((uint64_t)st.st_size),
			   &len, why, whylen);
	ret = ret ? ret : memory_fd(fd, len, why, whylen);
out:
	close(fd);
	return ret;
}
