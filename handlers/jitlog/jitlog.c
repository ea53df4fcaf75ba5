// SPDX-License-Identifier: MIT
/*
 * The jitlog writer.  The log is a shared mapping of the file: a writer
 * reserves a frame with one atomic add on the tail, copies its record in,
 * stores the record's CRC-32C and then, with release order, the frame's
 * sequence number, which a reader takes as the sign that the frame is
 * whole.  The mapping covers 1 GiB of address space from the start; the
 * file itself grows under a mutex, doubling from 64 KiB and then 4 MiB at
 * a time, which is the only lock and the only system call a load can
 * meet.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <oputil/clock.h>
#include <oputil/crc32c.h>

#include "jitlog_internal.h"
#include "jm_format.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "the map is little-endian, written as the CPU holds it");

#define LOG_SPACE (1ull << 30) /* the most a log holds */
#define GROW_FIRST (64ull << 10)
#define GROW_STEP (4ull << 20)

static uint64_t frame_size(size_t rlen)
{
	return (JM_FRAME_HEADER_SIZE + rlen + 7) & ~(uint64_t)7;
}

static int grow(struct opjit_jitlog *log, uint64_t need)
{
	uint64_t size, old;
	int rc = 0;

	pthread_mutex_lock(&log->grow_lock);
	size = old = atomic_load_explicit(&log->fsize, memory_order_relaxed);
	if (size < need) {
		/* doubling while small, so that a log left unclosed (by a
		 * JIT killed, or one that cannot close it at exit) is at most
		 * twice its records on disk, or 4 MiB more */
		size = size ? size : GROW_FIRST;
		while (size < need && size < GROW_STEP)
			size *= 2;
		if (size < need)
			size = (need + GROW_STEP) & ~(GROW_STEP - 1);
		if (size > LOG_SPACE)
			size = LOG_SPACE;
		if (ftruncate(log->fd, (off_t)size)) {
			rc = -errno;
		} else {
			opjit_jl_populate(log->base + old, log->base + size);
			atomic_store_explicit(&log->fsize, size,
					      memory_order_release);
		}
	}
	pthread_mutex_unlock(&log->grow_lock);
	return rc;
}

/* Room for LEN bytes of frames, at *OFF. */
static int reserve(struct opjit_jitlog *log, uint64_t len, uint64_t *off)
{
	uint64_t o = atomic_fetch_add_explicit(&log->tail, len,
					       memory_order_relaxed);

	if (o + len > LOG_SPACE)
		return -ENOSPC;
	if (o + len >
	    atomic_load_explicit(&log->fsize, memory_order_acquire)) {
		int rc = grow(log, o + len);

		if (rc)
			return rc;
	}
	*off = o;
	return 0;
}

static unsigned char *put(unsigned char *p, uint64_t v, unsigned n)
{
	memcpy(p, &v, n); /* little-endian: the low N bytes */
	return p + n;
}

/* The record's header at P: kind, flags, its length, the time. */
static unsigned char *rec_header(unsigned char *p, unsigned kind,
				 unsigned flags, size_t rlen, uint64_t t)
{
	p = put(p, kind, 2);
	p = put(p, flags, 2);
	p = put(p, rlen, 4);
	return put(p, t, 8);
}

/* Seal the frame at OFF whose record of RLEN bytes is in place. */
static void commit(struct opjit_jitlog *log, uint64_t off, size_t rlen)
{
	unsigned char *f = log->base + off;
	uint32_t crc = oputil_crc32c(0, f + JM_FRAME_HEADER_SIZE, rlen);
	uint32_t seq;

	memcpy(f + 4, &crc, 4);
	seq = atomic_fetch_add_explicit(&log->seq, 1, memory_order_relaxed);
	if (!++seq) /* 0 means "not written": skip it when the count wraps */
		seq = 1;
	atomic_store_explicit((_Atomic uint32_t *)(void *)f, seq,
			      memory_order_release);
}

