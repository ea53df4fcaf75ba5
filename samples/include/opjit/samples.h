/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The opjit session directory: the only API through which a session is
 * written (by oprofiled) or read (by opreport).  Every byte on disk is
 * described in samples/FORMAT.md.
 *
 * Conventions:
 *  - functions that can fail return 0 or a negative errno;
 *  - the writer keeps a one-line description of its last failure, naming
 *    the file, in ops_writer_error();
 *  - the reader never fails on damage inside a file: it keeps everything
 *    before the damage and reports one line per damaged file through the
 *    warn callback.  It fails only when the directory is not a session.
 *  - times are CLOCK_MONOTONIC nanoseconds unless the name says unix.
 */
#ifndef OPJIT_SAMPLES_H
#define OPJIT_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The newest version this library reads and writes.  Version 2 adds
 * call graphs; a session recorded without them is written as version 1
 * (OPS_FORMAT_VERSION_FLAT), byte for byte as before, and every version
 * from 1 reads. */
#define OPS_FORMAT_VERSION 6
#define OPS_FORMAT_VERSION_FLAT 1
/* Version 2 wrote a stack node's parent as its id; 3 as the distance. */
#define OPS_FORMAT_VERSION_STACK_IDS 2
/* Version 4 may compress a block (the stack table's). */
#define OPS_FORMAT_VERSION_DEFLATE 4
/* Version 5: the stacks of JIT samples as each thread's previous stack
 * plus what differs (STACK_DELTAS), not interned by the recorder.  A
 * call graph session without them is still written as version 4. */
#define OPS_FORMAT_VERSION_DELTAS 5
/* Version 6: a JIT stack's new frames as the addresses the kernel gave,
 * each address's frame defined once before its first use, so that the
 * recorder places an address only the first time it meets it. */
#define OPS_FORMAT_VERSION_RAW 6

/* ops_session_info.separate */
#define OPS_SEPARATE_PROCESS 0x1u
#define OPS_SEPARATE_CPU 0x2u
/* Contexts name their thread (always with OPS_SEPARATE_PROCESS), and
 * the session holds the threads' names (FORMAT.md, CONTEXT_THREADS). */
#define OPS_SEPARATE_THREAD 0x4u

/* Session metadata: session.meta. */
struct ops_session_info {
	uint32_t format_version; /* set by the library */
	/* e.g. "cpu-clock"; several events: "cpu-clock,page-faults",
	 * in the order of ops_context.event */
	const char *event;
	uint64_t period;    /* sampling period, 0 when frequency is used */
	uint64_t frequency; /* Hz, 0 when period is used */
	const char *clock;  /* "CLOCK_MONOTONIC" */
	uint64_t start_ns;  /* when recording started */
	uint64_t stop_ns; /* when it stopped; 0 if it never stopped cleanly */
	int64_t start_unix_ns; /* wall-clock start, for people */
	const char *host;
	const char *kernel_release;
	const char *
		command_line; /* the recorder's command line, space separated */
	uint32_t separate;    /* OPS_SEPARATE_* */
	bool kernel_excluded; /* kernel samples were not recorded */
	/* totals */
	uint64_t samples;      /* samples delivered by the kernel */
	uint64_t samples_lost; /* reported lost by the kernel, or kept off
				    * the disk by a failed write */
	uint64_t samples_unattributed; /* no mapping found, even after retry */
	uint64_t samples_anon;	 /* samples written to anonymous streams */
	uint64_t samples_kernel; /* samples in the kernel or its modules */
	uint32_t processes;	 /* processes seen */
	/* call graphs: the depth asked for (frames per sample), 0 when the
	 * session has none */
	uint32_t callgraph_depth;
	/* several events: each one's period, comma separated in the order
	 * of event, 0 for one sampled at frequency ("0,1"); NULL or empty
	 * otherwise.  ops_session_select_event sets period and frequency
	 * from it. */
	const char *event_periods;
	/* call graphs, to the writer: the stacks with an anonymous frame
	 * are written as deltas (FORMAT.md, STACK_DELTAS; version 5), not
	 * interned; read back: the session is of version 5 */
	bool stack_deltas;
};

enum ops_image_kind {
	OPS_IMAGE_FILE = 0, /* file-backed ELF image, key = file offset */
	OPS_IMAGE_KERNEL =
		1, /* the kernel, key = address; path "[kernel.kallsyms]" */
	OPS_IMAGE_MODULE =
		2, /* a kernel module, key = address; path = module name */
};

#define OPS_BUILD_ID_MAX 20

/* An image that samples fall in.  Identified by path plus build-id, or
 * by path plus size and mtime when it has no build-id. */
struct ops_image {
	uint32_t kind; /* enum ops_image_kind */
	const char *path;
	uint8_t build_id[OPS_BUILD_ID_MAX];
	uint8_t build_id_size; /* 0 when unknown */
	uint64_t size;	       /* bytes, 0 when unknown */
	int64_t mtime_ns;      /* unix ns, 0 when unknown */
};

