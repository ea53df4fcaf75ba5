/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Byte-level helpers shared by the writers and readers of libopsamples:
 * a growable output buffer, LEB128 varints, zigzag, and a bounds-checked
 * input cursor.  Every read through a cursor checks what remains first,
 * so a parser built on it cannot read past its input.
 */
#ifndef OPS_BYTES_INTERNAL_H
#define OPS_BYTES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ops_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

void ops_buf_free(struct ops_buf *b);
/* Room for MORE bytes past len, as ops_buf_reserve() makes it. */
int ops_buf_grow(struct ops_buf *b, size_t more);
/* Room for MORE bytes past len: 0, or -ENOMEM with B as it was.
 * Inline: the recorder asks it of every record it writes, and the room
 * is nearly always there. */
static inline int ops_buf_reserve(struct ops_buf *b, size_t more)
{
	return b->cap - b->len >= more ? 0 : ops_buf_grow(b, more);
}
int ops_buf_put(struct ops_buf *b, const void *p, size_t n);
int ops_buf_put_u8(struct ops_buf *b, uint8_t v);
int ops_buf_put_le16(struct ops_buf *b, uint16_t v);
int ops_buf_put_le32(struct ops_buf *b, uint32_t v);
int ops_buf_put_varint(struct ops_buf *b, uint64_t v);
int ops_buf_put_svarint(struct ops_buf *b, int64_t v);
int ops_buf_put_str(struct ops_buf *b, const char *s);

/* Writes V at P (which has room for OPS_VARINT_MAX bytes); returns the
 * number of bytes written. */
#define OPS_VARINT_MAX 10
static inline size_t ops_varint_encode(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* A + B, held at UINT64_MAX: sample counts saturate rather than wrap. */
static inline uint64_t ops_add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static inline uint64_t ops_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t ops_unzigzag(uint64_t v)
{
	return (int64_t)((v >> 1) ^ (~(v & 1) + 1));
}

static inline void ops_le32_store(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t ops_le32_load(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint16_t ops_le16_load(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* Input cursor.  After the first failed read, ok stays false and every
 * later read fails too, so a parser may check once at the end. */
struct ops_cur {
	const uint8_t *p;
	const uint8_t *end;
	bool ok;
};

static inline void ops_cur_init(struct ops_cur *c, const void *p, size_t n)
{
	c->p = p;
	c->end = c->p + n;
	c->ok = true;
}

static inline size_t ops_cur_left(const struct ops_cur *c)
{
	return (size_t)(c->end - c->p);
}

uint8_t ops_cur_u8(struct ops_cur *c);
/* ops_cur_varint() of a varint longer than two bytes, or at the end */
uint64_t ops_cur_varint_long(struct ops_cur *c);

/* Inline for its one- and two-byte cases: a dwarf session's stack
 * copies are a few hundred thousand piece ids, each a varint, and the
 * call was most of what reading one cost. */
static inline uint64_t ops_cur_varint(struct ops_cur *c)
{
	const uint8_t *p = c->p;

	if (c->ok && c->end - p >= 2) {
		if (!(p[0] & 0x80)) {
			c->p = p + 1;
			return p[0];
		}
		if (!(p[1] & 0x80)) {
			c->p = p + 2;
			return (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
		}
	}
	return ops_cur_varint_long(c);
}

int64_t ops_cur_svarint(struct ops_cur *c);
/* A varint that must fit in 32 bits. */
uint32_t ops_cur_varint32(struct ops_cur *c);
/* The head of a block of records numbered on from NR, the count read
 * before it: the number of its first record, which must be NR, and its
 * count, which the bytes left must hold at MIN bytes a record.  0 with
 * *N, -EBADMSG for a bad head, -ERANGE for a count past the block. */
int ops_cur_block_head(struct ops_cur *c, uint64_t nr, size_t min,
		       uint64_t *n);
/* A length-prefixed string, copied and NUL-terminated into *out (freed
 * by the caller).  Fails on embedded NULs. */
bool ops_cur_str(struct ops_cur *c, char **out);
bool ops_cur_bytes(struct ops_cur *c, void *out, size_t n);

#endif /* OPS_BYTES_INTERNAL_H */
