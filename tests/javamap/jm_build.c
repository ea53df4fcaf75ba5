// SPDX-License-Identifier: GPL-3.0-or-later
/* In-memory javamap files for the unit tests (see jm_build.h). */
#include <stdlib.h>
#include <string.h>

#include "jm_build.h"

static void jmb_grow(struct jmb *b, size_t n)
{
	if (b->len + n <= b->cap)
		return;
	while (b->len + n > b->cap)
		b->cap = b->cap ? b->cap * 2 : 256;
	b->buf = realloc(b->buf, b->cap);
	if (!b->buf)
		abort();
}

void jmb_bytes(struct jmb *b, const void *p, size_t n)
{
	jmb_grow(b, n);
	if (n)
		memcpy(b->buf + b->len, p, n);
	b->len += n;
}

void jmb_u8(struct jmb *b, uint8_t v)
{
	jmb_bytes(b, &v, 1);
}

void jmb_u16(struct jmb *b, uint16_t v)
{
	jmb_u8(b, (uint8_t)v);
	jmb_u8(b, (uint8_t)(v >> 8));
}

void jmb_u32(struct jmb *b, uint32_t v)
{
	jmb_u16(b, (uint16_t)v);
	jmb_u16(b, (uint16_t)(v >> 16));
}

void jmb_u64(struct jmb *b, uint64_t v)
{
	jmb_u32(b, (uint32_t)v);
	jmb_u32(b, (uint32_t)(v >> 32));
}

void jmb_init(struct jmb *b, uint32_t pid, uint32_t flags)
{
	memset(b, 0, sizeof(*b));
	jmb_bytes(b, "OPJITJMP", 8);
	jmb_u16(b, 1);
	jmb_u16(b, 0);
	jmb_u32(b, 32);
	jmb_u32(b, pid);
	jmb_u32(b, flags);
	jmb_u64(b, 1000);
}

void jmb_set_start(struct jmb *b, uint64_t start_ns)
{
	size_t i;

	for (i = 0; i < 8; i++)
		((uint8_t *)b->buf)[24 + i] = (uint8_t)(start_ns >> (8 * i));
}

void jmb_free(struct jmb *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

void jmb_begin(struct jmb *b, uint16_t kind, uint16_t flags, uint64_t t)
{
	b->rec = b->len;
	jmb_u16(b, kind);
	jmb_u16(b, flags);
	jmb_u32(b, 0);
	jmb_u64(b, t);
}

void jmb_end(struct jmb *b)
{
	uint32_t n = (uint32_t)(b->len - b->rec);

	for (int i = 0; i < 4; i++)
		b->buf[b->rec + 4 + i] = (unsigned char)(n >> (8 * i));
}

void jmb_method(struct jmb *b, uint64_t t, uint64_t id, const char *name,
		const char *file, const uint32_t *lines, size_t nr)
{
	size_t fl = file ? strlen(file) : 0;

	jmb_begin(b, 1, 0, t);
	jmb_u64(b, id);
	jmb_u32(b, (uint32_t)strlen(name));
	jmb_u32(b, (uint32_t)fl);
	jmb_u32(b, (uint32_t)nr);
	jmb_u32(b, 0);
	jmb_bytes(b, name, strlen(name));
	jmb_bytes(b, file, fl);
	for (size_t i = 0; i < nr; i++) {
		jmb_u32(b, lines[2 * i]);
		jmb_u32(b, lines[2 * i + 1]);
	}
	jmb_end(b);
}

void jmb_code_load(struct jmb *b, uint64_t t, uint16_t flags, uint64_t id,
		   uint64_t addr, uint32_t size, const uint32_t *offs,
		   const uint16_t *nf, const struct jmb_frame *fr,
		   size_t nr_pcs)
{
	jmb_begin(b, 2, flags, t);
	jmb_u64(b, id);
	jmb_u64(b, addr);
	jmb_u32(b, size);
	jmb_u32(b, (uint32_t)nr_pcs);
	for (size_t i = 0; i < nr_pcs; i++) {
		jmb_u32(b, offs[i]);
		jmb_u16(b, nf[i]);
		jmb_u16(b, 0);
		for (uint16_t j = 0; j < nf[i]; j++, fr++) {
			jmb_u64(b, fr->method);
			jmb_u32(b, (uint32_t)fr->bci);
		}
	}
	jmb_end(b);
}

void jmb_code_unload(struct jmb *b, uint64_t t, uint64_t id, uint64_t addr)
{
	jmb_begin(b, 3, 0, t);
	jmb_u64(b, id);
	jmb_u64(b, addr);
	jmb_end(b);
}

void jmb_dynamic(struct jmb *b, uint64_t t, uint16_t flags, uint64_t addr,
		 uint32_t size, const char *name)
{
	jmb_begin(b, 4, flags, t);
	jmb_u64(b, addr);
	jmb_u32(b, size);
	jmb_u32(b, (uint32_t)strlen(name));
	jmb_bytes(b, name, strlen(name));
	jmb_end(b);
}