size_t opjit_jl_method_len(const struct opjit_jitlog_code *c)
{
	size_t nlen = strlen(c->name), flen = c->file ? strlen(c->file) : 0;

	if (nlen >= JL_NAME_MAX || flen >= JL_NAME_MAX)
		return 0;
	return JM_REC_HEADER_SIZE + JM_METHOD_FIXED + nlen + flen +
	       c->nr_lines * JM_LINE_SIZE;
}

size_t opjit_jl_load_len(const struct opjit_jitlog_code *c)
{
	size_t len = JM_REC_HEADER_SIZE + JM_CODE_LOAD_FIXED, i;

	if (c->flags & JL_CODE_WITH_BYTES)
		len += JM_CODE_BYTES_FIXED + c->size;
	if (!c->pcs)
		return len + (c->method ? 0 : c->nr_lines) *
				     (JM_PC_FIXED + JM_FRAME_SIZE);
	for (i = 0; i < c->nr_pcs; i++)
		len += JM_PC_FIXED + c->pcs[i].nr_frames * JM_FRAME_SIZE;
	return len;
}

void opjit_jl_put_method(unsigned char *p, const struct opjit_jitlog_code *c,
			 size_t rlen, uint64_t t)
{
	const size_t flen = c->file ? strlen(c->file) : 0;
	const size_t nlen = rlen - JM_REC_HEADER_SIZE - JM_METHOD_FIXED -
			    flen - c->nr_lines * JM_LINE_SIZE;
	size_t i;

	p = rec_header(p, JM_REC_METHOD, 0, rlen, t);
	p = put(p, c->id, 8);
	p = put(p, nlen, 4);
	p = put(p, flen, 4);
	p = put(p, c->nr_lines, 4);
	p = put(p, 0, 4);
	memcpy(p, c->name, nlen);
	p += nlen;
	if (flen)
		memcpy(p, c->file, flen);
	p += flen;
	/* the code offset stands for the bytecode index of a JVM method */
	for (i = 0; i < c->nr_lines; i++) {
		p = put(p, c->lines[i].offset, 4);
		p = put(p, c->lines[i].line, 4);
	}
}

/* A pc of code whose own method is OWN: OFFSET, then its frames. */
static unsigned char *put_pc(unsigned char *p, uint64_t own, uint32_t offset,
			     const struct opjit_jitlog_frame *f, size_t nr)
{
	size_t i;

	p = put(p, offset, 4);
	p = put(p, nr, 2);
	p = put(p, 0, 2);
	for (i = 0; i < nr; i++) {
		p = put(p, f[i].method ? f[i].method : own, 8);
		p = put(p, f[i].location, 4);
	}
	return p;
}

void opjit_jl_put_load(unsigned char *p, const struct opjit_jitlog_code *c,
		       size_t rlen, uint64_t t)
{
	const uint64_t own = opjit_jl_own(c);
	const bool by_lines = !c->pcs && !c->method;
	size_t i;

	p = rec_header(
		p, JM_REC_CODE_LOAD,
		(c->flags & OPJIT_JITLOG_CODE_OLDER ? JM_REC_REPLAYED : 0) |
			(c->flags & OPJIT_JITLOG_CODE_DATA ? JM_REC_DATA : 0),
		rlen, t);
	p = put(p, own, 8);
	p = put(p, c->addr, 8);
	p = put(p, c->size, 4);
	p = put(p, by_lines ? c->nr_lines : c->pcs ? c->nr_pcs : 0, 4);
	/* each line starts a pc range whose one frame is the code itself,
	 * at a location that is the line's own offset */
	for (i = 0; by_lines && i < c->nr_lines; i++) {
		const struct opjit_jitlog_frame f = { 0, c->lines[i].offset,
						      0 };

		p = put_pc(p, own, c->lines[i].offset, &f, 1);
	}
	for (i = 0; c->pcs && i < c->nr_pcs; i++)
		p = put_pc(p, own, c->pcs[i].offset, c->pcs[i].frames,
			   c->pcs[i].nr_frames);
	/* 2.1: the code as it is now, after the pcs, where a 2.0 reader
	 * stops reading */
	if (c->flags & JL_CODE_WITH_BYTES) {
		p = put(p, c->size, 4);
		memcpy(p, (const void *)(uintptr_t)c->addr, c->size);
	}
}

