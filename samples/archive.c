// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Copies of outside files kept in the session: JIT map files (so that a
 * report works after /tmp is cleaned or a pid is reused), gzip-compressed
 * because a map is text that compresses several times over and the
 * session is what users copy around, and the kernel's symbol table and
 * module list as they were at record time.  A perf map is copied plain
 * and, at a clean stop, cut down to the entries the samples fall in and
 * compressed: compressing a map of 100k functions cost the recorder more
 * than its samples, and the few entries the samples need are all a
 * report reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <oputil/grow.h>
#include <oputil/gzip.h>

#include "fileio_internal.h"
#include "map_trim_internal.h"
#include "writer_internal.h"

/* mkdirat that accepts a directory already there (a previous map of the
 * same process). */
static int archive_mkdir(int dfd, const char *name)
{
	if (mkdirat(dfd, name, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static int archive_put(void *fdp, const void *p, size_t n)
{
	return oputil_write_all(*(int *)fdp, p, n);
}

/* One read of IN into BUF (LEN bytes at most), counted in *TOTAL: the
 * bytes read (0 at its end), or a negative errno, -EFBIG once *TOTAL is
 * past MAX (a file may grow while read); *READ_FAILED set when the read
 * itself failed. */
static ssize_t archive_read(int in, uint8_t *buf, size_t len, uint64_t *total,
			    uint64_t max, bool *read_failed)
{
	ssize_t r;

	do
		r = read(in, buf, len);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		*read_failed = true;
		return -errno;
	}
	*total += (uint64_t)r;
	return *total > max ? -EFBIG : r;
}

/* File IN (at most MAX bytes: -EFBIG past them, as it may grow while
 * read) gzip-compressed into OUT through two buffers of a fixed size:
 * a JVM agent's map is megabytes, and every fresh page of a buffer that
 * held it whole was a fault (a twelfth of a short recording's CPU).
 * Level 1: at zlib's default level compressing that map was a third of
 * the recording's CPU; level 1 takes a third of the time for a tenth
 * more bytes.  Level 0 (ops_writer_archive_stored()): the same map
 * stored, 1.6 against 35 ms. */
static int archive_gzip_fd(int in, int out, int level, uint64_t max,
			   bool *read_failed)
{
	enum { CHUNK = 64 << 10 };
	uint8_t *ib = malloc(CHUNK), *ob = malloc(CHUNK);
	int ret = 0, zr = Z_OK, flush = Z_NO_FLUSH;
	uint64_t total = 0;
	z_stream z;
	ssize_t r;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip header and trailer */
	if (!ib || !ob ||
	    deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(ib);
		free(ob);
		return -ENOMEM;
	}
	while (!ret && zr != Z_STREAM_END) {
		if (!z.avail_in && flush == Z_NO_FLUSH) {
			r = archive_read(in, ib, CHUNK, &total, max,
					 read_failed);
			if (r < 0) {
				ret = (int)r;
				break;
			}
			flush = r ? Z_NO_FLUSH : Z_FINISH;
			z.next_in = ib;
			z.avail_in = (uInt)r;
		}
		z.next_out = ob;
		z.avail_out = CHUNK;
		zr = deflate(&z, flush);
		if (zr == Z_STREAM_ERROR)
			ret = -EIO;
		else
			ret = oputil_write_all(out, ob, CHUNK - z.avail_out);
	}
	deflateEnd(&z);
	free(ib);
	free(ob);
	return ret;
}

/* File IN (at most MAX bytes: -EFBIG past them) copied plain into OUT
 * by the kernel, page cache to page cache: a JIT's perf map is megabytes
 * (9 MiB for 100k node functions), and reading it into a buffer of ours
 * to write it out again cost the recorder a fault a page and two copies.
 * Where the kernel cannot (or fails part way), the rest goes through a
 * buffer, whose read or write then says which side failed. */
static int archive_plain_fd(int in, int out, uint64_t max, bool *read_failed)
{
	enum { CHUNK = 64 << 10 };
	uint64_t total = 0;
	uint8_t *buf;
	ssize_t r;
	int ret = 0;

	for (;;) {
		/* a byte past MAX, to see it grew past */
		uint64_t left = max - total;

		r = sendfile(out, in, NULL,
			     left < (1u << 30) ? (size_t)left + 1 : 1u << 30);
		if (r <= 0)
			break;
		total += (uint64_t)r;
		if (total > max)
			return -EFBIG;
	}
	if (!r)
		return 0;
	buf = malloc(CHUNK);
	if (!buf)
		return -ENOMEM;
	do {
		r = archive_read(in, buf, CHUNK, &total, max, read_failed);
		ret = r < 0 ? (int)r
		      : r   ? oputil_write_all(out, buf, (size_t)r)
			    : 0;
	} while (!ret && r);
	free(buf);
	return ret;
}

/* The copy must pass the same trust rules as the original, so it keeps
 * the original's owner, mode and mtime.  Its bytes: DATA (LEN bytes),
 * plain or gzip-compressed, or with IN not -1 that file's, plain or
 * compressed (MAX bytes at most; *READ_FAILED set when reading it
 * failed). */
static int archive_write_copy(int fd, const struct stat *st,
			      const uint8_t *data, size_t len, bool plain,
			      int in, int level, uint64_t max,
			      bool *read_failed)
{
	struct timespec ts[2] = { st->st_atim, st->st_mtim };
	int ret;

	/* level 1 or 0, as archive_gzip_fd() says */
	ret = in >= 0 && plain ? archive_plain_fd(in, fd, max, read_failed)
	      : in >= 0 ? archive_gzip_fd(in, fd, level, max, read_failed)
	      : plain	? oputil_write_all(fd, data, len)
			: oputil_gzip_level(data, len, 1, archive_put, &fd);
	if (ret)
		return ret;
	if (fchown(fd, st->st_uid, st->st_gid) && st->st_uid != geteuid())
		return -errno;
	if (fchmod(fd, st->st_mode & 07777) || futimens(fd, ts))
		return -errno;
	return 0;
}

static int archive_install(struct ops_writer *w, const char *tmp,
			   const char *dst, const struct stat *st,
			   const uint8_t *data, size_t len, bool plain, int in,
			   uint64_t max, bool *read_failed)
{
	int out = ops_create_at(w->dfd, tmp, 0600, true);
	int ret = out < 0 ? out
			  : archive_write_copy(out, st, data, len, plain, in,
					       w->archive_stored ? 0 : 1, max,
					       read_failed);

	if (out >= 0 && close(out) && !ret)
		ret = -errno;
	if (!ret && renameat(w->dfd, tmp, w->dfd, dst))
		ret = -errno;
	if (ret)
		unlinkat(w->dfd, tmp, 0);
	return ret;
}

int ops_archive_install(struct ops_writer *w, const char *tmp, const char *dst,
			const struct stat *st, const uint8_t *data, size_t len,
			bool plain)
{
	bool read_failed = false;

	return archive_install(w, tmp, dst, st, data, len, plain, -1, 0,
			       &read_failed);
}

void ops_writer_archive_stored(struct ops_writer *w, bool stored)
{
	w->archive_stored = stored;
}

/* Remember copy NAME of PROC_ID for the trim, once. */
static void plain_map_add(struct ops_writer *w, uint32_t proc_id,
			  const char *name)
{
	struct ops_plain_map *m;
	size_t i;

	for (i = 0; i < w->nr_plain_maps; i++)
		if (w->plain_maps[i].proc_id == proc_id &&
		    !strcmp(w->plain_maps[i].name, name))
			return;
	if (oputil_grow(&w->plain_maps, &w->cap_plain_maps,
			w->nr_plain_maps + 1, sizeof(*w->plain_maps)))
		return;
	m = &w->plain_maps[w->nr_plain_maps];
	m->proc_id = proc_id;
	m->name = strdup(name);
	if (m->name)
		w->nr_plain_maps++;
}

void ops_writer_plain_maps_free(struct ops_writer *w)
{
	size_t i;

	for (i = 0; i < w->nr_plain_maps; i++)
		free(w->plain_maps[i].name);
	free(w->plain_maps);
	w->plain_maps = NULL;
	w->nr_plain_maps = w->cap_plain_maps = 0;
}

int ops_writer_archive_map(struct ops_writer *w, uint32_t proc_id,
			   const char *src_path, uint64_t max_bytes)
{
	char *dir = NULL, *tmp = NULL, *dst = NULL;
	const char *base = strrchr(src_path, '/');
	int fd = -1, ret;
	bool plain, read_failed = false;
	struct stat st;

	base = base ? base + 1 : src_path;
	if (proc_id >= w->anon.nr_procs)
		return ops_writer_fail(
			w, -EINVAL, "cannot archive %s: unknown process id %u",
			src_path, proc_id);
	if (!*base || *base == '.')
		return ops_writer_fail(
			w, -EINVAL, "cannot archive %s: not a map file name",
			src_path);
	fd = open(src_path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		/* not a failure: the message of a later one stays its own */
		ret = -ENOENT;
		goto out;
	}
	if (fd < 0) {
		ret = ops_writer_fail(w, -errno, "cannot archive %s: %s",
				      src_path,
				      errno == ELOOP ? "is a symbolic link"
						     : strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		ret = ops_writer_fail(w, -EINVAL,
				      "cannot archive %s: not a regular file",
				      src_path);
		goto out;
	}
	/* trimmed and compressed at the stop (archive_trim.c); the
	 * others compressed as they are read */
	plain = ops_jit_map_kind(base) == OPS_JIT_MAP_PERF ||
		ops_jit_map_kind(base) == OPS_JIT_MAP_JITDUMP;
	if ((uint64_t)st.st_size > max_bytes) {
		ret = ops_writer_fail(
			w, -EFBIG, "cannot archive %s: larger than %llu bytes",
			src_path, (unsigned long long)max_bytes);
		goto out;
	}
	dir = ops_strfmt("maps/%u", proc_id);
	tmp = ops_strfmt("maps/%u/.%s.tmp", proc_id, base);
	dst = ops_strfmt("maps/%u/%s%s", proc_id, base,
			 plain ? "" : OPS_ARCHIVE_SUFFIX);
	ret = dir && tmp && dst ? archive_mkdir(w->dfd, "maps") : -ENOMEM;
	ret = ret ? ret : archive_mkdir(w->dfd, dir);
	if (ret) {
		ops_writer_fail(w, ret, "cannot create %s/%s: %s", w->dir,
				dir ? dir : "maps", strerror(-ret));
		goto out;
	}
	ret = archive_install(w, tmp, dst, &st, NULL, 0, plain, fd, max_bytes,
			      &read_failed);
	if (ret == -EFBIG) {
		ops_writer_fail(w, ret,
				"cannot archive %s: larger than %llu bytes",
				src_path, (unsigned long long)max_bytes);
	} else if (ret && read_failed) {
		ops_writer_fail(w, ret, "cannot read %s: %s", src_path,
				strerror(-ret));
	} else if (ret) {
		ops_writer_fail(w, ret, "cannot write %s/%s: %s", w->dir, dst,
				strerror(-ret));
	} else if (plain) {
		/* left plain, and whole, if it cannot be remembered */
		plain_map_add(w, proc_id, base);
	}
out:
	if (fd >= 0)
		close(fd);
	free(dir);
	free(tmp);
	free(dst);
	return ret;
}

/* Copy IN (from its offset to its end; SRC names it) to NAME in the
 * session (temporary name, then rename) through a buffer of a fixed
 * size: /proc/kallsyms is megabytes, and every fresh page of a buffer
 * that held it whole would be a fault. */
static int archive_copy_fd(struct ops_writer *w, int in, const char *src,
			   const char *name)
{
	enum { CHUNK = 64 << 10 };
	char *tmp = ops_strfmt(".%s.tmp", name), *buf = malloc(CHUNK);
	int out = -1, ret = 0;
	ssize_t r;

	if (!tmp || !buf) {
		ret = ops_writer_fail(w, -ENOMEM, "out of memory");
		goto out;
	}
	out = ops_create_at(w->dfd, tmp, 0644, true);
	if (out < 0) {
		ret = ops_writer_fail(w, out, "cannot create %s/%s: %s",
				      w->dir, tmp, strerror(-out));
		goto out;
	}
	for (;;) {
		r = read(in, buf, CHUNK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		ret = oputil_write_all(out, buf, (size_t)r);
		if (ret) {
			ops_writer_fail(w, ret, "cannot write %s/%s: %s",
					w->dir, tmp, strerror(-ret));
			goto out;
		}
	}
	if (r < 0) {
		ret = ops_writer_fail(w, -errno, "cannot read %s: %s", src,
				      strerror(errno));
		goto out;
	}
	ret = close(out) ? -errno : 0;
	out = -1;
	if (ret)
		ops_writer_fail(w, ret, "cannot write %s/%s: %s", w->dir, tmp,
				strerror(-ret));
	else if (renameat(w->dfd, tmp, w->dfd, name))
		ret = ops_writer_fail(w, -errno,
				      "cannot rename %s/%s to %s/%s: %s",
				      w->dir, tmp, w->dir, name,
				      strerror(errno));
out:
	if (out >= 0)
		close(out);
	if (ret && tmp)
		unlinkat(w->dfd, tmp, 0);
	free(buf);
	free(tmp);
	return ret;
}

/* Copy file SRC to NAME in the session. */
static int archive_copy(struct ops_writer *w, const char *src,
			const char *name)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), ret;

	if (in < 0)
		return ops_writer_fail(w, -errno, "cannot read %s: %s", src,
				       strerror(errno));
	ret = archive_copy_fd(w, in, src, name);
	close(in);
	return ret;
}

/* The copies' sources, read again at the stop (kallsyms.c): for the
 * modules loaded while recording, with both; for samples a kept table
 * cannot name, KALLSYMS.  Without memory for the names it does not. */
static void kernel_sources(struct ops_writer *w, const char *kallsyms,
			   const char *modules)
{
	free(w->kallsyms_src);
	free(w->modules_src);
	w->kallsyms_src = kallsyms ? strdup(kallsyms) : NULL;
	w->modules_src = modules ? strdup(modules) : NULL;
}

int ops_writer_kernel_symbols(struct ops_writer *w, const char *kallsyms,
			      const char *modules)
{
	int ret = 0;

	if (kallsyms)
		ret = archive_copy(w, kallsyms, "kallsyms");
	if (!ret && modules)
		ret = archive_copy(w, modules, "modules");
	kernel_sources(w, ret ? NULL : kallsyms, ret ? NULL : modules);
	w->kallsyms_kept = false;
	ops_writer_kallsyms_index(w, NULL, 0);
	return ret;
}

int ops_writer_kernel_symbols_kept(struct ops_writer *w, int kallsyms_fd,
				   const char *what, const char *kallsyms,
				   const char *modules)
{
	int ret = archive_copy_fd(w, kallsyms_fd, what, "kallsyms");

	if (!ret && modules)
		ret = archive_copy(w, modules, "modules");
	kernel_sources(w, ret ? NULL : kallsyms, ret ? NULL : modules);
	w->kallsyms_kept = !ret;
	ops_writer_kallsyms_index(w, NULL, 0);
	return ret;
}
