/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the handler loader files share: a loaded handler, the search path,
 * and the report-owned memory that resolved symbols are copied into.
 */
#ifndef OPREPORT_HANDLER_INTERNAL_H
#define OPREPORT_HANDLER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <opjit/anon_handler.h>
#include <oputil/u64map.h>

/* the longest reason a handler or the loader gives */
#define HANDLER_WHY_LEN 512

struct handler_arena;
struct ops_session;

struct handler_proc;
struct handler_offer;

struct anon_handler {
	char *name;
	char *path;
	void *dl;
	/* in-process: the descriptor the code was loaded from, kept open
	 * while it is loaded, so that no other handler is loaded under the
	 * same /proc/self/fd name (which dlopen would take for this one) */
	int dl_fd;
	bool has_dl_fd;
	struct opjit_handler tab; /* the fields this host knows, copied */
	struct opjit_host host;
	/* Isolated: the helper process that runs the handler (NULL until it
	 * is started), and the description it sent, which tab points to. */
	struct handler_proc *proc;
	char *description;
	bool broken;	      /* the helper cannot even load it */
	void *state;	      /* in-process: the claimed state */
	uint32_t state_flags; /* OPJIT_STATE_* of the claimed state */
	size_t state_bytes;   /* the heap its claim grew by, where it ran */
	struct handler_collect *collect; /* in-process: of that state */
	unsigned maps_refused; /* by open_map, since the last claim */
	char refused_why[HANDLER_WHY_LEN]; /* the first of them: file, rule */
	unsigned long warnings; /* printed or not, see handler_warn() */
	/* the offer of a process under way: an earlier offer of it had
	 * its lines (QUIET), and this one has had some (SPOKE); see
	 * anon_handlers.said */
	bool quiet, spoke;
	/* the offer whose claimed state is this handler's current one
	 * (handler_resolve.c), or NULL; and, isolated, the helpers started
	 * so far, so that a state parked in an earlier one is known gone */
	struct handler_offer *current;
	uint64_t helper_gen;
};

/* A claimed state set aside (handler_ops.park), so that the handler can
 * claim another process while this one waits for its naming. */
struct handler_held {
	void *state; /* in-process: the handler's state */
	struct handler_collect *collect;
	uint32_t state_flags; /* OPJIT_STATE_* */
	uint32_t slot;	      /* isolated: its id in the helper */
	uint64_t helper;      /* isolated: the helper_gen it was parked in */
};

/* The most claimed states a report holds at once, each waiting for its
 * process's naming, and the most memory they may hold together (what
 * each claim grew malloc's bytes or the data mappings by, in opreport
 * or in the helper): a state is a
 * parsed map, a few KiB for the trimmed copy a session archives, 8.5 MiB
 * for node's live map of 100k functions, and a helper runs under
 * HANDLER_SANDBOX_MEMORY.  Past either, the state set aside is released
 * instead, and its process claimed again when named. */
#define HANDLER_HELD_MAX 256
#define HANDLER_HELD_BYTES (64u << 20)

/* Field FIELD of /proc/self/statm in bytes, or 0 when it cannot be
 * read: the address space mapped (HANDLER_STATM_SIZE) or the data and
 * stack mappings (HANDLER_STATM_DATA) (handler_call.c). */
#define HANDLER_STATM_SIZE 0u
#define HANDLER_STATM_DATA 5u
size_t handler_statm_bytes(unsigned field);

/* The parts of an offer whose lines are said once (anon_handlers.said):
 * the claim, and the naming of the samples with the claimed state. */
#define HANDLER_SAID_CLAIM 0x1u
#define HANDLER_SAID_NAMING 0x2u

/* The search path as a NULL-terminated array of directories, in order.
 * handler_dirs_get() drops a directory the trust rules refuse, with a
 * line (reported); 0 or -ENOMEM (not reported). */
struct handler_dirs {
	char **dir; /* NULL-terminated */
	size_t n, cap;
};