/* Samples are counted per context: which application (the executable
 * that ran) was running, in which image, and, when separated, in which
 * process and on which CPU. */
struct ops_context {
	uint32_t app;	/* image id of the application */
	uint32_t image; /* image id the samples fall in */
	uint32_t tgid;	/* 0 unless OPS_SEPARATE_PROCESS */
	int32_t cpu;	/* -1 unless OPS_SEPARATE_CPU */
	uint32_t tid;	/* 0 unless OPS_SEPARATE_THREAD */
	/* index in the session's event list (ops_session_info.event,
	 * comma separated); 0 in a session of one event */
	uint32_t event;
};

/* Bytes of a thread's name (the kernel's comm is at most 15). */
#define OPS_THREAD_NAME_MAX 255

/* A thread's name (OPS_SEPARATE_THREAD sessions). */
struct ops_thread {
	uint32_t tgid;
	uint32_t tid;
	const char *name;
};

struct ops_hist_entry {
	uint32_t ctx;	 /* context id */
	uint64_t offset; /* file offset, or address for kernel images */
	uint64_t count;
};

struct ops_range {
	uint64_t start, end; /* [start, end) */
};

/* ops_process.flags */
#define OPS_PROC_OTHER_MNTNS 0x1u /* lived in another mount namespace */
#define OPS_PROC_EXITED 0x2u	  /* seen to exit during the session */

/* The identity of a process that ran anonymous executable code. */
struct ops_process {
	uint32_t tgid;
	uint32_t nspid; /* pid inside its own pid namespace (= tgid if none) */
	uint32_t uid;
	uint32_t flags;	   /* OPS_PROC_* */
	uint64_t start_ns; /* CLOCK_MONOTONIC start time */
	int64_t start_unix_ns; /* wall-clock start time, compared with map mtimes */
	const char *comm;
	const char *exe;
	const struct ops_range *ranges; /* anonymous executable ranges seen */
	uint32_t nr_ranges;
	const char *jitdump; /* the jit-<pid>.dump it mapped, or NULL */
};

struct ops_anon_sample {
	uint64_t time_ns;
	uint64_t addr;
	uint32_t tid;
};

/*
 * Call graphs.  A stack is a list of frames, leaf (the sampled
 * instruction) first, then return addresses of its callers outwards.
 * The first nr_kernel frames ran in the kernel, the rest in user space,
 * as the kernel's PERF_CONTEXT_KERNEL/USER markers divided them.  Stacks
 * are stored once each in a table (ids dense from 0), which also holds
 * the outer part of every stack (its callers' stacks) as stacks.  A stack with no
 * OPS_FRAME_ANON frame is counted per (context, stack id), the context
 * being the leaf's; a stack with one is appended, with the sample's
 * time and thread, to its process's anonymous stream, so that every JIT
 * frame can be named after the code that lived at its address at that
 * time.  Caller frames are return addresses as recorded: a report looks
 * them up at address - 1.
 */
enum ops_frame_kind {
	OPS_FRAME_IMAGE = 0,   /* in image IMAGE: ADDR is a file offset for
				* OPS_IMAGE_FILE, an address for the kernel
				* and its modules */
	OPS_FRAME_ANON = 1,    /* ADDR in the process's anonymous memory */
	OPS_FRAME_UNKNOWN = 2, /* ADDR in no mapping the recorder knew */
};

struct ops_frame {
	uint32_t kind;	/* enum ops_frame_kind */
	uint32_t image; /* image id for OPS_FRAME_IMAGE, else 0 */
	uint64_t addr;
};

/* ops_stack.flags */
#define OPS_STACK_TRUNCATED \
	0x1u /* the chain reached the depth limit and
				  * may have been cut there */

/* Frames a stack may hold; the kernel's own limit is far below. */
#define OPS_STACK_MAX_FRAMES 1024

struct ops_stack {
	const struct ops_frame *frames; /* leaf first */
	uint32_t nr_frames;		/* 1..OPS_STACK_MAX_FRAMES */
	uint32_t nr_kernel;		/* frames[0..nr_kernel) ran in the
					 * kernel */
	uint32_t flags;			/* OPS_STACK_* */
};

/* Samples of a stack without anonymous frames. */
struct ops_stack_count {
	uint32_t ctx;	/* context of the leaf frame */
	uint32_t stack; /* stack id */
	uint64_t count;
};

/* Bytes a stack copy may hold (the kernel's own limit is below). */
#define OPS_STACK_COPY_MAX 65536u

/* The reader keeps a copy's bytes as pieces at addresses aligned to
 * this, each distinct piece once: the copies of a loop share most of
 * theirs, and all of a session's copies whole would be tens of MiB. */
#define OPS_STACK_COPY_PIECE 128u

/* The user registers and the top of the user stack of samples of one
 * stack (no anonymous frame) in one context, for the report to unwind
 * what the frame-pointer chain missed. */
