// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The index of the cache's entry (ksymcache.h), in a file beside it:
 * the entry's name and ".idx".  A line of 64 bytes,
 *
 *   opjit kallsyms index 1 TABLE_SIZE TABLE_CRC32C INDEX_SIZE INDEX_CRC32C
 *
 * padded with blanks, then the index's bytes (ops_kallsyms_index_build()).
 * An index is the entry's when the table's size and checksum are the
 * entry's; another one is made again in its place.  A new entry
 * removes it (drop_others()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <opjit/samples.h>
#include <oputil/crc32c.h>
#include <oputil/fileio.h>

#include "diag.h"
#include "ksymcache.h"

enum { HEAD = 64 };

static void index_name(const struct ksymcache *c, char *buf, size_t size)
{
	snprintf(buf, size, "%s.idx", c->name);
}

/* The index in the file NAME when it is the entry's: 0; 1 when it is
 * missing or another entry's; -1 when it is damaged. */
static int index_load(struct ksymcache *c, const char *name, uint8_t **out,
		      size_t *len)
{
	int fd = openat(c->dfd, name,
			O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	unsigned long long tsize, isize;
	unsigned tcrc, icrc;
	char head[HEAD + 1];
	struct stat st;
	uint8_t *p = NULL;
	int ret = -1;

	if (fd < 0)
		return 1;
	if (!ksymcache_ours(c, name, fd, false) || fstat(fd, &st)) {
		close(fd);
		return 1;
	}
	head[HEAD] = '\0';
	if (pread(fd, head, HEAD, 0) != HEAD || head[HEAD - 1] != '\n' ||
	    sscanf(head, "opjit kallsyms index 1 %llu %x %llu %x", &tsize,
		   &tcrc, &isize, &icrc) != 4 ||
	    (unsigned long long)st.st_size != HEAD + isize)
		goto out;
	if (tsize != c->table_size || tcrc != c->table_crc) {
		ret = 1;
		goto out;
	}
	p = malloc(isize ? isize : 1);
	if (!p || pread(fd, p, isize, HEAD) != (ssize_t)isize ||
	    oputil_crc32c(0, p, isize) != icrc)
		goto out;
	*out = p;
	*len = isize;
	p = NULL;
	ret = 0;
out:
	free(p);
	close(fd);
	return ret;
}

/* Keep index P (LEN bytes) as the file NAME; failing to is no error. */
static void index_keep(struct ksymcache *c, const char *name, const uint8_t *p,
		       size_t len)
{
	char tmp[96], head[HEAD + 1];
	int out, n, ret;

	n = snprintf(head, sizeof(head),
		     "opjit kallsyms index 1 %llu %08x %zu %08x",
		     c->table_size, c->table_crc, len,
		     oputil_crc32c(0, p, len));
	if (n < 0 || n >= HEAD - 1)
		return; /* sizes no 64-byte line holds: not kept */
	memset(head + n, ' ', (size_t)(HEAD - 1 - n));
	head[HEAD - 1] = '\n';
	snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", name, (int)getpid());
	out = openat(c->dfd, tmp,
		     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		     0600);
	if (out < 0)
		return;
	ret = oputil_write_all(out, head, HEAD)
		      ?: oputil_write_all(out, p, len);
	if (close(out) && !ret)
		ret = -EIO;
	if (ret || renameat(c->dfd, tmp, c->dfd, name))
		unlinkat(c->dfd, tmp, 0);
}

int ksymcache_index(struct ksymcache *c, int fd, uint8_t **out, size_t *len)
{
	char name[64];
	uint8_t *table = NULL;
	size_t tlen = 0;
	int ret;

	*out = NULL;
	*len = 0;
	if (!c->table_at)
		return -1; /* no entry was found */
	index_name(c, name, sizeof(name));
	ret = index_load(c, name, out, len);
	if (!ret)
		return 0;
	if (ret < 0)
		diag("the kernel symbol cache %s/%s is damaged; making it again",
		     c->dir, name);
	/* the entry's table, whose checksum ksymcache_lookup() checked */
	if (lseek(fd, (off_t)c->table_at, SEEK_SET) != (off_t)c->table_at ||
	    oputil_read_fd(fd, c->table_size + 1, &table, &tlen) ||
	    tlen != c->table_size ||
	    ops_kallsyms_index_build((const char *)table, tlen, out, len)) {
		free(table);
		return -1;
	}
	free(table);
	index_keep(c, name, *out, *len);
	return 0;
}
