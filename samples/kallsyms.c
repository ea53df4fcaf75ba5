// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The session's copy of /proc/kallsyms: its line format, and the trim at
 * a clean stop.  The whole table is 5 MB and more, while a report needs
 * only the symbols its kernel samples fall in; so at the stop the copy
 * keeps just those lines, each with the code symbol after it, which
 * bounds it (kallsyms_trim.c).  A recorder killed before its stop leaves
 * the whole copy, which reports the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <oputil/hex.h>
#include <oputil/modules_line.h>

#include "fileio_internal.h"
#include "kallsyms_trim_internal.h"
#include "reader_internal.h"
#include "writer_internal.h"

int ops_kallsyms_parse_line(char *line, struct ops_ksym_line *out)
{
	char *end, *type, *name, *mod;
	uint64_t addr = 0;
	int d;

	/* 1 to 16 hex digits: strtoull() cost a third of a 5 MB table's
	 * parse, for forms (signs, 0x, blanks) the kernel never writes */
	for (end = line; (d = oputil_hex_digit(*end)) >= 0; end++) {
		if (end - line == 16)
			return -EINVAL;
		addr = addr << 4 | (uint64_t)d;
	}
	if (end == line || *end != ' ')
		return -EINVAL;
	type = end + 1;
	if (!type[0] || type[1] != ' ')
		return -EINVAL;
	name = type + 2;
	end = name + strcspn(name, " \t");
	if (end == name)
		return -EINVAL;
	mod = NULL;
	if (*end) {
		*end++ = '\0';
		end += strspn(end, " \t");
		if (*end) {
			size_t mlen = strlen(end);

			if (end[0] != '[' || mlen < 3 || end[mlen - 1] != ']')
				return -EINVAL;
			end[mlen - 1] = '\0';
			mod = end + 1;
		}
	}
	out->addr = addr;
	out->type = *type;
	out->name = name;
	out->module = mod;
	return 0;
}

bool ops_kallsyms_is_code(const struct ops_ksym_line *l)
{
	return l->addr && (l->type == 't' || l->type == 'T' ||
			   l->type == 'w' || l->type == 'W');
}

const char *ops_image_module_name(const char *path, size_t *len)
{
	*len = strlen(path);
	if (*len >= 2 && path[0] == '[' && path[*len - 1] == ']') {
		*len -= 2;
		return path + 1;
	}
	return path;
}

/* The module of each image of W the trim needs, as kallsyms names it
 * (MODS[i], LENS[i]): "" for the kernel, the module's name for a module,
 * NULL for a file (not the kernel's).  The names are malloc'ed into
 * NAMES[]. */
static int kernel_images(const struct ops_writer *w, const char ***out,
			 size_t **lens, char ***names)
{
	const struct ops_keyset *ks = &w->hist.images;
	size_t nr = ks->nr ? ks->nr : 1;
	const char **mods = calloc(nr, sizeof(*mods));
	char **own = calloc(nr, sizeof(*own));
	uint32_t i;

	*out = mods;
	*names = own;
	*lens = calloc(nr, sizeof(**lens));
	if (!mods || !own || !*lens)
		return -ENOMEM;
	for (i = 0; i < ks->nr; i++) {
		struct ops_cur c;
		size_t len;
		const uint8_t *k = ops_keyset_key(ks, i, &len);
		uint64_t kind;

		ops_cur_init(&c, k, len);
		kind = ops_cur_varint(&c);
		if (kind == OPS_IMAGE_KERNEL) {
			mods[i] = "";
		} else if (kind == OPS_IMAGE_MODULE) {
			if (!ops_cur_str(&c, &own[i]))
				return -ENOMEM; /* the writer's own keys */
			mods[i] = ops_image_module_name(own[i], &(*lens)[i]);
		}
	}
	return 0;
}

/* The image of each context of W. */
static int context_images(const struct ops_writer *w, uint32_t **out)
{
	const struct ops_keyset *ks = &w->hist.contexts;
	uint32_t *img = calloc(ks->nr ? ks->nr : 1, sizeof(*img)), i;

	*out = img;
	if (!img)
		return -ENOMEM;
	for (i = 0; i < ks->nr; i++) {
		struct ops_cur c;
		size_t len;
		const uint8_t *k = ops_keyset_key(ks, i, &len);

		ops_cur_init(&c, k, len);
		ops_cur_varint32(&c); /* app */
		img[i] = ops_cur_varint32(&c);
	}
	return 0;
}

/* The kernel samples, from what the writer holds: the counted kernel
 * cells and the kernel frames of its stacks.  Their module names point
 * into NAMES[]. */
static int kernel_samples(const struct ops_writer *w, char ***names,
			  struct ops_ksym_want **out, size_t *n)
{
	const struct ops_hist_writer *h = &w->hist;
	const struct oputil_u64map *kf = &h->kframes;
	const char **mods = NULL;
	size_t *lens = NULL;
	uint32_t *ctx_image = NULL;
	struct ops_ksym_want *want;
	size_t i;
	int ret;

	*out = NULL;
	*n = 0;
	ret = kernel_images(w, &mods, &lens, names);
	ret = ret ? ret : context_images(w, &ctx_image);
	want = ret ? NULL
		   : calloc((size_t)h->nr_cells + kf->nr + 1, sizeof(*want));
	if (!want) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < kf->cap; i++) {
		uint64_t img = kf->slots[i].val - 1;

		if (!kf->slots[i].key || img >= h->images.nr || !mods[img])
			continue;
		want[(*n)++] = (struct ops_ksym_want){ mods[img], lens[img],
						       kf->slots[i].key };
	}
	for (i = 0; i < h->nr_cells; i++) {
		const struct ops_hist_cell *c = &h->cells[i];
		uint32_t img;

		if (c->ctx & OPS_STACK_CTX || c->ctx >= h->contexts.nr)
			continue;
		img = ctx_image[c->ctx];
		if (img >= h->images.nr || !mods[img])
			continue;
		want[(*n)++] = (struct ops_ksym_want){ mods[img], lens[img],
						       c->offset };
	}
	*out = want;
out:
	free(mods);
	free(lens);
	free(ctx_image);
	return ret;
}

/* The line at *P before END, without its newline: its length, *P moved
 * past it. */
static size_t next_line(const char **p, const char *end)
{
	const char *line = *p, *nl = memchr(line, '\n', (size_t)(end - line));

	*p = nl ? nl + 1 : end;
	return (size_t)((nl ? nl : end) - line);
}

/* The module of a /proc/modules line: its first word. */
static size_t modules_word(const char *line, size_t len)
{
	const char *sp = memchr(line, ' ', len);

	return sp ? (size_t)(sp - line) : len;
}

/* Whether the /proc/modules TEXT has a line of module NAME. */
static bool modules_has(const char *text, size_t len, const char *name,
			size_t name_len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *line = p;
		size_t n = next_line(&p, end);

		if (modules_word(line, n) == name_len &&
		    !memcmp(line, name, name_len))
			return true;
	}
	return false;
}

/* The session's copy of /proc/modules, made at the start, into MODULES,
 * and after it the lines of the modules the recorder's /proc/modules
 * lists now and the copy lacks: the modules loaded while recording,
 * from *COPIED on.  0 or a negative errno. */
