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

bool handler_want_code;

void anon_handlers_want_code(void)
{
	handler_want_code = true;
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

static int dir_names(const char *dir, char ***names, size_t *n);

/* --anon-handler=auto offers a process first to the handlers whose
 * files say most: a jitdump or a time-stamped log knows what code lived
 * at an address when, a perf map only what lived there last, so a
 * process with both is named by time; then to any other, by name. */
static size_t auto_rank(const char *name)
{
	static const char *const order[] = { "jitdump", "jitlog", "javamap",
					     "pypy", "perfmap" };
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (!strcmp(order[i], name))
			break;
	return i;
}

static int auto_cmp(const void *pa, const void *pb)
{
	const char *a = *(char *const *)pa, *b = *(char *const *)pb;
	size_t ra = auto_rank(a), rb = auto_rank(b);

	return ra != rb ? (ra > rb) - (ra < rb) : strcmp(a, b);
}

static int name_sort_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void names_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Every handler on the search path D, once each, in the order auto
 * offers them.  0 or -ENOMEM (not reported). */
static int installed_names(const struct handler_dirs *d, char ***out,
			   size_t *nout)
{
	char **all = NULL, **names;
	size_t i, j, k, n, cnt = 0, cap = 0;
	int rc = 0;

	for (i = 0; i < d->n && !rc; i++) {
		rc = dir_names(d->dir[i], &names, &n);
		if (!rc)
			rc = oputil_grow(&all, &cap, cnt + n + 1,
					 sizeof(*all));
		for (j = 0; j < n; j++) {
			for (k = 0; k < cnt && strcmp(all[k], names[j]); k++)
				;
			if (rc || k < cnt)
				free(names[j]);
			else
				all[cnt++] = names[j];
		}
		free(names);
	}
	if (rc) {
		names_free(all, cnt);
		return rc;
	}
	if (cnt)
		qsort(all, cnt, sizeof(*all), auto_cmp);
	*out = all;
	*nout = cnt;
	return 0;
}

/* The one line for a handler name the search path does not hold: a
 * typing mistake, so the names that would do. */
static void unknown_handler(const char *name, char **inst, size_t n,
			    const struct handler_dirs *d)
{
	char **sorted = malloc((n ? n : 1) * sizeof(*sorted));
	char *list = NULL, dirs[4096];
	size_t len = 0, i;
	FILE *m = open_memstream(&list, &len);

	if (m && sorted) {
		memcpy(sorted, inst, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), name_sort_cmp);
		fputs("auto", m);
		for (i = 0; i < n; i++)
			fprintf(m, ", %s", sorted[i]);
	}
	if (m)
		fclose(m);
	if (n)
		diag("unknown handler '%s': expected one of %s", name,
		     list ? list : "(out of memory)");
	else
		diag("unknown handler '%s': no handlers in %s", name,
		     dirs_text(d, dirs, sizeof(dirs)));
	free(list);
	free(sorted);
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
	const char **want = NULL;
	char **inst = NULL;
	size_t i, j, nw = 0, ninst = 0;
	int rc;

	*out = NULL;
	hs = calloc(1, sizeof(*hs));
	if (!hs)
		goto nomem;
	rc = handler_dirs_get(&d, handler_path);
	if (rc < 0 || installed_names(&d, &inst, &ninst) < 0)
		goto nomem;
	want = calloc(nr_names + ninst + 1, sizeof(*want));
	if (!want)
		goto nomem;
	/* a name the path does not hold is refused before any is loaded:
	 * a report that quietly lacks the handler asked for looks whole */
	for (i = 0; i < nr_names; i++) {
		if (!strcmp(names[i], "auto")) {
			for (j = 0; j < ninst; j++)
				want[nw++] = inst[j];
			continue;
		}
		for (j = 0; j < ninst && strcmp(inst[j], names[i]); j++)
			;
		if (j == ninst && !handler_name_problem(names[i])) {
			unknown_handler(names[i], inst, ninst, &d);
			rc = -ENOENT;
			goto fail;
		}
		want[nw++] = names[i];
	}
	/* Handlers keep a pointer to their own slot as host_data, so the
	 * array never moves once loading starts. */
	hs->v = calloc(nw ? nw : 1, sizeof(*hs->v));
	if (!hs->v)
		goto nomem;
	for (i = 0; i < nw; i++) {
		rc = load_one(hs, &d, want[i]);
		if (rc < 0)
			goto nomem;
	}
	/* the others, for saying which one would claim a process that
	 * none of these did */
	hs->spare_names = calloc(ninst + 1, sizeof(*hs->spare_names));
	if (!hs->spare_names)
		goto nomem;
	for (i = 0; i < ninst; i++) {
		if (already_loaded(hs, inst[i]))
			free(inst[i]);
		else
			hs->spare_names[hs->nr_spare_names++] = inst[i];
	}
	free(inst);
	free(want);
	hs->dirs = d;
	*out = hs;
	return 0;
nomem:
	diag("cannot load handlers: out of memory");
	rc = -ENOMEM;
fail:
	names_free(inst, ninst);
	free(want);
	handler_dirs_free(&d);
	anon_handlers_free(hs);
	return rc;
}

struct anon_handlers *handler_spares(struct anon_handlers *hs)
{
	size_t i;

	if (hs->spares || !hs->nr_spare_names)
		return hs->spares;
	hs->spares = calloc(1, sizeof(*hs->spares));
	if (!hs->spares)
		return NULL;
	hs->spares->v = calloc(hs->nr_spare_names, sizeof(*hs->spares->v));
	if (!hs->spares->v)
		return hs->spares;
	for (i = 0; i < hs->nr_spare_names; i++)
		if (load_one(hs->spares, &hs->dirs, hs->spare_names[i]) < 0)
			break;
	return hs->spares;
}

void anon_handlers_free(struct anon_handlers *hs)
{
	size_t i;

	if (!hs)
		return;
	handler_offer_free(hs);
	for (i = 0; i < hs->n; i++)
		close_where(&hs->v[i]);
	free(hs->v);
	anon_handlers_free(hs->spares);
	for (i = 0; i < hs->nr_spare_names; i++)
		free(hs->spare_names[i]);
	free(hs->spare_names);
	handler_dirs_free(&hs->dirs);
	handler_arena_free(hs->arena);
	oputil_u64map_free(&hs->said);
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
