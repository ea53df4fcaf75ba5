/* SPDX-License-Identifier: MIT */
/*
 * Bytes as one gzip stream (RFC 1952, which gzip -d and pprof read),
 * through zlib, handed to a writer a piece at a time: the session's
 * archived maps go to a descriptor, a pprof profile to a stream.  The
 * includer links zlib.
 */
#ifndef OPUTIL_GZIP_H
#define OPUTIL_GZIP_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

/* Where compressed bytes go: 0, or a negative errno that stops it. */
typedef int (*oputil_gzip_put_fn)(void *arg, const void *p, size_t n);

/* DATA (LEN bytes) compressed at zlib's LEVEL (0 to 9, or
 * Z_DEFAULT_COMPRESSION) to PUT.  0, -ENOMEM, -EIO (zlib failed) or
 * what PUT returned. */
static inline int oputil_gzip_level(const void *data, size_t len, int level,
				    oputil_gzip_put_fn put, void *arg)
{
	uint8_t out[65536];
	z_stream z;
	int zr, ret = 0;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip header and trailer */
	if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)(uintptr_t)data;
	do {
		/* zlib counts in uInt: feed more than 4 GiB in pieces */
		if (!z.avail_in && len) {
			z.avail_in = len > (1u << 30) ? 1u << 30 : (uInt)len;
			len -= z.avail_in;
		}
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = deflate(&z, len ? Z_NO_FLUSH : Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			ret = -EIO;
			break;
		}
		ret = put(arg, out, sizeof(out) - z.avail_out);
	} while (!ret && zr != Z_STREAM_END);
	deflateEnd(&z);
	return ret;
}

/* oputil_gzip_level() at zlib's default level. */
static inline int oputil_gzip(const void *data, size_t len,
			      oputil_gzip_put_fn put, void *arg)
{
	return oputil_gzip_level(data, len, Z_DEFAULT_COMPRESSION, put, arg);
}

#endif