size_t opjit_jl_unload_len(void)
{
	return JM_REC_HEADER_SIZE + JM_CODE_UNLOAD_SIZE;
}

void opjit_jl_put_unload(unsigned char *p, uint64_t id, uint64_t addr,
			 uint64_t t)
{
	p = rec_header(p, JM_REC_CODE_UNLOAD, 0,
		       JM_REC_HEADER_SIZE + JM_CODE_UNLOAD_SIZE, t);
	p = put(p, id, 8);
	put(p, addr, 8);
}

/* The name's and file's lengths are checked where they are measured,
 * once (opjit_jl_method_len()). */
static bool names_ok(const char *name, const struct opjit_jitlog_line *lines,
		     size_t nr_lines)
{
	return name && nr_lines <= UINT16_MAX && (lines || !nr_lines);
}

static bool pcs_ok(const struct opjit_jitlog_pc *pcs, size_t nr)
{
	size_t i, frames = 0;

	if (!pcs)
		return !nr;
	if (nr > (1u << 24))
		return false;
	for (i = 0; i < nr; i++) {
		if (pcs[i].nr_frames > UINT16_MAX ||
		    (!pcs[i].frames && pcs[i].nr_frames))
			return false;
		frames += pcs[i].nr_frames;
	}
	/* the load record's length must fit its 32 bits */
	return frames < (1u << 24);
}

/* C as this version sees it, in FULL: a 1.0 or 1.1 caller's struct ends
 * at id, and what it lacks reads as 0. */
static bool code_take(const struct opjit_jitlog_code *c,
		      struct opjit_jitlog_code *full)
{
	if (c && c->struct_size >= sizeof(*full)) {
		*full = *c; /* the common case, in a few moves */
	} else {
		memset(full, 0, sizeof(*full));
		if (!c || c->struct_size < OPJIT_JITLOG_CODE_SIZE_1_0)
			return false;
		memcpy(full, c, c->struct_size);
	}
	/* the library's own flags are not the caller's to set */
	full->flags &= OPJIT_JITLOG_CODE_OLDER | OPJIT_JITLOG_CODE_DATA |
		       OPJIT_JITLOG_CODE_BYTES;
	return true;
}

/* Whether C's bytes go into the log with it: asked for, code (not a
 * method's data), and within what the log may still copy. */
static void code_bytes_take(struct opjit_jitlog *log,
			    struct opjit_jitlog_code *c)
{
	uint64_t left;

	if (c->flags & OPJIT_JITLOG_CODE_DATA ||
	    !(log->code_bytes || c->flags & OPJIT_JITLOG_CODE_BYTES))
		return;
	left = atomic_load_explicit(&log->code_left, memory_order_relaxed);
	do {
		if (left < c->size)
			return;
	} while (!atomic_compare_exchange_weak_explicit(
		&log->code_left, &left, left - c->size, memory_order_relaxed,
		memory_order_relaxed));
	c->flags |= JL_CODE_WITH_BYTES;
}

/* Whether the code FULL (as code_take gave it) can be logged. */
static bool code_ok(const struct opjit_jitlog_code *c)
{
	return c->size && c->size <= UINT32_MAX &&
	       (c->method || names_ok(c->name, c->lines, c->nr_lines)) &&
	       pcs_ok(c->pcs, c->nr_pcs);
}

int opjit_jl_write(struct opjit_jitlog *log, const unsigned char *rec,
		   size_t rlen)
{
	uint64_t off;
	int rc = reserve(log, frame_size(rlen), &off);

	if (rc)
		return rc;
	memcpy(log->base + off + JM_FRAME_HEADER_SIZE, rec, rlen);
	commit(log, off, rlen);
	return 0;
}

