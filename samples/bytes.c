// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "bytes_internal.h"

void ops_buf_free(struct ops_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int ops_buf_grow(struct ops_buf *b, size_t more)
{
	if (b->cap - b->len >= more)
		return 0;
	if (more > SIZE_MAX / 2 - b->len)
		return -ENOMEM;
	return oputil_grow(&b->data, &b->cap, b->len + more, 1);
}

int ops_buf_put(struct ops_buf *b, const void *p, size_t n)
{
	int ret = ops_buf_reserve(b, n);

	if (ret)
		return ret;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

int ops_buf_put_u8(struct ops_buf *b, uint8_t v)
{
	return ops_buf_put(b, &v, 1);
}

int ops_buf_put_le16(struct ops_buf *b, uint16_t v)
{
	uint8_t p[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	return ops_buf_put(b, p, 2);
}

int ops_buf_put_le32(struct ops_buf *b, uint32_t v)
{
	uint8_t p[4];

	ops_le32_store(p, v);
	return ops_buf_put(b, p, 4);
}

int ops_buf_put_varint(struct ops_buf *b, uint64_t v)
{
	int ret = ops_buf_reserve(b, OPS_VARINT_MAX);

	if (ret)
		return ret;
	b->len += ops_varint_encode(b->data + b->len, v);
	return 0;
}

int ops_buf_put_svarint(struct ops_buf *b, int64_t v)
{
	return ops_buf_put_varint(b, ops_zigzag(v));
}

int ops_buf_put_str(struct ops_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	int ret = ops_buf_put_varint(b, n);

	return ret ? ret : ops_buf_put(b, s, n);
}

uint8_t ops_cur_u8(struct ops_cur *c)
{
	if (!c->ok || c->p >= c->end) {
		c->ok = false;
		return 0;
	}
	return *c->p++;
}

uint64_t ops_cur_varint_long(struct ops_cur *c)
{
	const uint8_t *p = c->p;
	uint64_t v = 0;
	unsigned int shift;
	uint8_t byte;

	if (!c->ok)
		return 0;
	/* in a local, not through C: an address is a seven-byte varint,
	 * and a dwarf session's copies hold three each */
	for (shift = 0; p < c->end; shift += 7) {
		byte = *p++;
		/* the tenth byte may only carry the top bit */
		if (shift == 63 && byte > 1)
			break;
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80)) {
			c->p = p;
			return v;
		}
	}
	c->p = p;
	c->ok = false;
	return 0;
}

int64_t ops_cur_svarint(struct ops_cur *c)
{
	return ops_unzigzag(ops_cur_varint(c));
}

uint32_t ops_cur_varint32(struct ops_cur *c)
{
	uint64_t v = ops_cur_varint(c);

	if (v > UINT32_MAX) {
		c->ok = false;
		return 0;
	}
	return (uint32_t)v;
}

bool ops_cur_bytes(struct ops_cur *c, void *out, size_t n)
{
	if (!c->ok || ops_cur_left(c) < n) {
		c->ok = false;
		return false;
	}
	if (n)
		memcpy(out, c->p, n);
	c->p += n;
	return true;
}

bool ops_cur_str(struct ops_cur *c, char **out)
{
	uint64_t n = ops_cur_varint(c);
	char *s;

	*out = NULL;
	if (!c->ok || n > ops_cur_left(c) || (n && memchr(c->p, 0, n))) {
		c->ok = false;
		return false;
	}
	s = malloc(n + 1);
	if (!s) {
		c->ok = false;
		return false;
	}
	if (n)
		memcpy(s, c->p, n);
	s[n] = 0;
	c->p += n;
	*out = s;
	return true;
}

int ops_cur_block_head(struct ops_cur *c, uint64_t nr, size_t min, uint64_t *n)
{
	uint64_t first = ops_cur_varint(c);

	*n = ops_cur_varint(c);
	if (!c->ok || first != nr)
		return -EBADMSG;
	return *n > ops_cur_left(c) / min ? -ERANGE : 0;
}
