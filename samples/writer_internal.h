/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The writer's state, shared by its files (writer.c owns the lifecycle,
 * hist_writer.c the histograms, anon_writer.c the anonymous streams,
 * archive.c the copied files). */
#ifndef OPS_WRITER_INTERNAL_H
#define OPS_WRITER_INTERNAL_H

#include <errno.h>
#include <stdio.h>

#include <oputil/hash.h>
#include <oputil/u64map.h>

#include "block_internal.h"
#include "fileio_internal.h"
#include "keyset_internal.h"
#include "meta_internal.h"

struct ops_ksym_index;

/* A histogram cell: the running total and what is not on disk yet. */
struct ops_hist_cell {
	uint64_t offset;
	uint64_t total;
	uint64_t pending;
	uint64_t slice; /* of the open time slice (slice_writer.c) */
	uint32_t ctx;
};

/* One cell's delta, sorted for encoding. */
struct ops_hist_delta {
	uint64_t offset;
	uint64_t count;
	uint32_t ctx;
};

/* A stack node by what decides its record (FORMAT.md, STACKS): its
 * parent and its frame, whose encoding the parent's frame decides. */
struct ops_stack_edge {
	uint64_t addr;
	uint32_t parent; /* node id + 1, 0 at a root */
	uint32_t image;
	uint32_t node; /* node id + 1, 0 in an empty slot */
	uint8_t kind;
	uint8_t flags;
};

/* Threads whose last stacks the stack writer keeps, a power of two. */
#define OPS_STACK_LANES 16u

/* Slots of each generation of the stack writer's node index, a power of
 * two, at most half of them used: two generations of 3 MiB.  On a 60 s
 * node fib.js recording (bench_stack_replay --cold), 32 Ki slots made
 * 4.5 nodes a sample, 128 Ki 3.0 (an index of every node: 2.7) in as
 * little time, and the report of 61 MiB peak against 45 MiB. */
#define OPS_STACK_INDEX 131072u