uint64_t opjit_jl_new_id(struct opjit_jitlog *log)
{
	uint64_t id;

	if (!log->on_attach)
		return atomic_fetch_add_explicit(&log->next_id, 1,
						 memory_order_relaxed);
	/* under the table's lock, which orders the ids with no atomic
	 * operation of their own */
	id = atomic_load_explicit(&log->next_id, memory_order_relaxed);
	atomic_store_explicit(&log->next_id, id + 1, memory_order_relaxed);
	return id;
}

int opjit_jitlog_method(struct opjit_jitlog *log,
			struct opjit_jitlog_method *m)
{
	struct opjit_jitlog_code c = { .struct_size = sizeof(c) };
	uint64_t t;
	int rc;

	if (!log || !m || m->struct_size < sizeof(*m) ||
	    !names_ok(m->name, m->lines, m->nr_lines))
		return -EINVAL;
	t = log->on_attach ? 0 : oputil_clock_ns(CLOCK_MONOTONIC);
	/* a method's record is the one a code of its own would have */
	c.name = m->name;
	c.file = m->file;
	c.lines = m->lines;
	c.nr_lines = m->nr_lines;
	rc = opjit_jl_put_records(log, &c, true, t);
	m->id = c.id;
	return rc;
}

int opjit_jl_put_records(struct opjit_jitlog *log, struct opjit_jitlog_code *c,
			 bool method_only, uint64_t t)
{
	const size_t mlen = c->method ? 0 : opjit_jl_method_len(c);
	const size_t llen = method_only ? 0 : opjit_jl_load_len(c);
	uint64_t off, fm = mlen ? frame_size(mlen) : 0;
	int rc;

	if (!c->method && !mlen)
		return -EINVAL; /* a name or file of a megabyte or more */

	if (log->on_attach)
		return opjit_jl_attach_put(log, c, mlen, llen);
	c->id = opjit_jl_new_id(log);
	rc = reserve(log, fm + (llen ? frame_size(llen) : 0), &off);
	if (rc)
		return rc;
	if (mlen) {
		opjit_jl_put_method(log->base + off + JM_FRAME_HEADER_SIZE, c,
				    mlen, t);
		commit(log, off, mlen);
	}
	if (llen) {
		opjit_jl_put_load(log->base + off + fm + JM_FRAME_HEADER_SIZE,
				  c, llen, t);
		commit(log, off + fm, llen);
	}
	return 0;
}

int opjit_jitlog_load(struct opjit_jitlog *log, struct opjit_jitlog_code *c)
{
	struct opjit_jitlog_code full;
	uint64_t t;
	int rc;

	if (!log || !code_take(c, &full) || !code_ok(&full))
		return -EINVAL;
	code_bytes_take(log, &full);
	/* on attach, the time is read under the table's lock, if needed */
	t = log->on_attach ? 0 : oputil_clock_ns(CLOCK_MONOTONIC);
	rc = opjit_jl_put_records(log, &full, false, t);
	c->id = full.id;
	return rc;
}

int opjit_jitlog_move(struct opjit_jitlog *log,
		      const struct opjit_jitlog_code *code, uint64_t old_addr)
{
	const size_t ulen = opjit_jl_unload_len();
	struct opjit_jitlog_code full, *c = &full;
	uint64_t t, off, fu;
	size_t llen;
	int rc;

	if (!log || !code_take(code, c) || !code_ok(c) || !c->id)
		return -EINVAL;
	/* moved code may have been patched on the way: its bytes anew */
	code_bytes_take(log, c);
	if (log->on_attach)
		return opjit_jl_attach_move(log, c, old_addr);
	t = oputil_clock_ns(CLOCK_MONOTONIC);
	fu = frame_size(ulen);
	llen = opjit_jl_load_len(c);
	rc = reserve(log, fu + frame_size(llen), &off);
	if (rc)
		return rc;
	opjit_jl_put_unload(log->base + off + JM_FRAME_HEADER_SIZE,
			    opjit_jl_own(c), old_addr, t);
	commit(log, off, ulen);
	opjit_jl_put_load(log->base + off + fu + JM_FRAME_HEADER_SIZE, c, llen,
			  t);
	commit(log, off + fu, llen);
	return 0;
}

int opjit_jitlog_unload(struct opjit_jitlog *log,
			const struct opjit_jitlog_code *code)
{
	const size_t ulen = opjit_jl_unload_len();
	struct opjit_jitlog_code full, *c = &full;
	uint64_t t, off;
	int rc;

	if (!log || !code_take(code, c) || !c->id)
		return -EINVAL;
	if (log->on_attach)
		return opjit_jl_attach_unload(log, c);
	t = oputil_clock_ns(CLOCK_MONOTONIC);
	rc = reserve(log, frame_size(ulen), &off);
	if (rc)
		return rc;
	opjit_jl_put_unload(log->base + off + JM_FRAME_HEADER_SIZE,
			    opjit_jl_own(c), c->addr, t);
	commit(log, off, ulen);
	return 0;
}

int opjit_jitlog_flush(struct opjit_jitlog *log)
{
	if (!log)
		return -EINVAL;
	/* each call seals its frames before it returns: what was logged
	 * before this call is in the page cache, where readers read */
	atomic_thread_fence(memory_order_seq_cst);
	return 0;
}

/* 0 when what is at PATH may be replaced: a link, an empty file or a log
 * of ours, which an earlier process with this pid left.  Anything else
 * is refused: another user's file (-EEXIST) or a file of ours that is
 * not a log (-ENOTEMPTY), a document a mistyped path named. */
static int stale_ours(const char *path)
{
	char magic[JM_MAGIC_LEN];
	struct stat st;
	bool log;
	int fd;

	if (lstat(path, &st))
		return -errno;
	if (st.st_uid != geteuid())
		return -EEXIST;
	if (S_ISLNK(st.st_mode) || (S_ISREG(st.st_mode) && !st.st_size))
		return 0;
	if (!S_ISREG(st.st_mode))
		return -ENOTEMPTY;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	log = pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
	      !memcmp(magic, JM_MAGIC, JM_MAGIC_LEN);
	close(fd);
	return log ? 0 : -ENOTEMPTY;
}

/* The file, created afresh without following a link; a stale one of
 * ours is replaced. */
static int create(const char *path)
{
	const int flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = open(path, flags, 0644), rc;

	if (fd >= 0 || errno != EEXIST)
		return fd >= 0 ? fd : -errno;
	rc = stale_ours(path);
	if (rc)
		return rc;
	if (unlink(path))
		return -errno;
	fd = open(path, flags, 0644);
	return fd >= 0 ? fd : -errno;
}

int opjit_jl_file_open(struct opjit_jitlog *log)
{
	unsigned char *h;
	int rc;

	log->fd = create(log->path);
	if (log->fd < 0) {
		rc = log->fd;
		log->fd = -1;
		return rc;
	}
	atomic_store(&log->fsize, 0);
	log->base = mmap(NULL, LOG_SPACE, PROT_READ | PROT_WRITE, MAP_SHARED,
			 log->fd, 0);
	if (log->base == MAP_FAILED) {
		rc = -errno;
		log->base = NULL;
		goto fail;
	}
	rc = grow(log, GROW_FIRST);
	if (rc)
		goto fail;
	h = log->base;
	memcpy(h, JM_MAGIC, JM_MAGIC_LEN);
	put(h + 8, JM_VERSION_FRAMED, 2);
	put(h + 10, JM_VERSION_MINOR, 2);
	put(h + 12, JM_HEADER_SIZE, 4);
	put(h + 16, (uint64_t)getpid(), 4);
	put(h + 20, 0, 4);
	put(h + 24, oputil_clock_ns(CLOCK_MONOTONIC), 8);
	atomic_store(&log->tail, JM_HEADER_SIZE);
	return 0;
fail:
	if (log->base)
		munmap(log->base, LOG_SPACE);
	log->base = NULL;
	close(log->fd);
	log->fd = -1;
	unlink(log->path);
	return rc;
}

