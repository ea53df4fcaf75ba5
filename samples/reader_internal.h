/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The readers of samples.hist and anon.samples, parsing from a buffer so
 * that the fuzz targets (tests/samples/fuzz_*.c) need no filesystem.
 */
#ifndef OPS_READER_INTERNAL_H
#define OPS_READER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <opjit/samples.h>
#include <oputil/idxset.h>

#include "block_internal.h"

struct ops_hist_data {
	struct ops_image *images; /* paths owned */
	uint32_t nr_images, cap_images;
	struct ops_context *contexts;
	uint32_t nr_contexts, cap_contexts;
	uint32_t nr_ctx_threads; /* contexts given a thread so far */
	uint32_t nr_ctx_events;	 /* contexts given an event so far */
	/* thread names (thread_reader.c): in file order while reading,
	 * then sorted by (tgid, tid), the last record of each kept */
	struct ops_thread *threads; /* names owned */
	size_t nr_threads, cap_threads;
	struct ops_hist_entry *entries; /* sorted, equal keys summed */
	size_t nr_entries, cap_entries;
	/* call graphs: the stack table as the file has it, a tree of
	 * nodes, each its frame below its parent's; stack I is node I's
	 * path to its root, put together when asked for (a node's whole
	 * path each would take the table's depth times its memory).  A
	 * node is 12 bytes, its frame an index into frames, where each
	 * distinct frame is once: a JIT's recursion makes a new node most
	 * samples from a few return addresses, and the nodes are most of a
	 * long session's report memory. */
	struct ops_stack_node {
		uint32_t parent; /* node id + 1; 0 at a root */
		uint32_t frame;	 /* in frames */
		uint16_t depth;	 /* frames from here to the root */
		/* kernel frames from here to the root << 1, and
		 * OPS_STACK_TRUNCATED (the root's) */
		uint16_t kernel_cut;
	} * nodes;
	struct ops_frame *frames;
	uint32_t nr_frames;
	size_t cap_frames;
	struct oputil_idxset frame_set; /* frames, while the file is read */
	uint32_t nr_stacks, cap_stacks;
	/* version 5: the STACK_DELTAS stacks (delta_reader.c), interned
	 * as they are read into nodes of their own, whose parents are
	 * among them, appended to the table's once the whole file is read
	 * (a later STACKS block takes the ids after the table's); the
	 * first dnodes_ok are those of whole blocks.  Each delta id's
	 * node in delta_node: a dnode's index, then its node id.  Each
	 * lane's last stack as its dnodes, root first. */
	struct ops_stack_node *dnodes;
	uint32_t nr_dnodes, dnodes_ok;
	size_t cap_dnodes;
	struct oputil_idxset dnode_set;
	uint32_t *delta_node;
	uint32_t nr_deltas;
	size_t cap_delta_node;
	struct ops_delta_rlane {
		uint32_t *path; /* OPS_STACK_MAX_FRAMES */
		uint32_t n;
		/* the frames its records named last, most recent first */
		struct ops_frame mru[OPS_DELTA_MRU];
		uint32_t nr_mru;
		/* version 6: the addresses of its last stack, when that
		 * was a chain's (raw_n of them, the first raw_n of path;
		 * OPS_STACK_MAX_FRAMES), and the process its chains name
		 * (space, while has_space) */
		uint64_t *raw;
		uint32_t raw_n, space;
		bool has_space;
	} dlanes[OPS_DELTA_LANES];
	/* version 6: each address's frame as the records defined it last,
	 * by space (a process's id), place (in the kernel or not) and
	 * address */
	struct ops_raw_def {
		uint64_t addr;
		uint32_t space, frame;
		bool kernel;
	} * raw_defs;
	uint32_t nr_raw_defs;
	size_t cap_raw_defs;
	struct oputil_idxset raw_def_set;
	/* the stack ops_session_stack() put together last */
	struct ops_stack stack;
	struct ops_frame *stack_frames; /* OPS_STACK_MAX_FRAMES of them */
	struct ops_stack_count *stack_counts; /* sorted, equal keys summed */
	size_t nr_stack_counts, cap_stack_counts;
	/* stack copies in id order, their bytes as pieces (copy_reader.c):
	 * each distinct piece once in piece_bytes, OPS_STACK_COPY_PIECE
	 * bytes a slot, its length in piece_len, found by content through
	 * piece_set; each copy's piece ids in copy_pieces */
	struct ops_stack_copy *copies;
	size_t nr_copies, cap_copies;
	uint8_t *piece_bytes, *piece_len;
	size_t nr_pieces, cap_piece_bytes, cap_piece_len;
	struct oputil_idxset piece_set;
	uint32_t *copy_pieces;
	size_t nr_copy_pieces, cap_copy_pieces;
	/* a file holds copies of one form: whole (STACK_COPIES) or as
	 * pieces defined once (COPY_PIECES, PIECED_COPIES) */
	bool copies_whole, copies_pieced;
	/* the process mappings of the copies, in id order */
	struct ops_process_map *pmaps;
	size_t nr_pmaps, cap_pmaps;
	/* the last TOTALS block: the totals of a recorder that did not stop
	 * cleanly (only the fields of the totals are set) */
	struct ops_session_info totals;
	bool have_totals;
	/* TIME_SLICES records (slice_reader.c), in file order */
	struct ops_time_count *slices;
	size_t nr_slices, cap_slices;
	uint64_t untimed;	   /* flat counts beyond the slices' */
	uint64_t win_from, win_to; /* ops_hist_window()'s */
};