struct ops_hist_writer {
	struct ops_blockfile bf;
	struct ops_keyset images, contexts;
	uint32_t images_on_disk, contexts_on_disk;
	/* separating threads: each context's thread (its key ends with
	 * it), and the threads' names by (tgid, tid) (thread_writer.c) */
	uint32_t *ctx_tids;
	size_t cap_ctx_tids;
	/* several events: each context's event (its key ends with it) */
	uint32_t *ctx_events;
	size_t cap_ctx_events;
	struct ops_keyset threads;
	struct ops_thread_name {
		char *name;
		bool dirty; /* in threads_dirty */
	} * thread_names;
	size_t cap_thread_names;
	uint32_t *threads_dirty; /* names not on disk yet */
	uint32_t nr_threads_dirty;
	size_t cap_threads_dirty;
	struct ops_hist_cell *cells;
	uint32_t nr_cells;
	size_t cap_cells;
	struct oputil_idxset cell_set; /* the cells, by (ctx, offset) */
	uint32_t *dirty;	       /* cells with pending != 0 */
	uint32_t nr_dirty;
	size_t cap_dirty;
	struct ops_hist_delta *sorted;
	size_t cap_sorted;
	uint64_t records_on_disk; /* count records in the file */
	/* the stack table is a tree: node keys are STACKS records as on
	 * disk (parent, flags, frame), stored without the keyset's index
	 * (a node may be stored twice), but for the exact reference */
	struct ops_keyset stacks;
	uint32_t stacks_on_disk;
	/* the STACKS blocks of nodes [0, blocks_to) as the file has them,
	 * framed and deflated, which a compaction puts again instead of
	 * encoding and deflating the whole table anew; and those of the
	 * write under way, bytes [pending_off, pending_end) of W->out,
	 * made of nodes [blocks_to, pending_to), kept once the file has
	 * them */
	struct ops_buf stack_blocks;
	uint32_t blocks_to, pending_to;
	size_t pending_off, pending_end;
	/* the user stack copies, keys PIECED_COPIES records as on disk,
	 * and their pieces, keys their bytes (copy_writer.c) */
	struct ops_keyset copies;
	struct ops_keyset copy_pieces;
	uint32_t copies_on_disk, pieces_on_disk;
	struct ops_buf copy_key; /* scratch: the record being added */
	/* the COPY_PIECES and PIECED_COPIES blocks of pieces [0,
	 * copy_blocks_pieces) and copies [0, copy_blocks_copies) as the
	 * file has them, which a compaction puts again rather than
	 * deflating every piece anew (as the stacks' blocks above); those
	 * of the write under way are bytes [copy_pending_off,
	 * copy_pending_end) of W->out, kept once the file has them */
	struct ops_buf copy_blocks;
	uint32_t copy_blocks_pieces, copy_blocks_copies;
	uint32_t copy_pending_pieces, copy_pending_copies;
	size_t copy_pending_off, copy_pending_end;
	bool copy_pending;
	uint64_t copies_dropped; /* past the copies' memory cap */
	/* the copy added last, its bytes and its pieces' ids: most pieces
	 * of the next are the same bytes at the same address, found
	 * without hashing (copy_writer.c) */
	struct {
		uint64_t sp;
		uint32_t size;
		uint8_t *bytes;	     /* OPS_STACK_COPY_MAX */
		uint32_t *ids, *new; /* COPY_LAST_IDS each */
	} copy_last;
	/* the process mappings, keys PROCESS_MAPS records as on disk */
	struct ops_keyset pmaps;
	uint32_t pmaps_on_disk;
	/* the last stack added by a thread, root first: each depth's
	 * frame, node flags and node, so that the thread's next stack
	 * finds the outer part it shares with it without a lookup per
	 * frame; threads by their id, direct-mapped (two that share a
	 * lane share it as one) */
	struct ops_stack_lane {
		struct ops_path_step {
			struct ops_frame frame;
			uint64_t hash; /* of the frames from the root */
			uint32_t node;
			uint8_t flags;
		} * path;
		size_t path_n, cap_path;
		uint32_t tid;
	} lanes[OPS_STACK_LANES];
	/* the nodes by parent and frame, in two generations: those added
	 * or found since the newer one began, and before (stack_writer.c);
	 * index_limit nodes in the newer one start the next */
	struct ops_stack_edge *index[2];
	uint32_t index_nr, index_limit;
	uint8_t index_new;
	/* tests: every node looked up in the whole table, once each, as
	 * a reference */
	bool exact;
	/* version 5: the stacks with an anonymous frame as deltas
	 * (delta_writer.c, FORMAT.md STACK_DELTAS), not interned: each
	 * lane's last such stack, root first, and the id it was given */
	bool deltas;
	struct ops_delta_lane {
		/* its last stack as placed frames, path_n of them (0 when
		 * its last record was a chain's) */
		struct ops_delta_step {
			struct ops_frame frame;
			uint8_t flags;
		} * path;
		size_t path_n, cap_path;
		uint32_t tid;
		uint32_t last; /* the last record's id; UINT32_MAX: none */
		/* the frames the lane's records named last, most recent
		 * first (FORMAT.md, STACK_DELTAS) */
		struct ops_frame mru[OPS_DELTA_MRU];
		uint32_t nr_mru;
		/* version 6 (raw_writer.c): while raw_gen, not 0, its
		 * last record was a chain of generation raw_gen: its
		 * addresses, leaf first as the kernel gave them, raw_n of
		 * them ending at raw[OPS_STACK_MAX_FRAMES] (a next chain
		 * writes only the addresses it does not share from the
		 * root), raw_user not in the kernel, cut at the depth limit
		 * (raw_cut), the first in anonymous memory at first_anon
		 * (from the root; UINT32_MAX: none);
		 * the process whose addresses its records name (space,
		 * while space_ok) */
		uint64_t *raw;
		uint64_t raw_gen;
		uint32_t raw_n, raw_user, first_anon, space;
		bool raw_cut, space_ok;
	} dlanes[OPS_STACK_LANES];
	/* version 6: the frame of each address placed lately, by address,
	 * generation and place (in the kernel or not), direct-mapped
	 * (raw_writer.c); each was defined in the records when it was
	 * placed */
	struct ops_raw_slot {
		uint64_t addr, gen;
		struct ops_frame frame;
		bool kernel;
	} * raw_slots;
	/* a chain's definitions made while its record is written */
	struct ops_buf raw_defs;
	/* a chain's frames as placed, leaf first (ops_writer_chain_of) */
	struct ops_frame *chain_frames;
	size_t cap_chain_frames;
	/* ids given; the records of ids [delta_first, nr_deltas) not in
	 * a block yet, delta_nrecs of them with the definitions; the
	 * STACK_DELTAS blocks framed since the file had the others, the
	 * write under way putting the first delta_pending_len bytes of
	 * them at delta_pending_at of its file */
	uint32_t nr_deltas, delta_first, delta_nrecs;
	struct ops_buf delta_recs, delta_blocks;
	uint64_t delta_pending_at;
	size_t delta_pending_len;
	/* the STACK_DELTAS blocks the file has, in order, as ranges of it,
	 * which a compaction puts back whole (each record names the one
	 * before in its lane) by copying them from the file (they are
	 * most of a JIT recording's bytes: kept in memory, they grew with
	 * the run); the compaction's file has them at delta_compacted */
	struct ops_extent {
		uint64_t off, len;
	} * delta_extents, delta_compacted;
	uint32_t nr_delta_extents;
	size_t cap_delta_extents;
	/* the most STACK_DELTAS bytes the close copies into a compacted
	 * file (ops_hist_writer_finish()); OPS_HIST_CLOSE_COPY_MAX but in
	 * the tests of the close without one */
	uint64_t close_copy_max;
	/* ops_hist_writer_compact() under way: W->out goes to its file at
	 * compact_at, with the ranges of the file it replaces in SPLICES
	 * (their bytes: spliced) at their places in W->out */
	bool compacting;
	uint64_t compact_at, spliced;
	struct ops_splice *splices;
	uint32_t nr_splices;
	size_t cap_splices;
	struct ops_stack_stats stack_stats;
	/* the kernel-side frames of the stacks, address to image id + 1,
	 * each once: the kallsyms trim keeps their symbols */
	struct oputil_u64map kframes;
	/* the addresses of the anonymous frames of the stack table, each
	 * once: the archived perf maps keep the entries they fall in */
	struct oputil_u64map aframes;
	/* time slices (slice_writer.c): the open slice's cells, and every
	 * slice closed so far as framed TIME_SLICES blocks, kept for the
	 * compaction, of which the first slices_on_disk bytes are in the
	 * file */
	uint32_t *slice_dirty;
	uint32_t nr_slice_dirty;
	size_t cap_slice_dirty;
	struct ops_hist_delta *slice_sorted;
	size_t cap_slice_sorted;
	uint64_t slice_index; /* of the open slice, from the session start */
	bool slicing;	      /* ops_writer_time() called */
	struct ops_buf slices;
	size_t slices_on_disk;
};