struct anon_handlers {
	struct anon_handler *v;
	size_t n;
	struct handler_arena *arena; /* what anon_resolved points into */
	char declined_why[2 * HANDLER_WHY_LEN]; /* the first failed claim */
	/* A process is offered twice when the report shows both its
	 * samples and its call chains' frames: the (process, handler)
	 * pairs of SAID_SESSION that have had their lines, and in which
	 * part of an offer (HANDLER_SAID_*), so that a later offer does
	 * not say them again.  The sessions of one report stay open
	 * together, so a pointer tells them apart. */
	const struct ops_session *said_session;
	/* (handler index + 1) << 32 | process id -> parts: one probe an
	 * offer, where a list was scanned (quadratic in the processes) */
	struct oputil_u64map said;
	/* the installed handlers not loaded, loaded (into SPARES) only to
	 * say which would claim a process these left unclaimed */
	char **spare_names;
	size_t nr_spare_names;
	struct anon_handlers *spares;
	struct handler_dirs dirs;
	/* The processes of OFFERS_SESSION offered and not yet named, by
	 * id + 1 (handler_resolve.c): a call graph asks about each before
	 * it names any, and each claimed state is kept (at most
	 * HANDLER_HELD_MAX of them, NR_HELD) until its process is named. */
	const struct ops_session *offers_session;
	struct oputil_u64map offers;
	size_t nr_held, held_bytes;
	/* what the last unclaimed process's naming reported, kept for the
	 * caller after its offer is freed */
	char refused_why[HANDLER_WHY_LEN];
};

/* Release the state an offer still holds, and the offer, before HS's
 * handlers are closed. */
void handler_offer_free(struct anon_handlers *hs);

/* NAME is [a-z0-9_-]+, 1 to HANDLER_NAME_MAX characters (the one rule,
 * which anon_handler_name_check() states). */
#define HANDLER_NAME_MAX 64
bool handler_name_valid(const char *name);

int handler_dirs_get(struct handler_dirs *d, const char *handler_path);
void handler_dirs_free(struct handler_dirs *d);

/* The installed handlers HS did not load, loaded on first use; NULL
 * when there are none or no memory for them. */
struct anon_handlers *handler_spares(struct anon_handlers *hs);

/*
 * Find libNAME.so in DIR by comparing against the directory's entries;
 * *PATH is malloc'ed.  0, -ENOENT when absent, or another negative errno
 * (not reported: the caller knows the search path).
 */
int handler_dir_find(const char *dir, const char *name, char **path);

/*
 * Open the handler file PATH that should be called NAME, with every
 * check.  On refusal, returns a negative errno and REASON (REASONLEN
 * bytes) says why (not reported: the caller names the file); nothing
 * stays open.
 */
int handler_open(struct anon_handler *h, const char *path, const char *name,
		 char *reason, size_t reasonlen);
void handler_close(struct anon_handler *h);

/*
 * The trust rules (handler_trust.c).  handler_trust_check() gives the
 * reason ST may not be used as a map of PROC, naming the rule, or NULL;
 * LIVE says the file is the live one in /tmp rather than a session copy.
 * BUF (LEN bytes) may hold the reason.  handler_trust_open_map() is the
 * host's open_map service: a descriptor; -ENOENT when the file is
 * missing, or -EINVAL for a malformed request (not reported); or another
 * negative errno when refused, with WHY (WHYLEN bytes) and a warning
 * through the host (reported).
 */
const char *handler_trust_check(const struct stat *st,
				const struct opjit_process *proc, bool live,
				char *buf, size_t len);
int handler_trust_open_map(const struct opjit_host *host,
			   const struct opjit_process *proc,
			   const struct opjit_map_candidate *c, char *why,
			   size_t whylen);
/* The same in two steps, the first in opreport and the second in a
 * handler's helper: the descriptor of the file as it is, checked; then
 * what the handler reads of it (a session's archived copy, inflated).
 * FD is consumed. */
int handler_trust_open_raw(const struct opjit_host *host,
			   const struct opjit_process *proc,
			   const struct opjit_map_candidate *c, char *why,
			   size_t whylen);
int handler_trust_map_fd(const struct opjit_host *host,
			 const struct opjit_map_candidate *c, int fd,
			 char *why, size_t whylen);

/* The most a host reads of a structure a handler hands back, to see that
 * the bytes past what it knows are zero: far more than any minor adds. */
#define HANDLER_STRUCT_MAX 1024u

/* Whether the bytes of P from KNOWN up to SIZE are all zero, and SIZE is
 * plausible (at most HANDLER_STRUCT_MAX) for a structure of the ABI. */
bool handler_tail_zero(const void *p, size_t known, size_t size);

/*
 * The rules for handler code: the directory that really holds the
 * library (after symbolic links) and the library itself owned by root
 * or OWNER, the invoking user, and not writable by group or others.
 * Both are checked on descriptors: the library's (O_NOFOLLOW in its
 * directory, opened as a descriptor too) is returned for the caller to
 * load, so that the file checked is the file loaded.  A negative errno
 * with REASON (LEN bytes) naming the rule (not reported).
 */
