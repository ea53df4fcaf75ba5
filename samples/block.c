// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <oputil/crc32c.h>
#include <oputil/grow.h>

#include "block_internal.h"
#include "fileio_internal.h"

void ops_warnf(ops_warn_fn warn, void *arg, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warn(arg, msg);
}

int ops_blockfile_create(struct ops_blockfile *bf, int dfd, const char *path,
			 const char *name, bool replace_leftover,
			 const char magic[8], char *err, size_t errlen)
{
	uint8_t hdr[OPS_FILE_HEADER_SIZE];
	int ret;

	bf->fd = -1;
	bf->size = 0;
	bf->path = strdup(path);
	if (!bf->path)
		return -ENOMEM;
	bf->fd = ops_create_at(dfd, name, 0644, replace_leftover);
	if (bf->fd < 0) {
		ret = bf->fd;
		snprintf(err, errlen, "cannot create %s: %s", path,
			 strerror(-ret));
		return ret;
	}
	memcpy(hdr, magic, 8);
	ops_le32_store(hdr + 8,
		       bf->version ? bf->version : OPS_FORMAT_VERSION_FLAT);
	ops_le32_store(hdr + 12, 0);
	return ops_blockfile_append(bf, hdr, sizeof(hdr), err, errlen);
}

void ops_blockfile_close(struct ops_blockfile *bf)
{
	if (bf->fd >= 0)
		close(bf->fd);
	bf->fd = -1;
	free(bf->path);
	bf->path = NULL;
}

static int block_frame(struct ops_buf *out, uint16_t type, uint16_t flags,
		       const void *payload, size_t len)
{
	int ret;

	if (len > OPS_BLOCK_MAX)
		return -EFBIG;
	ret = ops_buf_reserve(out, OPS_BLOCK_HEADER_SIZE + len);
	if (ret)
		return ret;
	ops_buf_put_le32(out, OPS_BLOCK_MAGIC);
	ops_buf_put_le16(out, type);
	ops_buf_put_le16(out, flags);
	ops_buf_put_le32(out, (uint32_t)len);
	ops_buf_put_le32(out, oputil_crc32c(0, payload, len));
	return ops_buf_put(out, payload, len);
}

int ops_block_frame(struct ops_buf *out, uint16_t type, const void *payload,
		    size_t len)
{
	return block_frame(out, type, 0, payload, len);
}

/* LEN bytes at SRC as a zlib stream into DST (*DLEN bytes, then its
 * length): true, or false when it does not fit.  Level 1: a flush's
 * stacks cost the recorder little to squeeze.  A window and hash table
 * no larger than the payload: zlib's defaults are 256 KiB to allocate
 * and clear for each block, most of a small flush's time (a JIT
 * recording flushes its stack definitions every few thousand samples,
 * a few KiB each).  Any window inflates with the reader's. */