struct ops_stack_copy {
	uint32_t ctx;	/* context of the leaf frame */
	uint32_t stack; /* the frame-pointer stack id of the samples */
	uint64_t ip, sp, bp;
	uint32_t size; /* bytes copied from sp up, 0..OPS_STACK_COPY_MAX */
	/* the bytes whole (the writer's input), or NULL when they are in
	 * pieces (the reader's): read either through ops_stack_copy_read */
	const uint8_t *bytes;
	uint64_t count; /* samples (the reader's sum; the writer adds 1) */
	/* the pieces: piece_ids[j] is at piece_base + id *
	 * OPS_STACK_COPY_PIECE; the first from sp to the next multiple of
	 * OPS_STACK_COPY_PIECE, each of the others OPS_STACK_COPY_PIECE
	 * bytes, the last up to sp + size */
	const uint8_t *piece_base;
	const uint32_t *piece_ids;
};

/* LEN bytes of copy C at address ADDR into OUT: false when they are
 * not all inside the copy. */
bool ops_stack_copy_read(const struct ops_stack_copy *c, uint64_t addr,
			 void *out, size_t len);

/* ops_stack_copy_read() of the eight bytes at ADDR, inline where they
 * lie in one piece: an unwinder reads a word at a time, a quarter of a
 * million words in the report of a 3 s dwarf recording. */
static inline bool ops_stack_copy_word(const struct ops_stack_copy *c,
				       uint64_t addr, uint64_t *out)
{
	uint64_t off = addr - c->sp, j, in, room;

	if (c->piece_ids && c->piece_base && addr >= c->sp && off < c->size &&
	    c->size - off >= sizeof(*out)) {
		j = addr / OPS_STACK_COPY_PIECE - c->sp / OPS_STACK_COPY_PIECE;
		in = j ? addr % OPS_STACK_COPY_PIECE : off;
		room = (j ? OPS_STACK_COPY_PIECE
			  : OPS_STACK_COPY_PIECE -
					c->sp % OPS_STACK_COPY_PIECE) -
		       in;
		if (room >= sizeof(*out)) {
			__builtin_memcpy(out,
					 c->piece_base +
						 (size_t)c->piece_ids[j] *
							 OPS_STACK_COPY_PIECE +
						 in,
					 sizeof(*out));
			return true;
		}
	}
	return ops_stack_copy_read(c, addr, out, sizeof(*out));
}

/* Samples counted in one time slice (FORMAT.md, TIME_SLICES). */
enum ops_time_kind {
	OPS_TIME_COUNTS = 0, /* KEY is an offset, as in ops_hist_entry */
	OPS_TIME_COPIES = 1, /* KEY is a stack copy id, CTX 0 */
	OPS_TIME_STACKS = 2, /* KEY is a stack id, as in ops_stack_count */
};
struct ops_time_count {
	uint64_t start_ns; /* the slice's, from the session's start */
	uint64_t len_ns;
	uint64_t key;
	uint64_t count;
	uint32_t ctx;
	uint32_t kind; /* enum ops_time_kind */
};

/* Where a process had an image mapped, for the report to place the
 * return addresses it unwinds from a stack copy (FORMAT.md,
 * PROCESS_MAPS). */
struct ops_process_map {
	uint32_t tgid;
	uint32_t app;	     /* image id of the process's executable */
	uint32_t image;	     /* image id mapped */
	uint64_t start, len; /* [start, start + len) */
	uint64_t pgoff;	     /* file offset that start maps */
};

/* A sample whose stack holds an anonymous frame. */
struct ops_anon_stack_sample {
	uint64_t time_ns;
	uint32_t stack; /* stack id */
	uint32_t tid;
};

/* ------------------------------------------------------------------ */
/* Writer (oprofiled)                                                   */

struct ops_writer;

/*
 * Create a session in DIR (created if needed).  A session already in DIR
 * is moved aside to DIR.previous-N, N the smallest free number, never
 * mixed in.  INFO's strings are copied.  On failure *OUT is still set
 * (unless the writer itself could not be allocated) so that
 * ops_writer_error() can say why; free it with ops_writer_free().
 */
int ops_writer_open(struct ops_writer **out, const char *dir,
		    const struct ops_session_info *info);

/* Samples given to the writer that a failed write kept off the disk (a
 * full disk).  ops_writer_finish adds them to the session's
 * samples_lost, so a recorder's summary should count them as lost too. */
uint64_t ops_writer_unwritten(const struct ops_writer *w);

/* Path a previous session was moved to, or NULL. */
const char *ops_writer_previous(const struct ops_writer *w);

/* One-line description of the last failure, naming the file ("" when
 * none; "out of memory" for a NULL writer). */
const char *ops_writer_error(const struct ops_writer *w);

/* Register an image (deduplicated: the same image gives the same id). */
int ops_writer_image(struct ops_writer *w, const struct ops_image *img,
		     uint32_t *id);

