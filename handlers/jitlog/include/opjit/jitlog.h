/* SPDX-License-Identifier: MIT */
/*
 * opjit jitlog: the library a JIT links to so that opjit names the code
 * it compiles.  Each load, move and unload is recorded with its
 * CLOCK_MONOTONIC time, the code's name and, optionally, its source file
 * and lines, into /tmp/anon.<pid>, which opreport reads with
 * --anon-handler=jitlog.  The format is opjit's time-stamped map,
 * version 2 (handlers/javamap/FORMAT.md of opjit).
 *
 *	struct opjit_jitlog *log;
 *	struct opjit_jitlog_code c = { .struct_size = sizeof(c) };
 *
 *	if (opjit_jitlog_open(NULL, &log) == 0) {
 *		c.addr = (uintptr_t)code; c.size = len; c.name = "expr_42";
 *		opjit_jitlog_load(log, &c);
 *		...
 *		opjit_jitlog_unload(log, &c);
 *		opjit_jitlog_close(log);
 *	}
 *
 * Every call is thread-safe.  A load, move or unload takes no lock and
 * makes no system call, except when the log must grow (every few MiB).
 * Every function returns 0 or a negative errno; opjit_jitlog_strerror()
 * says it in words.  Structures carry struct_size first, so that later
 * versions can add fields at their end.
 */
#ifndef OPJIT_JITLOG_H
#define OPJIT_JITLOG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OPJIT_JITLOG_VERSION_MAJOR 1
#define OPJIT_JITLOG_VERSION_MINOR 0

struct opjit_jitlog;

struct opjit_jitlog_options {
	size_t struct_size; /* sizeof(struct opjit_jitlog_options) */
	/* where to write; NULL for /tmp/anon.<pid>, where opreport looks */
	const char *path;
};

/* From code offset OFFSET on, until the next entry's offset, the code
 * comes from source line LINE. */
struct opjit_jitlog_line {
	uint32_t offset;
	uint32_t line;
};

struct opjit_jitlog_code {
	size_t struct_size; /* sizeof(struct opjit_jitlog_code) */
	uint64_t addr;	    /* first byte of the code */
	uint64_t size;	    /* bytes; not 0 */
	const char *name;   /* what opreport shows; copied */
	const char *file;   /* source file, or NULL; copied */
	const struct opjit_jitlog_line *lines; /* sorted by offset, or NULL */
	size_t nr_lines;
	/* set by opjit_jitlog_load(): names this code in move and unload */
	uint64_t id;
};

/* Open the log for this process: OPTIONS may be NULL.  The file is
 * created anew, never through a symbolic link; a file left by an earlier
 * process of this user with the same pid is replaced, one of another
 * user's refused (-EEXIST). */
int opjit_jitlog_open(const struct opjit_jitlog_options *options,
		      struct opjit_jitlog **log);

/* CODE was written at CODE->addr and may run from now on; sets
 * CODE->id. */
int opjit_jitlog_load(struct opjit_jitlog *log,
		      struct opjit_jitlog_code *code);

/* The code of CODE->id moved from OLD_ADDR to CODE->addr (CODE as
 * loaded, but for its address). */
int opjit_jitlog_move(struct opjit_jitlog *log,
		      const struct opjit_jitlog_code *code, uint64_t old_addr);

/* The code of CODE->id at CODE->addr was freed: samples there after now
 * are not its. */
int opjit_jitlog_unload(struct opjit_jitlog *log,
			const struct opjit_jitlog_code *code);

/* Every record logged before the call is complete in the file. */
int opjit_jitlog_flush(struct opjit_jitlog *log);

/* Flush and free the log; the file stays for opjit. */
int opjit_jitlog_close(struct opjit_jitlog *log);

/* ERR, as returned by the functions above, in words. */
const char *opjit_jitlog_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif
