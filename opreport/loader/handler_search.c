// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Where handlers are looked for.  A handler name never becomes a path by
 * itself: it is validated, then compared against directory entries, the
 * way collectd finds its plugins.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <oputil/grow.h>

#include "../diag.h"
#include "anon_handlers.h"
#include "handler_internal.h"

#ifndef OPJIT_HANDLER_DIR
#error "OPJIT_HANDLER_DIR (the installed handler directory) must be defined"
#endif
#ifndef OPJIT_BUILD_HANDLER_DIR
#error "OPJIT_BUILD_HANDLER_DIR must be defined"
#endif
#ifndef OPJIT_BUILD_DIR
#error "OPJIT_BUILD_DIR must be defined"
#endif
#ifndef OPJIT_HANDLER_RELDIR
#error "OPJIT_HANDLER_RELDIR (the handler directory from bindir) must be defined"
#endif

/* Long enough for any real name, short enough to print in one line. */

const char *handler_name_problem(const char *name)
{
	size_t i;

	if (!name || !name[0])
		return "empty name";
	for (i = 0; name[i]; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-'))
			return "use letters a-z, digits, '-' and '_'";
	}
	if (i > HANDLER_NAME_MAX)
		return "longer than 64 characters";
	return NULL;
}

int anon_handler_name_check(const char *name, char *err, size_t errlen)
{
	const char *why = handler_name_problem(name);

	if (!why)
		return 0;
	snprintf(err, errlen, "invalid handler name '%s': %s",
		 name ? name : "", why);
	return -EINVAL;
}

bool handler_name_valid(const char *name)
{
	return !handler_name_problem(name);
}

static int dirs_add(struct handler_dirs *d, const char *dir, size_t len)
{
	size_t i;

	if (len == 0)
		return 0;
	for (i = 0; i < d->n; i++)
		if (strlen(d->dir[i]) == len && !memcmp(d->dir[i], dir, len))
			return 0;
	if (oputil_grow(&d->dir, &d->cap, d->n + 2, sizeof(*d->dir)))
		return -ENOMEM;
	d->dir[d->n] = strndup(dir, len);
	if (!d->dir[d->n])
		return -ENOMEM;
	d->dir[++d->n] = NULL;
	return 0;
}

static int dirs_add_list(struct handler_dirs *d, const char *list)
{
	const char *p = list;
	int rc;

	while (p && *p) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);

		rc = dirs_add(d, p, len);
		if (rc < 0)
			return rc;
		p = colon ? colon + 1 : NULL;
	}
	return 0;
}

/* An opreport that runs from its build directory also finds the handlers
 * built next to it, so that nothing has to be installed to try it. */
static bool running_uninstalled(void)
{
	char exe[PATH_MAX], build[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (len <= 0)
		return false;
	exe[len] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return false;
	*slash = '\0';
	/* /proc/self/exe is resolved; the build path may hold symlinks */
	if (!realpath(OPJIT_BUILD_DIR "/opreport", build))
		return false;
	return !strcmp(exe, build);
}

/*
 * The handler directory of the tree opreport was installed into, found
 * from where it runs: `cmake --install --prefix P` and a package unpacked
 * elsewhere move the programs without recompiling them.  Only a directory
 * that exists counts, resolved, so that it is the compiled-in one itself
 * whenever the install was not moved.
 */
static int dirs_add_beside_exe(struct handler_dirs *d)
{
	char exe[PATH_MAX], dir[PATH_MAX + sizeof(OPJIT_HANDLER_RELDIR)];
	char real[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (len <= 0)
		return 0;
	exe[len] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	snprintf(dir, sizeof(dir), "%s/%s", exe, OPJIT_HANDLER_RELDIR);
	if (!realpath(dir, real))
		return 0;
	return dirs_add(d, real, strlen(real));
}

/*
 * Drop every directory that fails the trust rules, with one line each.
 * A directory that does not exist is kept: it holds nothing anyway.  The
 * others keep their order, so a refused directory never hides a good
 * handler in another.
 */
static void dirs_trust(struct handler_dirs *d)
{
	char buf[160];
	size_t i, k = 0;

	for (i = 0; i < d->n; i++) {
		const char *why = NULL;
		struct stat st;

		if (stat(d->dir[i], &st) == 0)
			why = handler_trust_dir(&st, geteuid(), buf,
						sizeof(buf));
		if (why) {
			diag("ignoring handler directory %s: %s", d->dir[i],
			     why);
			free(d->dir[i]);
			continue;
		}
		d->dir[k++] = d->dir[i];
	}
	d->n = k;
	if (d->dir)
		d->dir[k] = NULL;
}

int handler_dirs_get(struct handler_dirs *d, const char *handler_path)
{
	bool uninstalled;
	int rc;

	d->dir = NULL;
	d->n = 0;
	rc = dirs_add_list(d, handler_path);
	if (!rc)
		rc = dirs_add_list(d, secure_getenv("OPJIT_HANDLER_PATH"));
	uninstalled = running_uninstalled();
	if (!rc && !uninstalled)
		rc = dirs_add_beside_exe(d);
	if (!rc)
		rc = dirs_add_list(d, OPJIT_HANDLER_DIR);
	if (!rc && uninstalled)
		rc = dirs_add_list(d, OPJIT_BUILD_HANDLER_DIR);
	if (rc < 0)
		handler_dirs_free(d);
	else
		dirs_trust(d);
	return rc;
}

void handler_dirs_free(struct handler_dirs *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->dir[i]);
	free(d->dir);
	d->dir = NULL;
	d->n = 0;
}

int handler_dir_find(const char *dir, const char *name, char **path)
{
	char want[HANDLER_NAME_MAX + sizeof("lib.so")];
	struct dirent *e;
	DIR *dp;
	int rc = -ENOENT;

	*path = NULL;
	if (!handler_name_valid(name))
		return -EINVAL;
	snprintf(want, sizeof(want), "lib%s.so", name);
	dp = opendir(dir);
	if (!dp)
		return -ENOENT;
	while ((e = readdir(dp))) {
		if (strcmp(e->d_name, want))
			continue;
		if (asprintf(path, "%s/%s", dir, e->d_name) < 0) {
			*path = NULL;
			rc = -ENOMEM;
		} else {
			rc = 0;
		}
		break;
	}
	closedir(dp);
	return rc;
}