/* CONTEXT_THREADS and THREADS payloads (thread_reader.c). */
/* CONTEXT_EVENTS payload (hist_reader.c). */
const char *ops_hist_context_events(struct ops_hist_data *h, const uint8_t *p,
				    size_t len);
/* After the parse: every context's event within NR_EVENTS, or none kept
 * (all read as event 0) and -EINVAL. */
int ops_hist_events_check(struct ops_hist_data *h, uint32_t nr_events);
const char *ops_hist_context_threads(struct ops_hist_data *h, const uint8_t *p,
				     size_t len);
const char *ops_hist_threads(struct ops_hist_data *h, const uint8_t *p,
			     size_t len, bool *oom);
/* Once the whole file is read: the names sorted, one a thread. */
void ops_hist_threads_finish(struct ops_hist_data *h);
void ops_hist_threads_free(struct ops_hist_data *h);

/* Sort H's counts and sum equal keys (hist_reader.c). */
void ops_hist_merge(struct ops_hist_data *h);
/* A TIME_SLICES payload (slice_reader.c). */
const char *ops_hist_time_slices(struct ops_hist_data *h, const uint8_t *p,
				 size_t len, bool *oom);
/* Whether slice T's middle is in [FROM, TO). */
bool ops_slice_in(const struct ops_time_count *t, uint64_t from, uint64_t to);
/* Once the whole file is read: H->untimed. */
void ops_hist_slices_finish(struct ops_hist_data *h);
/* Replace H's counts by those of the slices whose middle is in
 * [FROM, TO) ns from the session's start (slice_reader.c). */
int ops_hist_window(struct ops_hist_data *h, uint64_t from, uint64_t to);

/* STACKS and STACK_COUNTS payloads (stack_reader.c): NULL, or why the
 * block is damage; *OOM set on memory failure. */
const char *ops_hist_stacks(struct ops_hist_data *h, const uint8_t *p,
			    size_t len, bool parent_ids, bool *oom);
/* Stack ID, leaf first, in H's scratch (valid until the next call);
 * NULL for an id with no entry. */
const struct ops_stack *ops_hist_stack(struct ops_hist_data *h, uint32_t id);
const char *ops_hist_stack_counts(struct ops_hist_data *h, const uint8_t *p,
				  size_t len, bool *oom);
/* A STACK_DELTAS payload (delta_reader.c). */
const char *ops_hist_stack_deltas(struct ops_hist_data *h, const uint8_t *p,
				  size_t len, bool *oom);
/* The frame record of tag TAG (read from C, as the rest of it) after
 * PREV (NULL at a root) into *F (stack_reader.c); false on damage. */
bool ops_hist_stack_frame(const struct ops_hist_data *h, struct ops_cur *c,
			  uint64_t tag, const struct ops_frame *prev,
			  struct ops_frame *f);
/* Frame F's index in H->frames, added when new; UINT32_MAX when out of
 * memory (stack_reader.c). */
uint32_t ops_hist_frame_intern(struct ops_hist_data *h,
			       const struct ops_frame *f);
/* Node ND's kernel frames and OPS_STACK_* flags. */
static inline uint32_t ops_node_kernel(const struct ops_stack_node *nd)
{
	return nd->kernel_cut >> 1;
}
static inline uint32_t ops_node_flags(const struct ops_stack_node *nd)
{
	return nd->kernel_cut & OPS_STACK_TRUNCATED;
}
/* Once the whole file is read: the deltas' nodes after the table's,
 * their ids as node ids; 0 or -ENOMEM. */
int ops_hist_deltas_finish(struct ops_hist_data *h);
void ops_hist_deltas_free(struct ops_hist_data *h);
/* STACK_COPIES and COPY_COUNTS payloads (copy_reader.c). */
const char *ops_hist_copies(struct ops_hist_data *h, const uint8_t *p,
			    size_t len, bool *oom);
const char *ops_hist_copy_counts(struct ops_hist_data *h, const uint8_t *p,
				 size_t len);
/* COPY_PIECES and PIECED_COPIES payloads (copy_reader.c), and
 * PIECED_COPY_SLICES (slice_reader.c). */
const char *ops_hist_copy_pieces(struct ops_hist_data *h, const uint8_t *p,
				 size_t len, bool *oom);
const char *ops_hist_pieced_copies(struct ops_hist_data *h, const uint8_t *p,
				   size_t len, bool *oom);
const char *ops_hist_copy_slices(struct ops_hist_data *h, const uint8_t *p,
				 size_t len, bool *oom);
/* PROCESS_MAPS payloads (pmap_reader.c). */
const char *ops_hist_pmaps(struct ops_hist_data *h, const uint8_t *p,
			   size_t len, bool *oom);
void ops_hist_copies_finish(struct ops_hist_data *h);
void ops_hist_copies_free(struct ops_hist_data *h);
/* Once the whole file is read: frame pointers, counts sorted. */
void ops_hist_stacks_finish(struct ops_hist_data *h);
void ops_hist_stacks_free(struct ops_hist_data *h);

/* Parse a whole samples.hist held in BUF.  Damage is reported through
 * WARN; only memory failure returns an error. */
int ops_hist_parse(struct ops_hist_data *h, const uint8_t *buf, size_t len,
		   const char *path, ops_warn_fn warn, void *warn_arg);
void ops_hist_data_free(struct ops_hist_data *h);

struct ops_anon_rproc {
	struct ops_process p;		  /* comm, exe, ranges owned */
	uint32_t first_block, last_block; /* UINT32_MAX when none */
	uint64_t nr_samples;		  /* as the block headers say */
	struct ops_anon_sample *samples;  /* decoded on first use */
	size_t nr_decoded;
	bool decoded;
	/* the same for STACK_SAMPLES blocks */
	uint32_t first_sblock, last_sblock;
	uint64_t nr_ssamples;
	struct ops_anon_stack_sample *ssamples;
	size_t nr_sdecoded;
	bool sdecoded;
};