/* Register a context (deduplicated). */
int ops_writer_context(struct ops_writer *w, const struct ops_context *ctx,
		       uint32_t *id);

/* The name of thread TID of process TGID, in a session that separates
 * threads: written at the next flush when new or changed. */
int ops_writer_thread(struct ops_writer *w, uint32_t tgid, uint32_t tid,
		      const char *name);

/* Add COUNT samples at OFFSET of context CTX.  Allocates only when a new
 * (ctx, offset) key is seen. */
int ops_writer_hist_add(struct ops_writer *w, uint32_t ctx, uint64_t offset,
			uint64_t count);

/* Register a process; ops_writer_process_update replaces its identity
 * later (new ranges seen, exit). */
int ops_writer_process(struct ops_writer *w, const struct ops_process *p,
		       uint32_t *proc_id);
int ops_writer_process_update(struct ops_writer *w, uint32_t proc_id,
			      const struct ops_process *p);

/*
 * The recorder's clock: counts given from now on fall in the time slice
 * (OPS_SLICE_NS long, from the session's start) that holds TIME_NS, a
 * sample's own time, also when it is before the open one (a sample read
 * late).  *END is where that slice ends: the recorder calls this again
 * at a sample at or past it, or before its start (*END - OPS_SLICE_NS),
 * after giving the counts it holds back.  Histograms counted before the
 * first call have no time.
 */
#define OPS_SLICE_NS 100000000ull
int ops_writer_time(struct ops_writer *w, uint64_t time_ns, uint64_t *end);

/* Append one raw anonymous sample to a process's stream. */
int ops_writer_anon(struct ops_writer *w, uint32_t proc_id, uint64_t time_ns,
		    uint64_t addr, uint32_t tid);
/* The same, of event EVENT (ops_context.event) of a session of several;
 * ops_writer_anon is event 0's. */
int ops_writer_anon_event(struct ops_writer *w, uint32_t proc_id,
			  uint32_t event, uint64_t time_ns, uint64_t addr,
			  uint32_t tid);

/*
 * Call graphs (INFO's callgraph_depth not 0 at open).  Register a stack
 * (deduplicated: the same frames, kernel split and flags give the same
 * id); image frames must name images already registered.  Allocates
 * only when a new stack is seen.
 */
int ops_writer_stack(struct ops_writer *w, const struct ops_stack *st,
		     uint32_t *id);
/* The same, for a stack sampled in thread TID: a thread's stack shares
 * most of its outer frames with the thread's stack before, more than
 * with another thread's, and that part is found without a lookup.
 * In a session opened with stack_deltas, a stack with an anonymous
 * frame is not interned: it is written as TID's stack before plus what
 * differs, and its id (a STACK_DELTAS id, see FORMAT.md) is for
 * ops_writer_anon_stack() alone; equal stacks have the same id only
 * when one follows the other in its thread. */
int ops_writer_stack_of(struct ops_writer *w, const struct ops_stack *st,
			uint32_t tid, uint32_t *id);

/*
 * A call chain as a recorder reads it from the kernel: raw addresses,
 * leaf first, the first nr_kernel in the kernel, not yet placed.  A
 * sampled thread's chain is mostly its chain before, and placing every
 * address again (a lookup in the process's mappings each) was most of
 * a recorder's work on a deep JIT stack: the writer asks PLACE for the
 * frame of an address only when it has not placed that address, at a
 * kernel or user place as this one, since GEN began.  GEN, when not 0,
 * is the caller's promise that an address places as it did before
 * while GEN stays (the process's mappings unchanged; a new layout, a
 * new GEN); with GEN 0 every address is placed.  GEN is the caller's
 * for every process it gives chains of: two processes' chains never
 * share one.  SPACE is the process's id (its tgid), under which the
 * session defines its user addresses' frames.
 */
struct ops_chain {
	const uint64_t *addrs;
	uint32_t nr, nr_kernel;
	uint32_t flags; /* ops_stack.flags */
	uint32_t space;
	uint64_t gen;
	void (*place)(void *arg, uint64_t addr, bool kernel,
		      struct ops_frame *f);
	void *arg;
};
/* ops_writer_stack_of() of chain C placed, to the same bytes; *ANON
 * says whether it has an anonymous frame (its id is then for
 * ops_writer_anon_stack(), else for ops_writer_stack_add()). */
int ops_writer_chain_of(struct ops_writer *w, const struct ops_chain *c,
			uint32_t tid, uint32_t *id, bool *anon);

/* The writer's work on the stack table so far, node by node: how much
 * of the stacks it found by comparing each with the one before, in its
 * bounded index of the nodes, or added; how often the index forgot the
 * nodes of its older generation. */
struct ops_stack_stats {
	uint64_t stacks;      /* stacks given */
	uint64_t frames;      /* their frames, a node each */
	uint64_t shared;      /* nodes shared with the thread's stack before */
	uint64_t cached;      /* nodes found in the index */
	uint64_t lookups;     /* nodes looked up in the whole table (only the
			     tests' exact reference has one) */
	uint64_t added;	      /* new nodes, stored again when forgotten */
	uint64_t generations; /* times the index began a generation */
};
void ops_writer_stack_stats(const struct ops_writer *w,
			    struct ops_stack_stats *stats);

