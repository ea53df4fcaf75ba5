// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <oputil/grow.h>

#include "ann_srcfile.h"
#include "diag.h"

/* Source files past this are not read: a line table naming a device or
 * a huge generated file must not stall the annotation. */
#define ANN_SRCFILE_MAX (64u << 20)

struct ann_srcfile {
	char *path;
	char *data;
	size_t size;
	size_t *starts; /* offset of each line */
	uint32_t nr_lines;
};

struct ann_srcfiles {
	struct ann_srcfile *files;
	size_t nr, cap;
};

struct ann_srcfiles *ann_srcfiles_new(void)
{
	return calloc(1, sizeof(struct ann_srcfiles));
}

void ann_srcfiles_free(struct ann_srcfiles *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr; i++) {
		free(c->files[i].path);
		free(c->files[i].data);
		free(c->files[i].starts);
	}
	free(c->files);
	free(c);
}

/* Read PATH whole; 0 or a negative errno (not reported). */
static int ann_srcfile_read(struct ann_srcfile *sf, const char *path)
{
	size_t cap = 0, i, cap_starts = 0;
	struct stat st;
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		ret = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto out;
	}
	if ((uint64_t)st.st_size > ANN_SRCFILE_MAX) {
		ret = -EFBIG;
		goto out;
	}
	for (;;) {
		if (oputil_grow(&sf->data, &cap, sf->size + 65536, 1)) {
			ret = -ENOMEM;
			goto out;
		}
		n = read(fd, sf->data + sf->size, cap - sf->size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			goto out;
		}
		if (!n)
			break;
		sf->size += (size_t)n;
		if (sf->size > ANN_SRCFILE_MAX) {
			ret = -EFBIG;
			goto out;
		}
	}
	for (i = 0; i < sf->size; i++) {
		if (i && sf->data[i - 1] != '\n')
			continue;
		if (oputil_grow(&sf->starts, &cap_starts, sf->nr_lines + 2,
				sizeof(*sf->starts))) {
			ret = -ENOMEM;
			goto out;
		}
		sf->starts[sf->nr_lines++] = i;
	}
	if (sf->starts)
		sf->starts[sf->nr_lines] = sf->size;
out:
	close(fd);
	if (ret) {
		free(sf->data);
		free(sf->starts);
		sf->data = NULL;
		sf->starts = NULL;
		sf->size = 0;
		sf->nr_lines = 0;
	}
	return ret;
}

static struct ann_srcfile *ann_srcfile_get(struct ann_srcfiles *c,
					   const char *path)
{
	struct ann_srcfile *sf;
	size_t i;
	int ret;

	for (i = 0; i < c->nr; i++)
		if (!strcmp(c->files[i].path, path))
			return &c->files[i];
	if (oputil_grow(&c->files, &c->cap, c->nr + 1, sizeof(*c->files)))
		return NULL;
	sf = &c->files[c->nr];
	memset(sf, 0, sizeof(*sf));
	sf->path = strdup(path);
	if (!sf->path)
		return NULL;
	c->nr++;
	ret = ann_srcfile_read(sf, path);
	if (ret)
		diag("warning: cannot read source %s: %s; its lines are shown by number",
		     path,
		     ret == -EFBIG ? "larger than 64 MiB" : strerror(-ret));
	return sf;
}

const char *ann_srcfile_line(struct ann_srcfiles *c, const char *path,
			     uint32_t line, size_t *len, uint32_t *nr_lines)
{
	struct ann_srcfile *sf = path ? ann_srcfile_get(c, path) : NULL;
	size_t a, b;

	if (nr_lines)
		*nr_lines = sf ? sf->nr_lines : 0;
	if (!sf || !sf->data || !line || line > sf->nr_lines)
		return NULL;
	a = sf->starts[line - 1];
	b = sf->starts[line];
	while (b > a && (sf->data[b - 1] == '\n' || sf->data[b - 1] == '\r'))
		b--;
	*len = b - a;
	return sf->data + a;
}
