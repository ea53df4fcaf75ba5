/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The block container shared by samples.hist and anon.samples (see
 * FORMAT.md, "Block container"): a 16-byte file header, then framed,
 * checksummed blocks that are only ever appended.
 */
#ifndef OPS_BLOCK_INTERNAL_H
#define OPS_BLOCK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <opjit/samples.h>

#include "bytes_internal.h"

#define OPS_FILE_HEADER_SIZE 16
#define OPS_BLOCK_HEADER_SIZE 16
#define OPS_BLOCK_MAGIC 0x4b4c424fu /* "OBLK" */
/* No writer makes a block this large; a bigger length is damage. */
#define OPS_BLOCK_MAX (64u << 20)

#define OPS_HIST_MAGIC "OPJITHST"
#define OPS_ANON_MAGIC "OPJITANO"

/* samples.hist block types */
#define OPS_HIST_IMAGES 1
#define OPS_HIST_CONTEXTS 2
#define OPS_HIST_COUNTS 3
#define OPS_HIST_STACKS 4
#define OPS_HIST_STACK_COUNTS 5
#define OPS_HIST_TOTALS 6
#define OPS_HIST_STACK_COPIES 7
#define OPS_HIST_COPY_COUNTS 8
#define OPS_HIST_PROCESS_MAPS 9
#define OPS_HIST_TIME_SLICES 10
#define OPS_HIST_CONTEXT_THREADS 11
#define OPS_HIST_THREADS 12
#define OPS_HIST_CONTEXT_EVENTS 13
/* revision 4.4: stack copies as pieces, each piece once, and their
 * counts (in the place of STACK_COPIES, COPY_COUNTS and TIME_SLICES'
 * copy section, which a reader of 4.3 would find naming copies it does
 * not know) */
#define OPS_HIST_COPY_PIECES 14
#define OPS_HIST_PIECED_COPIES 15
#define OPS_HIST_PIECED_COPY_COUNTS 16
#define OPS_HIST_PIECED_COPY_SLICES 17
/* Version 5: stacks as deltas of each lane's stack before, of
 * OPS_DELTA_LANES lanes. */
#define OPS_HIST_STACK_DELTAS 18
#define OPS_DELTA_LANES 16u
/* Frames each lane's records name by their place (FORMAT.md). */
#define OPS_DELTA_MRU 8u
/* Version 6: a record's first varint, past the lanes: a chain of lane
 * N as its addresses is OPS_DELTA_RAW + N; a process's address's frame
 * is defined by OPS_DELTA_DEF_USER (at a user place) or
 * OPS_DELTA_DEF_KERNEL (at a kernel place; FORMAT.md, STACK_DELTAS). */
#define OPS_DELTA_RAW 16u
#define OPS_DELTA_DEF_USER 32u
#define OPS_DELTA_DEF_KERNEL 33u

/* Frame F first among a lane's last frames MRU (*NR of them): moved
 * from place K, or, K being *NR (not there), entering with the last
 * falling out; the writer and the reader both. */
static inline void ops_delta_mru_front(struct ops_frame *mru, uint32_t *nr,
				       uint32_t k, const struct ops_frame *f)
{
	if (k >= *nr) {
		if (*nr < OPS_DELTA_MRU)
			(*nr)++;
		k = *nr - 1;
	}
	/* each of places 0..k takes the frame before it, F the first: a
	 * frame at a time, where a memmove() was a libc call for a few
	 * bytes with every frame a recorder wrote (5% of it on node) */
	struct ops_frame prev = *f, t;

	for (uint32_t j = 0; j <= k; j++) {
		t = mru[j];
		mru[j] = prev;
		prev = t;
	}
}

/* anon.samples block types */
#define OPS_ANON_PROCESS 1
#define OPS_ANON_SAMPLES 2
#define OPS_ANON_STACK_SAMPLES 3
/* the same, of an event after the first (several events) */
#define OPS_ANON_EVENT_SAMPLES 4
#define OPS_ANON_EVENT_STACK_SAMPLES 5

/* Block header flags: from version 4 (OPS_FORMAT_VERSION_DEFLATE) on,
 * a payload may be a varint of its length then a zlib stream of it. */
#define OPS_BLOCK_DEFLATED 0x1u

/* One container file being appended to. */
struct ops_blockfile {
	int fd;
	char *path;
	uint64_t size;	  /* bytes known good on disk */
	uint32_t version; /* for the header; 0: OPS_FORMAT_VERSION_FLAT */
};

