/* SPDX-License-Identifier: MIT */
/*
 * opjit anonymous-sample handler ABI, version 1.4 (1.0 is frozen: it only
 * grows, by the rules in handler-api/README.md).
 *
 * A handler is a shared object, found by name (libNAME.so), that exports
 * exactly one symbol: opjit_handler_entry().  opreport offers it each
 * process that ran code in anonymous memory; a handler that recognises
 * the process's JIT map claims it and then names that process's samples.
 *
 * Rules that keep the ABI stable:
 *  - the major version changes only when something is removed or changes
 *    meaning; the host refuses a handler with another major;
 *  - the minor version grows when fields or function slots are appended;
 *  - every structure that crosses the boundary starts with struct_size:
 *    the bytes from the start of the structure through its last field as
 *    the writer of the structure knew it (OPJIT_*_SIZE_1_0 for 1.0).  A
 *    reader uses only the fields that fit in struct_size;
 *  - no structure has hidden padding: what would be padding is a
 *    reserved field, and a writer sets it to zero;
 *  - a field added in 1.N is one whose zero value means "as in 1.0", so
 *    a handler sets it only when the host's minor (given to the entry
 *    point) is at least N.  The host refuses a table or symbol that has
 *    non-zero bytes past the fields it knows, or a non-zero reserved
 *    field, because it could not honour them;
 *  - a NULL function slot means "not supported".
 *
 * Concurrency: the host may call claim() for different processes at the
 * same time from different threads, and resolve(), last_error() and
 * release() for different states at the same time.  Calls for one state never overlap.
 * A handler therefore keeps nothing mutable outside its states.  The
 * host's services (warn, open_map) may be called from any thread.
 */
#ifndef OPJIT_ANON_HANDLER_H
#define OPJIT_ANON_HANDLER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OPJIT_HANDLER_ABI_MAJOR 1
#define OPJIT_HANDLER_ABI_MINOR 4

/* The name of the one exported function. */
#define OPJIT_HANDLER_ENTRY_NAME "opjit_handler_entry"

/* The bytes of TYPE from its start through MEMBER: the struct_size of a
 * writer whose last field is MEMBER, and what a reader compares
 * struct_size with before it reads MEMBER. */
#define OPJIT_SIZE_THROUGH(type, member) \
	(offsetof(type, member) + sizeof(((type *)0)->member))

struct opjit_host;
struct opjit_process;
struct opjit_map_candidate;

/* Services the host (opreport) offers a handler. */
struct opjit_host {
	size_t struct_size;
	uint32_t abi_major;
	uint32_t abi_minor;
	/* Report one warning line about an outside input, e.g.
	 * "/tmp/perf-42.map: 3 malformed lines (first at line 7)", with no
	 * newline.  The host prefixes it with the handler's name. */
	void (*warn)(const struct opjit_host *host, const char *msg);
	void *host_data; /* for the host's own use */
	/*
	 * Open candidate C of PROC for reading with every trust rule
	 * applied (handler-api/README.md, "Trust"): no symbolic link, a
	 * regular file owned by the process's uid or root, not writable by
	 * group or others, not older than the process, not written after
	 * the pid went to a later process.  Returns a descriptor (O_RDONLY,
	 * O_NONBLOCK, O_CLOEXEC; the handler closes it), -ENOENT when the
	 * file does not exist, or another negative errno when it was
	 * refused: the host has then warned once, naming the file and the
	 * rule, and WHY (WHYLEN bytes, may be NULL) holds the same reason.
	 */
	int (*open_map)(const struct opjit_host *host,
			const struct opjit_process *proc,
			const struct opjit_map_candidate *c, char *why,
			size_t whylen);
};

/* opjit_map_candidate.kind */
#define OPJIT_MAP_ANON 1u    /* anon.<pid>: any format, javamap or perf map */
#define OPJIT_MAP_PERF 2u    /* perf-<pid>.map: perf map text */
#define OPJIT_MAP_JITDUMP 3u /* jit-<pid>.dump: perf jitdump (ABI 1.1) */

/* opjit_map_candidate.flags */
#define OPJIT_MAP_ARCHIVED 0x1u /* a copy kept in the session */

/* A file that may describe the process's JIT code.  The host lists the
 * session's archived copies first, then the live files in /tmp, then the
 * same names inside the process's own root and pid namespace when it ran
 * in a container.  Candidates may not exist.  A handler opens them with
 * host->open_map(), which applies the trust rules.  A later minor may add
 * kinds: a handler skips a kind it does not know. */
struct opjit_map_candidate {
	size_t struct_size;
	const char *path;
	uint32_t kind;	/* OPJIT_MAP_* */
	uint32_t flags; /* OPJIT_MAP_ARCHIVED */
};