/* Add COUNT samples of stack STACK (no anonymous frame) in context CTX,
 * the context of its leaf.  Allocates only when a new key is seen. */
int ops_writer_stack_add(struct ops_writer *w, uint32_t ctx, uint32_t stack,
			 uint64_t count);

/* Add one sample's stack copy (deduplicated: the same context, stack,
 * registers and bytes are one record with a count).  The sample's stack
 * itself is still counted with ops_writer_stack_add(). */
int ops_writer_stack_copy(struct ops_writer *w,
			  const struct ops_stack_copy *c);
/* Samples whose copy ops_writer_stack_copy() dropped: the copies kept
 * had reached the writer's memory cap (FORMAT.md, STACK_COPIES). */
uint64_t ops_writer_copies_dropped(const struct ops_writer *w);

/* Note one executable mapping of an image of a process whose samples
 * have stack copies (deduplicated: the same mapping is one record). */
int ops_writer_process_map(struct ops_writer *w,
			   const struct ops_process_map *m);

/* Append one sample of stack STACK (with an anonymous frame) to a
 * process's stream. */
int ops_writer_anon_stack(struct ops_writer *w, uint32_t proc_id,
			  uint64_t time_ns, uint32_t stack, uint32_t tid);
/* The same, of event EVENT (ops_context.event). */
int ops_writer_anon_stack_event(struct ops_writer *w, uint32_t proc_id,
				uint32_t event, uint64_t time_ns,
				uint32_t stack, uint32_t tid);
/* The caller's promise, from now on: each anonymous sample it gives
 * comes with its stack sample, whose leaf frame is the sample's address
 * (a recorder of call graphs).  The trim of the archived maps at a clean
 * stop then takes a process with stack samples's addresses from the
 * stacks' frames alone, and does not read its samples back (a fifth of
 * a node recorder's work a sample, for the same entries). */
void ops_writer_anon_in_stacks(struct ops_writer *w);

/*
 * Copy a JIT map file of a process into the session.  The original is
 * only read.  The copy keeps the original's owner, mode and mtime so
 * that the same trust rules apply to it.  At most MAX_BYTES are copied
 * per file; a larger file gives -EFBIG and no copy.  Copying the same
 * source again replaces the earlier copy.  A map that is not there
 * gives -ENOENT and leaves ops_writer_error() as it was: most processes
 * have no map, and that is no failure of the session.
 */
int ops_writer_archive_map(struct ops_writer *w, uint32_t proc_id,
			   const char *src_path, uint64_t max_bytes);
/* From now on, store the JIT map copies that are compressed (all but
 * perf maps and jitdumps, which are trimmed at the stop) in gzip without
 * compressing them (deflate's stored blocks).  For a recorder whose
 * stack copies make its session many times a map's size, where
 * compressing a JVM agent's map of megabytes costs more CPU than its
 * bytes are worth (FORMAT.md, maps). */
void ops_writer_archive_stored(struct ops_writer *w, bool stored);

/* Copy the kernel symbol table and module list (e.g. /proc/kallsyms,
 * /proc/modules) into the session.  Either may be NULL.  Given both, a
 * clean stop reads them again and adds the modules loaded meanwhile
 * (FORMAT.md, kallsyms). */
int ops_writer_kernel_symbols(struct ops_writer *w, const char *kallsyms,
			      const char *modules);
/* The same, the symbol table read from KALLSYMS_FD (from its offset to
 * its end; WHAT names it in messages): a table the recorder kept from
 * an earlier read of KALLSYMS in this boot, without the code that comes
 * and goes (BPF programs, ftrace trampolines, kprobes' copies).  At a
 * clean stop, when a kernel sample lies outside the kernel's code and
 * every module of MODULES, the trim reads KALLSYMS again instead
 * (FORMAT.md, kallsyms). */
int ops_writer_kernel_symbols_kept(struct ops_writer *w, int kallsyms_fd,
				   const char *what, const char *kallsyms,
				   const char *modules);

/* The index of the kept table ops_writer_kernel_symbols_kept() copied
 * (INDEX, LEN bytes of ops_kallsyms_index_build(), malloc'ed: the writer
 * owns and frees it, whatever it returns): the trim at a clean stop
 * searches it instead of reading the whole copy, and reads the copy
 * when the index is not the copy's.  NULL drops one given before.  0, or
 * -EINVAL (dropped) when INDEX is no index. */
int ops_writer_kallsyms_index(struct ops_writer *w, void *index, size_t len);

/* The index of kallsyms table TEXT (LEN bytes) that
 * ops_writer_kallsyms_index() takes, into *OUT (malloc'ed, *OUT_LEN
 * bytes): built once per boot beside a kept table.  0, -ENOMEM, or
 * -EFBIG for a table of 4 GiB and more. */
