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

/* All of gzip stream FD inflated into *OUT (malloc'ed). */
static int inflate_fd(int fd, uint8_t **out, size_t *len, char *why,
		      size_t whylen)
{
	uint8_t in[65536], *buf = NULL, *grown;
	size_t cap = 0, used = 0;
	z_stream z;
	ssize_t r = 0;
	int zr = Z_OK, ret = 0;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return -ENOMEM;
	while (!ret && zr != Z_STREAM_END) {
		if (!z.avail_in) {
			r = read(fd, in, sizeof(in));
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				ret = -errno;
				snprintf(why, whylen, "%s", strerror(errno));
				break;
			}
			if (!r) {
				ret = -EINVAL;
				snprintf(why, whylen,
					 "compressed copy cut short");
				break;
			}
			z.next_in = in;
			z.avail_in = (uInt)r;
		}
		if (cap - used < 65536) {
			cap = cap ? cap * 2 : 1u << 20;
			if (cap > OPS_ARCHIVE_MAX_INFLATED + 65536) {
				ret = -EFBIG;
				snprintf(why, whylen,
					 "compressed copy inflates past %llu "
					 "bytes",
					 (unsigned long long)
						 OPS_ARCHIVE_MAX_INFLATED);
				break;
			}
			grown = realloc(buf, cap);
			if (!grown) {
				ret = -ENOMEM;
				snprintf(why, whylen, "out of memory");
				break;
			}
			buf = grown;
		}
		z.next_out = buf + used;
		z.avail_out = (uInt)(cap - used);
		zr = inflate(&z, Z_NO_FLUSH);
		used = cap - z.avail_out;
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			ret = -EINVAL;
			snprintf(why, whylen, "corrupt compressed copy (%s)",
				 z.msg ? z.msg : "zlib error");
		}
	}
	inflateEnd(&z);
	if (ret) {
		free(buf);
		return ret;
	}
	*out = buf;
	*len = used;
	return 0;
}

/* A descriptor of memory holding DATA, sealed: what a handler gets
 * cannot change the map. */
static int memory_fd(const uint8_t *data, size_t len, char *why, size_t whylen)
{
	const int seals = F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW |
			  F_SEAL_WRITE;
	int fd = memfd_create("opjit-archived-map",
			      MFD_CLOEXEC | MFD_ALLOW_SEALING);
	void *m = NULL;

	if (fd >= 0 && len && !ftruncate(fd, (off_t)len)) {
		m = mmap(NULL, len, PROT_WRITE, MAP_SHARED, fd, 0);
		if (m != MAP_FAILED) {
			memcpy(m, data, len);
			munmap(m, len);
		}
	}
	if (fd < 0 || (len && (!m || m == MAP_FAILED)) ||
	    fcntl(fd, F_ADD_SEALS, seals)) {
		snprintf(why, whylen, "cannot hold the inflated copy: %s",
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	return fd;
}

int ops_archived_map_fd(int fd, const char *path, char *why, size_t whylen)
{
	uint8_t *data = NULL;
	size_t len = 0;
	int ret;

	if (plain_len(path) == strlen(path))
		return fd; /* a plain copy, as older sessions hold */
	ret = inflate_fd(fd, &data, &len, why, whylen);
	close(fd);
	if (ret)
		return ret;
	ret = memory_fd(data, len, why, whylen);
	free(data);
	return ret;
}
