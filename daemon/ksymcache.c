// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The user's cache of the kernel's symbol table (ksymcache.h).  An entry
 * is text: the key's lines, then "table SIZE CRC32C" and the table's
 * SIZE bytes.  The key:
 *
 *   opjit kallsyms cache 1
 *   notes HEX            the whole of /sys/kernel/notes (the build id)
 *   boot ID              this boot's id: KASLR moves the kernel each boot
 *   first LINE           /proc/kallsyms' first line: its address, or the
 *                        zeros an unprivileged reader sees
 *   module NAME SIZE STATE ADDRESS   each module loaded, in /proc/modules'
 *                        order (refcounts and users left out)
 */
#include "ksymcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <oputil/crc32c.h>
#include <oputil/fileio.h>
#include <oputil/grow.h>
#include <oputil/hash.h>
#include <oputil/modules_line.h>

#include "diag.h"

#define MAGIC "opjit kallsyms cache 1\n"
#define PREFIX "kallsyms-"
enum { CHUNK = 64 << 10, SMALL_MAX = 1 << 20 };

struct text {
	char *p;
	size_t len, cap;
};

static int text_put(struct text *t, const char *s, size_t n)
{
	if (oputil_grow(&t->p, &t->cap, t->len + n + 1, 1))
		return -ENOMEM;
	memcpy(t->p + t->len, s, n);
	t->len += n;
	t->p[t->len] = '\0';
	return 0;
}

/* The first line of KALLSYMS: one read of a few lines, not the table. */
static int first_line(const char *kallsyms, struct text *key)
{
	char buf[512], *nl;
	int fd = open(kallsyms, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return -EIO;
	buf[r] = '\0';
	nl = strchr(buf, '\n');
	if (!nl)
		return -EIO;
	return text_put(key, "first ", 6)
		       ?: text_put(key, buf, (size_t)(nl - buf + 1));
}

/* The key's module lines from /proc/modules TEXT (LEN bytes), and the
 * names. */
static int module_lines(struct ksymcache *c, const char *text, size_t len,
			struct text *key)
{
	const char *p = text, *end = text + len;
	struct oputil_modules_line m;
	size_t cap = 0;
	char ln[600];
	int ret = 0;

	while (!ret && p < end) {
		const char *line = p, *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - line);

		p = nl ? nl + 1 : end;
		if (!n)
			continue;
		if (!oputil_modules_line(line, n, &m))
			return -EINVAL;
		snprintf(ln, sizeof(ln), "module %.*s %.*s %.*s %.*s\n",
			 (int)m.len[OPUTIL_MODULE_NAME],
			 m.f[OPUTIL_MODULE_NAME],
			 (int)m.len[OPUTIL_MODULE_SIZE],
			 m.f[OPUTIL_MODULE_SIZE],
			 (int)m.len[OPUTIL_MODULE_STATE],
			 m.f[OPUTIL_MODULE_STATE],
			 (int)m.len[OPUTIL_MODULE_ADDRESS],
			 m.f[OPUTIL_MODULE_ADDRESS]);
		ret = text_put(key, ln, strlen(ln));
		if (!ret && oputil_grow(&c->modules, &cap, c->nr_modules + 1,
					sizeof(*c->modules)))
			ret = -ENOMEM;
		if (!ret && !(c->modules[c->nr_modules++] =
				      strndup(m.f[OPUTIL_MODULE_NAME],
					      m.len[OPUTIL_MODULE_NAME])))
			ret = -ENOMEM;
	}
	return ret;
}

static int make_key(struct ksymcache *c, const struct ksymcache_sources *s)
{
	struct text key = { 0 };
	uint8_t *notes = NULL, *boot = NULL, *mods = NULL;
	size_t nlen = 0, blen = 0, mlen = 0, i;
	char hex[3];
	uint64_t h;
	int ret;

	/* /proc and /sys files, which say size 0 */
	ret = oputil_read_file(s->notes, SMALL_MAX, &notes, &nlen)
		      ?: oputil_read_file(s->boot_id, SMALL_MAX, &boot, &blen);
	if (!ret && s->modules)
		ret = oputil_read_file(s->modules, SMALL_MAX, &mods, &mlen);
	ret = ret ?: text_put(&key, MAGIC, strlen(MAGIC)) ?:
		      text_put(&key, "notes ", 6);
	for (i = 0; !ret && i < nlen; i++) {
		snprintf(hex, sizeof(hex), "%02x", notes[i]);
		ret = text_put(&key, hex, 2);
	}
	ret = ret ?: text_put(&key, "\nboot ", 6) ?:
		      text_put(&key, (const char *)boot,
			       strcspn((const char *)boot, "\n")) ?:
		      text_put(&key, "\n", 1) ?: first_line(s->kallsyms, &key);
	if (!ret && mods)
		ret = module_lines(c, (const char *)mods, mlen, &key);
	free(notes);
	free(boot);
	free(mods);
	if (ret) {
		free(key.p);
		return ret;
	}
	c->key = key.p;
	c->key_len = key.len;
	h = oputil_hash_bytes(OPUTIL_HASH_SEED, key.p, key.len);
	snprintf(c->name, sizeof(c->name), PREFIX "%016" PRIx64, h);
	return 0;
}