/* STACKS blocks of nodes FROM to W->hist.stacks.nr into W->out: FROM
 * is what the file holds, or 0 for a compaction. */
int ops_hist_put_stacks(struct ops_writer *w, uint32_t from);
/* The file took W->out (WRITTEN) or not: its STACKS blocks are kept
 * for the next compaction, or forgotten. */
void ops_hist_stacks_written(struct ops_writer *w, bool written);

/* The record of frame F after its parent's frame PREV (NULL at a
 * root) into P, which it returns past (FORMAT.md, STACKS' tag, plus
 * BASE: STACK_DELTAS' literal frames). */
uint8_t *ops_stack_frame_encode(uint8_t *p, const struct ops_frame *f,
				const struct ops_frame *prev, uint32_t base);
/* Node flags (FORMAT.md, STACKS). */
#define OPS_NODE_KERNEL 0x1
#define OPS_NODE_CUT 0x2

/* The node flags of frame I (leaf first) of a stack or chain of NR
 * frames, NR_KERNEL of them in the kernel, with ops_stack.flags FLAGS:
 * inline, as the delta writer asks it of every frame it compares. */
static inline uint8_t ops_frame_node_flags(uint32_t i, uint32_t nr,
					   uint32_t nr_kernel, uint32_t flags)
{
	uint8_t node = i < nr_kernel ? OPS_NODE_KERNEL : 0;

	if (i == nr - 1 && (flags & OPS_STACK_TRUNCATED))
		node |= OPS_NODE_CUT;
	return node;
}
/* The node flags of stack ST's frame I, leaf first. */
static inline uint8_t ops_stack_node_flags(const struct ops_stack *st,
					   uint32_t i)
{
	return ops_frame_node_flags(i, st->nr_frames, st->nr_kernel,
				    st->flags);
}
/* Whether frame F is one a stack of H may have: a kind the format
 * knows, an image registered. */