/* opjit_process.flags */
#define OPJIT_PROC_OTHER_MNTNS 0x1u /* lived in another mount namespace */

/* The process offered to claim(). */
struct opjit_process {
	size_t struct_size;
	uint32_t tgid;
	uint32_t nspid; /* pid inside its own pid namespace */
	uint32_t uid;
	uint32_t flags;	       /* OPJIT_PROC_* */
	uint64_t start_ns;     /* CLOCK_MONOTONIC */
	int64_t start_unix_ns; /* wall clock, to compare with mtimes */
	const char *comm;
	const char *exe;
	/* in preference order */
	const struct opjit_map_candidate *const *maps;
	size_t nr_maps;
};

/* A symbol as a handler names it.  Pointers stay valid until release().
 * The host groups samples by symbol pointer: one symbol, one pointer. */
struct opjit_symbol {
	size_t struct_size; /* OPJIT_SYMBOL_SIZE_1_0 */
	const char *name;
	uint64_t start;	   /* address of the first byte */
	uint64_t size;	   /* bytes, 0 when unknown */
	const char *file;  /* source file of the symbol, NULL when unknown */
	uint32_t line;	   /* first source line, 0 when unknown */
	uint32_t reserved; /* zero */
};

/* opjit_resolve_batch.reasons: why a sample has no symbol. */
#define OPJIT_UNRESOLVED_UNKNOWN 0u  /* no reason given */
#define OPJIT_UNRESOLVED_NO_ENTRY 1u /* the map has nothing there */
#define OPJIT_UNRESOLVED_BEFORE_LOAD \
	2u /* taken before the code there was
					 * loaded */
#define OPJIT_UNRESOLVED_UNLOADED \
	3u /* the code there was already
					 * unloaded */
#define OPJIT_UNRESOLVED_MAP_REFUSED \
	4u /* the map that would name it was
					 * refused */
/* Codes past the last one a host knows are counted as UNKNOWN. */

/*
 * A frame that code was inlined into (ABI 1.2): the function that made
 * the call the compiler inlined, and where that call is in its source.
 */
struct opjit_inline_frame {
	size_t struct_size;		   /* OPJIT_INLINE_FRAME_SIZE_1_2 */
	const struct opjit_symbol *symbol; /* the caller; not NULL */
	const char *file;  /* source file of the call, or NULL */
	uint32_t line;	   /* line of the call, or 0 */
	uint32_t reserved; /* zero */
};

/* The most frames a host takes for one sample; a longer chain is cut,
 * keeping the frames nearest the sample. */
#define OPJIT_INLINE_MAX 64u

/*
 * One batch for resolve(), as parallel arrays so the batch can grow by
 * appending arrays.  Addresses are sorted ascending; times are CLOCK_MONOTONIC
 * ns and let a handler that knows when code was loaded name the code that
 * lived at the address at that moment.  The host fills the inputs and
 * zeroes the outputs; the handler fills what it knows.
 */
struct opjit_resolve_batch {
	size_t struct_size;
	size_t count;
	const uint64_t *addrs;		     /* in */
	const uint64_t *times;		     /* in */
	const struct opjit_symbol **symbols; /* out: NULL = unknown */
	const char **files;		     /* out: source file there */
	uint32_t *lines;		     /* out: line there, or 0 */
	uint32_t *reasons;		     /* out: OPJIT_UNRESOLVED_* where
						* symbols[i] is NULL */
	/*
	 * Since 1.2, out: when symbols[i] was inlined, the frames it was
	 * inlined into, from its caller outwards to the function whose
	 * compiled code holds the address; NULL and 0 when it was not.
	 * symbols[i], files[i] and lines[i] stay the innermost function
	 * and the line in it, as in 1.0.  The frames stay valid until
	 * release().
	 */
	const struct opjit_inline_frame **inlined;
	uint32_t *nr_inlined;
};

struct opjit_handler {
	size_t struct_size; /* OPJIT_HANDLER_SIZE_1_0 */
	uint32_t abi_major;
	uint32_t abi_minor;
	const char *name;	 /* equals NAME in libNAME.so */
	const char *description; /* one line */

	/*
	 * Offer a process.  Return 1 and set *state to claim it, 0 to
	 * decline, or a negative errno when the process is the handler's
	 * but cannot be read; then write one line saying why into ERRMSG
	 * (ERRMSG_SIZE bytes, NUL-terminated, no newline).  Mandatory.
	 */
	int (*claim)(const struct opjit_host *host,
		     const struct opjit_process *proc, void **state,
		     char *errmsg, size_t errmsg_size);

