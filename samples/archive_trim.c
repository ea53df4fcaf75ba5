// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * At a clean stop, each perf map and jitdump archived plain keeps the
 * entries a report will look up and is compressed.  Which addresses those are is
 * read back from anon.samples, complete by then, a block at a time: the
 * recorder spends nothing on it while it records.  A recorder killed
 * before its stop leaves the plain whole copy, which reads the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <oputil/u64map.h>

#include "fileio_internal.h"
#include "map_trim_internal.h"
#include "reader_internal.h"
#include "writer_internal.h"

static int addrs_put(void *arg, const struct ops_anon_sample *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (oputil_u64map_put(arg, s[i].addr, 0, NULL) == -ENOMEM)
			return -ENOMEM;
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The addresses a report looks up in process PROC_ID's map, ascending,
 * in *OUT (N): its samples', and with stack samples every anonymous
 * frame of the stack table, at its address and the byte before (a
 * caller is looked up at its return address - 1).  Frames of other
 * processes' stacks only keep a few entries more.  The samples are not
 * read when every one of them is a stack's leaf
 * (ops_writer_anon_in_stacks()).  0 or a negative errno (not reported).
 */
static int needed_addrs(struct ops_writer *w, struct ops_anon_data *a,
			uint32_t proc_id, uint64_t **out, size_t *n)
{
	const struct oputil_u64map *af = &w->hist.aframes;
	struct oputil_u64map m = { 0 };
	size_t i;
	int ret = w->anon_in_stacks && a->procs[proc_id].nr_ssamples
			  ? 0
			  : ops_anon_walk(a, proc_id, addrs_put, &m);

	for (i = 0; !ret && a->procs[proc_id].nr_ssamples && i < af->cap;
	     i++) {
		uint64_t k = af->slots[i].key;

		if (k && (oputil_u64map_put(&m, k, 0, NULL) == -ENOMEM ||
			  oputil_u64map_put(&m, k - 1, 0, NULL) == -ENOMEM))
			ret = -ENOMEM;
	}
	*n = 0;
	*out = ret ? NULL : malloc((m.nr ? m.nr : 1) * sizeof(**out));
	if (!ret && !*out)
		ret = -ENOMEM;
	for (i = 0; !ret && i < m.cap; i++)
		if (m.slots[i].key)
			(*out)[(*n)++] = m.slots[i].key;
	if (!ret)
		qsort(*out, *n, sizeof(**out), u64_cmp);
	oputil_u64map_free(&m);
	return ret;
}

/* The plain copy FD (ST) mapped in *DATA (*LEN bytes, none for an empty
 * file), read where it lies in the page cache: the copy the recorder
 * just wrote is there, and reading 9 MiB of map into a buffer cost a
 * fault a page.  The session is ours, so nothing truncates it under
 * us.  0 or a negative errno. */
static int map_plain(int fd, const struct stat *st, uint8_t **data,
		     size_t *len)
{
	void *m;

	*data = NULL;
	*len = 0;
	if (!S_ISREG(st->st_mode) ||
	    (uint64_t)st->st_size > OPS_ARCHIVE_MAX_INFLATED)
		return S_ISREG(st->st_mode) ? -EFBIG : -EINVAL;
	if (!st->st_size)
		return 0;
	m = mmap(NULL, (size_t)st->st_size, PROT_READ,
		 MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	*data = m;
	*len = (size_t)st->st_size;
	return 0;
}

/* Replace plain copy M by its entries that hold one of ADDRS (N),
 * compressed. */
static int trim_one(struct ops_writer *w, const struct ops_plain_map *m,
		    const uint64_t *addrs, size_t n)
{
	char *src = ops_strfmt("maps/%u/%s", m->proc_id, m->name);
	char *tmp = ops_strfmt("maps/%u/.%s.tmp", m->proc_id, m->name);
	char *dst = ops_strfmt("maps/%u/%s" OPS_ARCHIVE_SUFFIX, m->proc_id,
			       m->name);
	struct ops_buf kept = { 0 };
	uint8_t *data = NULL;
	size_t len = 0;
	struct stat st;
	int fd = -1, ret = -ENOMEM;

	if (!src || !tmp || !dst)
		goto out;
	fd = openat(w->dfd, src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ret = fd < 0 || fstat(fd, &st) ? -errno : 0;
	ret = ret ? ret : map_plain(fd, &st, &data, &len);
	if (!ret && ops_jit_map_kind(m->name) == OPS_JIT_MAP_JITDUMP)
		ret = ops_jitdump_trim(data, len, addrs, n, &kept);
	else if (!ret)
		ret = ops_perfmap_trim((const char *)data, len, addrs, n,
				       &kept);
	if (ret)
		goto out;
	ret = ops_archive_install(w, tmp, dst, &st, kept.data, kept.len,
				  false);
	if (!ret)
		unlinkat(w->dfd, src, 0);
out:
	if (fd >= 0)
		close(fd);
	if (len)
		munmap(data, len);
	ops_buf_free(&kept);
	free(src);
	free(tmp);
	free(dst);
	return ret;
}

void ops_writer_anon_in_stacks(struct ops_writer *w)
{
	w->anon_in_stacks = true;
}

void ops_writer_trim_maps(struct ops_writer *w)
{
	struct ops_anon_data a;
	uint64_t *addrs;
	size_t i, n;
	int fd;

	if (!w->nr_plain_maps)
		return;
	/* the writer's own descriptor is write-only */
	fd = openat(w->dfd, "anon.samples", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || ops_anon_open(&a, fd, w->anon.bf.path, NULL, NULL)) {
		if (fd >= 0)
			ops_anon_data_free(&a);
		return;
	}
	/* the map names the samples of every event */
	a.all_events = true;
	for (i = 0; i < w->nr_plain_maps; i++) {
		const struct ops_plain_map *m = &w->plain_maps[i];

		if (m->proc_id >= a.nr_procs ||
		    needed_addrs(w, &a, m->proc_id, &addrs, &n))
			continue;
		trim_one(w, m, addrs, n);
		free(addrs);
	}
	ops_anon_data_free(&a);
}
