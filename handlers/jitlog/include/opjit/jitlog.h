/* SPDX-License-Identifier: MIT */
/*
 * opjit jitlog: the library a JIT links to so that opjit names the code
 * it compiles.  Each load, move and unload is recorded with its
 * CLOCK_MONOTONIC time, the code's name and, optionally, its source file
 * and lines, into /tmp/anon.<pid>, which opreport reads with
 * --anon-handler=jitlog.  The format is opjit's time-stamped map,
 * version 2.1 (handlers/jitlog/FORMAT.md of opjit).
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
 * makes no system call, except when the log must grow; on attach (below)
 * it takes one uncontended lock and makes no system call, except when
 * the table of live code must grow.
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
#define OPJIT_JITLOG_VERSION_MINOR 3

struct opjit_jitlog;

/* opjit_jitlog_options.mode */
#define OPJIT_JITLOG_ALWAYS 0u	  /* write from the open on, as a perf map */
#define OPJIT_JITLOG_ON_ATTACH 1u /* write only while a profiler observes */

struct opjit_jitlog_options {
	size_t struct_size; /* sizeof(struct opjit_jitlog_options) */
	/* where to write; NULL for /tmp/anon.<pid>, where opreport looks */
	const char *path;
	/* since 1.1: OPJIT_JITLOG_ALWAYS, or OPJIT_JITLOG_ON_ATTACH: keep
	 * only a table of the live code in memory, create no file and
	 * write nothing until a profiler attaches (see below) */
	uint32_t mode;
	/* since 1.3: OPJIT_JITLOG_OPT_* */
	uint32_t flags;
	/* since 1.3: with OPJIT_JITLOG_OPT_CODE_BYTES, the most bytes of
	 * code the log copies, over its life; code loaded past it is
	 * logged without its bytes.  0: OPJIT_JITLOG_CODE_BUDGET. */
	uint64_t code_budget;
};
/* What a 1.0 caller passes as struct_size: the fields up to path. */
#define OPJIT_JITLOG_OPTIONS_SIZE_1_0 \
	(offsetof(struct opjit_jitlog_options, path) + sizeof(const char *))
/* What a 1.1 or 1.2 caller passes: the fields up to mode, padded to
 * where code_budget starts.  flags sits in that padding, so it is read
 * only from a structure that reaches past it. */
#define OPJIT_JITLOG_OPTIONS_SIZE_1_1 \
	offsetof(struct opjit_jitlog_options, code_budget)

/* opjit_jitlog_options.flags: copy each piece of code's bytes into the
 * log when it is loaded or moved (read at its address, which must be
 * readable then), so that opannotate can disassemble the code as it was
 * at the time of each sample.  Off by default: the log then holds about
 * as many bytes again as the JIT compiles. */
#define OPJIT_JITLOG_OPT_CODE_BYTES 0x1u
#define OPJIT_JITLOG_CODE_BUDGET (64ull << 20)

/*
 * On attach.  The library holds one control block per process, exported
 * as OPJIT_JITLOG_CONTROL_SYMBOL.  A profiler that starts on the process
 * (oprofiled with a command, --pid or --system-wide) finds it in the
 * library's dynamic symbols and writes its state through /proc/PID/mem:
 *
 *   DETACHED  -> ATTACH     the profiler, when it starts observing
 *   ATTACH    -> OBSERVING  the library, once it has created the log and
 *                           written its table of live code into it, each
 *                           piece flagged as older than the attach
 *   OBSERVING -> DETACH     the profiler, when it stops
 *   DETACH    -> DETACHED   the library, which closes the log and writes
 *                           nothing more until the next ATTACH
 *
 * The library looks at the state every 50 ms from a thread it starts
 * with the first log opened on attach; a log opened while a profiler
 * observes starts writing at once.  Logs opened OPJIT_JITLOG_ALWAYS write
 * whatever the state.
 */
#define OPJIT_JITLOG_CONTROL_SYMBOL "opjit_jitlog_control"
#define OPJIT_JITLOG_CONTROL_MAGIC "OPJITCTL"
#define OPJIT_JITLOG_CONTROL_VERSION 1u

enum opjit_jitlog_state {
	OPJIT_JITLOG_DETACHED = 0,
	OPJIT_JITLOG_ATTACH = 1,
	OPJIT_JITLOG_OBSERVING = 2,
	OPJIT_JITLOG_DETACH = 3,
};

