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

/* 1 when DIR holds a session, 0 when it is empty, else -ENOTEMPTY. */
static int writer_dir_kind(const char *dir)
{
	static const char *const ours[] = { "session.meta", "samples.hist",
					    "anon.samples" };
	struct dirent *de;
	bool empty = true;
	DIR *d;
	size_t i;

	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
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

static int writer_move_aside(struct ops_writer *w)
{
	struct stat st;
	unsigned int n;
	char *p;
	int kind;

	if (stat(w->dir, &st)) {
		if (errno == ENOENT)
			return 0;
		return ops_writer_fail(w, -errno, "cannot use %s: %s", w->dir,
				       strerror(errno));
	}
	kind = S_ISDIR(st.st_mode) ? writer_dir_kind(w->dir) : -ENOTDIR;
	if (kind == -ENOTEMPTY || kind == -ENOTDIR)
		return ops_writer_fail(w, kind,
				       "cannot use %s: exists and is not an opjit session",
				       w->dir);
	if (kind < 0)
		return ops_writer_fail(w, kind, "cannot read %s: %s", w->dir,
				       strerror(-kind));
	if (kind == 0)
		return 0;
	for (n = 1; n < 100000; n++) {
		p = ops_strfmt("%s.previous-%u", w->dir, n);
		if (!p)
			return ops_writer_fail(w, -ENOMEM, "out of memory");
		if (lstat(p, &st) && errno == ENOENT)
			break;
		free(p);
		p = NULL;
	}
	if (!p)
		return ops_writer_fail(w, -EEXIST,
				       "cannot move %s aside: too many previous sessions",
				       w->dir);
	if (rename(w->dir, p)) {
		int ret = -errno;

		ops_writer_fail(w, ret, "cannot move %s to %s: %s", w->dir, p,
				strerror(-ret));
		free(p);
		return ret;
	}
	w->previous = p;
	return 0;
}

static int writer_write_meta(struct ops_writer *w, bool sync)
{
	char *path = ops_strfmt("%s/session.meta", w->dir);
	char *tmp = ops_strfmt("%s/.session.meta.tmp", w->dir);
	int ret;

	if (!path || !tmp) {
		ret = ops_writer_fail(w, -ENOMEM, "out of memory");
		goto out;
	}
	ret = ops_meta_format(&w->meta.info, &w->payload);
	if (ret) {
		ops_writer_fail(w, ret, "%s: out of memory", path);
		goto out;
	}
	ret = ops_write_atomic(path, tmp, w->payload.data, w->payload.len,
			       sync, w->err, sizeof(w->err));
out:
	free(path);
	free(tmp);
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
	*out = w;
	n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	w->dir = strndup(dir, n);
	if (!w->dir || !n)
		return ops_writer_fail(w, n ? -ENOMEM : -EINVAL,
				       "cannot create session: %s",
				       n ? "out of memory"
					 : "empty directory name");
	ret = ops_meta_copy(&w->meta, info);
	if (ret)
		return ops_writer_fail(w, ret, "out of memory");
	w->meta.info.stop_ns = 0;
	w->callgraph = info->callgraph_depth != 0;
	ret = writer_move_aside(w);
	if (ret)
		return ret;
	if (mkdir(w->dir, 0755) && errno != EEXIST)
		return ops_writer_fail(w, -errno, "cannot create %s: %s",
				       w->dir, strerror(errno));
	/* the data files first: a session.meta always has them beside it */
	ret = ops_hist_writer_open(w);
	ret = ret ? ret : ops_anon_writer_open(w);
	ret = ret ? ret : writer_write_meta(w, false);
	return ret;
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
	ret = ops_anon_writer_flush(w);
	r = ops_hist_writer_flush(w);
	ret = ret ? ret : r;
	r = writer_write_meta(w, false);
	return ret ? ret : r;
}

static int writer_sync_dir(struct ops_writer *w)
{
	int fd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = 0;

	if (fd < 0 || fsync(fd))
		ret = ops_writer_fail(w, -errno, "cannot sync %s: %s", w->dir,
				      strerror(errno));
	if (fd >= 0)
		close(fd);
	return ret;
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
	if (!ret && fdatasync(w->anon.bf.fd))
		ret = ops_writer_fail(w, -errno, "cannot sync %s: %s",
				      w->anon.bf.path, strerror(errno));
	r = ops_hist_writer_compact(w, true);
	ret = ret ? ret : r;
	r = writer_write_meta(w, true);
	ret = ret ? ret : r;
	/* the whole copy serves as well, only bigger: a failed trim is not
	 * the session's failure */
	if (!ret)
		ops_writer_trim_kallsyms(w);
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
	free(w->dir);
	free(w->previous);
	free(w);
}
