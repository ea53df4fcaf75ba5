/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Turns perf records into the session: tracks every process's mappings and
 * sends each sample to a histogram or to its process's anonymous stream.
 */
#ifndef OPROFILED_RECORDER_H
#define OPROFILED_RECORDER_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <opjit/samples.h>

#include "imgcache.h"
#include "pending.h"
#include "proctab.h"
#include "threadtab.h"

struct recorder_config {
	uint32_t separate; /* OPS_SEPARATE_* */
	bool archive_maps;
	uint64_t archive_max_bytes;
	uint32_t callgraph_depth; /* frames asked of the kernel, 0: none */
	uint32_t stack_copy;	  /* user stack bytes asked, 0: none */
};

struct recorder_exit {
	uint32_t tgid;
	uint64_t round;
};

/* Slots of the tally: a power of two */
#define RECORDER_TALLY 256

/* A (context, offset) counted this round, not yet given to the writer. */
struct recorder_tally {
	uint64_t offset;
	uint32_t ctx;
	uint32_t count; /* 0: the slot is free */
};

/* A context of a thread, cached (recorder_threads.c). */
struct recorder_tctx {
	uint32_t app, image, tgid, tid;
	int32_t cpu;
	uint32_t ctx; /* MAPTAB_NO_CTX: the slot is free */
	uint32_t event;
};

/* Slots of the thread context cache: a power of two */
#define RECORDER_TCTX 256

/* The user frames placed last, direct-mapped by address: a JIT's deep
 * recursion is a few return addresses and the runtime's frames below
 * them, sample after sample, and finding each one's mapping again (a
 * search, as the frames alternate between the JIT's code and the
 * runtime's) was 15% of the recorder's time on node.  GEN is the
 * generation of the mappings the address was placed in (maptab.h): no
 * two states of any process's table share one, so an entry of another
 * process, or of mappings changed since, never matches. */
#define RECORDER_PLACED 256
struct recorder_placed {
	uint64_t ip, gen; /* gen 0: empty (no table has it with entries) */
	struct ops_frame frame;
};

struct recorder {
	struct ops_writer *w;
	struct recorder_config cfg;
	struct proctab procs;
	/* --separate=thread: the threads and their names, and the contexts
	 * of (app, image, process, CPU, thread) found last; NULL cache
	 * otherwise */
	struct threadtab threads;
	struct recorder_tctx *tctx;
	struct imgcache images;
	struct pending pending;
	bool has_kernel_image;
	uint32_t kernel_image;
	uint32_t kctx_idle; /* kernel samples of unknown tasks */
	int32_t kctx_idle_cpu;
	uint32_t kctx_idle_tgid;
	uint64_t round;
	uint64_t last_time;	     /* newest record time seen */
	struct recorder_exit *exits; /* exited, freed after a grace */
	size_t exits_head, nr_exits, cap_exits;
	uint64_t samples, lost, unattributed, anon, kernel, throttles;
	uint32_t processes;
	uint64_t *addrs;		/* a chain being given, with -g */
	struct recorder_placed *placed; /* RECORDER_PLACED, with -g */
	uint32_t jitlog_pending;	/* processes to attach to next round */
	uint32_t round_events; /* mappings, processes seen this round */
	bool busy;	       /* see recorder_busy() */
	/* the round's histogram counts, direct-mapped by key: a busy
	 * program's samples fall on few offsets, and a hit costs a
	 * multiply and a compare where the writer's table costs a probe
	 * and its bookkeeping; given to the writer at the round's end */
	struct recorder_tally tally[RECORDER_TALLY];
	uint16_t tally_used[RECORDER_TALLY]; /* the slots taken, in order */
	uint32_t nr_tally_used;
	uint64_t slice_end; /* the writer's time slice ends here */
	/* the event of the record being read (its buffer's), an index in
	 * the session's list; the contexts cached in the mapping and
	 * process tables are the first event's */
	uint32_t event;
	int err; /* first failure: recording stops */
	bool err_from_writer;
};

int recorder_init(struct recorder *r, struct ops_writer *w,
		  const struct recorder_config *cfg);
void recorder_free(struct recorder *r);
/* Handle one record; failures are kept in r->err. */
void recorder_record(struct recorder *r, const struct perf_event_header *h);
/* After each batch: retry held samples, forget processes long gone. */
void recorder_end_round(struct recorder *r);
/* Whether the next round should come soon rather than at the next
 * flush: samples are held for a mapping, processes started or ended in
 * the last round (a short-lived one is read from /proc while it lives),
 * exited processes wait to be forgotten, or attaches are to be made. */