struct opjit_jitlog_control {
	char magic[8];		 /* OPJIT_JITLOG_CONTROL_MAGIC, no NUL */
	uint32_t version;	 /* OPJIT_JITLOG_CONTROL_VERSION */
	uint32_t state;		 /* enum opjit_jitlog_state */
	uint32_t on_attach_logs; /* logs open on attach: the profiler
				  * waits for OBSERVING only if any */
	uint32_t reserved;
};

/* From code offset OFFSET on, until the next entry's offset, the code
 * comes from source line LINE. */
struct opjit_jitlog_line {
	uint32_t offset;
	uint32_t line;
};

/*
 * Since 1.2: methods and inline chains.  A JIT that compiles functions of
 * a source language (bytecode methods, say) and inlines them declares
 * each function once with opjit_jitlog_method(), then logs code compiled
 * from it with opjit_jitlog_code.method set, and, where calls were
 * inlined, the chain of frames at each code offset in .pcs.
 */
struct opjit_jitlog_method {
	size_t struct_size; /* sizeof(struct opjit_jitlog_method) */
	const char *name;   /* what opreport shows; copied, < 1 MiB */
	const char *file;   /* source file, or NULL; copied, < 1 MiB */
	/* sorted by offset; here an offset is a location in the method as
	 * its frames give it (a bytecode index, say) */
	const struct opjit_jitlog_line *lines;
	size_t nr_lines;
	uint64_t id; /* set by opjit_jitlog_method() */
};

/* One frame of an inline chain: METHOD, at LOCATION in it. */
struct opjit_jitlog_frame {
	uint64_t method;   /* an opjit_jitlog_method id; 0: the code's own */
	uint32_t location; /* looked up in the method's lines */
	uint32_t reserved; /* 0 */
};

/* From code offset OFFSET on, until the next pc's offset, the code runs
 * FRAMES: the innermost (inlined deepest) first, the code's own method
 * last. */
struct opjit_jitlog_pc {
	uint32_t offset;
	uint32_t nr_frames; /* at most 65535 */
	const struct opjit_jitlog_frame *frames;
};

/* opjit_jitlog_code.flags */
#define OPJIT_JITLOG_CODE_OLDER \
	0x1u /* the code existed before this call
				      * (found when a JIT's agent attached,
				      * say) and may have run before it */

/* the range is not code but the runtime's data for a method, which its
 * interpreter keeps in each frame of that method (HotSpot's Method*):
 * a value read from a frame names the frame's method */
#define OPJIT_JITLOG_CODE_DATA 0x2u

/* since 1.3: copy this code's bytes into the log, as the log's
 * OPJIT_JITLOG_OPT_CODE_BYTES does for every load (and within its
 * budget) */
#define OPJIT_JITLOG_CODE_BYTES 0x4u

struct opjit_jitlog_code {
	size_t struct_size; /* sizeof(struct opjit_jitlog_code) */
	uint64_t addr;	    /* first byte of the code */
	uint64_t size;	    /* bytes; not 0 */
	/* name and file are copied, and each shorter than 1 MiB */
	const char *name;		       /* what opreport shows */
	const char *file;		       /* source file, or NULL */
	const struct opjit_jitlog_line *lines; /* sorted by offset, or NULL */
	size_t nr_lines;
	/* set by opjit_jitlog_load(): names this code in move and unload */
	uint64_t id;
	/* since 1.2: the method this code was compiled from, as
	 * opjit_jitlog_method() set it; then name, file and lines are not
	 * used.  0: the code is its own method, named above. */
	uint64_t method;
	/* since 1.2: inline chains by code offset, sorted by offset, each
	 * covering the code from its offset to the next one's, or NULL:
	 * then LINES give the code's own lines */
	const struct opjit_jitlog_pc *pcs;
	size_t nr_pcs;
	uint32_t flags; /* since 1.2: OPJIT_JITLOG_CODE_* */
	uint32_t reserved;
};
/* What a 1.0 or 1.1 caller passes as struct_size: the fields up to id. */
#define OPJIT_JITLOG_CODE_SIZE_1_0 \
	(offsetof(struct opjit_jitlog_code, id) + sizeof(uint64_t))

/* Open the log for this process: OPTIONS may be NULL.  The file is
 * created anew, never through a symbolic link; a log left by an earlier
 * process of this user with the same pid is replaced, a file of another
 * user's refused (-EEXIST), and a file of this user's that is not a log
 * left alone (-ENOTEMPTY). */
int opjit_jitlog_open(const struct opjit_jitlog_options *options,
		      struct opjit_jitlog **log);

/* Since 1.2: declare METHOD for code to name; sets METHOD->id.  A
 * method lives as long as the log. */
int opjit_jitlog_method(struct opjit_jitlog *log,
			struct opjit_jitlog_method *method);

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