static int late_modules(struct ops_writer *w, struct ops_buf *modules,
			size_t *copied)
{
	int fd = openat(w->dfd, "modules", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	uint8_t *then = NULL, *now = NULL;
	size_t tlen = 0, nlen = 0;
	const char *p, *end;
	int ret;

	if (fd < 0)
		return -errno;
	ret = oputil_read_fd(fd, OPS_MODULES_MAX, &then, &tlen);
	close(fd);
	ret = ret ?: ops_buf_put(modules, then, tlen)
		  ?: oputil_read_file(w->modules_src, UINT64_MAX, &now, &nlen);
	*copied = modules->len;
	end = (const char *)now + nlen;
	for (p = (const char *)now; !ret && p < end;) {
		const char *line = p;
		size_t n = next_line(&p, end), word = modules_word(line, n);

		if (word && !modules_has((const char *)then, tlen, line, word))
			ret = ops_buf_put(modules, line, n)
				      ?: ops_buf_put_u8(modules, '\n');
	}
	free(then);
	free(now);
	return ret;
}

/* Append to KEPT the lines of LIVE (a trimmed table) that are the code
 * of a module LATE (LEN bytes of /proc/modules lines) lists. */
static int late_lines(const struct ops_buf *live, const char *late, size_t len,
		      struct ops_buf *kept)
{
	const char *p = (const char *)live->data, *end = p + live->len;
	int ret = 0;

	while (!ret && p && p < end) {
		const char *line = p, *mod;
		size_t n = next_line(&p, end), mlen;
		uint64_t addr;

		if (ops_kallsyms_scan_code(line, n, &addr, &mod, &mlen) &&
		    mlen && modules_has(late, len, mod, mlen))
			ret = ops_buf_put(kept, line, n)
				      ?: ops_buf_put_u8(kept, '\n');
	}
	return ret;
}

/* The code lines of the modules loaded while recording, which the
 * copies made at the start lack, into KEPT (none when NULL: a trim of
 * the table read now has them), and the whole new
 * /proc/modules text into MODULES, the late modules' lines from *COPIED
 * on: the recorder's table is read again, trimmed to WANT as the copy
 * is.  0 (no late lines when no module came), or a negative errno. */
static int trim_late_modules(struct ops_writer *w, struct ops_ksym_want *want,
			     size_t n, struct ops_buf *kept,
			     struct ops_buf *modules, size_t *copied)
{
	struct ops_buf live = { 0 };
	int fd, ret;

	*copied = 0;
	if (!w->modules_src || !w->kallsyms_src)
		return 0;
	ret = late_modules(w, modules, copied);
	if (ret || modules->len == *copied || !kept)
		return ret;
	fd = open(w->kallsyms_src, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = ops_kallsyms_trim_fd(fd, want, n, &live);
	close(fd);
	ret = ret < 0 ? ret
		      : late_lines(&live,
				   (const char *)modules->data + *copied,
				   modules->len - *copied, kept);
	ops_buf_free(&live);
	return ret;
}

/* Field K of module line M as a number, in hex when HEX, into *V;
 * false when it is none. */
static bool module_number(const struct oputil_modules_line *m, int k, bool hex,
			  unsigned long long *v)
{
	char num[32];

	if (m->len[k] >= sizeof(num))
		return false;
	memcpy(num, m->f[k], m->len[k]);
	num[m->len[k]] = '\0';
	return sscanf(num, hex ? "%llx" : "%llu", v) == 1;
}

/* Whether the /proc/modules TEXT (LEN bytes) lists a module whose
 * range (its address and size) holds ADDR. */
static bool modules_cover(const char *text, size_t len, uint64_t addr)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *start = p;
		size_t n = next_line(&p, end);
		struct oputil_modules_line m;
		unsigned long long size, base;

		if (!oputil_modules_line(start, n, &m) ||
		    !module_number(&m, OPUTIL_MODULE_SIZE, false, &size) ||
		    !module_number(&m, OPUTIL_MODULE_ADDRESS, true, &base))
			continue;
		if (base && addr >= base && addr - base < size)
			return true;
	}
	return false;
}

/* Whether the lines KEPT (a trim of a kept table, ops_writer_kernel_
 * symbols_kept()) name every address of WANT (N) as the whole table
 * would: each lies between two of the kernel's own code lines, or in a
 * module the session's `modules` copy lists.  Anywhere else lies code
 * that comes and goes, which a kept table leaves out. */
static bool kept_names_all(struct ops_writer *w, const struct ops_buf *kept,
			   const struct ops_ksym_want *want, size_t n)
{
	const char *p = (const char *)kept->data, *end = p + kept->len;
	uint64_t lo = UINT64_MAX, hi = 0;
	uint8_t *mods = NULL;
	size_t mlen = 0, i;
	bool all = true;
	int fd;

	while (p && p < end) {
		const char *line = p, *mod;
		size_t len = next_line(&p, end), ml;
		uint64_t addr;

		if (ops_kallsyms_scan_code(line, len, &addr, &mod, &ml) &&
		    !ml) {
			lo = addr < lo ? addr : lo;
			hi = addr > hi ? addr : hi;
		}
	}
	fd = openat(w->dfd, "modules", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		if (oputil_read_fd(fd, OPS_MODULES_MAX, &mods, &mlen))
			mlen = 0;
		close(fd);
	}
	for (i = 0; all && i < n; i++)
		all = (want[i].addr >= lo && want[i].addr < hi) ||
		      modules_cover((const char *)mods, mlen, want[i].addr);
	free(mods);
	return all;
}