static inline bool recorder_busy(const struct recorder *r)
{
	return r->busy;
}
/* Learn a running process from /proc (mappings, comm, executable). */
int recorder_scan_pid(struct recorder *r, pid_t pid);
int recorder_scan_all(struct recorder *r);
/* Hand identities and totals to the writer and make them durable. */
int recorder_flush(struct recorder *r);
/* End of recording: count what stayed unresolved, archive JIT maps. */
void recorder_finish(struct recorder *r);
void recorder_totals(const struct recorder *r, struct ops_session_info *t);

/* recorder_maps.c */
int recorder_image_file(struct recorder *r, struct proc *p, const char *path,
			uint64_t dev, uint64_t ino, const uint8_t *build_id,
			uint8_t build_id_size, uint32_t *id);
int recorder_image_special(struct recorder *r, const char *name, uint32_t *id);
int recorder_map(struct recorder *r, struct proc *p, uint64_t start,
		 uint64_t end, uint64_t pgoff, const char *name, uint64_t dev,
		 uint64_t ino, const uint8_t *build_id, uint8_t build_id_size);
void recorder_fail(struct recorder *r, int err, bool from_writer);
void recorder_archive(struct recorder *r, struct proc *p);
struct proc *recorder_proc_new(struct recorder *r, uint32_t tgid);
/* Give P an anonymous stream and note the anonymous mapping E; 0, or
 * -1 when recording failed. */
int recorder_anon_note(struct recorder *r, struct proc *p,
		       struct maptab_entry *e);

/* The context of P's executable itself into *CTX, for what belongs to
 * the process rather than to an image (a stack copy of a JIT leaf); 0,
 * -ENOENT when P has no executable known, or -1 when recording failed. */
int recorder_app_context(struct recorder *r, struct proc *p, int32_t cpu,
			 uint32_t tid, uint32_t *ctx);
/* The context of (APP, IMAGE, TGID, CPU, TID) into *CTX, with what the
 * session separates; 0 or the writer's error (kept in r->err). */
int recorder_context(struct recorder *r, uint32_t app, uint32_t image,
		     uint32_t tgid, int32_t cpu, uint32_t tid, uint32_t *ctx);

/* recorder_threads.c: --separate=thread.  The context of a thread's
 * sample, through a cache; 0 or as recorder_context. */
int recorder_thread_context(struct recorder *r, uint32_t app, uint32_t image,
			    uint32_t tgid, int32_t cpu, uint32_t tid,
			    uint32_t *ctx);
int recorder_threads_init(struct recorder *r);
void recorder_threads_free(struct recorder *r);
/* A sample of thread TID of TGID: its name goes to the session the
 * first time. */
void recorder_thread_sample(struct recorder *r, uint32_t tgid, uint32_t tid);
/* PERF_RECORD_COMM: thread TID of TGID is now called COMM (LEN bytes,
 * maybe NUL-terminated). */
void recorder_thread_comm(struct recorder *r, uint32_t tgid, uint32_t tid,
			  const char *comm, size_t len);
/* PERF_RECORD_FORK: thread TID of TGID made by thread PTID, whose name
 * it starts with; EXIT: thread TID ended. */
void recorder_thread_fork(struct recorder *r, uint32_t tgid, uint32_t tid,
			  uint32_t ptid);
void recorder_thread_exit(struct recorder *r, uint32_t tid);
/* The threads of running process PID and their names, from /proc. */
void recorder_scan_threads(struct recorder *r, pid_t pid);

/* recorder_stack.c: the call chain of a sample as a stack of the
 * session, counted in CTX (the leaf's context) unless it holds an
 * anonymous frame, then appended to P's stream.  P may be NULL (a
 * kernel sample of an unknown task). */
/* PERF_SAMPLE_REGS_USER and _STACK_USER from P (N u64 words after the
 * chain) into S; left unset when malformed or when there is no user
 * context (abi 0). */
void recorder_stack_user(struct pending_sample *s, const uint64_t *p,
			 uint64_t n);
void recorder_stack_chain(struct recorder *r, struct proc *p,
			  const struct pending_sample *s, uint32_t ctx);
static inline void recorder_stack(struct recorder *r, struct proc *p,
				  const struct pending_sample *s, uint32_t ctx)
{
	/* no call for a sample without a chain to place */
	if (r->addrs)
		recorder_stack_chain(r, p, s, ctx);
}

#endif