static inline bool ops_frame_valid(const struct ops_hist_writer *h,
				   const struct ops_frame *f)
{
	return f->kind <= OPS_FRAME_UNKNOWN &&
	       (f->kind != OPS_FRAME_IMAGE || f->image < h->images.nr);
}
/* Stack ST of thread TID, which has an anonymous frame, as a delta in a
 * version 5 session: its id in *ID (delta_writer.c). */
int ops_delta_stack(struct ops_writer *w, const struct ops_stack *st,
		    uint32_t tid, uint32_t *id);
/* Chain C of thread TID as a version 6 chain record (raw_writer.c): 1
 * and *ID when written; 0 when this is not the way (C has no
 * generation), with nothing placed; 2 when C has no anonymous frame,
 * with its frames placed in H->chain_frames; or -errno, with no record
 * of it written. */
int ops_raw_chain(struct ops_writer *w, const struct ops_chain *c,
		  uint32_t tid, uint32_t *id);
/* The room a record of N frames, NR_KERNEL in the kernel, takes in H's
 * records and sets (its lane's arrays are the caller's): first what can
 * fail, as a record is written whole or not at all and its lane's
 * frames change with it. */
static inline int ops_delta_reserve(struct ops_hist_writer *h, uint32_t n,
				    uint32_t nr_kernel)
{
	int ret;

	if (h->nr_deltas == UINT32_MAX || h->delta_nrecs > UINT32_MAX - 1 - n)
		return -EOVERFLOW;
	/* a record's most: five counts, then an address or a frame's tag
	 * and value each; and before it, a definition of each address
	 * (kind, space, address, tag, value) */
	ret = ops_buf_reserve(&h->delta_recs,
			      (5 + 7 * (size_t)n) * OPS_VARINT_MAX);
	ret = ret ? ret : oputil_u64map_reserve(&h->aframes, n);
	return ret ? ret : oputil_u64map_reserve(&h->kframes, nr_kernel);
}

/* Frame F, in the kernel or not, into the sets of the trims at the stop
 * (room reserved by ops_delta_reserve()). */
void ops_delta_note(struct ops_hist_writer *h, const struct ops_frame *f,
		    bool kernel);
/* The open run of W's records closed into a STACK_DELTAS block
 * (delta_writer.c). */
int ops_delta_close(struct ops_writer *w);
/* A stack of N frames sharing D with its lane's stack before, in the
 * writer's counts.  Inline, as ops_delta_lane() below and
 * ops_delta_end() (after struct ops_writer): the three are a JIT
 * sample's every time, and a call each was 2% of its record. */
static inline void ops_delta_count(struct ops_hist_writer *h, uint32_t n,
				   uint32_t d)
{
	h->stack_stats.stacks++;
	h->stack_stats.frames += n;
	h->stack_stats.shared += d;
}

/* The lane of thread TID. */
static inline uint32_t ops_delta_lane(uint32_t tid)
{
	return (uint32_t)(oputil_hash_u64(tid) & (OPS_STACK_LANES - 1));
}
/* The STACK_DELTAS blocks not on disk (all of them in a compaction)
 * appended to W->out. */
int ops_delta_put(struct ops_writer *w);
/* The file took what ops_delta_put() appended (WRITTEN) or not. */
void ops_delta_written(struct ops_writer *w, bool written);
/* Whether there are deltas the file does not have. */
bool ops_delta_pending(const struct ops_hist_writer *h);
void ops_delta_free(struct ops_hist_writer *h);

/* Put stack node ID's record (as the table keys it, its parent as an
 * id) into OUT as the file has it (FORMAT.md, STACKS). */
int ops_stack_record_put(struct ops_buf *out, const uint8_t *key, size_t len,
			 uint32_t id);

/* Cells of (context, stack) counts share the table with (context,
 * offset) cells: their ctx has this bit, their offset is the stack id.
 * Context ids stay below it (ops_keyset ids are below 2^31). */
#define OPS_STACK_CTX 0x80000000u
/* Counts of stack copies: ctx is this bit alone, offset the copy id. */
#define OPS_COPY_CTX 0x40000000u

/* Threads a sample record can name by position (FORMAT.md, SAMPLES). */
#define OPS_ANON_MRU 3