/* WANT (N) trimmed from the table the recorder named, read now, into
 * KEPT: 0, or non-zero when it cannot be (the copy then stays whole). */
static int trim_live(struct ops_writer *w, struct ops_ksym_want *want,
		     size_t n, struct ops_buf *kept)
{
	int fd, ret;

	if (!w->kallsyms_src)
		return -ENOENT;
	fd = open(w->kallsyms_src, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = ops_kallsyms_trim_fd(fd, want, n, kept);
	close(fd);
	return ret;
}

int ops_writer_kallsyms_index(struct ops_writer *w, void *index, size_t len)
{
	struct ops_ksym_index *ix = NULL;
	int ret = 0;

	if (w->kallsyms_index)
		ops_kallsyms_index_free(w->kallsyms_index);
	free(w->kallsyms_index);
	free(w->kallsyms_index_bytes);
	w->kallsyms_index = NULL;
	w->kallsyms_index_bytes = NULL;
	if (!index)
		return 0;
	ix = malloc(sizeof(*ix));
	ret = ix ? ops_kallsyms_index_parse(index, len, ix) : -ENOMEM;
	if (ret) {
		free(ix);
		free(index);
		return ret;
	}
	w->kallsyms_index = ix;
	w->kallsyms_index_bytes = index;
	return 0;
}

/* WANT (N) trimmed from the session's copy FD into KEPT: by the copy's
 * index when the writer holds one that is the copy's, or reading the
 * whole copy. */
static int trim_copy(struct ops_writer *w, int fd, struct ops_ksym_want *want,
		     size_t n, struct ops_buf *kept)
{
	const struct ops_ksym_index *ix = w->kallsyms_index;
	struct stat st;
	void *map;
	int ret = -ESTALE;

	if (ix && !fstat(fd, &st) && st.st_size > 0 &&
	    (uint64_t)st.st_size == ix->table_size) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			   fd, 0);
		if (map != MAP_FAILED) {
			ret = ops_kallsyms_trim_index(map, (size_t)st.st_size,
						      ix, want, n, kept);
			munmap(map, (size_t)st.st_size);
		}
	}
	return ret == -ESTALE ? ops_kallsyms_trim_fd(fd, want, n, kept) : ret;
}

int ops_writer_trim_kallsyms(struct ops_writer *w)
{
	int fd = openat(w->dfd, "kallsyms", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct ops_ksym_want *want = NULL;
	struct ops_buf kept = { 0 }, modules = { 0 };
	char **names = NULL;
	size_t n = 0, i, n_kept, copied;
	bool live;
	int ret;

	if (fd < 0) {
		ret = -errno;
		goto out; /* no copy (kernel not recorded): nothing to do */
	}
	ret = kernel_samples(w, &names, &want, &n);
	ret = ret ? ret : trim_copy(w, fd, want, n, &kept);
	/* a table without addresses (kptr_restrict) is left as it was */
	if (ret) {
		ret = ret > 0 ? 0 : ret;
		goto out;
	}
	/* a kept table lacks the code that comes and goes: a sample it
	 * cannot name is named from the table as it is now, or the whole
	 * copy stays */
	live = w->kallsyms_kept && !kept_names_all(w, &kept, want, n);
	if (live) {
		kept.len = 0;
		if (trim_live(w, want, n, &kept))
			goto out;
	}
	/* a module the copy lacks is not worth losing the trim for */
	n_kept = kept.len;
	if (trim_late_modules(w, want, n, live ? NULL : &kept, &modules,
			      &copied)) {
		kept.len = n_kept;
		modules.len = copied = 0;
	}
	ret = ops_write_atomic(w->dfd, w->dir, "kallsyms", ".kallsyms.tmp",
			       kept.data ? (const char *)kept.data : "",
			       kept.len, true, w->err, sizeof(w->err));
	if (!ret && modules.len > copied)
		ret = ops_write_atomic(w->dfd, w->dir, "modules",
				       ".modules.tmp", modules.data,
				       modules.len, true, w->err,
				       sizeof(w->err));
out:
	if (fd >= 0)
		close(fd);
	for (i = 0; names && i < w->hist.images.nr; i++)
		free(names[i]);
	free(names);
	free(want);
	ops_buf_free(&kept);
	ops_buf_free(&modules);
	return ret == -ENOENT ? 0 : ret;
}
