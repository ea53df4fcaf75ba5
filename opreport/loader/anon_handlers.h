/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Anonymous-sample handlers as the report core sees them: found by name,
 * loaded in claim order, offered each process that ran anonymous code.
 * Everything that touches handler-api/ lives behind this header.
 */
#ifndef OPREPORT_ANON_HANDLERS_H
#define OPREPORT_ANON_HANDLERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <opjit/samples.h>

struct anon_handlers;

/* The one rule for handler names: NULL when NAME is [a-z0-9_-]{1,64},
 * else why it is not. */
const char *handler_name_problem(const char *name);

/*
 * The one rule for handler names, for the option parser and the loader:
 * 0, or -EINVAL with ERR (ERRLEN bytes) saying
 * "invalid handler name 'NAME': REASON" (not reported).
 */
int anon_handler_name_check(const char *name, char *err, size_t errlen);

/*
 * Load the handlers NAMES, in claim order; "auto" stands for every
 * handler on the search path, jitdump, jitlog, javamap, pypy and perfmap
 * first, then the others by name.  The search path is
 * HANDLER_PATH (--handler-path, may be NULL), then $OPJIT_HANDLER_PATH,
 * then the installed handler directory, then the build tree when opreport
 * runs uninstalled.  A handler that cannot be used is skipped with one
 * line naming the file (or the name) and the reason.  Returns 0, or a
 * negative errno (reported): -ENOENT for a name the search path does
 * not hold (the line lists those it does), -ENOMEM.
 */
int anon_handlers_load(struct anon_handlers **out, const char *const *names,
		       size_t nr_names, const char *handler_path);
void anon_handlers_free(struct anon_handlers *h);

/* Where handlers run: in a helper process each (the default), with
 * TIMEOUT_MS for each call, or inside opreport (for debugging one). */
struct anon_isolation {
	int none;
	unsigned timeout_ms;
};
#define ANON_HANDLER_TIMEOUT_MS 30000u

/* Set before anon_handlers_load() and anon_handlers_list(). */
void anon_handlers_isolate(const struct anon_isolation *iso);

/* --list-handlers: every handler found on the search path, with its path,
 * ABI version and description, to OUT; one that cannot be used, or none
 * at all, is a line through diag().  0, or a negative errno (reported). */
int anon_handlers_list(FILE *out, const char *handler_path);

/* Ask every handler loaded from now on for the machine code of the
 * symbols it names (ABI 1.4 code_bytes), for disassembly.  Set before
 * anon_handlers_load(); a handler's helper inherits it. */
void anon_handlers_want_code(void);

/* A symbol a handler named, copied into memory the report owns. */
struct anon_symbol {
	const char *name;
	uint64_t start;
	uint64_t size;
	const char *file; /* NULL when unknown */
	uint32_t line;	  /* 0 when unknown */
	/* With anon_handlers_want_code(): the code's CODE_LEN bytes, which
	 * sat at CODE_ADDR from CODE_LOAD_NS on (0: unknown), or none and
	 * CODE_ERR: 0 when the handler keeps no code, -ENOENT when it has
	 * none for this symbol, another negative errno when it failed.
	 * Code loaded anew at the same address is another symbol. */
	const uint8_t *code;
	uint64_t code_len, code_addr, code_load_ns;
	int32_t code_err;
};

/* A function a sample's symbol was inlined into, and the line of the
 * call there. */
struct anon_inline {
	const struct anon_symbol *sym;
	const char *file; /* NULL when unknown */
	uint32_t line;	  /* 0 when unknown */
};

/* Why a sample has no name: the handler ABI's OPJIT_UNRESOLVED_* codes,
 * any code past the last one known counted as OPJIT_UNRESOLVED_UNKNOWN. */
#define ANON_NR_REASONS 5u
#define ANON_REASON_MAP_REFUSED 4u /* OPJIT_UNRESOLVED_MAP_REFUSED */

/* The words the summary line uses for reason R. */
const char *anon_reason_text(uint32_t r);

/* How one process's samples were named.  The arrays are those of one
 * batch (see anon_batch_fn), valid during the call; the symbols and file
 * names they point to stay valid until anon_handlers_free(). */