/* Encoder state of one process's anonymous stream. */
struct ops_anon_proc {
	struct ops_buf enc; /* records after the first sample */
	uint32_t count;
	uint32_t tid0;
	uint64_t t0, a0, pt;
	/* most recently used threads first, with their last address */
	uint32_t mru_tid[OPS_ANON_MRU];
	uint64_t mru_addr[OPS_ANON_MRU];
	uint32_t nr_mru;
	/* the stream of stack samples, the same encoding with a stack id
	 * for the address; allocated at the process's first one */
	struct ops_anon_proc *stacks;
	/* several events: the streams of events 1 .. nr_events - 1, each
	 * with its own stack stream; allocated at the first of them */
	struct ops_anon_proc *events;
};

struct ops_anon_writer {
	struct ops_blockfile bf;
	struct ops_anon_proc *procs;
	uint32_t nr_procs, cap_procs;
	uint32_t nr_events; /* the writer's, for the free */
};

struct ops_writer {
	char *dir;
	int dfd; /* DIR, opened once: every file is made relative to it */
	/* DIR's parent, resolved without another user's links, and DIR's
	 * name in it: DIR is made, opened and moved aside through these */
	int pdfd;
	char *leaf;
	int lockfd; /* DIR/.lock, flock'ed while the session is recorded */
	char *previous;
	/* the tables ops_writer_kernel_symbols() copied, read again at
	 * the stop for the modules loaded meanwhile (kallsyms.c) */
	char *kallsyms_src, *modules_src;
	/* the kallsyms copy is a kept table without the code that comes
	 * and goes (ops_writer_kernel_symbols_kept()) */
	bool kallsyms_kept;
	/* that kept table's index, and its bytes (kallsyms_index.c) */
	struct ops_ksym_index *kallsyms_index;
	void *kallsyms_index_bytes;
	char err[1024];
	struct ops_meta meta;
	struct ops_hist_writer hist;
	struct ops_anon_writer anon;
	struct ops_buf out, payload, records;
	/* samples given to the writer, and those a write() put on disk:
	 * the difference is what a failed write lost (FORMAT.md) */
	uint64_t samples_added;
	uint64_t hist_on_disk, anon_on_disk;
	uint64_t anon_framed; /* in w->out, not yet appended */
	bool callgraph;	      /* a version 2 session */
	bool threads;	      /* OPS_SEPARATE_THREAD */
	uint32_t nr_events;   /* in meta's event list; 1 for most */
	bool totals_dirty;    /* meta.info's totals not in samples.hist yet */
	bool archive_stored;  /* ops_writer_archive_stored() */
	/* perf maps archived plain, trimmed and compressed at a clean
	 * stop (archive.c) */
	struct ops_plain_map {
		uint32_t proc_id;
		char *name; /* the copy's base name */
	} * plain_maps;
	size_t nr_plain_maps, cap_plain_maps;
	bool anon_in_stacks; /* ops_writer_anon_in_stacks() */
};

