/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Builds javamap files in memory for the unit tests, byte by byte as
 * FORMAT.md lays them out, independently of the agent's writer. */
#ifndef OPJIT_JM_BUILD_H
#define OPJIT_JM_BUILD_H

#include <stddef.h>
#include <stdint.h>

struct jmb {
	unsigned char *buf;
	size_t len, cap;
	size_t rec; /* start of the record being built */
};

struct jmb_frame {
	uint64_t method;
	int32_t bci;
};

void jmb_init(struct jmb *b, uint32_t pid, uint32_t flags);
/* The header's start time (CLOCK_MONOTONIC ns), which a handler compares
 * with the process's start; jmb_init writes 1000. */
void jmb_set_start(struct jmb *b, uint64_t start_ns);
void jmb_free(struct jmb *b);
void jmb_u8(struct jmb *b, uint8_t v);
void jmb_u16(struct jmb *b, uint16_t v);
void jmb_u32(struct jmb *b, uint32_t v);
void jmb_u64(struct jmb *b, uint64_t v);
void jmb_bytes(struct jmb *b, const void *p, size_t n);
/* open a record; jmb_end() fills in its length */
void jmb_begin(struct jmb *b, uint16_t kind, uint16_t flags, uint64_t t);
void jmb_end(struct jmb *b);

/* LINES is NR pairs of (bci, line) */
void jmb_method(struct jmb *b, uint64_t t, uint64_t id, const char *name,
		const char *file, const uint32_t *lines, size_t nr);
/* one pc per entry of OFFS, each with NF[i] frames taken in order from
 * FR */
void jmb_code_load(struct jmb *b, uint64_t t, uint16_t flags, uint64_t id,
		   uint64_t addr, uint32_t size, const uint32_t *offs,
		   const uint16_t *nf, const struct jmb_frame *fr,
		   size_t nr_pcs);
void jmb_code_unload(struct jmb *b, uint64_t t, uint64_t id, uint64_t addr);
void jmb_dynamic(struct jmb *b, uint64_t t, uint16_t flags, uint64_t addr,
		 uint32_t size, const char *name);

#endif