int ops_kallsyms_index_build(const char *text, size_t len, uint8_t **out,
			     size_t *out_len);

/* Update the totals (written to samples.hist at the next flush, and to
 * session.meta at close). */
void ops_writer_set_totals(struct ops_writer *w,
			   const struct ops_session_info *totals);

/*
 * Make everything added so far durable: after it returns, a kill -9 of
 * the writer loses nothing added before the call.
 */
int ops_writer_flush(struct ops_writer *w);

/* Final flush with the stop time, compaction, and free.  W is freed even
 * when an error is returned. */
int ops_writer_close(struct ops_writer *w, uint64_t stop_ns);

/* What ops_writer_close does, without the free: on failure
 * ops_writer_error() still says why.  Free W with ops_writer_free(). */
int ops_writer_finish(struct ops_writer *w, uint64_t stop_ns);

/* Free without a final flush (what was flushed stays readable). */
void ops_writer_free(struct ops_writer *w);

/* ------------------------------------------------------------------ */
/* Reader (opreport)                                                    */

/* One line naming the file, the offset and the problem, no newline. */
typedef void (*ops_warn_fn)(void *arg, const char *msg);

struct ops_session;

/*
 * Open the session in DIR.  Fails (negative errno, ERR filled with one
 * line naming the problem) only when DIR is missing, unreadable or has no
 * readable session.meta.  Damage inside a data file is reported through
 * WARN (may be NULL) and everything before it is kept.
 */
int ops_session_open(struct ops_session **out, const char *dir,
		     ops_warn_fn warn, void *warn_arg, char *err,
		     size_t errlen);
void ops_session_close(struct ops_session *s);

const char *ops_session_dir(const struct ops_session *s);
const struct ops_session_info *ops_session_info(const struct ops_session *s);

uint32_t ops_session_nr_images(const struct ops_session *s);
const struct ops_image *ops_session_image(const struct ops_session *s,
					  uint32_t id);
uint32_t ops_session_nr_contexts(const struct ops_session *s);
/* The events of the session (ops_session_info.event is their comma
 * list), at least 1, and the name of event EVENT (ops_context.event)
 * into BUF: 0, -ENOENT past the list, -ENAMETOOLONG. */
uint32_t ops_session_nr_events(const struct ops_session *s);
int ops_session_event_name(const struct ops_session *s, uint32_t event,
			   char *buf, size_t size);
const struct ops_context *ops_session_context(const struct ops_session *s,
					      uint32_t id);

/* Every histogram entry, counts of equal keys summed, sorted by
 * (ctx, offset). */
/* The names of the threads (OPS_SEPARATE_THREAD sessions; none in
 * others), sorted by (tgid, tid), the last name the recorder saw. */
const struct ops_thread *ops_session_threads(const struct ops_session *s,
					     size_t *n);
/* Thread TID's name, or NULL when the session has none. */
const char *ops_session_thread_name(const struct ops_session *s, uint32_t tgid,
				    uint32_t tid);
const struct ops_hist_entry *ops_session_hist(const struct ops_session *s,
					      size_t *n);

uint32_t ops_session_nr_processes(const struct ops_session *s);
const struct ops_process *ops_session_process(const struct ops_session *s,
					      uint32_t proc_id);

/* A process's anonymous samples in recording order (decoded on first
 * use, then cached).  Returns 0, or a negative errno on memory failure. */
int ops_session_anon(struct ops_session *s, uint32_t proc_id,
		     const struct ops_anon_sample **samples, size_t *n);
/* How many of them ops_session_anon() would give, in memory bounded by
 * one block, keeping nothing. */
int ops_session_anon_count(struct ops_session *s, uint32_t proc_id, size_t *n);
/* The same samples as ops_session_anon(), in memory the caller now owns
 * and frees (NULL when there are none); the session forgets them. */
int ops_session_anon_take(struct ops_session *s, uint32_t proc_id,
			  struct ops_anon_sample **samples, size_t *n);
/* Free a process's decoded samples and stack samples; the pointers
 * ops_session_anon() and ops_session_anon_stacks() gave are no longer
 * valid, and a later call decodes them again. */
void ops_session_anon_release(struct ops_session *s, uint32_t proc_id);

/*
 * Time.  The histograms' counts per time slice, in file order (none in a
 * session recorded before slices), and the flat samples counted with no
 * slice (samples.hist's counts beyond its slices').
 */
const struct ops_time_count *
ops_session_time_counts(const struct ops_session *s, size_t *n);
uint64_t ops_session_untimed(const struct ops_session *s);
/* Keep only samples of event EVENT (ops_context.event) of a session of
 * several: histograms, stacks, copies and slices of its contexts, and
 * its anonymous samples and stack samples (those of the first event
 * alone until ops_session_select_event is called; a session recorded
 * before revision 4.3 has only the first's); ops_session_info's event
 * becomes its name alone.  Call
 * it before anything else that reads samples,
 * ops_session_set_window included; once.  -ENOENT past the list. */