int opjit_jl_file_close(struct opjit_jitlog *log)
{
	uint64_t tail;
	int rc = 0;

	if (log->fd < 0)
		return 0;
	opjit_jitlog_flush(log);
	/* no zeros after the last frame: the file ends where the log does */
	tail = atomic_load(&log->tail);
	if (tail <= LOG_SPACE && ftruncate(log->fd, (off_t)tail))
		rc = -errno;
	munmap(log->base, LOG_SPACE);
	log->base = NULL;
	if (close(log->fd) && !rc)
		rc = -errno;
	log->fd = -1;
	return rc;
}

int opjit_jitlog_open(const struct opjit_jitlog_options *opts,
		      struct opjit_jitlog **out)
{
	const char *p = opts && opts->struct_size >=
						OPJIT_JITLOG_OPTIONS_SIZE_1_0
				? opts->path
				: NULL;
	uint32_t mode = opts && opts->struct_size >=
						OPJIT_JITLOG_OPTIONS_SIZE_1_1
				? opts->mode
				: OPJIT_JITLOG_ALWAYS;
	const bool v13 = opts && opts->struct_size >= sizeof(*opts);
	uint32_t flags = v13 ? opts->flags : 0;
	uint64_t budget = v13 && opts->code_budget ? opts->code_budget
						   : OPJIT_JITLOG_CODE_BUDGET;
	struct opjit_jitlog *log;
	int rc;

	if (!out || mode > OPJIT_JITLOG_ON_ATTACH ||
	    flags & ~OPJIT_JITLOG_OPT_CODE_BYTES)
		return -EINVAL;
	*out = NULL;
	log = calloc(1, sizeof(*log));
	if (!log)
		return -ENOMEM;
	if (p)
		snprintf(log->path, sizeof(log->path), "%s", p);
	else
		snprintf(log->path, sizeof(log->path), "/tmp/anon.%d",
			 (int)getpid());
	if (p && strlen(p) >= sizeof(log->path)) {
		free(log);
		return -ENAMETOOLONG;
	}
	log->fd = -1;
	pthread_mutex_init(&log->grow_lock, NULL);
	atomic_flag_clear(&log->table_lock);
	atomic_store(&log->next_id, 1);
	log->on_attach = mode == OPJIT_JITLOG_ON_ATTACH;
	log->code_bytes = flags & OPJIT_JITLOG_OPT_CODE_BYTES;
	/* a record's length is 32 bits, and the log 1 GiB */
	atomic_store(&log->code_left,
		     budget < LOG_SPACE / 2 ? budget : LOG_SPACE / 2);
	rc = log->on_attach ? opjit_jl_attach_open(log)
			    : opjit_jl_file_open(log);
	if (rc) {
		pthread_mutex_destroy(&log->grow_lock);
		free(log);
		return rc;
	}
	*out = log;
	return 0;
}

int opjit_jitlog_close(struct opjit_jitlog *log)
{
	int rc;

	if (!log)
		return -EINVAL;
	if (log->on_attach)
		opjit_jl_attach_close(log);
	rc = opjit_jl_file_close(log);
	pthread_mutex_destroy(&log->grow_lock);
	free(log);
	return rc;
}

const char *opjit_jitlog_strerror(int err)
{
	switch (-err) {
	case 0:
		return "success";
	case EINVAL:
		return "invalid argument (a NULL log, or a code without a "
		       "name, method or size)";
	case EEXIST:
		return "the log's file belongs to another user";
	case ENOTEMPTY:
		return "a file that is not a log is in its place (left "
		       "alone)";
	case ENOSPC:
		return "the log is full (1 GiB)";
	default:
		return strerror(-err);
	}
}