bool ksymcache_ours(const struct ksymcache *c, const char *name, int fd,
		    bool dir)
{
	struct stat st;
	const char *why = NULL;

	if (fstat(fd, &st))
		why = strerror(errno);
	else if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
		why = dir ? "not a directory" : "not a regular file";
	else if (st.st_uid != geteuid())
		why = "owned by another user";
	else if (st.st_mode & (dir ? 077 : 022))
		why = dir ? "open to other users" : "writable by other users";
	if (why)
		diag("not using the kernel symbol cache %s%s%s: %s", c->dir,
		     name ? "/" : "", name ? name : "", why);
	return !why;
}

static char *default_dir(void)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *p = NULL;

	/* the XDG rule: a relative path is ignored */
	if (x && x[0] == '/')
		return asprintf(&p, "%s/opjit", x) < 0 ? NULL : p;
	if (home && home[0] == '/')
		return asprintf(&p, "%s/.cache/opjit", home) < 0 ? NULL : p;
	return NULL;
}

/* Whether the directory holding PATH is the user's own: the cache and
 * ~/.cache are made only there, so that root run with a user's HOME
 * leaves that home as it was. */
static bool owned_parent(const char *path)
{
	char *up = strdup(path), *slash = up ? strrchr(up, '/') : NULL;
	struct stat st;
	bool own;

	if (slash)
		*(slash == up ? slash + 1 : slash) = '\0';
	own = slash && !stat(up, &st) && st.st_uid == geteuid();
	free(up);
	return own;
}

/* The directory DIR: its parent is opened as it is (a home may be a
 * link), the directory itself never through a link, made 0700 when
 * missing, and used only when it is the user's own and private. */