int ops_session_select_event(struct ops_session *s, uint32_t event);
/* The samples of each event of the session, whatever a report selects:
 * TOTALS[E], for E below NR, the histogram counts of event E's contexts
 * and its anonymous samples, as many as a report of event E alone reads
 * with no time window.  Call it before ops_session_select_event and
 * ops_session_set_window, which narrow the histograms.  0, or -ENOMEM. */
int ops_session_event_samples(struct ops_session *s, uint64_t *totals,
			      uint32_t nr);
/* Keep only samples of [FROM_NS, TO_NS), ns from the session's start:
 * the histograms become the sum of the slices whose middle is in it
 * (samples without a slice are left out), anonymous samples and stack
 * samples are those whose time is in it.  Call it before asking for any
 * sample; once. */
int ops_session_set_window(struct ops_session *s, uint64_t from_ns,
			   uint64_t to_ns);
/* Whether the counts of slice T are in the session's window (all are
 * when none is set). */
bool ops_session_slice_in_window(const struct ops_session *s,
				 const struct ops_time_count *t);

/* Call graphs.  The stack table; NULL for an id with no entry.  The
 * stack is put together from the table's nodes in memory the session
 * owns, valid until the next call. */
uint32_t ops_session_nr_stacks(const struct ops_session *s);
const struct ops_stack *ops_session_stack(struct ops_session *s, uint32_t id);
/* The table as it is kept, a tree: stack ID's leaf frame, and in
 * *PARENT the id of the stack of its callers (ID's frames but the leaf;
 * UINT32_MAX when the leaf is the only frame) and in *FLAGS stack ID's
 * OPS_STACK_* flags.  A parent's id is below its child's.  NULL for an
 * id with no entry.  Walking a tree of stacks that share their callers
 * visits each shared frame once, where ops_session_stack() gives each
 * stack whole. */
const struct ops_frame *ops_session_stack_top(const struct ops_session *s,
					      uint32_t id, uint32_t *parent,
					      uint32_t *flags);

/* Every (context, stack) count, equal keys summed, sorted by
 * (ctx, stack).  Every stack id has an entry in the table. */
const struct ops_stack_count *
ops_session_stack_hist(const struct ops_session *s, size_t *n);

/* The stack copies of the session with their counts, in id order
 * (bytes owned by the session); none in a session without them. */
const struct ops_stack_copy *
ops_session_stack_copies(const struct ops_session *s, size_t *n);

/* The mappings the recorder noted for the stack copies, in the order
 * it noted them (a later one may replace an earlier one of the same
 * process); none in a session without them. */
const struct ops_process_map *
ops_session_process_maps(const struct ops_session *s, size_t *n);

/* A process's samples with anonymous stacks in recording order (decoded
 * on first use, then cached).  Samples naming a stack id with no entry
 * are left out with one warning per file.  Returns 0, or a negative
 * errno on memory failure. */
int ops_session_anon_stacks(struct ops_session *s, uint32_t proc_id,
			    const struct ops_anon_stack_sample **samples,
			    size_t *n);

/* Free the session's call chains once the caller has taken what it
 * needs of them: its stack table and counts, and every process's
 * decoded stack samples.  The session then has no stacks (ids given
 * before name none); its other data stay.  A report's call graph keeps
 * its own copy of the tree, so this is what lets its memory be one
 * tree's rather than two. */
void ops_session_release_stacks(struct ops_session *s);

/* Paths inside the session of the archived map copies of a process,
 * named as the originals' base names (anon.<tgid>, perf-<tgid>.map),
 * with OPS_ARCHIVE_SUFFIX when compressed (all copies since the format
 * says so; older sessions hold them plain). */
size_t ops_session_archived_maps(const struct ops_session *s, uint32_t proc_id,
				 const char *const **paths);

#define OPS_ARCHIVE_SUFFIX ".gz"
/* The most bytes an archived map may inflate to: at most
 * OPS_ARCHIVE_MAX_RATIO times its compressed size (a perf map's text
 * compresses about tenfold; a gzip bomb a thousandfold), and never more
 * than OPS_ARCHIVE_MAX_INFLATED, but always OPS_ARCHIVE_RATIO_FLOOR. */
#define OPS_ARCHIVE_MAX_INFLATED (1ull << 32)
#define OPS_ARCHIVE_MAX_RATIO 128u
#define OPS_ARCHIVE_RATIO_FLOOR (1ull << 20)

/* The base name of archived map PATH as the original's, in BUF (LEN
 * bytes): without OPS_ARCHIVE_SUFFIX. */
const char *ops_archived_map_name(const char *path, char *buf, size_t len);

/* Where a process's JIT maps live (samples/jit_maps.c): the recorder
 * archives them from there, the report offers them to the handlers. */
