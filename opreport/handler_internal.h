/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the handler loader files share: a loaded handler, the search path,
 * and the report-owned memory that resolved symbols are copied into.
 */
#ifndef OPREPORT_HANDLER_INTERNAL_H
#define OPREPORT_HANDLER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include <opjit/anon_handler.h>

struct handler_arena;

struct anon_handler {
	char *name;
	char *path;
	void *dl;
	struct opjit_handler tab;   /* the fields this host knows, copied */
	struct opjit_host host;
	unsigned maps_refused;      /* by open_map, since the last claim */
};

struct anon_handlers {
	struct anon_handler *v;
	size_t n;
	struct handler_arena *arena; /* what anon_resolved points into */
};

/* NAME is [a-z0-9_-]+, 1 to HANDLER_NAME_MAX characters (the one rule,
 * which anon_handler_name_check() states). */
#define HANDLER_NAME_MAX 64
bool handler_name_valid(const char *name);

/* The search path as a NULL-terminated array of directories, in order. */
struct handler_dirs {
	char **dir;
	size_t n;
};
int handler_dirs_get(struct handler_dirs *d, const char *handler_path);
void handler_dirs_free(struct handler_dirs *d);

/*
 * Find libNAME.so in DIR by comparing against the directory's entries;
 * *PATH is malloc'ed.  0, -ENOENT when absent, or another negative errno.
 */
int handler_dir_find(const char *dir, const char *name, char **path);

/*
 * Open the handler file PATH that should be called NAME, with every
 * check.  On refusal, returns a negative errno and REASON (REASONLEN
 * bytes) says why; nothing stays open.
 */
int handler_open(struct anon_handler *h, const char *path, const char *name,
		 char *reason, size_t reasonlen);
void handler_close(struct anon_handler *h);

/*
 * The trust rules (handler_trust.c).  handler_trust_check() gives the
 * reason ST may not be used as a map of PROC, naming the rule, or NULL;
 * LIVE says the file is the live one in /tmp rather than a session copy.
 * BUF (LEN bytes) may hold the reason.  handler_trust_open_map() is the
 * host's open_map service.
 */
const char *handler_trust_check(const struct stat *st,
				const struct opjit_process *proc, bool live,
				char *buf, size_t len);
int handler_trust_open_map(const struct opjit_host *host,
			   const struct opjit_process *proc,
			   const struct opjit_map_candidate *c, char *why,
			   size_t whylen);

/* The most a host reads of a structure a handler hands back, to see that
 * the bytes past what it knows are zero: far more than any minor adds. */
#define HANDLER_STRUCT_MAX 1024u

/* Whether the bytes of P from KNOWN up to SIZE are all zero, and SIZE is
 * plausible (at most HANDLER_STRUCT_MAX) for a structure of the ABI. */
bool handler_tail_zero(const void *p, size_t known, size_t size);

/*
 * The rules for handler code: a directory on the search path, and a
 * library (after symbolic links, and the directory that really holds
 * it), owned by root or OWNER, the invoking user, and not writable by
 * group or others.  NULL when trusted, or the reason naming the rule
 * (possibly in BUF, LEN bytes).
 */
const char *handler_trust_dir(const struct stat *st, uid_t owner, char *buf,
			      size_t len);
const char *handler_trust_lib(const char *path, uid_t owner, char *buf,
			      size_t len);

/* S with control characters blanked, cut to fit BUF: a handler's text
 * made safe to print as part of one line. */
const char *handler_text_clean(const char *s, char *buf, size_t len);

/* Report-owned memory, freed all at once. */
void *handler_arena_alloc(struct handler_arena **a, size_t size);
char *handler_arena_strdup(struct handler_arena **a, const char *s);
void handler_arena_free(struct handler_arena *a);

#endif
