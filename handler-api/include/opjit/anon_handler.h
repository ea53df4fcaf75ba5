/* SPDX-License-Identifier: MIT */
/*
 * opjit anonymous-sample handler ABI.
 *
 * A handler is a shared object, found by name (libNAME.so), that exports
 * exactly one symbol: opjit_handler_entry().  opreport offers it each
 * process that ran code in anonymous memory; a handler that recognises
 * the process's JIT map claims it and then names that process's samples.
 *
 * Rules that keep the ABI stable (see handler-api/README.md):
 *  - the major version changes only when something is removed or changes
 *    meaning; the host refuses a handler with another major;
 *  - the minor version grows when fields or function slots are appended;
 *  - every structure that crosses the boundary starts with struct_size,
 *    the size the writer of the structure knew.  A reader uses only the
 *    fields that fit in struct_size;
 *  - a NULL function slot means "not supported".
 */
#ifndef OPJIT_ANON_HANDLER_H
#define OPJIT_ANON_HANDLER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OPJIT_HANDLER_ABI_MAJOR 1
#define OPJIT_HANDLER_ABI_MINOR 1

/* The name of the one exported function. */
#define OPJIT_HANDLER_ENTRY_NAME "opjit_handler_entry"

/* struct_size up to and including MEMBER: what a writer of TYPE that knew
 * MEMBER must at least have set. */
#define OPJIT_SIZE_THROUGH(type, member)                                      \
	(offsetof(type, member) + sizeof(((type *)0)->member))

/* Services the host (opreport) offers a handler. */
struct opjit_host {
	size_t struct_size;
	uint32_t abi_major;
	uint32_t abi_minor;
	/* Report one warning line about an outside input, e.g.
	 * "/tmp/perf-42.map: 3 malformed lines (first at line 7)".  No newline.
	 * The host prefixes it with the handler's name. */
	void (*warn)(const struct opjit_host *host, const char *msg);
	void *host_data; /* for the host's own use */
};

/* opjit_map_candidate.kind */
#define OPJIT_MAP_ANON 1u /* anon.<pid>: any format, e.g. javamap or perf map */
#define OPJIT_MAP_PERF 2u /* perf-<pid>.map: perf map text */
#define OPJIT_MAP_JITDUMP 3u /* jit-<pid>.dump: perf jitdump (ABI 1.1) */

/* opjit_map_candidate.flags */
#define OPJIT_MAP_ARCHIVED 0x1u /* a copy kept in the session */

/* A file that may describe the process's JIT code.  The host lists the
 * session's archived copies first, then the live files in /tmp, then the
 * same names inside the process's own root and pid namespace when it ran
 * in a container.  Candidates may not exist.  A handler applies the trust
 * rules before using any of them. */
struct opjit_map_candidate {
	size_t struct_size;
	const char *path;
	uint32_t kind;  /* OPJIT_MAP_* */
	uint32_t flags; /* OPJIT_MAP_ARCHIVED */
};

/* opjit_process.flags */
#define OPJIT_PROC_OTHER_MNTNS 0x1u /* lived in another mount namespace */

/* The process offered to claim(). */
struct opjit_process {
	size_t struct_size;
	uint32_t tgid;
	uint32_t nspid;          /* pid inside its own pid namespace */
	uint32_t uid;
	uint32_t flags;          /* OPJIT_PROC_* */
	uint64_t start_ns;       /* CLOCK_MONOTONIC */
	int64_t start_unix_ns;   /* wall clock, to compare with a map's mtime */
	const char *comm;
	const char *exe;
	const struct opjit_map_candidate *const *maps; /* in preference order */
	size_t nr_maps;
};

/* A symbol as a handler names it.  Pointers stay valid until release().
 * The host groups samples by symbol pointer: one symbol, one pointer. */
struct opjit_symbol {
	size_t struct_size;
	const char *name;
	uint64_t start;      /* address of the first byte */
	uint64_t size;       /* bytes, 0 when unknown */
	const char *file;    /* source file of the symbol, NULL when unknown */
	uint32_t line;       /* first source line, 0 when unknown */
};

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
	const uint64_t *addrs;                 /* in */
	const uint64_t *times;                 /* in */
	const struct opjit_symbol **symbols;   /* out: NULL = unknown */
	const char **files;                    /* out: source file at the address */
	uint32_t *lines;                       /* out: line at the address, 0 = unknown */
};

typedef int (*opjit_symbol_cb)(void *arg, const struct opjit_symbol *sym);

struct opjit_handler {
	size_t struct_size;
	uint32_t abi_major;
	uint32_t abi_minor;
	const char *name;        /* equals NAME in libNAME.so */
	const char *description; /* one line */

	/*
	 * Offer a process.  Return 1 and set *state to claim it, 0 to decline,
	 * or a negative errno when the process is the handler's but cannot be
	 * read (last_error(NULL) then says why).  Mandatory.
	 */
	int (*claim)(const struct opjit_host *host,
		     const struct opjit_process *proc, void **state);

	/* Name a batch of samples of a claimed process.  0 or a negative
	 * errno.  Mandatory. */
	int (*resolve)(void *state, struct opjit_resolve_batch *batch);

	/* Call CB for every symbol known for the process; stop early and
	 * return CB's value when it is non-zero.  Optional. */
	int (*for_each_symbol)(void *state, opjit_symbol_cb cb, void *arg);

	/* Text of the last error for STATE, or of the last failed claim when
	 * STATE is NULL.  Optional. */
	const char *(*last_error)(void *state);

	/* Free everything claim() made.  Mandatory. */
	void (*release)(void *state);
};

/* The smallest table a host accepts: everything through release. */
#define OPJIT_HANDLER_V1_SIZE OPJIT_SIZE_THROUGH(struct opjit_handler, release)

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