enum ops_jit_map_kind {
	OPS_JIT_MAP_NONE,
	OPS_JIT_MAP_ANON,    /* anon.<pid>: javamap or perf map text */
	OPS_JIT_MAP_PERF,    /* perf-<pid>.map */
	OPS_JIT_MAP_JITDUMP, /* jit-<pid>.dump */
};
/* What a map file's base NAME says it is. */
enum ops_jit_map_kind ops_jit_map_kind(const char *name);
/* In BUF (SIZE bytes) the map of KIND (anon or perf) of the process
 * whose pid is PID in the directory DIR: "/tmp", or the process's /tmp
 * seen from elsewhere ("/proc/<tgid>/root/tmp" with its namespace pid).
 * 0, -ENAMETOOLONG or -EINVAL. */
int ops_jit_map_path(char *buf, size_t size, const char *dir,
		     enum ops_jit_map_kind kind, uint32_t pid);
/* In BUF (SIZE bytes) the jitdump DUMP that process TGID mapped, as seen
 * from here: through its root when it runs in another mount namespace.
 * 0 or -ENAMETOOLONG. */
int ops_jit_map_dump_path(char *buf, size_t size, uint32_t tgid,
			  bool other_mntns, const char *dump);

/*
 * The content of an archived map, FD opened on PATH (the caller has
 * checked the file): FD itself for a plain copy, or, for a compressed
 * one, FD closed and a new read-only descriptor of memory holding the
 * inflated map, which a handler may read, stat and map as the original.
 * A negative errno otherwise (FD closed), WHY (WHYLEN bytes) saying what
 * is wrong with the file.
 */
int ops_archived_map_fd(int fd, const char *path, char *why, size_t whylen);

/* Paths of the session's kallsyms and modules copies when something by
 * that name exists (its reader checks what it is), NULL when missing.
 * After a clean stop the kallsyms copy holds only the code symbols that
 * kernel samples fall in, each with the code symbol after it
 * (FORMAT.md). */
const char *ops_session_kallsyms(const struct ops_session *s);
const char *ops_session_modules(const struct ops_session *s);

/*
 * Every file a report reads (session files, the kallsyms copy, images) is
 * opened through this gate: without blocking and checked with fstat before
 * anything is read, so a FIFO, a device or a file over MAX bytes is
 * refused at once.  ops_file_open returns a descriptor (blocking again)
 * or a negative errno: -ESPIPE when PATH is not a regular file, -EFBIG
 * when it is larger than MAX.  ops_file_read reads the file whole,
 * NUL-terminated, at most MAX bytes.  ops_file_strerror says either in
 * words for a "cannot read PATH: WHY" line.
 */
/*
 * PATH resolved one component at a time from descriptors, following a
 * symbolic link only when the running user or root owns it (a link
 * another user planted could otherwise send a root tool anywhere).
 * ops_path_parent gives an O_PATH descriptor of the directory that holds
 * PATH's last component, and that component's name (malloc'ed; "." for
 * "/"), which need not exist.  With FOLLOW_LEAF a link at the end is
 * followed under the same rule; without, the name may be a link, and the
 * caller opens it with O_NOFOLLOW.  ops_dir_open opens the directory
 * PATH itself.  A negative errno with WHY (WHYLEN bytes) saying what is
 * wrong, for "cannot use PATH: WHY".
 */
int ops_path_parent(const char *path, bool follow_leaf, int *dfd, char **leaf,
		    char *why, size_t whylen);
int ops_dir_open(const char *path, char *why, size_t whylen);

struct stat;
int ops_file_open(const char *path, uint64_t max, struct stat *st);
int ops_file_read(const char *path, uint64_t max, char **buf, size_t *len);
const char *ops_file_strerror(int err);

/* The largest kallsyms and modules copies a report reads: many times a
 * real /proc/kallsyms (a few MiB) and /proc/modules. */
#define OPS_KALLSYMS_MAX (256ull << 20)
#define OPS_MODULES_MAX (16ull << 20)

/* The module name kallsyms gives a module image (OPS_IMAGE_MODULE): its
 * PATH without the brackets a writer may have put around it ("[ext4]" or
 * "ext4").  The name is the first *LEN bytes at the pointer, in PATH. */
const char *ops_image_module_name(const char *path, size_t *len);

/* One line of a kallsyms table: "ADDR TYPE NAME [MODULE]". */
struct ops_ksym_line {
	uint64_t addr;
	char type;
	const char *name;
	const char *module; /* NULL for the kernel itself */
};

/* Parse LINE (NUL-terminated, without its newline), splitting it in
 * place: NAME and MODULE point into it.  0, or -EINVAL when malformed. */
int ops_kallsyms_parse_line(char *line, struct ops_ksym_line *out);

/* Whether the line names code a sample can fall in: a text symbol with
 * an address (a reader not allowed to see addresses is shown zeros). */
bool ops_kallsyms_is_code(const struct ops_ksym_line *l);

#ifdef __cplusplus
}
#endif

#endif /* OPJIT_SAMPLES_H */