struct ops_anon_block {
	uint64_t off;	/* of the block header in the file */
	uint32_t len;	/* payload length */
	uint32_t next;	/* next block of the same process, or UINT32_MAX */
	uint32_t count; /* samples, as its header says */
	uint32_t event; /* 0, or that of an EVENT_ block, which says it */
};

struct ops_anon_data {
	int fd; /* the file, read a block at a time as samples are asked for */
	uint8_t *payload; /* the block being decoded */
	size_t cap_payload;
	char *path;
	ops_warn_fn warn;
	void *warn_arg;
	bool warned; /* one warning per file */
	struct ops_anon_rproc *procs;
	uint32_t nr_procs, cap_procs;
	struct ops_anon_block *blocks;
	uint32_t nr_blocks, cap_blocks;
	uint32_t nr_stacks; /* stack ids below it have an entry */
	const struct ops_stack_node *stack_nodes; /* the session's stacks */
	const struct ops_frame *stack_frames;	  /* and their frames */
	/* version 5: the samples name deltas (STACK_DELTAS), each the
	 * node of its stack here; NULL in earlier sessions */
	const uint32_t *stack_ids;
	uint32_t nr_stack_ids;
	/* only samples with win_from <= time_ns < win_to decode (a stack
	 * sample with a counted leaf by its slice's middle, slices starting
	 * at slice_origin) */
	bool windowed;
	uint64_t win_from, win_to, slice_origin;
	/* only samples of this event decode (a session of several), or
	 * of all with all_events */
	uint32_t event;
	bool all_events;
	/* the highest event of an EVENT_ block, and that block's offset */
	uint32_t max_event;
	uint64_t max_event_off;
};

/* Index the anon.samples open as FD, which A then owns (closed by
 * ops_anon_data_free, even on failure; -1 for a session without one):
 * processes are parsed, samples only located, and the file is never held
 * whole.  Damage is reported
 * through WARN; 0, or -ENOMEM or a read error (not reported). */
int ops_anon_open(struct ops_anon_data *a, int fd, const char *path,
		  ops_warn_fn warn, void *warn_arg);
/* Decode one process's samples (cached). */
int ops_anon_decode(struct ops_anon_data *a, uint32_t proc_id,
		    const struct ops_anon_sample **samples, size_t *n);
/* Hand one process's samples to FN a block at a time, keeping none;
 * stops at FN's first nonzero return, which it returns (or -ENOENT,
 * -ENOMEM, not reported). */
int ops_anon_walk(struct ops_anon_data *a, uint32_t proc_id,
		  int (*fn)(void *arg, const struct ops_anon_sample *s,
			    size_t n),
		  void *arg);
/* How many samples of one process decode, without keeping them. */
int ops_anon_count(struct ops_anon_data *a, uint32_t proc_id, size_t *n);
/* How many samples of event EVENT, of every process, decode, whatever
 * event is selected and whatever the window; none kept. */
int ops_anon_count_event(struct ops_anon_data *a, uint32_t event, uint64_t *n);
/* One process's samples, decoded, handed to the caller to free. */
int ops_anon_take(struct ops_anon_data *a, uint32_t proc_id,
		  struct ops_anon_sample **samples, size_t *n);
/* Forget one process's decoded samples and stack samples; they decode
 * again when asked. */
void ops_anon_release(struct ops_anon_data *a, uint32_t proc_id);
/* Decode one process's stack samples (cached), leaving out those whose
 * stack id is A->nr_stacks or above. */
int ops_anon_decode_stacks(struct ops_anon_data *a, uint32_t proc_id,
			   const struct ops_anon_stack_sample **samples,
			   size_t *n);
/* Forget every process's decoded stack samples. */
void ops_anon_release_stacks(struct ops_anon_data *a);
/* Read only the samples of EVENT from now on (decoded ones are
 * forgotten). */
void ops_anon_select_event(struct ops_anon_data *a, uint32_t event);
void ops_anon_data_free(struct ops_anon_data *a);

#endif /* OPS_READER_INTERNAL_H */