/* Set the writer's error line and return RET. */
int ops_writer_fail(struct ops_writer *w, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* FD's data (the file at PATH) on disk: 0, or W's failure naming PATH. */
int ops_writer_datasync(struct ops_writer *w, int fd, const char *path);

int ops_hist_writer_open(struct ops_writer *w);
/* Count without checking CTX (which may carry OPS_STACK_CTX). */
int ops_hist_count(struct ops_writer *w, uint32_t ctx, uint64_t offset,
		   uint64_t count);
/* A COPY_PIECES record, piece PIECE of LEN bytes, appended to OUT. */
int ops_copy_piece_put(struct ops_buf *out, const uint8_t *piece, size_t len);
/* The COPY_PIECES blocks of pieces PIECES_FROM on, then the
 * PIECED_COPIES blocks of copies COPIES_FROM on, appended to W->out:
 * what the file holds, or 0 and 0 for a compaction (copy_writer.c). */
int ops_copy_put(struct ops_writer *w, uint32_t copies_from,
		 uint32_t pieces_from);
/* The file took W->out (WRITTEN) or not: its COPY_PIECES and
 * PIECED_COPIES blocks are kept for the next compaction, or forgotten
 * (copy_writer.c). */
void ops_copy_written(struct ops_writer *w, bool written);
/* Definitions as blocks appended to W->out (hist_writer.c). */
int ops_hist_put_defs(struct ops_writer *w, const struct ops_keyset *ks,
		      uint32_t from, uint32_t to, uint16_t type);
/* RET (from building W->out) said once as a failed flush; else W->out
 * appended to samples.hist, whose definitions are then all on disk
 * (hist_writer.c). */
int ops_hist_append(struct ops_writer *w, int ret);
/* Contexts FROM to TO as CONTEXTS blocks appended to W->out and, when
 * the session separates threads, their CONTEXT_THREADS blocks. */
int ops_hist_put_contexts(struct ops_writer *w, uint32_t from, uint32_t to);
/* Thread names as a THREADS block appended to W->out: those changed
 * since the last flush, or all (thread_writer.c). */
int ops_thread_put(struct ops_writer *w, bool all);
/* The THREADS block put reached the file: no name is pending. */
void ops_thread_written(struct ops_hist_writer *h);
void ops_thread_writer_free(struct ops_hist_writer *h);
/* Append to samples.hist the definitions not on disk yet, so that a
 * block of anon.samples may name them (stack_writer.c).  Uses W->out. */
int ops_hist_writer_defs(struct ops_writer *w);
int ops_hist_writer_flush(struct ops_writer *w);
/* Rewrite samples.hist with one set of definitions and totals. */
int ops_hist_writer_compact(struct ops_writer *w, bool sync);
/* The close's last write to samples.hist, synced: a compaction, or a
 * last flush where the compaction would copy more than close_copy_max
 * bytes of the file's STACK_DELTAS blocks to fold few count records. */
#define OPS_HIST_CLOSE_COPY_MAX (4u << 20)
int ops_hist_writer_finish(struct ops_writer *w);
void ops_hist_writer_free(struct ops_hist_writer *h);
/* The open time slice's counts as a TIME_SLICES block kept in
 * W->hist.slices (slice_writer.c); its cells start again at 0. */
int ops_slice_close(struct ops_writer *w);

int ops_anon_writer_open(struct ops_writer *w);
int ops_anon_writer_flush(struct ops_writer *w);
void ops_anon_writer_free(struct ops_anon_writer *a);

/* Serialise an image or context record (without id) into OUT. */
int ops_image_encode(struct ops_buf *out, const struct ops_image *img);
int ops_context_encode(struct ops_buf *out, const struct ops_context *ctx);

/* The session lock file (FORMAT.md "The session lock"). */
#define OPS_LOCK_NAME ".lock"

/* Tuning, in one place so that tests can reason about it. */
/* per-process buffer before a block: at 4 kHz a JIT process's stream
 * fills 16 KiB in about a second, so that most of its blocks go with
 * the recorder's flush (4 KiB was a write to anon.samples and one to
 * samples.hist every 1,100 samples); and a disk that fills loses no
 * more than that of each stream */
#define OPS_ANON_BLOCK_BYTES 16384
#define OPS_BLOCK_SOFT_MAX (1u << 20) /* split payloads beyond this */

/* Lane L's record of N frames (SHARED of them its stack before's) ends
 * at P: the stack's id in *ID. */
static inline int ops_delta_end(struct ops_writer *w, struct ops_delta_lane *l,
				uint8_t *p, uint32_t n, uint32_t shared,
				uint32_t *id)
{
	struct ops_hist_writer *h = &w->hist;

	h->delta_recs.len = (size_t)(p - h->delta_recs.data);
	h->stack_stats.added += n - shared;
	h->delta_nrecs++;
	l->last = *id = h->nr_deltas++;
	/* blocks near 1 MiB, as the other definitions' */
	if (h->delta_recs.len >= OPS_BLOCK_SOFT_MAX)
		return ops_delta_close(w);
	return 0;
}

/* Cut the session's kallsyms copy down to what its kernel samples need
 * (kallsyms.c); on failure the whole copy stays. */
int ops_writer_trim_kallsyms(struct ops_writer *w);

/* Install DATA in the session as DST, the copy of a file ST describes:
 * written to TMP (both relative to the session), compressed unless
 * PLAIN, with ST's owner, mode and mtime so that the copy passes the same
 * trust rules as the original, then renamed.  0, or a negative errno
 * (not reported) with TMP gone. */
struct stat;
int ops_archive_install(struct ops_writer *w, const char *tmp, const char *dst,
			const struct stat *st, const uint8_t *data, size_t len,
			bool plain);

/* Keep of each perf map archived plain only the entries the session's
 * samples fall in, compressed (archive.c); a copy that cannot be trimmed
 * stays whole. */
void ops_writer_trim_maps(struct ops_writer *w);
/* Forget the maps to trim. */
void ops_writer_plain_maps_free(struct ops_writer *w);

#endif /* OPS_WRITER_INTERNAL_H */
