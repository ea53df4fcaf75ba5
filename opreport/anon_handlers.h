/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Anonymous-sample handlers as the report core sees them: found by name,
 * loaded in claim order, offered each process that ran anonymous code.
 * Everything that touches handler-api/ lives behind this header.
 */
#ifndef OPREPORT_ANON_HANDLERS_H
#define OPREPORT_ANON_HANDLERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <opjit/samples.h>

struct anon_handlers;

/* The one rule for handler names: NULL when NAME is [a-z0-9_-]{1,64},
 * else why it is not. */
const char *handler_name_problem(const char *name);

/*
 * Load the handlers NAMES, in claim order.  The search path is
 * HANDLER_PATH (--handler-path, may be NULL), then $OPJIT_HANDLER_PATH,
 * then the installed handler directory, then the build tree when opreport
 * runs uninstalled.  A handler that cannot be used is skipped with one
 * line on stderr naming the file (or the name) and the reason.  Returns 0,
 * or a negative errno (reported) when nothing could be allocated.
 */
int anon_handlers_load(struct anon_handlers **out, const char *const *names,
		       size_t nr_names, const char *handler_path);
void anon_handlers_free(struct anon_handlers *h);

/* --list-handlers: every handler found on the search path, with its path,
 * ABI version and description. */
int anon_handlers_list(FILE *out, const char *handler_path);

/* A symbol a handler named, copied into memory the report owns. */
struct anon_symbol {
	const char *name;
	uint64_t start;
	uint64_t size;
	const char *file; /* NULL when unknown */
	uint32_t line;    /* 0 when unknown */
};

/* How one process's samples were named.  Arrays are parallel to the
 * samples passed in; everything stays valid until anon_handlers_free(). */
struct anon_resolved {
	const char *handler;              /* name of the handler that claimed it */
	const struct anon_symbol **syms;  /* NULL entry: (unknown) */
	const char **files;               /* source file at the sample, or NULL */
	uint32_t *lines;                  /* line at the sample, or 0 */
};

/*
 * Offer process PROC_ID of session S to each handler in order; the first
 * that claims it names SAMPLES, which are sorted by address.  Returns 1
 * and fills RES when a handler claimed it, 0 when none did, or a negative
 * errno (already reported on stderr) when the claiming handler failed.
 * Equal symbols come back as equal pointers, so the core can group by
 * pointer.
 */
int anon_handlers_resolve(struct anon_handlers *h, struct ops_session *s,
			  uint32_t proc_id,
			  const struct ops_anon_sample *samples, size_t n,
			  struct anon_resolved *res);

#endif
