// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Resolving a path a root tool will write into (or read a session from)
 * one component at a time, from descriptors: a symbolic link is followed
 * only when the running user or root owns it.  Another user's link in a
 * directory that user owns (a home, a project tree) would otherwise send
 * root's session or report wherever that user likes, and a link checked
 * first and followed later can be replanted in between.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <opjit/samples.h>

/* As the kernel's own limit on links in one lookup. */
#define WALK_MAX_LINKS 40

/* REST with its first link replaced by TARGET: "TARGET/AFTER". */
static char *walk_splice(const char *target, const char *after)
{
	char *s;

	if (asprintf(&s, "%s%s%s", target, *after ? "/" : "", after) < 0)
		return NULL;
	return s;
}

int ops_path_parent(const char *path, bool follow_leaf, int *out_dfd,
		    char **out_leaf, char *why, size_t whylen)
{
	char *rest = NULL, *p, *name, *next, *spliced;
	char target[PATH_MAX];
	unsigned int links = 0;
	uid_t me = getuid();
	int dfd = -1, fd = -1, ret;
	struct stat st;
	ssize_t n;
	bool last;

	*out_dfd = -1;
	*out_leaf = NULL;
	if (!path || !*path) {
		snprintf(why, whylen, "empty path");
		return -ENOENT;
	}
	rest = strdup(path);
	if (!rest)
		goto nomem;
	dfd = open(*rest == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		goto sys;
	p = rest;
	for (;;) {
		while (*p == '/')
			p++;
		name = p;
		p += strcspn(p, "/");
		for (next = p; *next == '/'; next++)
			;
		last = !*next;
		if (*p)
			*p++ = '\0';
		if (!*name)
			name = "."; /* "/" itself */
		if (!strcmp(name, ".") && !last)
			continue;
		if (last && !follow_leaf)
			break;
		fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && last && errno == ENOENT)
			break; /* to be made */
		if (fd < 0 || fstat(fd, &st)) {
			ret = -errno;
			snprintf(why, whylen, "%s: %s", name, strerror(-ret));
			goto fail;
		}
		if (S_ISLNK(st.st_mode)) {
			if (st.st_uid != me && st.st_uid != 0) {
				ret = -EPERM;
				snprintf(why, whylen,
					 "%s is a symbolic link owned by uid "
					 "%u, not by uid %u or root",
					 name, (unsigned int)st.st_uid,
					 (unsigned int)me);
				goto fail;
			}
			if (++links > WALK_MAX_LINKS) {
				ret = -ELOOP;
				snprintf(why, whylen, "%s", strerror(ELOOP));
				goto fail;
			}
			n = readlinkat(fd, "", target, sizeof(target) - 1);
			if (n < 0)
				goto sys;
			target[n] = '\0';
			close(fd);
			fd = -1;
			spliced = walk_splice(target, last ? "" : p);
			if (!spliced)
				goto nomem;
			free(rest);
			rest = p = spliced;
			if (*target == '/') {
				close(dfd);
				dfd = open("/",
					   O_PATH | O_DIRECTORY | O_CLOEXEC);
				if (dfd < 0)
					goto sys;
			}
			continue;
		}
		if (last)
			break;
		if (!S_ISDIR(st.st_mode)) {
			/* as open(2) would say it: the whole path is named */
			ret = -ENOTDIR;
			snprintf(why, whylen, "%s", strerror(ENOTDIR));
			goto fail;
		}
		close(dfd);
		dfd = fd;
		fd = -1;
	}
	if (fd >= 0)
		close(fd);
	*out_leaf = strdup(name);
	if (!*out_leaf)
		goto nomem;
	free(rest);
	*out_dfd = dfd;
	return 0;
nomem:
	errno = ENOMEM;
sys:
	ret = -errno;
	snprintf(why, whylen, "%s", strerror(-ret));
fail:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	free(rest);
	return ret;
}

int ops_dir_open(const char *path, char *why, size_t whylen)
{
	char *leaf;
	int pfd, fd, ret;

	ret = ops_path_parent(path, true, &pfd, &leaf, why, whylen);
	if (ret)
		return ret;
	fd = openat(pfd, leaf,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	ret = fd < 0 ? -errno : fd;
	if (fd < 0)
		snprintf(why, whylen, "%s",
			 errno == ELOOP ? "is a symbolic link"
					: strerror(errno));
	close(pfd);
	free(leaf);
	return ret;
}