static bool block_deflate(uint8_t *dst, size_t *dlen, const void *src,
			  size_t len)
{
	z_stream zs = { 0 };
	int bits = 9, rc;

	while (bits < 15 && ((size_t)1 << bits) < len)
		bits++;
	if (deflateInit2(&zs, 1, Z_DEFLATED, bits, bits > 14 ? 8 : bits - 6,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return false;
	zs.next_in = (Bytef *)(uintptr_t)src;
	zs.avail_in = (uInt)len;
	zs.next_out = dst;
	zs.avail_out = (uInt)*dlen;
	rc = deflate(&zs, Z_FINISH);
	*dlen = zs.total_out;
	deflateEnd(&zs);
	return rc == Z_STREAM_END;
}

int ops_block_frame_deflated(struct ops_buf *out, uint16_t type,
			     const void *payload, size_t len,
			     struct ops_buf *scratch)
{
	size_t head, zlen;
	int ret;

	if (len > OPS_BLOCK_MAX)
		return -EFBIG;
	/* no more than the payload is worth keeping */
	zlen = len;
	scratch->len = 0;
	ret = ops_buf_put_varint(scratch, len);
	head = scratch->len;
	ret = ret ? ret : ops_buf_reserve(scratch, head + zlen);
	if (ret)
		return ret;
	if (!block_deflate(scratch->data + head, &zlen, payload, len) ||
	    head + zlen >= len)
		return ops_block_frame(out, type, payload, len);
	scratch->len = head + zlen;
	return block_frame(out, type, OPS_BLOCK_DEFLATED, scratch->data,
			   scratch->len);
}

/*
 * The zlib stream of a deflated payload (RFC 1950) inflated raw, its
 * header checked and its Adler-32 trailer left unread: the block's
 * CRC-32C already covers every stored byte, and summing the inflated
 * bytes again (tens of MiB of stack copies) cost a report more than the
 * inflating did.
 */
const char *ops_block_inflate(const uint8_t *p, size_t len, uint8_t **buf,
			      size_t *cap, size_t *out_len)
{
	const char *why = "bad compressed payload";
	z_stream zs = { 0 };
	struct ops_cur c;
	uint64_t n;
	int rc;

	ops_cur_init(&c, p, len);
	n = ops_cur_varint(&c);
	/* deflate, a window of at most 32 KiB, no preset dictionary, and
	 * the header's check */
	if (!c.ok || n > OPS_BLOCK_MAX || ops_cur_left(&c) < 2 ||
	    (c.p[0] & 0x0f) != 8 || c.p[0] >> 4 > 7 || (c.p[1] & 0x20) ||
	    ((unsigned)c.p[0] << 8 | c.p[1]) % 31)
		return why;
	if (oputil_grow(buf, cap, n ? n : 1, 1))
		return "out of memory";
	if (inflateInit2(&zs, -15) != Z_OK)
		return "out of memory";
	zs.next_in = (Bytef *)(uintptr_t)(c.p + 2);
	zs.avail_in = (uInt)(ops_cur_left(&c) - 2);
	zs.next_out = *buf;
	zs.avail_out = (uInt)(n ? n : 1);
	rc = inflate(&zs, Z_FINISH);
	if (rc == Z_STREAM_END && zs.total_out == n) {
		*out_len = (size_t)n;
		why = NULL;
	}
	inflateEnd(&zs);
	return why;
}

int ops_blockfile_append(struct ops_blockfile *bf, const void *data,
			 size_t len, char *err, size_t errlen)
{
	return ops_blockfile_append_spliced(bf, data, len, NULL, 0, NULL, err,
					    errlen);
}

/* Why the file header H of a LEN-byte file is damage, or NULL. */
static const char *file_header_why(const uint8_t *h, uint64_t len,
				   const char magic[8], uint64_t *at,
				   uint32_t *version)
{
	*at = len;
	if (len < OPS_FILE_HEADER_SIZE)
		return "truncated file header";
	*at = 0;
	if (memcmp(h, magic, 8))
		return "bad magic";
	*at = 8;
	*version = ops_le32_load(h + 8);
	if (*version < OPS_FORMAT_VERSION_FLAT ||
	    *version > OPS_FORMAT_VERSION)
		return "unknown version";
	return NULL;
}

static void file_header_warn(const char *why, uint64_t at, uint32_t version,
			     const char *path, const char magic[8],
			     ops_warn_fn warn, void *warn_arg)
{
	if (!strcmp(why, "bad magic"))
		ops_warnf(warn, warn_arg,
			  "%s: offset 0: bad magic, not a %.8s file", path,
			  magic);
	else if (!strcmp(why, "unknown version"))
		ops_warnf(
			warn, warn_arg,
			"%s: offset 8: unknown version %u (this reader knows %u)",
			path, version, OPS_FORMAT_VERSION);
	else
		ops_warnf(warn, warn_arg, "%s: offset %llu: %s", path,
			  (unsigned long long)at, why);
}

/* Why the block header H, with AVAIL bytes of the file after it, is
 * damage, or NULL with its payload length in *PLEN. */
static const char *block_header_why(const uint8_t *h, uint64_t avail,
				    uint32_t *plen)
{
	if (ops_le32_load(h) != OPS_BLOCK_MAGIC)
		return "bad block magic";
	*plen = ops_le32_load(h + 8);
	if (*plen > OPS_BLOCK_MAX)
		return "impossible block length";
	if (*plen > avail)
		return "truncated block";
	return NULL;
}

/* Hand FN the block at OFF, header H and stored payload P of PLEN
 * bytes: its checksum checked, and from version 4 on its payload
 * inflated when it says it is deflated, which only files whose blocks
 * may be (INFLATE) accept.  NULL, or why the block is damage. */
static const char *block_deliver(const uint8_t *h, const uint8_t *p,
				 uint32_t plen, uint32_t version, bool inflate,
				 uint64_t off, ops_block_fn fn, void *arg,
				 uint8_t **z, size_t *zcap)
{
	size_t n = plen;
	const char *why;

	if (oputil_crc32c(0, p, plen) != ops_le32_load(h + 12))
		return "bad checksum";
	if (version >= OPS_FORMAT_VERSION_DEFLATE &&
	    (ops_le16_load(h + 6) & OPS_BLOCK_DEFLATED)) {
		if (!inflate)
			return "compressed block in a file that has none";
		why = ops_block_inflate(p, plen, z, zcap, &n);
		if (why)
			return why;
		p = *z;
	}
	return fn(arg, ops_le16_load(h + 4), p, n, off);
}

uint64_t ops_blocks_parse(const uint8_t *buf, size_t len, const char magic[8],
			  const char *path, ops_block_fn fn, void *arg,
			  ops_warn_fn warn, void *warn_arg)
{
	uint64_t off = OPS_FILE_HEADER_SIZE, at;
	const char *why;
	uint32_t version = 0;
	uint8_t *z = NULL; /* the inflated payload */
	size_t zcap = 0;

	why = file_header_why(buf, len, magic, &at, &version);
	if (why) {
		file_header_warn(why, at, version, path, magic, warn,
				 warn_arg);
		return 0;
	}
	while (off < len) {
		const uint8_t *h = buf + off;
		uint32_t plen;

		if (len - off < OPS_BLOCK_HEADER_SIZE) {
			why = "truncated block header";
			break;
		}
		why = block_header_why(h, len - off - OPS_BLOCK_HEADER_SIZE,
				       &plen);
		if (!why)
			why = block_deliver(h, h + OPS_BLOCK_HEADER_SIZE, plen,
					    version, true, off, fn, arg, &z,
					    &zcap);
		if (why)
			break;
		off += OPS_BLOCK_HEADER_SIZE + (uint64_t)plen;
	}
	free(z);
	if (why)
		ops_warnf(warn, warn_arg, "%s: offset %llu: %s", path,
			  (unsigned long long)off, why);
	return off;
}

/* LEN bytes at OFF of FD into BUF: 0, 1 when the file ends first, or a
 * negative errno. */
static int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = pread(fd, (uint8_t *)buf + got, len - got,
				  (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			return 1;
		got += (size_t)r;
	}
	return 0;
}

int ops_blocks_walk(int fd, const char magic[8], const char *path,
		    ops_block_fn fn, void *arg, ops_warn_fn warn,
		    void *warn_arg, uint64_t *end)
{
	uint8_t head[OPS_FILE_HEADER_SIZE], *buf = NULL;
	uint64_t off = OPS_FILE_HEADER_SIZE, at, size;
	const char *why = NULL;
	uint32_t version = 0, plen;
	size_t cap = 0;
	struct stat st;
	int ret;

	*end = 0;
	if (fstat(fd, &st))
		return -errno;
	size = (uint64_t)st.st_size;
	ret = pread_all(fd, head,
			size < sizeof(head) ? (size_t)size : sizeof(head), 0);
	if (ret < 0)
		return ret;
	why = file_header_why(head, ret ? 0 : size, magic, &at, &version);
	if (why) {
		file_header_warn(why, at, version, path, magic, warn,
				 warn_arg);
		return 0;
	}
	/* a block at a time: the file is never held whole */
	while (off < size) {
		uint8_t h[OPS_BLOCK_HEADER_SIZE];

		if (size - off < OPS_BLOCK_HEADER_SIZE) {
			why = "truncated block header";
			break;
		}
		ret = pread_all(fd, h, sizeof(h), off);
		if (ret) {
			why = "truncated block header";
			break;
		}
		why = block_header_why(h, size - off - OPS_BLOCK_HEADER_SIZE,
				       &plen);
		if (why)
			break;
		if (oputil_grow(&buf, &cap, plen, 1)) {
			free(buf);
			return -ENOMEM;
		}
		ret = pread_all(fd, buf, plen, off + OPS_BLOCK_HEADER_SIZE);
		if (ret) {
			why = "truncated block";
			break;
		}
		/* anon.samples' blocks are read back raw: none compressed */
		why = block_deliver(h, buf, plen, version, false, off, fn, arg,
				    NULL, NULL);
		if (why)
			break;
		off += OPS_BLOCK_HEADER_SIZE + (uint64_t)plen;
	}
	free(buf);
	if (why)
		ops_warnf(warn, warn_arg, "%s: offset %llu: %s", path,
			  (unsigned long long)off, why);
	*end = off;
	return 0;
}

int ops_block_payload(int fd, uint64_t off, uint32_t len, uint8_t **buf,
		      size_t *cap)
{
	uint8_t h[OPS_BLOCK_HEADER_SIZE];
	int ret;

	if (oputil_grow(buf, cap, len, 1))
		return -ENOMEM;
	ret = pread_all(fd, h, sizeof(h), off);
	ret = ret ? ret : pread_all(fd, *buf, len, off + sizeof(h));
	if (ret < 0)
		return ret;
	/* the file changed since it was walked: its blocks are not ours */
	if (ret || ops_le32_load(h + 8) != len ||
	    oputil_crc32c(0, *buf, len) != ops_le32_load(h + 12))
		return -ESTALE;
	return 0;
}

/* The file is read this much at a time: a session's samples.hist is
 * hundreds of blocks of a few KiB, and two reads a block (header, then
 * payload) were a thousand system calls a report. */
#define BLOCKS_READ_CHUNK (256u << 10)

/* Fill the buffer to at least WANT bytes, reading a chunk at a time;
 * fewer only at EOF. */
static int blocks_read_to(int fd, uint8_t **buf, size_t *len, size_t *cap,
			  size_t want)
{
	size_t room;
	ssize_t r;

	while (*len < want) {
		room = want - *len > BLOCKS_READ_CHUNK ? want - *len
						       : BLOCKS_READ_CHUNK;
		if (oputil_grow(buf, cap, *len + room, 1))
			return -ENOMEM;
		r = read(fd, *buf + *len, *cap - *len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			break;
		*len += (size_t)r;
	}
	return 0;
}

int ops_blocks_read(const char *path, const char magic[8], uint8_t **out,
		    size_t *len)
{
	size_t cap = 0, n = 0, at = OPS_FILE_HEADER_SIZE, end;
	uint8_t *buf = NULL, *h;
	struct stat st;
	uint32_t plen;
	int fd, ret;

	*out = NULL;
	*len = 0;
	fd = ops_file_open(path, UINT64_MAX, &st);
	if (fd < 0)
		return fd;
	ret = blocks_read_to(fd, &buf, &n, &cap, at);
	if (ret || n < at || memcmp(buf, magic, 8)) {
		n = n < at ? n : at;
		goto out;
	}
	/* Stop after the first block header that is damage: the parser
	 * reports it at the same offset, and a sparse or hostile file is
	 * never read more than a chunk past it.  What was read past the
	 * good blocks is cut as a block-by-block read would have left it:
	 * the damaged header, or all there was of a truncated block. */
	for (;;) {
		ret = blocks_read_to(fd, &buf, &n, &cap,
				     at + OPS_BLOCK_HEADER_SIZE);
		if (ret || n < at + OPS_BLOCK_HEADER_SIZE)
			break;
		h = buf + at;
		plen = ops_le32_load(h + 8);
		end = at + OPS_BLOCK_HEADER_SIZE;
		if (ops_le32_load(h) != OPS_BLOCK_MAGIC ||
		    plen > OPS_BLOCK_MAX) {
			n = end;
			break;
		}
		ret = blocks_read_to(fd, &buf, &n, &cap, end + plen);
		if (ret || n < end + plen)
			break;
		at = end + plen;
	}
out:
	close(fd);
	if (ret) {
		free(buf);
		return ret;
	}
	*out = buf;
	*len = n;
	return 0;
}
