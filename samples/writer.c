// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The writer's life: create the session directory (moving an earlier
 * session aside), flush, close.  Durability choice, documented in
 * FORMAT.md: a flush only write()s, which is what surviving a kill -9 of
 * the writer needs; fsync happens once, at close, because a per-second
 * fsync would cost the recorder disk latency for a guarantee (power
 * loss) nobody asked of a profiler.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/file.h>
#include <stdio.h>

#include "fileio_internal.h"
#include "writer_internal.h"

int ops_writer_fail(struct ops_writer *w, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	va_end(ap);
	return ret;
}

/* Names the writer itself leaves in a session directory: the lock and
 * temporary files (FORMAT.md). */
static bool writer_own_dotfile(const char *name)
{
	size_t n = strlen(name);

	return !strcmp(name, OPS_LOCK_NAME) ||
	       (name[0] == '.' && n > 4 && !strcmp(name + n - 4, ".tmp"));
}

/* 1 when the directory DFD holds a session, 0 when it is empty (but for
 * the writer's own dot files), else -ENOTEMPTY. */
static int writer_dir_kind(int dfd)
{
	static const char *const ours[] = { "session.meta", "samples.hist",
					    "anon.samples" };
	struct dirent *de;
	bool empty = true;
	int fd = dup(dfd);
	DIR *d;
	size_t i;

	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		int ret = -errno;

		if (fd >= 0)
			close(fd);
		return ret;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    writer_own_dotfile(de->d_name))
			continue;
		empty = false;
		for (i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
			if (!strcmp(de->d_name, ours[i])) {
				closedir(d);
				return 1;
			}
	}
	closedir(d);
	return empty ? 0 : -ENOTEMPTY;
}

/*
 * A session directory is written only when nobody else can plant names in
 * it: owned by the user who runs the recorder or by root, and writable by
 * nobody else.  Otherwise a symbolic link planted there could make a
 * recorder run by root write over any file.
 */
static int writer_check_dir(struct ops_writer *w, int dfd)
{
	uid_t me = getuid();
	struct stat st;

	if (fstat(dfd, &st))
		return ops_writer_fail(w, -errno, "cannot use %s: %s", w->dir,
				       strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ops_writer_fail(
			w, -ENOTDIR,
			"cannot use %s: exists and is not an opjit session",
			w->dir);
	if (st.st_uid != me && st.st_uid != 0)
		return ops_writer_fail(
			w, -EPERM,
			"cannot use %s: owned by uid %u, not by uid %u or root",
			w->dir, (unsigned int)st.st_uid, (unsigned int)me);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return ops_writer_fail(
			w, -EPERM, "cannot use %s: writable by %s", w->dir,
			st.st_mode & S_IWOTH ? "others" : "its group");
	return 0;
}

/* The line for a session lock FD that another recorder holds, naming the
 * pid it wrote there. */
static int writer_busy(struct ops_writer *w, int fd)
{
	char buf[32] = "";
	ssize_t n;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return ops_writer_fail(w, -EBUSY,
			       "session directory %s is in use by process %s",
			       w->dir, *buf ? buf : "(unknown)");
}

/* 0 when no recorder holds DFD's session lock, else -EBUSY with the line
 * naming the process that does. */
static int writer_check_unlocked(struct ops_writer *w, int dfd)
{
	int fd, ret = 0;

	fd = openat(dfd, OPS_LOCK_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (flock(fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK)
		ret = writer_busy(w, fd);
	close(fd); /* also drops a lock taken just to look */
	return ret;
}

/* Hold DFD's session lock for the writer's life, with our pid in it. */
static int writer_lock(struct ops_writer *w)
{
	char buf[32];
	int n, ret;

	w->lockfd = openat(w->dfd, OPS_LOCK_NAME,
			   O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (w->lockfd < 0)
		return ops_writer_fail(w, -errno, "cannot create %s/%s: %s",
				       w->dir, OPS_LOCK_NAME, strerror(errno));
	if (flock(w->lockfd, LOCK_EX | LOCK_NB)) {
		ret = errno == EWOULDBLOCK
			      ? writer_busy(w, w->lockfd)
			      : ops_writer_fail(w, -errno,
						"cannot lock %s/%s: %s",
						w->dir, OPS_LOCK_NAME,
						strerror(errno));
		close(w->lockfd);
		w->lockfd = -1;
		return ret;
	}
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	ret = ftruncate(w->lockfd, 0)
		      ? -errno
		      : oputil_write_all(w->lockfd, buf, (size_t)n);
	if (ret)
		return ops_writer_fail(w, ret, "cannot write %s/%s: %s",
				       w->dir, OPS_LOCK_NAME, strerror(-ret));
	return 0;
}

/* Open an existing DIR, check it, and move an earlier session aside.
 * Leaves w->dfd open when DIR is to be used as it is. */
static int writer_take_dir(struct ops_writer *w)
{
	char why[256], *p = NULL, *leafp = NULL;
	struct stat st;
	unsigned int n;
	int dfd, kind, ret;

	ret = ops_path_parent(w->dir, true, &w->pdfd, &w->leaf, why,
			      sizeof(why));
	if (ret)
		return ops_writer_fail(w, ret, "cannot use %s: %s", w->dir,
				       why);
	dfd = openat(w->pdfd, w->leaf,
		     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		if (errno == ENOENT)
			return 0;
		return ops_writer_fail(w, -errno, "cannot use %s: %s", w->dir,
				       errno == ELOOP ? "is a symbolic link"
						      : strerror(errno));
	}
	ret = writer_check_dir(w, dfd);
	ret = ret ? ret : writer_check_unlocked(w, dfd);
	kind = ret ? 0 : writer_dir_kind(dfd);
	if (ret)
		goto fail;
	if (kind == -ENOTEMPTY) {
		ret = ops_writer_fail(
			w, kind,
			"cannot use %s: exists and is not an opjit session",
			w->dir);
		goto fail;
	}
	if (kind < 0) {
		ret = ops_writer_fail(w, kind, "cannot read %s: %s", w->dir,
				      strerror(-kind));
		goto fail;
	}
	if (kind == 0) {
		w->dfd = dfd;
		return 0;
	}
	close(dfd);
	for (n = 1; n < 100000; n++) {
		p = ops_strfmt("%s.previous-%u", w->dir, n);
		leafp = ops_strfmt("%s.previous-%u", w->leaf, n);
		if (!p || !leafp) {
			free(p);
			free(leafp);
			return ops_writer_fail(w, -ENOMEM, "out of memory");
		}
		if (fstatat(w->pdfd, leafp, &st, AT_SYMLINK_NOFOLLOW) &&
		    errno == ENOENT)
			break;
		free(p);
		free(leafp);
		p = leafp = NULL;
	}
	if (!p)
		return ops_writer_fail(
			w, -EEXIST,
			"cannot move %s aside: too many previous sessions",
			w->dir);
	if (renameat(w->pdfd, w->leaf, w->pdfd, leafp)) {
		ret = -errno;
		ops_writer_fail(w, ret, "cannot move %s to %s: %s", w->dir, p,
				strerror(-ret));
		free(p);
		free(leafp);
		return ret;
	}
	free(leafp);
	w->previous = p;
	return 0;
fail:
	close(dfd);
	return ret;
}

/* Make DIR afresh and open it, checking that the directory opened is the
 * one made, not something planted in its place. */
static int writer_make_dir(struct ops_writer *w)
{
	int ret;

	if (mkdirat(w->pdfd, w->leaf, 0755) && errno != EEXIST)
		return ops_writer_fail(w, -errno, "cannot create %s: %s",
				       w->dir, strerror(errno));
	w->dfd = openat(w->pdfd, w->leaf,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (w->dfd < 0)
		return ops_writer_fail(w, -errno, "cannot use %s: %s", w->dir,
				       errno == ELOOP ? "is a symbolic link"
						      : strerror(errno));
	ret = writer_check_dir(w, w->dfd);
	ret = ret ? ret : writer_dir_kind(w->dfd);
	if (ret > 0 || ret == -ENOTEMPTY)
		ret = ops_writer_fail(
			w, -EEXIST,
			"cannot use %s: made by someone else while it was being created",
			w->dir);
	return ret;
}

static int writer_write_meta(struct ops_writer *w, bool sync)
{
	int ret;

	ret = ops_meta_format(&w->meta.info, &w->payload);
	if (ret)
		return ops_writer_fail(
			w, ret, "%s/session.meta: out of memory", w->dir);
	ret = ops_write_atomic(w->dfd, w->dir, "session.meta",
			       ".session.meta.tmp", w->payload.data,
			       w->payload.len, sync, w->err, sizeof(w->err));
	return ret;
}

int ops_writer_open(struct ops_writer **out, const char *dir,
		    const struct ops_session_info *info)
{
	struct ops_writer *w;
	size_t n;
	int ret;

	*out = NULL;
	if (!dir || !info)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->hist.bf.fd = w->anon.bf.fd = -1;
	w->dfd = w->lockfd = w->pdfd = -1;
	*out = w;
	n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	w->dir = strndup(dir, n);
	if (!w->dir || !n)
		return ops_writer_fail(
			w, n ? -ENOMEM : -EINVAL, "cannot create session: %s",
			n ? "out of memory" : "empty directory name");
	ret = ops_meta_copy(&w->meta, info);
	if (ret)
		return ops_writer_fail(w, ret, "out of memory");
	w->meta.info.stop_ns = 0;
	w->callgraph = info->callgraph_depth != 0;
	w->threads = info->separate & OPS_SEPARATE_THREAD;
	w->nr_events = 1;
	for (const char *e = info->event; e && *e; e++)
		w->nr_events += *e == ',';
	ret = writer_take_dir(w);
	if (!ret && w->dfd < 0)
		ret = writer_make_dir(w);
	ret = ret ? ret : writer_lock(w);
	if (ret)
		return ret;
	/* the data files first: a session.meta always has them beside it */
	ret = ops_hist_writer_open(w);
	ret = ret ? ret : ops_anon_writer_open(w);
	ret = ret ? ret : writer_write_meta(w, false);
	return ret;
}

uint64_t ops_writer_unwritten(const struct ops_writer *w)
{
	uint64_t on_disk = w->hist_on_disk + w->anon_on_disk;

	return w->samples_added > on_disk ? w->samples_added - on_disk : 0;
}

const char *ops_writer_previous(const struct ops_writer *w)
{
	return w->previous;
}

const char *ops_writer_error(const struct ops_writer *w)
{
	return w ? w->err : "out of memory";
}

void ops_writer_set_totals(struct ops_writer *w,
			   const struct ops_session_info *t)
{
	struct ops_session_info *i = &w->meta.info;

	w->totals_dirty |= i->samples != t->samples ||
			   i->samples_lost != t->samples_lost ||
			   i->samples_unattributed !=
				   t->samples_unattributed ||
			   i->samples_anon != t->samples_anon ||
			   i->samples_kernel != t->samples_kernel ||
			   i->processes != t->processes;
	i->samples = t->samples;
	i->samples_lost = t->samples_lost;
	i->samples_unattributed = t->samples_unattributed;
	i->samples_anon = t->samples_anon;
	i->samples_kernel = t->samples_kernel;
	i->processes = t->processes;
}

int ops_writer_flush(struct ops_writer *w)
{
	int ret, r;

	if (w->hist.bf.fd < 0 || w->anon.bf.fd < 0)
		return ops_writer_fail(w, -EBADF, "%s: session not open",
				       w->dir);
	/* the totals travel in samples.hist, in the flush's one write():
	 * replacing session.meta every second cost more than the samples */
	ret = ops_anon_writer_flush(w);
	r = ops_hist_writer_flush(w);
	return ret ? ret : r;
}

int ops_writer_datasync(struct ops_writer *w, int fd, const char *path)
{
	if (fdatasync(fd))
		return ops_writer_fail(w, -errno, "cannot sync %s: %s", path,
				       strerror(errno));
	return 0;
}

static int writer_sync_dir(struct ops_writer *w)
{
	if (fsync(w->dfd))
		return ops_writer_fail(w, -errno, "cannot sync %s: %s", w->dir,
				       strerror(errno));
	return 0;
}

int ops_writer_finish(struct ops_writer *w, uint64_t stop_ns)
{
	int ret, r;

	if (!w)
		return -EINVAL;
	if (w->hist.bf.fd < 0 || w->anon.bf.fd < 0)
		return ops_writer_fail(w, -EBADF, "%s: session not open",
				       w->dir);
	w->meta.info.stop_ns = stop_ns;
	ret = ops_anon_writer_flush(w);
	ret = ret ? ret
		  : ops_writer_datasync(w, w->anon.bf.fd, w->anon.bf.path);
	r = ops_hist_writer_finish(w);
	ret = ret ? ret : r;
	/* what a failed write kept off the disk is lost, and says so */
	w->meta.info.samples_lost += ops_writer_unwritten(w);
	r = writer_write_meta(w, true);
	ret = ret ? ret : r;
	/* the whole copy serves as well, only bigger: a failed trim is not
	 * the session's failure */
	if (!ret) {
		ops_writer_trim_kallsyms(w);
		ops_writer_trim_maps(w);
	}
	r = writer_sync_dir(w);
	ret = ret ? ret : r;
	ops_blockfile_close(&w->hist.bf);
	ops_blockfile_close(&w->anon.bf);
	return ret;
}

int ops_writer_close(struct ops_writer *w, uint64_t stop_ns)
{
	int ret;

	if (!w)
		return 0;
	ret = ops_writer_finish(w, stop_ns);
	ops_writer_free(w);
	return ret;
}

void ops_writer_free(struct ops_writer *w)
{
	if (!w)
		return;
	ops_hist_writer_free(&w->hist);
	ops_anon_writer_free(&w->anon);
	ops_meta_free(&w->meta);
	ops_buf_free(&w->out);
	ops_buf_free(&w->payload);
	ops_buf_free(&w->records);
	ops_writer_plain_maps_free(w);
	if (w->dfd >= 0)
		close(w->dfd);
	if (w->pdfd >= 0)
		close(w->pdfd);
	free(w->leaf);
	if (w->lockfd >= 0)
		close(w->lockfd); /* releases the session lock */
	free(w->dir);
	free(w->previous);
	free(w->kallsyms_src);
	free(w->modules_src);
	ops_writer_kallsyms_index(w, NULL, 0);
	free(w);
}
