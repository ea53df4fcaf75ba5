/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The channel between opreport and a handler's helper process: a byte
 * stream of little fixed-size fields and length-prefixed strings, read
 * and written with a deadline on opreport's side.  Errors are sticky, so
 * a message is read field by field and checked once at its end; nothing
 * here reports one (the caller says what it meant for the handler).
 */
#ifndef OPREPORT_HANDLER_WIRE_H
#define OPREPORT_HANDLER_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WIRE_NULL_STR 0xffffffffu

/*
 * The conversation.  The helper speaks first, once: i32 0 and the
 * handler's u32 abi_major, u32 abi_minor, u64 struct_size, str
 * description; or i32 < 0 and str reason.  Then opreport asks and the
 * helper answers, one call at a time:
 *  CLAIM   u32 tgid nspid uid flags, u64 start_ns start_unix_ns,
 *          str comm exe, u32 nr_maps, each: str path, u32 kind flags
 *          -> i32 1 | 0 | -HANDLER_*, u32 maps refused, and str why
 *             when negative; when 1, u32 state flags and u64 the heap
 *             the claim grew by
 *  BATCH   u32 n, u64 addrs[n], u64 times[n]
 *          -> i32 0, u32 new symbols, each: u64 start size, u32 line,
 *             str name file, i32 code_err, u64 code_len and, when
 *             code_len > 0, u64 code_addr code_load_ns and the code's
 *             bytes; u64 malformed symbols and u64 malformed
 *             inline frames so far; u32 new
 *             files, each: str; u32 sym[n], file[n], line[n], reason[n],
 *             nr_inline[n]; u32 inline frames, each: u32 sym file line
 *          |  i32 -HANDLER_* and str why
 *  RELEASE -> i32 0
 *  PARK    u32 slot: the claimed state set aside as SLOT, none claimed
 *          -> i32 0 | -HANDLER_NOMEM (the state released)
 *  UNPARK  u32 slot: the state set aside as SLOT claimed again, while
 *          none is -> i32 1 | 0 when the helper holds no such slot
 */
/* Before any answer, the helper may send warnings: u32 WIRE_WARN, str. */
#define WIRE_WARN 0x4e524157u
/*
 * And, while claiming or resolving, ask for a map file: u32 WIRE_OPEN,
 * u32 index into the claim's candidates.  opreport opens and checks it
 * and answers i32 0 with the descriptor attached (SCM_RIGHTS), or i32
 * -ENOENT, -EINVAL, or another negative errno and str why (which
 * opreport has already warned of).
 */
#define WIRE_OPEN 0x4e45504fu

enum wire_call {
	WIRE_CLAIM = 1,
	WIRE_BATCH,
	WIRE_RELEASE,
	WIRE_PARK,
	WIRE_UNPARK,
};

struct wire {
	int fd;
	bool host;	  /* opreport's end: non-blocking, with deadline */
	int64_t deadline; /* CLOCK_MONOTONIC ms; 0: none */
	int err;	  /* first error: -ETIMEDOUT, -EPIPE, -EPROTO .. */
	char *out;
	size_t olen, ocap;
	char in[65536];
	size_t ipos, ilen;
};

void wire_init(struct wire *w, int fd, bool host);
void wire_free(struct wire *w);
/* Everything sent or received from now on must be done in TIMEOUT_MS. */
void wire_deadline(struct wire *w, unsigned timeout_ms);

void wire_put(struct wire *w, const void *p, size_t n);
void wire_put_u32(struct wire *w, uint32_t v);
void wire_put_u64(struct wire *w, uint64_t v);
void wire_put_str(struct wire *w, const char *s); /* NULL allowed */
int wire_flush(struct wire *w);

/* opreport's end: an i32 RC and, when FD >= 0, the descriptor with it. */
int wire_send_fd(struct wire *w, int32_t rc, int fd);
/* The helper's end, before reading that RC: *FD is the descriptor that
 * came with it, or -1. */
int wire_get_fd(struct wire *w, int *fd);

int wire_get(struct wire *w, void *p, size_t n);
uint32_t wire_get_u32(struct wire *w);
uint64_t wire_get_u64(struct wire *w);
/* A string of at most MAX bytes with no NUL in it, into memory from
 * ALLOC (malloc when NULL); *S is NULL for a NULL string. */
int wire_get_str(struct wire *w, char **s, size_t max,
		 void *(*alloc)(void *ctx, size_t n), void *ctx);

#endif
