// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Loading anonymous-sample handlers by name, in claim order, and listing
 * what the search path holds.  A handler that cannot be used is skipped
 * with one line and the report goes on with the others.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "../diag.h"
#include "anon_handlers.h"
#include "handler_internal.h"

struct anon_isolation handler_isolation = {
	.none = 0,
	.timeout_ms = ANON_HANDLER_TIMEOUT_MS,
};

void anon_handlers_isolate(const struct anon_isolation *iso)
{
	handler_isolation = *iso;
}

/* Open a handler where it will run: inside opreport, or in a helper. */
static int open_where(struct anon_handler *h, const char *path,
		      const char *name, char *reason, size_t len)
{
	int rc;

	if (!handler_isolation.none)
		return handler_proc_load(h, path, name, reason, len);
	rc = handler_open(h, path, name, reason, len);
	if (rc == 0)
		handler_host_init(h);
	return rc;
}

static void close_where(struct anon_handler *h)
{
	handler_proc_close(h);
	handler_warn_end(h);
	handler_close(h);
}

static bool already_loaded(const struct anon_handlers *hs, const char *name)
{
	size_t i;

	for (i = 0; i < hs->n; i++)
		if (!strcmp(hs->v[i].name, name))
			return true;
	return false;
}

/* The directories of D as a search path, into BUF. */
static const char *dirs_text(const struct handler_dirs *d, char *buf,
			     size_t len)
{
	size_t i, at = 0;

	buf[0] = 0;
	for (i = 0; i < d->n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       i ? ":" : "", d->dir[i]);
	return buf;
}

/* Find and open NAME; a refusal is reported here, where the file is
 * known, and is not an error for the caller.  0, or -ENOMEM (not
 * reported: the caller says it once). */
static int load_one(struct anon_handlers *hs, const struct handler_dirs *d,
		    const char *name)
{
	char reason[512], dirs[4096];
	char *path = NULL;
	size_t i;
	int rc = -ENOENT;

	if (anon_handler_name_check(name, reason, sizeof(reason))) {
		diag("%s", reason);
		return 0;
	}
	if (already_loaded(hs, name))
		return 0;
	for (i = 0; i < d->n && rc == -ENOENT; i++)
		rc = handler_dir_find(d->dir[i], name, &path);
	if (rc == -ENOMEM)
		goto out;
	if (rc < 0) {
		diag("skipping handler %s: lib%s.so not found in %s", name,
		     name, dirs_text(d, dirs, sizeof(dirs)));
		rc = 0;
		goto out;
	}
	rc = open_where(&hs->v[hs->n], path, name, reason, sizeof(reason));
	if (rc == -ENOMEM)
		goto out;
	if (rc < 0) {
		diag("skipping handler %s: %s", path, reason);
		rc = 0;
		goto out;
	}
	hs->n++;
out:
	free(path);
	return rc;
}

int anon_handlers_load(struct anon_handlers **out, const char *const *names,
		       size_t nr_names, const char *handler_path)
{
	struct handler_dirs d = { 0 };
	struct anon_handlers *hs;
	size_t i;
	int rc;

	*out = NULL;
	hs = calloc(1, sizeof(*hs));
	if (!hs)
		goto nomem;
	/* Handlers keep a pointer to their own slot as host_data, so the
	 * array never moves once loading starts. */
	hs->v = calloc(nr_names ? nr_names : 1, sizeof(*hs->v));
	if (!hs->v)
		goto nomem;
	rc = handler_dirs_get(&d, handler_path);
	if (rc < 0)
		goto nomem;
	for (i = 0; i < nr_names; i++) {
		rc = load_one(hs, &d, names[i]);
		if (rc < 0)
			goto nomem;
	}
	handler_dirs_free(&d);
	*out = hs;
	return 0;
nomem:
	handler_dirs_free(&d);
	anon_handlers_free(hs);
	diag("cannot load handlers: out of memory");
	return -ENOMEM;
}

