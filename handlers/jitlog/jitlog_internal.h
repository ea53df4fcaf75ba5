/* SPDX-License-Identifier: MIT */
/*
 * Shared by the writer (jitlog.c) and the on-attach table and its watcher
 * (jitlog_attach.c).
 */
#ifndef OPJIT_JITLOG_INTERNAL_H
#define OPJIT_JITLOG_INTERNAL_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>

#include "opjit/jitlog.h"

/* A live piece of code while on attach, or a method: its method and load
 * records, encoded with their times, as they would be written. */
struct opjit_jl_live {
	uint64_t id;
	uint32_t mlen, llen; /* record lengths: 0 for a record not there */
	unsigned char rec[]; /* the method record, then the load record */
};

/* On attach, an id's live entry, indexed by the id (jitlog_ids.c). */
#define JL_IDS_PER_PAGE 511 /* a page of offsets and its count: 4 KiB */
struct opjit_jl_ids {
	struct opjit_jl_id_page **slot; /* slot[i] holds page base + i */
	struct opjit_jl_id_page *spare; /* emptied, kept for the next */
	uint64_t base;
	size_t lo, hi, cap; /* the pages in use are slot[lo..hi) */
};

bool opjit_jl_ids_get(const struct opjit_jl_ids *x, uint64_t id, size_t *off);
/* Set ID's offset, a new id or one live already. */
int opjit_jl_ids_put(struct opjit_jl_ids *x, uint64_t id, size_t off);
bool opjit_jl_ids_del(struct opjit_jl_ids *x, uint64_t id, size_t *off);
void opjit_jl_ids_free(struct opjit_jl_ids *x);

/* On attach, the live entries of a log (jitlog_table.c). */
struct opjit_jl_table {
	unsigned char *arena;	 /* entries back to back, 8-byte aligned */
	size_t len, cap, dead;	 /* bytes used, allocated, of dead entries */
	struct opjit_jl_ids ids; /* id -> offset of its live entry */
};

struct opjit_jitlog {
	int fd; /* -1 while no file is open */
	unsigned char *base;
	_Atomic uint64_t tail;	/* where the next frame goes */
	_Atomic uint64_t fsize; /* the file's size: frames below it */
	_Atomic uint64_t next_id;
	_Atomic uint32_t seq;
	pthread_mutex_t grow_lock;
	char path[4096];
	/* on attach: the live code and methods, and whether they are being
	 * written; both under table_lock */
	bool on_attach;
	/* OPJIT_JITLOG_OPT_CODE_BYTES, and the bytes of code it may still
	 * copy */
	bool code_bytes;
	_Atomic uint64_t code_left;
	atomic_flag table_lock;
	bool observing;
	struct opjit_jl_table table;
	struct opjit_jitlog *next; /* the logs open on attach */
};

/* The table's lock: an event holds it for a few hundred nanoseconds, the
 * watcher for as long as writing the table takes; a waiter spins a little,
 * then yields. */
static inline void opjit_jl_lock(struct opjit_jitlog *log)
{
	unsigned n = 0;

	while (atomic_flag_test_and_set_explicit(&log->table_lock,
						 memory_order_acquire)) {
		if (++n < 100) {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
		} else {
			sched_yield();
		}
	}
}

static inline void opjit_jl_unlock(struct opjit_jitlog *log)
{
	atomic_flag_clear_explicit(&log->table_lock, memory_order_release);
}

/* The method code C runs, as its records name it. */
static inline uint64_t opjit_jl_own(const struct opjit_jitlog_code *c)
{
	return c->method ? c->method : c->id;
}

/* Fault in the whole pages of [FROM, TO) in one call rather than one
 * trap per page as records reach them (costly in a virtual machine); a
 * kernel without MADV_POPULATE_WRITE faults them as before. */
static inline void opjit_jl_populate(unsigned char *from, unsigned char *to)
{
	const uintptr_t page = 4096;
	uintptr_t a = ((uintptr_t)from + page - 1) & ~(page - 1);
	uintptr_t b = (uintptr_t)to & ~(page - 1);

	if (a < b)
		madvise((void *)a, b - a, MADV_POPULATE_WRITE);
}

/* opjit_jitlog_code.flags, set by the library alone: the load record
 * carries the code's bytes, read at its address */
#define JL_CODE_WITH_BYTES 0x80000000u

/* A fresh id for a code or a method; on attach, under the table's lock. */
uint64_t opjit_jl_new_id(struct opjit_jitlog *log);
/* Give C, a new method or code, its id and log its method record (unless
 * C is a method's code) and, unless METHOD_ONLY, its load record, both
 * at time T. */
int opjit_jl_put_records(struct opjit_jitlog *log, struct opjit_jitlog_code *c,
			 bool method_only, uint64_t t);

/* Create LOG's file anew, map it and write its header. */
int opjit_jl_file_open(struct opjit_jitlog *log);
/* Cut LOG's file at its last frame, unmap and close it. */
int opjit_jl_file_close(struct opjit_jitlog *log);
/* Write one encoded record of RLEN bytes as a frame. */
int opjit_jl_write(struct opjit_jitlog *log, const unsigned char *rec,
		   size_t rlen);

/* Encoders: each writes a record of RLEN bytes, the length its _len
 * function gave the caller, who sized the room with it. */
#define JL_NAME_MAX (1u << 20) /* a name's or a file's length, and more */
/* 0 when a name or file is JL_NAME_MAX bytes or longer */
size_t opjit_jl_method_len(const struct opjit_jitlog_code *c);
size_t opjit_jl_load_len(const struct opjit_jitlog_code *c);
size_t opjit_jl_unload_len(void);
void opjit_jl_put_method(unsigned char *p, const struct opjit_jitlog_code *c,
			 size_t rlen, uint64_t t);
void opjit_jl_put_load(unsigned char *p, const struct opjit_jitlog_code *c,
		       size_t rlen, uint64_t t);
void opjit_jl_put_unload(unsigned char *p, uint64_t id, uint64_t addr,
			 uint64_t t);

/* The table (jitlog_table.c), under its log's table lock.  Put C's
 * records, of MLEN and LLEN bytes (0 for a record not there), at time
 * TIME_NS as the live entry of C->id, in *OUT; a MOVE keeps the method
 * record of the entry it replaces, and fails with -EINVAL when there is
 * none. */
int opjit_jl_table_put(struct opjit_jl_table *t,
		       const struct opjit_jitlog_code *c, size_t mlen,
		       size_t llen, bool move, uint64_t time_ns,
		       const struct opjit_jl_live **out);
void opjit_jl_table_del(struct opjit_jl_table *t, uint64_t id);
/* FN on each live entry, oldest first, until one returns nonzero. */
int opjit_jl_table_each(const struct opjit_jl_table *t,
			int (*fn)(void *arg, const struct opjit_jl_live *l),
			void *arg);
void opjit_jl_table_free(struct opjit_jl_table *t);

/* On attach (jitlog_attach.c): register LOG with the watcher, and the
 * events, which keep the table and write while observed. */
int opjit_jl_attach_open(struct opjit_jitlog *log);
void opjit_jl_attach_close(struct opjit_jitlog *log);
/* C is the caller's copy: unobserved, it is flagged older. */
int opjit_jl_attach_put(struct opjit_jitlog *log, struct opjit_jitlog_code *c,
			size_t mlen, size_t llen);
int opjit_jl_attach_move(struct opjit_jitlog *log, struct opjit_jitlog_code *c,
			 uint64_t old_addr);
int opjit_jl_attach_unload(struct opjit_jitlog *log,
			   const struct opjit_jitlog_code *c);

#endif