/* Create NAME in the directory DFD with its file header (PATH is its
 * full name, for messages): a new file, or a leftover temporary one
 * replaced when REPLACE_LEFTOVER (ops_create_at).  On failure ERR holds
 * one line naming the file. */
int ops_blockfile_create(struct ops_blockfile *bf, int dfd, const char *path,
			 const char *name, bool replace_leftover,
			 const char magic[8], char *err, size_t errlen);
void ops_blockfile_close(struct ops_blockfile *bf);

/* Frame PAYLOAD as a block of TYPE at the end of OUT. */
int ops_block_frame(struct ops_buf *out, uint16_t type, const void *payload,
		    size_t len);

/* Append LEN bytes of framed blocks.  On a short write the file is cut
 * back to its last good size, so a later append cannot land after a torn
 * block. */
int ops_blockfile_append(struct ops_blockfile *bf, const void *data,
			 size_t len, char *err, size_t errlen);

/* A range of another file (OFF, LEN bytes) copied into a write before
 * byte AT of its data (ops_blockfile_append_spliced()). */
struct ops_splice {
	size_t at;
	uint64_t off, len;
};

/* As ops_blockfile_append(), with the ranges SPLICES[0..NR) of FROM, in
 * the order of their places, copied in by the kernel: blocks that file
 * has, which the writer need not keep. */
int ops_blockfile_append_spliced(struct ops_blockfile *bf, const void *data,
				 size_t len, const struct ops_splice *splices,
				 size_t nr, const struct ops_blockfile *from,
				 char *err, size_t errlen);

/* As ops_block_frame(), the payload compressed (OPS_BLOCK_DEFLATED) when
 * that makes it smaller, through SCRATCH; for version 4 files only. */
int ops_block_frame_deflated(struct ops_buf *out, uint16_t type,
			     const void *payload, size_t len,
			     struct ops_buf *scratch);

/* The payload P of a block flagged OPS_BLOCK_DEFLATED, inflated into
 * *BUF (grown as needed, *CAP its size), its length in *OUT_LEN; NULL, or
 * why the block is damage. */
const char *ops_block_inflate(const uint8_t *p, size_t len, uint8_t **buf,
			      size_t *cap, size_t *out_len);

/*
 * Called for each good block; returns NULL to go on, or a reason that
 * stops the parse as damage at this block ("bad image id").
 */
typedef const char *(*ops_block_fn)(void *arg, uint16_t type,
				    const uint8_t *payload, size_t len,
				    uint64_t offset);

/*
 * Walk the blocks of a whole file held in BUF.  Stops at the first damage
 * and reports it once through WARN as "PATH: offset N: REASON"; every
 * block before it has been handed to FN.  Returns the offset where the
 * good data ends.
 */
uint64_t ops_blocks_parse(const uint8_t *buf, size_t len, const char magic[8],
			  const char *path, ops_block_fn fn, void *arg,
			  ops_warn_fn warn, void *warn_arg);

/*
 * ops_blocks_parse() over the container file open as FD, read a block at
 * a time: the file is never held whole.  Its damage is reported as
 * ops_blocks_parse() reports it; *END is where the good data ends.
 * 0, or a negative errno (not reported) when reading fails.
 */
int ops_blocks_walk(int fd, const char magic[8], const char *path,
		    ops_block_fn fn, void *arg, ops_warn_fn warn,
		    void *warn_arg, uint64_t *end);

/*
 * The LEN-byte payload of the block whose header is at OFF in FD, into
 * *BUF (grown as needed, *CAP its size) and checked against its header.
 * 0, -ESTALE when the file no longer holds that block, or a negative
 * errno; nothing is reported.
 */
int ops_block_payload(int fd, uint64_t off, uint32_t len, uint8_t **buf,
		      size_t *cap);

/*
 * Read the container file PATH (through ops_file_open) up to and
 * including the first block header that is damage, so that a sparse or
 * hostile file costs what its good blocks hold, not its size.
 * ops_blocks_parse over the result reports the same damage at the same
 * offset as over the whole file.  Returns 0 or a negative errno.
 */
int ops_blocks_read(const char *path, const char magic[8], uint8_t **buf,
		    size_t *len);

void ops_warnf(ops_warn_fn warn, void *arg, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* OPS_BLOCK_INTERNAL_H */