static int open_dir(struct ksymcache *c)
{
	char *slash = strrchr(c->dir, '/'), *parent;
	struct stat st;
	int pfd, fd;

	if (!slash || !slash[1])
		return -EINVAL;
	parent = slash == c->dir ? strdup("/")
				 : strndup(c->dir, (size_t)(slash - c->dir));
	if (!parent)
		return -ENOMEM;
	/* ~/.cache may not be there yet: the XDG rule makes it 0700 */
	pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0 && errno == ENOENT && owned_parent(parent) &&
	    !mkdir(parent, 0700))
		pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(parent);
	if (pfd < 0)
		return -errno;
	fd = openat(pfd, slash + 1,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* made only in a directory of the user's own (owned_parent()) */
	if (fd < 0 && errno == ENOENT && !fstat(pfd, &st) &&
	    st.st_uid == geteuid() && !mkdirat(pfd, slash + 1, 0700))
		fd = openat(pfd, slash + 1,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
		diag("not using the kernel symbol cache %s: not a directory "
		     "(a symbolic link?)",
		     c->dir);
	close(pfd);
	if (fd < 0)
		return -errno;
	if (!ksymcache_ours(c, NULL, fd, true)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int ksymcache_open(struct ksymcache *c, const char *dir,
		   const struct ksymcache_sources *src)
{
	memset(c, 0, sizeof(*c));
	c->dfd = -1;
	c->dir = dir ? strdup(dir) : default_dir();
	if (!c->dir || make_key(c, src)) {
		ksymcache_close(c);
		return -1;
	}
	c->dfd = open_dir(c);
	if (c->dfd < 0) {
		ksymcache_close(c);
		return -1;
	}
	return 0;
}

/* The table's bytes from FD's offset on: SIZE of them, of checksum CRC. */
static bool table_checks(int fd, uint64_t size, uint32_t crc)
{
	char *buf = malloc(CHUNK);
	uint64_t total = 0;
	uint32_t got = 0;
	ssize_t r = 1;

	while (buf && r > 0) {
		r = read(fd, buf, CHUNK);
		if (r < 0 && errno == EINTR) {
			r = 1;
			continue;
		}
		if (r > 0) {
			got = oputil_crc32c(got, buf, (size_t)r);
			total += (uint64_t)r;
		}
	}
	free(buf);
	return buf && !r && total == size && got == crc;
}

int ksymcache_lookup(struct ksymcache *c)
{
	int fd = openat(c->dfd, c->name,
			O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char *head = NULL, *end;
	unsigned long long size;
	unsigned crc;
	struct stat st;
	size_t hlen = c->key_len + 64;
	ssize_t r;
	off_t at;

	if (fd < 0) {
		if (errno == ELOOP)
			diag("not using the kernel symbol cache %s/%s: a "
			     "symbolic link",
			     c->dir, c->name);
		return -1;
	}
	if (!ksymcache_ours(c, c->name, fd, false) || fstat(fd, &st) ||
	    !(head = malloc(hlen + 1)))
		goto miss;
	r = pread(fd, head, hlen, 0);
	/* another key's (a hash's collision): not this boot's table */
	if (r < (ssize_t)c->key_len || memcmp(head, c->key, c->key_len))
		goto miss;
	head[r] = '\0';
	end = strchr(head + c->key_len, '\n');
	if (!end ||
	    sscanf(head + c->key_len, "table %llu %x", &size, &crc) != 2)
		goto corrupt;
	at = end + 1 - head;
	if ((unsigned long long)st.st_size != (unsigned long long)at + size ||
	    lseek(fd, at, SEEK_SET) != at || !table_checks(fd, size, crc) ||
	    lseek(fd, at, SEEK_SET) != at)
		goto corrupt;
	c->table_at = (long long)at;
	c->table_size = size;
	c->table_crc = crc;
	free(head);
	return fd;
corrupt:
	diag("the kernel symbol cache %s/%s is damaged; reading the kernel's "
	     "table instead",
	     c->dir, c->name);
miss:
	free(head);
	close(fd);
	return -1;
}

/* Whether kallsyms LINE (LEN bytes, no newline) is code that comes and
 * goes: its module column names no module loaded ([bpf],
 * [__builtin__ftrace], [__builtin__kprobes]). */
static bool fleeting(const struct ksymcache *c, const char *line, size_t len)
{
	const char *open;
	size_t i, n;

	if (!len || line[len - 1] != ']')
		return false;
	open = memrchr(line, '[', len);
	if (!open)
		return false;
	n = (size_t)(line + len - 1 - (open + 1));
	for (i = 0; i < c->nr_modules; i++)
		if (strlen(c->modules[i]) == n &&
		    !memcmp(c->modules[i], open + 1, n))
			return false;
	return true;
}

/* The table of IN, its fleeting lines left out, appended to OUT as it
 * is read (the lines kept moved to the front of each chunk, which is
 * written whole); its size and checksum in *SIZE, *CRC. */
static int copy_table(const struct ksymcache *c, int in, int out,
		      uint64_t *size, uint32_t *crc)
{
	char *buf = malloc(CHUNK);
	size_t have = 0;
	int ret = 0;

	*size = 0;
	*crc = 0;
	while (buf && !ret) {
		ssize_t r = read(in, buf + have, CHUNK - have);
		char *p = buf, *end, *nl, *kept;
		size_t n_kept;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			break;
		}
		end = buf + have + r;
		kept = buf;
		/* a last line without a newline is kept whole */
		while (p < end &&
		       ((nl = memchr(p, '\n', (size_t)(end - p))) || !r)) {
			size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
			size_t with = nl ? n + 1 : n;

			if (!fleeting(c, p, n)) {
				memmove(kept, p, with);
				kept += with;
			}
			p += with;
		}
		n_kept = (size_t)(kept - buf);
		if (oputil_write_all(out, buf, n_kept)) {
			ret = -EIO;
			break;
		}
		*crc = oputil_crc32c(*crc, buf, n_kept);
		*size += n_kept;
		have = (size_t)(end - p);
		if (!r)
			break;
		if (have == CHUNK) /* no line is that long */
			ret = -EINVAL;
		memmove(buf, p, have);
	}
	if (!buf)
		ret = -ENOMEM;
	free(buf);
	return ret;
}

/* Remove every entry but this key's: those of other boots and module
 * lists are never used again. */
static void drop_others(const struct ksymcache *c)
{
	int fd = dup(c->dfd);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, PREFIX, strlen(PREFIX)) &&
		    strcmp(de->d_name, c->name))
			unlinkat(c->dfd, de->d_name, 0);
	/* (the entry's index too: the table it indexed is replaced) */
	closedir(d);
}

void ksymcache_fill(struct ksymcache *c, int fd)
{
	char tmp[64], tail[64];
	uint64_t size;
	uint32_t crc;
	int out, ret, n;

	snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", c->name, (int)getpid());
	out = openat(c->dfd, tmp,
		     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		     0600);
	if (out < 0)
		return;
	/* the table's line is written last, over room left for it */
	n = snprintf(tail, sizeof(tail), "table %20llu %08x\n", 0ull, 0u);
	ret = oputil_write_all(out, c->key, c->key_len) ?:
		      oputil_write_all(out, tail, (size_t)n) ?:
		      copy_table(c, fd, out, &size, &crc);
	if (!ret) {
		n = snprintf(tail, sizeof(tail), "table %20llu %08x\n",
			     (unsigned long long)size, (unsigned)crc);
		ret = pwrite(out, tail, (size_t)n, (off_t)c->key_len) == n
			      ? 0
			      : -EIO;
	}
	if (close(out) && !ret)
		ret = -EIO;
	if (!ret && !renameat(c->dfd, tmp, c->dfd, c->name))
		drop_others(c);
	else
		unlinkat(c->dfd, tmp, 0);
}

void ksymcache_close(struct ksymcache *c)
{
	size_t i;

	if (c->dfd >= 0)
		close(c->dfd);
	for (i = 0; i < c->nr_modules; i++)
		free(c->modules[i]);
	free(c->modules);
	free(c->key);
	free(c->dir);
	memset(c, 0, sizeof(*c));
	c->dfd = -1;
}