const char *handler_trust_dir(const struct stat *st, uid_t owner, char *buf,
			      size_t len);
int handler_trust_lib_open(const char *path, uid_t owner, char *reason,
			   size_t len);

/* The sizes of what this host gives a handler, by either path (in
 * process or in a helper): each through the last field this host
 * writes. */
#define HANDLER_GIVES_HOST OPJIT_HOST_SIZE_1_0
#define HANDLER_GIVES_PROCESS OPJIT_PROCESS_SIZE_1_0
#define HANDLER_GIVES_CANDIDATE OPJIT_MAP_CANDIDATE_SIZE_1_0
#define HANDLER_GIVES_BATCH OPJIT_RESOLVE_BATCH_SIZE_1_2

/* The OPJIT_REQUIRE_* features this host has (none is defined yet): a
 * handler requiring any other is refused. */
#define HANDLER_FEATURES_KNOWN 0ull

/* The size of a handler table of ABI minor MINOR (1.x). */
size_t handler_table_size(uint32_t minor);

/* S with control characters blanked, cut to fit BUF: a handler's text
 * made safe to print as part of one line. */
const char *handler_text_clean(const char *s, char *buf, size_t len);
/* A warning from the handler, as a line of ours: the first few are
 * printed, and handler_warn_end() counts the rest once.  One that a
 * process offered again repeats is not said again. */
void handler_warn(struct anon_handler *h, const char *msg);
void handler_warn_end(struct anon_handler *h);

/* The isolation settings of anon_handlers_isolate(). */
extern struct anon_isolation handler_isolation;
/* anon_handlers_want_code() was called. */
extern bool handler_want_code;

/*
 * How one process's symbols come back from a handler, by either path:
 * the process's symbol and file tables grow batch by batch, and each
 * sample names its entries by index + 1 (0: unknown).
 */
struct handler_table {
	const struct anon_symbol **sym;
	size_t nsym, capsym;
	const char **file;
	size_t nfile, capfile;
	size_t malformed;     /* symbols with fields this host cannot honour */
	size_t malformed_inl; /* inline frames likewise: chains cut there */
};

/* A frame a sample's symbol was inlined into (ABI 1.2), as indexes. */
struct handler_inline {
	uint32_t sym;  /* index + 1 into table.sym; never 0 */
	uint32_t file; /* index + 1 into table.file, or 0 */
	uint32_t line; /* of the call, or 0 */
};

struct handler_answer {
	uint32_t *sym;	  /* per sample: index + 1 into table.sym, or 0 */
	uint32_t *file;	  /* per sample: index + 1 into table.file, or 0 */
	uint32_t *line;	  /* per sample: source line, or 0 */
	uint32_t *reason; /* per sample without a symbol: why (reason code) */
	uint32_t *nr_inl; /* per sample: its frames in inl, at most
			   * OPJIT_INLINE_MAX */
	/* the batch's inline frames, sample after sample, caller first;
	 * grown by whoever fills the answer, freed by its owner */
	struct handler_inline *inl;
	size_t len_inl, cap_inl;
};

/* Room for N more frames in A->inl.  0 or -ENOMEM (not reported). */
int handler_answer_inl_reserve(struct handler_answer *a, size_t n);

/* Why a call into a handler failed. */
enum handler_fail {
	HANDLER_SAID = 1, /* the handler returned an error; WHY is its text */
	HANDLER_BROKE,	  /* it crashed, hung or answered garbage (WHY) */
	HANDLER_NOMEM,
};

/* Longest name or file a symbol may carry, and the largest size. */
#define HANDLER_MAX_TEXT 65536u
#define HANDLER_MAX_SYM_SIZE (1ULL << 56)
/* The most code bytes one symbol brings (ABI 1.4 code_bytes): far more
 * than any compiled function, little enough to copy. */
#define HANDLER_MAX_CODE (16u << 20)

/*
 * The collector turns what resolve() returned into table entries: one
 * entry per distinct symbol (by content, so a handler that hands out a
 * new pointer per call, or reuses one buffer, still groups right), each
 * checked once.  Entries are copied into *ARENA.  Nothing here reports:
 * handler_collect_new() is NULL out of memory, handler_collect_batch()
 * 0 or -HANDLER_* and handler_sym_check() 0 or -HANDLER_BROKE, with WHY
 * filled for the caller, who names the handler and the process; the
 * table's adds are 0 or -ENOMEM.
 */