void anon_handlers_free(struct anon_handlers *hs)
{
	size_t i;

	if (!hs)
		return;
	for (i = 0; i < hs->n; i++)
		close_where(&hs->v[i]);
	free(hs->v);
	handler_arena_free(hs->arena);
	free(hs->said);
	free(hs);
}

/* libNAME.so with a valid NAME: the handler name, or NULL. */
static char *entry_handler_name(const char *file)
{
	size_t len = strlen(file);
	char *name;

	if (len <= 6 || strncmp(file, "lib", 3) ||
	    strcmp(file + len - 3, ".so"))
		return NULL;
	name = strndup(file + 3, len - 6);
	if (name && !handler_name_valid(name)) {
		free(name);
		name = NULL;
	}
	return name;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every libNAME.so in DIR, sorted, so the listing is stable; a
 * directory that cannot be read holds none.  0 or -ENOMEM (not
 * reported). */
static int dir_names(const char *dir, char ***names, size_t *n)
{
	struct dirent *e;
	char **v = NULL;
	size_t cnt = 0, cap = 0;
	DIR *dp;
	int rc = 0;

	*names = NULL;
	*n = 0;
	dp = opendir(dir);
	if (!dp)
		return 0;
	while ((e = readdir(dp))) {
		char *name = entry_handler_name(e->d_name);

		if (!name)
			continue;
		rc = oputil_grow(&v, &cap, cnt + 1, sizeof(*v));
		if (rc) {
			free(name);
			break;
		}
		v[cnt++] = name;
	}
	closedir(dp);
	if (cnt)
		qsort(v, cnt, sizeof(*v), name_cmp);
	*names = v;
	*n = cnt;
	return rc;
}

/* Returns how many handlers it listed; one that cannot be opened is a
 * line. */
static size_t list_dir(FILE *out, const struct handler_dirs *d, size_t di,
		       char **names, size_t n)
{
	size_t listed = 0;
	char reason[512];
	size_t i, j;

	for (i = 0; i < n; i++) {
		struct anon_handler h;
		char *path = NULL;
		bool shadowed = false;

		for (j = 0; j < di && !shadowed; j++) {
			char *p = NULL;

			shadowed = handler_dir_find(d->dir[j], names[i], &p) ==
				   0;
			free(p);
		}
		if (handler_dir_find(d->dir[di], names[i], &path) < 0)
			continue;
		if (open_where(&h, path, names[i], reason, sizeof(reason)) <
		    0) {
			diag("skipping handler %s: %s", path, reason);
			free(path);
			continue;
		}
		fprintf(out, "%s\t%s\tABI %u.%u\t%s%s\n", h.name, h.path,
			h.tab.abi_major, h.tab.abi_minor,
			h.tab.description ? h.tab.description
					  : "(no description)",
			shadowed ? " (shadowed by an earlier directory)" : "");
		close_where(&h);
		free(path);
		listed++;
	}
	return listed;
}

int anon_handlers_list(FILE *out, const char *handler_path)
{
	struct handler_dirs d = { 0 };
	size_t i, j, listed = 0;
	int rc;

	rc = handler_dirs_get(&d, handler_path);
	if (rc < 0)
		goto out;
	for (i = 0; i < d.n; i++) {
		char **names;
		size_t n;

		rc = dir_names(d.dir[i], &names, &n);
		if (rc == 0)
			listed += list_dir(out, &d, i, names, n);
		for (j = 0; j < n; j++)
			free(names[j]);
		free(names);
		if (rc < 0)
			goto out;
	}
	if (!listed) {
		char dirs[4096];

		diag("no usable handlers in %s",
		     dirs_text(&d, dirs, sizeof(dirs)));
	}
out:
	handler_dirs_free(&d);
	if (rc < 0)
		diag("cannot list handlers: %s", strerror(-rc));
	return rc;
}