struct anon_resolved {
	const char *handler;		 /* the handler that claimed it */
	const struct anon_symbol **syms; /* NULL entry: (unknown) */
	const char **files;		 /* source file there, or NULL */
	uint32_t *lines;		 /* line at the sample, or 0 */
	uint32_t *reasons;		 /* where syms[i] is NULL: why */
	/* the nr_inl[i] functions syms[i] was inlined into, its caller
	 * first, out to the one whose code it is: inl[i], NULL when none */
	const struct anon_inline **inl;
	uint32_t *nr_inl;
	bool map_refused;	  /* unclaimed, and some handler's
					  * map was refused by a trust rule */
	const char *refused_why;  /* the first refusal: file, rule;
					  * valid until the next process */
	const char *declined_why; /* unclaimed: the first handler
					  * that could not read its map, and
					  * why; valid as long */
	const char *would; /* unclaimed: an installed handler that was not
			    * asked and would claim it, or NULL */
};

/* Where the names go, a batch at a time, in order: BATCH names the N
 * samples from index BASE of those passed in, its arrays indexed from 0.
 * Batches are bounded, so that naming a process costs memory for its
 * samples and a batch, not for a name per sample.  0, or -ENOMEM, which
 * stops the naming (not reported: the loader says it). */
typedef int (*anon_batch_fn)(void *ctx, const struct anon_resolved *batch,
			     size_t base, size_t n);

/*
 * Offer process PROC_ID of session S to each handler in order; the first
 * that claims it names SAMPLES, which are sorted by address, through
 * SINK.  Returns 1 when a handler claimed it (RES says which), 0 when
 * none did (RES then says only whether a map was refused or could not be
 * read, and why), or a negative errno (reported) when the claiming
 * handler failed or SINK ran out of memory.  A handler that fails to
 * claim it is reported too, and the next one is offered it.  What a
 * handler did wrong with a process is said once, however often the
 * process is offered.  Equal symbols come back as equal pointers, in
 * every batch, so the core can group by pointer.  RES's arrays stay
 * NULL.
 */
int anon_handlers_resolve(struct anon_handlers *h, struct ops_session *s,
			  uint32_t proc_id,
			  const struct ops_anon_sample *samples, size_t n,
			  anon_batch_fn sink, void *sink_ctx,
			  struct anon_resolved *res);

/*
 * The samples a claiming handler is to name, asked for once it has
 * claimed the process: TIMELESS when its names depend on the address
 * alone (handler ABI 1.3 OPJIT_STATE_TIMELESS), so that one sample an
 * address, at any of its times, names them all.  Sets *SAMPLES, sorted
 * by address (then time), and *N: the next part of them, named through
 * the sink (whose BASE counts from the part's start) before the next
 * is asked for; *N is 0 once all were given.  A part stays valid until
 * the next is asked for.  0 or -ENOMEM (not reported).
 */
typedef int (*anon_samples_fn)(void *ctx, bool timeless,
			       const struct ops_anon_sample **samples,
			       size_t *n);

/* Whether the names of process PROC_ID's samples will depend on their
 * addresses alone: 1 when the handler that claims it is timeless (or
 * none does, or none is loaded), 0 when its names depend on the time,
 * or -ENOMEM (reported).  The process is offered to the handlers here,
 * as anon_handlers_resolve() would, with every line that calls for; the
 * claiming handler's state is kept, and the next anon_handlers_resolve()
 * of the process names its samples with it rather than claim it again.
 * Each process asked about is kept so until it is named, up to
 * HANDLER_HELD_MAX claimed states (handler_internal.h); past them, and
 * when there is no memory to keep the offer (answered 0, quietly), the
 * naming claims the process again. */
int anon_handlers_timeless(struct anon_handlers *h, struct ops_session *s,
			   uint32_t proc_id);

/* anon_handlers_resolve(), the samples asked of GIVE only when a handler
 * has claimed the process, and only then made: a caller that holds many
 * samples of few addresses gives one an address to a timeless handler. */
int anon_handlers_resolve_by(struct anon_handlers *h, struct ops_session *s,
			     uint32_t proc_id, anon_samples_fn give,
			     void *give_ctx, anon_batch_fn sink,
			     void *sink_ctx, struct anon_resolved *res);

#endif