struct handler_collect;
struct handler_collect *handler_collect_new(struct handler_arena **arena);
/* From now on, each new symbol's code is asked of FN(CTX, handler's
 * symbol, entry to fill); NULL stops asking. */
typedef void (*handler_code_fn)(void *ctx, const struct opjit_symbol *os,
				struct anon_symbol *s);
void handler_collect_code(struct handler_collect *c, handler_code_fn fn,
			  void *ctx);
void handler_collect_free(struct handler_collect *c);
const struct handler_table *handler_collect_table(struct handler_collect *c);
int handler_collect_batch(struct handler_collect *c,
			  const struct opjit_resolve_batch *b,
			  struct handler_answer *ans, char *why,
			  size_t whylen);
/* Checks every table entry must pass, on either side of a helper. */
int handler_sym_check(const struct anon_symbol *s, char *why, size_t len);
int handler_table_add_sym(struct handler_table *t,
			  const struct anon_symbol *s);
int handler_table_add_file(struct handler_table *t, const char *f);
void handler_table_free(struct handler_table *t);

/*
 * The calls of one handler on one process, in-process (handler_call.c)
 * or through its helper (handler_proc.c).  Each returns 0 (claim: 1 or
 * 0), or -HANDLER_* with WHY filled (not reported: the caller names the
 * process).  A helper that cannot be started again is the exception:
 * claim() reports it, once, and answers 0.  resolve() appends new
 * entries to TABLE and fills ANS for the N samples.
 */
struct handler_ops {
	int (*claim)(struct anon_handler *h, const struct opjit_process *op,
		     char *why, size_t len);
	int (*resolve)(struct anon_handler *h, struct handler_arena **arena,
		       struct handler_table *table, const uint64_t *addrs,
		       const uint64_t *times, size_t n,
		       struct handler_answer *ans, char *why, size_t len);
	int (*release)(struct anon_handler *h, char *why, size_t len);
	/* Set the claimed state aside into HELD (isolated: as SLOT in the
	 * helper), leaving none claimed: 0 or -HANDLER_* (the state is then
	 * released, or gone with its helper). */
	int (*park)(struct anon_handler *h, struct handler_held *held,
		    uint32_t slot, char *why, size_t len);
	/* Make HELD the claimed state again, of process OP, while none is:
	 * 1, 0 when it is gone (its helper ended since), or -HANDLER_*. */
	int (*unpark)(struct anon_handler *h, struct handler_held *held,
		      const struct opjit_process *op, char *why, size_t len);
};
extern const struct handler_ops handler_call_ops;
extern const struct handler_ops handler_proc_ops;

/* In-process calls, which the helper process makes too. */
int handler_call_claim(struct anon_handler *h, const struct opjit_process *op,
		       char *why, size_t len);
int handler_call_resolve(struct anon_handler *h, struct handler_collect *c,
			 const uint64_t *addrs, const uint64_t *times,
			 size_t n, struct handler_answer *ans, char *why,
			 size_t len);
void handler_call_release(struct anon_handler *h);
void handler_host_init(struct anon_handler *h);

/* The helper process of a handler (handler_proc.c): 0, or a negative
 * errno with REASON as handler_open() (not reported). */
int handler_proc_load(struct anon_handler *h, const char *path,
		      const char *name, char *reason, size_t len);
void handler_proc_close(struct anon_handler *h);

/* The helper's side: never returns.  FD is its end of the channel. */
void handler_child_main(int fd, const char *path, const char *name)
	__attribute__((noreturn));

/* Drop what a helper does not need: its identity when root (to nobody),
 * then under limits and a seccomp filter; 0 or a negative errno with WHY,
 * which the helper sends (not reported). */
int handler_sandbox_enter(int fd, char *why, size_t len);

/* A helper's limits, measured (handler-api/README.md): address space on
 * top of what it had when it started, tasks of nobody's, CPU seconds. */
#define HANDLER_SANDBOX_MEMORY (384ULL << 20)
#define HANDLER_SANDBOX_TASKS 32
#define HANDLER_SANDBOX_CPU_S 60

/* handler_open() without the trust rules, which the caller checked on
 * PATH: the code is loaded from DLPATH (a helper's copy of PATH). */
int handler_open_checked(struct anon_handler *h, const char *path,
			 const char *dlpath, const char *name, char *reason,
			 size_t reasonlen);

/* Report-owned memory, freed all at once; NULL out of memory (not
 * reported). */
void *handler_arena_alloc(struct handler_arena **a, size_t size);
char *handler_arena_strdup(struct handler_arena **a, const char *s);
void handler_arena_free(struct handler_arena *a);

#endif