	/* Name a batch of samples of a claimed process.  0 or a negative
	 * errno (last_error(state) then says why).  Mandatory. */
	int (*resolve)(void *state, struct opjit_resolve_batch *batch);

	/* Text of the last error of STATE, or NULL.  Optional. */
	const char *(*last_error)(void *state);

	/* Free everything claim() made.  Mandatory. */
	void (*release)(void *state);

	/*
	 * Since 1.3.  What the host may assume of the names STATE gives, as
	 * OPJIT_STATE_* flags; asked once, right after claim().  Optional:
	 * NULL (or 0) is as in 1.2.
	 */
	uint32_t (*state_flags)(void *state);

	/*
	 * Since 1.4.  The machine code of SYM, a symbol resolve() returned
	 * for STATE, as it was when the samples named by SYM were taken:
	 * *LEN bytes at *CODE (valid until release()), which sat at *ADDR
	 * from *LOAD_NS (CLOCK_MONOTONIC, 0 when unknown).  A symbol whose
	 * code was replaced at the same address is another symbol, each
	 * with its own bytes.  0; -ENOENT when the handler has no bytes for
	 * SYM; or another negative errno (last_error() says why).  Asked
	 * only by a host that disassembles (opannotate).  Optional: NULL
	 * when the handler's maps keep no code (perf maps).
	 */
	int (*code_bytes)(void *state, const struct opjit_symbol *sym,
			  const uint8_t **code, uint64_t *len, uint64_t *addr,
			  uint64_t *load_ns);
};

/* state_flags(): every name depends on the address alone, never on the
 * time (a perf map has no times).  The host then asks each address once
 * per batch, with the time of its first sample, and gives the answer to
 * all the samples there: a JIT's millions of samples in its hot code
 * are a few thousand questions. */
#define OPJIT_STATE_TIMELESS 0x1u

/* Every struct_size of version 1.0: through the structure's last field. */
#define OPJIT_HOST_SIZE_1_0 OPJIT_SIZE_THROUGH(struct opjit_host, open_map)
#define OPJIT_MAP_CANDIDATE_SIZE_1_0 \
	OPJIT_SIZE_THROUGH(struct opjit_map_candidate, flags)
#define OPJIT_PROCESS_SIZE_1_0 \
	OPJIT_SIZE_THROUGH(struct opjit_process, nr_maps)
#define OPJIT_SYMBOL_SIZE_1_0 OPJIT_SIZE_THROUGH(struct opjit_symbol, reserved)
#define OPJIT_RESOLVE_BATCH_SIZE_1_0 \
	OPJIT_SIZE_THROUGH(struct opjit_resolve_batch, reasons)
#define OPJIT_HANDLER_SIZE_1_0 \
	OPJIT_SIZE_THROUGH(struct opjit_handler, release)

/* The sizes version 1.2 added or grew. */
#define OPJIT_RESOLVE_BATCH_SIZE_1_2 \
	OPJIT_SIZE_THROUGH(struct opjit_resolve_batch, nr_inlined)
#define OPJIT_INLINE_FRAME_SIZE_1_2 \
	OPJIT_SIZE_THROUGH(struct opjit_inline_frame, reserved)

/* The size version 1.3 grew. */
#define OPJIT_HANDLER_SIZE_1_3 \
	OPJIT_SIZE_THROUGH(struct opjit_handler, state_flags)

/* The size version 1.4 grew. */
#define OPJIT_HANDLER_SIZE_1_4 \
	OPJIT_SIZE_THROUGH(struct opjit_handler, code_bytes)

/* The smallest table a 1.x host accepts: everything through release. */
#define OPJIT_HANDLER_V1_SIZE OPJIT_HANDLER_SIZE_1_0

/*
 * The entry point.  The host passes its ABI version; a handler returns its
 * table, or NULL when it cannot work with that host.  Define it with
 * OPJIT_HANDLER_EXPORT so that it is the one visible symbol.
 */
#define OPJIT_HANDLER_EXPORT __attribute__((visibility("default")))
typedef const struct opjit_handler *(*opjit_handler_entry_fn)(
	uint32_t host_abi_major, uint32_t host_abi_minor);
/* Declared visible here too, so that a handler built with the pkg-config
 * flags (-fvisibility=hidden) still exports its entry point when its
 * definition forgets OPJIT_HANDLER_EXPORT. */
OPJIT_HANDLER_EXPORT const struct opjit_handler *
opjit_handler_entry(uint32_t host_abi_major, uint32_t host_abi_minor);

#ifdef __cplusplus
}
#endif

#endif /* OPJIT_ANON_HANDLER_H */
