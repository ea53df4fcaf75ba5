// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The jitdump parser.  A dump holds a 40-byte header and then records,
 * each led by (id, total_size, timestamp); a reader that does not know
 * a record type skips it by its size.  The file comes from the runtime
 * being profiled, so every size is checked against the bytes that are
 * really there before anything is read or allocated.
 */
#define _GNU_SOURCE
#include <byteswap.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <oputil/grow.h>

#include "jitdump.h"

/* Bytes read at a time from a descriptor. */
#define JD_CHUNK (1u << 20)
/* The longest name looked for in a record that also carries code. */
#define JD_NAME_MAX 65536u

/* ------------------------------------------------------------------ */
/* Sources */

void jd_src_mem(struct jd_src *s, const uint8_t *data, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->buf = (uint8_t *)data;
	s->len = len;
	s->size = len;
}

void jd_src_fd(struct jd_src *s, int fd)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->own = true;
	/* a live runtime may still append: read what is there now */
	if (!fstat(fd, &st) && st.st_size > 0)
		s->size = (uint64_t)st.st_size;
}

void jd_src_free(struct jd_src *s)
{
	if (s->own)
		free(s->buf);
	s->buf = NULL;
}

static uint64_t src_at(const struct jd_src *s)
{
	return s->off + s->pos;
}

/* Make N bytes from the current position readable.  0, -EIO when the
 * file ended early, or a negative errno. */
static int src_need(struct jd_src *s, size_t n)
{
	if (s->len - s->pos >= n)
		return 0;
	if (s->fd < 0)
		return -EIO;
	if (s->pos) {
		memmove(s->buf, s->buf + s->pos, s->len - s->pos);
		s->off += s->pos;
		s->len -= s->pos;
		s->pos = 0;
	}
	if (s->cap < n || s->cap < JD_CHUNK) {
		size_t cap = n > JD_CHUNK ? n : JD_CHUNK;
		uint8_t *b = realloc(s->buf, cap);

		if (!b)
			return -ENOMEM;
		s->buf = b;
		s->cap = cap;
	}
	while (s->len < n) {
		uint64_t left = s->size - (s->off + s->len);
		size_t want = s->cap - s->len;
		ssize_t r;

		if (!left)
			return -EIO;
		if (want > left)
			want = (size_t)left;
		r = read(s->fd, s->buf + s->len, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO;
		s->len += (size_t)r;
	}
	return 0;
}

/* Move past N bytes, reading over whatever is not held. */
static int src_skip(struct jd_src *s, uint64_t n)
{
	uint64_t held = s->len - s->pos;

	if (n <= held) {
		s->pos += (size_t)n;
		return 0;
	}
	if (s->fd < 0)
		return -EIO;
	n -= held;
	s->off += s->len;
	s->pos = s->len = 0;
	if (lseek(s->fd, (off_t)(s->off + n), SEEK_SET) < 0)
		return -errno;
	s->off += n;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Fields */

static uint32_t rd32(const struct jd_dump *d, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return d->swapped ? bswap_32(v) : v;
}

static uint64_t rd64(const struct jd_dump *d, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return d->swapped ? bswap_64(v) : v;
}

static const char *type_name(uint32_t id)
{
	switch (id) {
	case JD_CODE_LOAD:
		return "JIT_CODE_LOAD";
	case JD_CODE_MOVE:
		return "JIT_CODE_MOVE";
	case JD_CODE_DEBUG_INFO:
		return "JIT_CODE_DEBUG_INFO";
	}
	return "record";
}

__attribute__((format(printf, 4, 5))) static void
bad(struct jd_dump *d, uint32_t id, uint64_t at, const char *fmt, ...)
{
	char why[96];
	va_list ap;

	if (d->nbad < JD_MAX_REPORTED) {
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
		snprintf(d->bad[d->nbad], sizeof(d->bad[0]),
			 "malformed %s at offset %llu: %s", type_name(id),
			 (unsigned long long)at, why);
	}
	d->nbad++;
}

/* Copy a name of LEN bytes into the pool; its offset in *OFF. */
static int name_add(struct jd_dump *d, const char *s, size_t len,
		    uint32_t *off)
{
	if (d->names_len + len + 1 > UINT32_MAX)
		return -EFBIG;
	if (oputil_grow(&d->names, &d->names_cap, d->names_len + len + 1, 1))
		return -ENOMEM;
	memcpy(d->names + d->names_len, s, len);
	d->names[d->names_len + len] = '\0';
	*off = (uint32_t)d->names_len;
	d->names_len += len + 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Header */

/*
 * V8 writes each line-table entry's address as its code's address plus
 * the entry's offset plus the size of an ELF header (64 bytes, 52 on a
 * 32-bit target).  perf inject puts the code behind such a header in
 * the ELF file it writes, and until a 2020 fix it placed the line table
 * as if the code began at the file's start; V8 made up for that, and
 * kept doing so after perf was fixed.  Taken as the format says, every
 * line would name the instructions 64 bytes after its own.
 */
static uint32_t v8_elf_header(uint32_t elf_mach)
{
	switch (elf_mach) {
	case 3:	 /* EM_386 */
	case 40: /* EM_ARM */
		return 0x34;
	default:
		return 0x40;
	}
}

enum jd_header_result jd_header(struct jd_dump *d, const uint8_t *buf,
				size_t len, uint32_t *hdr_size)
{
	uint32_t magic;

	if (len < 4)
		return JD_HDR_SHORT;
	memcpy(&magic, buf, sizeof(magic));
	if (magic == JD_MAGIC)
		d->swapped = false;
	else if (magic == bswap_32(JD_MAGIC))
		d->swapped = true;
	else
		return JD_HDR_NOT_JITDUMP;
	if (len < JD_HEADER_SIZE)
		return JD_HDR_SHORT;
	d->version = rd32(d, buf + 4);
	*hdr_size = rd32(d, buf + 8);
	d->elf_mach = rd32(d, buf + 12);
	d->pid = rd32(d, buf + 20);
	d->line_bias = rd32(d, buf + 16) == JD_V8_RESERVED
			       ? v8_elf_header(d->elf_mach)
			       : 0;
	/* buf + 24 holds the writer's own timestamp, in whatever clock it
	 * liked (wall time, for some): the records' times are used */
	d->flags = rd64(d, buf + 32);
	/* version 2 is Mono's: the same layout, but its header size field
	 * holds the size of a pointer, not of the header */
	if (d->version != 1 && d->version != 2)
		return JD_HDR_VERSION;
	if (*hdr_size < JD_HEADER_SIZE)
		*hdr_size = JD_HEADER_SIZE;
	return JD_HDR_OK;
}

/* ------------------------------------------------------------------ */
/* Records */

static int rec_move(struct jd_dump *d, const uint8_t *p, uint32_t total,
		    uint64_t time, uint64_t at)
{
	struct jd_move *m;
	struct jd_event *e;
	int rc;

	if (total < JD_RECORD_HEADER_SIZE + 48) {
		bad(d, JD_CODE_MOVE, at, "%u bytes, at least %u expected",
		    total, JD_RECORD_HEADER_SIZE + 48);
		return 0;
	}
	rc = oputil_grow(&d->move, &d->capmove, d->nmove + 1, sizeof(*m));
	rc = rc ? rc : oputil_grow(&d->ev, &d->capev, d->nev + 1, sizeof(*e));
	if (rc)
		return rc;
	m = &d->move[d->nmove];
	/* pid, tid, vma at +16 .. +32 */
	m->old_addr = rd64(d, p + 32);
	m->new_addr = rd64(d, p + 40);
	m->size = rd64(d, p + 48);
	m->index = rd64(d, p + 56);
	m->time = time;
	if (m->new_addr + m->size < m->new_addr) {
		bad(d, JD_CODE_MOVE, at, "code wraps the address space");
		return 0;
	}
	e = &d->ev[d->nev++];
	e->kind = JD_CODE_MOVE;
	e->i = (uint32_t)d->nmove++;
	return 0;
}

static int line_cmp(const void *a, const void *b)
{
	const struct jd_line *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Printable UTF-8 with no control character: what a file name is. */
static bool name_plausible(const uint8_t *s, size_t n)
{
	size_t i = 0, k;

	if (!n)
		return false;
	while (i < n) {
		uint8_t c = s[i++];
		size_t more;

		if (c < 0x20 || c == 0x7f)
			return false;
		if (c < 0x80)
			continue;
		if (c >= 0xc2 && c <= 0xdf)
			more = 1;
		else if (c >= 0xe0 && c <= 0xef)
			more = 2;
		else if (c >= 0xf0 && c <= 0xf4)
			more = 3;
		else
			return false;
		if (n - i < more)
			return false;
		for (k = 0; k < more; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
		i += more;
	}
	return true;
}

/* Whether an entry can start at POS of a table for code at ADDR: its
 * address in the code's first 4 GiB, a line from 1 (lines count from
 * 1) below 2^24. */
static bool entry_plausible(const struct jd_dump *d, const uint8_t *p,
			    size_t pos, uint32_t total, uint64_t addr)
{
	uint64_t a;
	uint32_t line;

	if (total - pos < 17)
		return false;
	a = rd64(d, p + pos);
	line = rd32(d, p + pos + 8);
	return a >= addr && a - addr < (1ull << 32) && line &&
	       line < (1u << 24);
}

enum { FREED_PREFIX = 16 }; /* glibc's tcache: next pointer and key */

/* Whether entry I of NR, whose name ends at NUL, is followed by an
 * entry that fits or, for the last, by no more than padding. */
static bool entry_follows(const struct jd_dump *d, const uint8_t *p,
			  uint32_t total, uint64_t addr, uint64_t i,
			  uint64_t nr, const uint8_t *nul)
{
	size_t next = (size_t)(nul - p) + 1;

	return i + 1 == nr ? total - next < 8
			   : entry_plausible(d, p, next, total, addr);
}

/*
 * Whether a name that reads as text may still be one node wrote from
 * freed memory: the allocator's next pointer is the block's address
 * shifted by 12, which for a heap below 128 MiB can be two printable
 * bytes and a NUL ("Jo").  Only V8's dumps, whose entries always fit
 * where the format puts them, and only a name shorter than what the
 * allocator writes, when the entry after it does not fit.
 */
static bool text_suspect(const struct jd_dump *d, const uint8_t *p,
			 uint32_t total, uint64_t addr, uint64_t i,
			 uint64_t nr, size_t len, const uint8_t *nul)
{
	return d->line_bias && len < FREED_PREFIX &&
	       !entry_follows(d, p, total, addr, i, nr, nul);
}

/*
 * Where the name of entry I of NR, at NAME, really ends, when its
 * first NUL comes after bytes that are not a name, or after text that
 * text_suspect() doubts.  node 20 writes
 * some names from memory already freed: the allocator's list pointers
 * overwrite their first bytes, NULs included, while the record's size
 * and the name's length and terminator stay right.  The name then ends
 * at the first NUL after which the next entry fits (or, for the last,
 * only padding is left), within JD_NAME_SCAN bytes of its start; none:
 * the first NUL, as the format says, and *GIVE_UP, so that a record of
 * such names costs one scan, not one per entry.
 */
#define JD_NAME_SCAN 4096u
static const uint8_t *name_end(const struct jd_dump *d, const uint8_t *p,
			       uint32_t total, uint64_t addr, uint64_t i,
			       uint64_t nr, const uint8_t *name,
			       const uint8_t *nul, bool *give_up)
{
	size_t stop = (size_t)(name - p) + JD_NAME_SCAN;
	const uint8_t *q = nul;

	if (stop > total)
		stop = total;
	while (q) {
		size_t next = (size_t)(q - p) + 1;

		if (entry_follows(d, p, total, addr, i, nr, q))
			return q;
		if (next >= stop)
			break;
		q = memchr(q + 1, '\0', stop - next);
	}
	*give_up = true;
	return nul;
}

/*
 * Whether the name of entry I of NR, at NAME up to *NUL, is garbled,
 * with *NUL moved to where such a name really ends.  Text is garbled
 * only when a later NUL is followed by an entry that fits.
 */
static bool name_garbled(const struct jd_dump *d, const uint8_t *p,
			 uint32_t total, uint64_t addr, uint64_t i,
			 uint64_t nr, const uint8_t *name, const uint8_t **nul,
			 bool *give_up)
{
	size_t len = (size_t)(*nul - name);
	const uint8_t *end;

	if (name_plausible(name, len)) {
		if (*give_up ||
		    !text_suspect(d, p, total, addr, i, nr, len, *nul))
			return false;
		end = name_end(d, p, total, addr, i, nr, name, *nul, give_up);
		if (end == *nul)
			return false;
		*nul = end;
		return true;
	}
	if (!*give_up)
		*nul = name_end(d, p, total, addr, i, nr, name, *nul, give_up);
	return true;
}

static int rec_debug(struct jd_dump *d, const uint8_t *p, uint32_t total,
		     uint64_t at)
{
	const size_t fixed = JD_RECORD_HEADER_SIZE + 16;
	uint64_t addr, nr, i;
	size_t pos = fixed, first = d->nlines;
	uint32_t prev = UINT32_MAX;
	bool give_up = false;
	int rc;

	if (total < fixed) {
		bad(d, JD_CODE_DEBUG_INFO, at,
		    "%u bytes, at least %zu expected", total, fixed);
		return 0;
	}
	addr = rd64(d, p + 16);
	nr = rd64(d, p + 24);
	/* an entry is at least 17 bytes: addr, line, discriminator, NUL */
	if (nr > (total - fixed) / 17) {
		bad(d, JD_CODE_DEBUG_INFO, at,
		    "%llu entries do not fit in %u bytes",
		    (unsigned long long)nr, total);
		return 0;
	}
	/* a table no load took is dropped with its garbled names */
	d->has_pending = false;
	d->ngarbled = 0;
	for (i = 0; i < nr; i++) {
		const char *name;
		const uint8_t *nul;
		struct jd_line *l;
		uint32_t off;
		size_t len;

		if (total - pos < 17) {
			rc = 1;
			goto malformed;
		}
		name = (const char *)p + pos + 16;
		nul = memchr(name, '\0', total - pos - 16);
		if (!nul) {
			rc = 2;
			goto malformed;
		}
		len = (size_t)((const char *)nul - name);
		rc = oputil_grow(&d->lines, &d->caplines, d->nlines + 1,
				 sizeof(*l));
		if (rc)
			return rc;
		/* "\xff" alone: the same file as the entry before */
		if (len == 1 && (uint8_t)name[0] == 0xff &&
		    prev != UINT32_MAX) {
			off = prev;
		} else if (name_garbled(d, p, total, addr, i, nr,
					(const uint8_t *)name, &nul,
					&give_up)) {
			struct jd_garbled *g;

			len = (size_t)((const char *)nul - name);
			rc = oputil_grow(&d->garbled, &d->capgarbled,
					 d->ngarbled + 1, sizeof(*g));
			if (rc)
				return rc;
			g = &d->garbled[d->ngarbled];
			rc = name_add(d, name, len, &g->bytes);
			if (rc)
				return rc;
			g->line = (uint32_t)d->nlines;
			g->len = (uint32_t)len;
			d->ngarbled++;
			d->names_garbled++;
			off = JD_NO_FILE;
		} else if (prev != UINT32_MAX && prev != JD_NO_FILE &&
			   !strcmp(d->names + prev, name)) {
			off = prev;
		} else {
			rc = name_add(d, name, len, &off);
			if (rc)
				return rc;
		}
		l = &d->lines[d->nlines++];
		l->addr = rd64(d, p + pos);
		/* an entry below the code plus the bias is not V8's: kept */
		if (l->addr >= addr && l->addr - addr >= d->line_bias)
			l->addr -= d->line_bias;
		l->line = rd32(d, p + pos + 8);
		l->file = off;
		prev = off;
		pos = (size_t)((const uint8_t *)nul - p) + 1;
	}
	d->has_pending = true;
	d->pending_addr = addr;
	d->pending_first = (uint32_t)first;
	d->pending_n = (uint32_t)(d->nlines - first);
	return 0;
malformed:
	d->nlines = first;
	d->ngarbled = 0;
	bad(d, JD_CODE_DEBUG_INFO, at, "entry %llu %s", (unsigned long long)i,
	    rc == 1 ? "runs past the record" : "has no terminated file name");
	return 0;
}

/*
 * Give the garbled names of the pending table the script of the code
 * they describe when they are its bytes with only their start
 * overwritten: the same length, and the same last 8 bytes or every
 * byte past the 16 the allocator writes into a freed block (a path of
 * 17 to 23 bytes keeps fewer than 8: "/home/me/app/fib.js").  V8 names
 * code "JS:*fib /path/app.js:6:13", the script after the last space,
 * before the line and column.
 */
static int garbled_match(struct jd_dump *d, uint32_t code_name)
{
	const char *name = jd_name(d, code_name), *path, *end;
	uint32_t off = JD_NO_FILE;
	size_t len, kept, i, k;
	char *copy;
	int colons, rc = 0;

	path = strrchr(name, ' ');
	if (!path || !d->ngarbled)
		return 0;
	path++;
	end = path + strlen(path);
	for (colons = 0; colons < 2; colons++) {
		const char *c = end;

		while (c > path && c[-1] >= '0' && c[-1] <= '9')
			c--;
		if (c == end || c == path || c[-1] != ':')
			break;
		end = c - 1;
	}
	len = (size_t)(end - path);
	if (len < 8 || !name_plausible((const uint8_t *)path, len))
		return 0;
	kept = len > FREED_PREFIX ? len - FREED_PREFIX : 0;
	/* the pool may move when the path is added to it */
	copy = strndup(path, len);
	if (!copy)
		return -ENOMEM;
	for (i = 0; i < d->ngarbled; i++) {
		const struct jd_garbled *g = &d->garbled[i];
		const char *b = d->names + g->bytes;

		if (g->len != len)
			continue;
		for (k = 0; k < len && b[len - 1 - k] == copy[len - 1 - k];
		     k++)
			;
		if (k < 8 && (kept == 0 || k < kept))
			continue;
		if (off == JD_NO_FILE) {
			rc = name_add(d, copy, len, &off);
			if (rc)
				goto out;
		}
		d->lines[g->line].file = off;
		d->names_recovered++;
	}
out:
	free(copy);
	return rc;
}

static int rec_load(struct jd_dump *d, const uint8_t *p, size_t have,
		    uint32_t total, uint64_t time, uint64_t at)
{
	const size_t fixed = JD_RECORD_HEADER_SIZE + 40;
	const char *name;
	const uint8_t *nul;
	struct jd_code *c;
	struct jd_event *e;
	uint32_t off;
	int rc;

	if (total < fixed + 1 || have < fixed + 1) {
		bad(d, JD_CODE_LOAD, at, "%u bytes, at least %zu expected",
		    total, fixed + 1);
		return 0;
	}
	name = (const char *)p + fixed;
	nul = memchr(name, '\0', have - fixed);
	if (!nul) {
		bad(d, JD_CODE_LOAD, at, "name not terminated");
		return 0;
	}
	if (rd64(d, p + 32) + rd64(d, p + 40) < rd64(d, p + 32)) {
		bad(d, JD_CODE_LOAD, at, "code wraps the address space");
		return 0;
	}
	rc = oputil_grow(&d->code, &d->capcode, d->ncode + 1, sizeof(*c));
	rc = rc ? rc : oputil_grow(&d->ev, &d->capev, d->nev + 1, sizeof(*e));
	rc = rc ? rc
		: name_add(d, name, (size_t)((const char *)nul - name), &off);
	if (rc)
		return rc;
	c = &d->code[d->ncode];
	memset(c, 0, sizeof(*c));
	/* pid, tid, vma at +16 .. +32 */
	c->addr = rd64(d, p + 32);
	c->size = rd64(d, p + 40);
	c->index = rd64(d, p + 48);
	c->time = time;
	c->name = off;
	/* the bytes follow the name's NUL, up to the record's end */
	c->code_off = at + fixed + (uint64_t)((const char *)nul - name) + 1;
	c->code_len = (uint32_t)(total - (c->code_off - at));
	if (c->code_len > c->size)
		c->code_len = (uint32_t)c->size;
	/* the line table comes before the load of its code */
	if (d->has_pending && d->pending_addr == c->addr) {
		rc = garbled_match(d, c->name);
		if (rc)
			return rc;
		c->first_line = d->pending_first;
		c->nlines = d->pending_n;
		qsort(d->lines + c->first_line, c->nlines, sizeof(*d->lines),
		      line_cmp);
		d->has_pending = false;
		d->ngarbled = 0;
	}
	e = &d->ev[d->nev++];
	e->kind = JD_CODE_LOAD;
	e->i = (uint32_t)d->ncode++;
	return 0;
}

/* ------------------------------------------------------------------ */

int jd_parse(struct jd_dump *d, struct jd_src *s)
{
	uint32_t hdr_size;
	int rc;

	rc = src_need(s, JD_HEADER_SIZE);
	if (rc == -ENOMEM || (rc && rc != -EIO))
		return rc;
	switch (jd_header(d, s->buf + s->pos, s->len - s->pos, &hdr_size)) {
	case JD_HDR_OK:
		break;
	case JD_HDR_NOT_JITDUMP:
		snprintf(d->bad[0], sizeof(d->bad[0]), "not a jitdump file");
		return 1;
	case JD_HDR_SHORT:
		snprintf(d->bad[0], sizeof(d->bad[0]),
			 "shorter than a jitdump header");
		return 1;
	case JD_HDR_VERSION:
		snprintf(d->bad[0], sizeof(d->bad[0]),
			 "jitdump version %u, 1 and 2 are known", d->version);
		return 1;
	}
	if (s->size > JD_MAX_BYTES)
		return -EFBIG;
	if (hdr_size > s->size)
		hdr_size = (uint32_t)s->size;
	rc = src_skip(s, hdr_size);
	if (rc)
		return rc;
	for (;;) {
		uint64_t at = src_at(s), left = s->size - at;
		uint32_t id, total;
		uint64_t time;
		size_t need;
		const uint8_t *p;

		if (!left)
			break;
		if (left < JD_RECORD_HEADER_SIZE) {
			d->torn = true;
			d->torn_at = at;
			break;
		}
		rc = src_need(s, JD_RECORD_HEADER_SIZE);
		if (rc)
			return rc == -EIO ? 0 : rc;
		p = s->buf + s->pos;
		id = rd32(d, p);
		total = rd32(d, p + 4);
		time = rd64(d, p + 8);
		if (total < JD_RECORD_HEADER_SIZE || total > JD_MAX_RECORD) {
			/* no way to find the next record */
			d->broken = true;
			d->broken_at = at;
			d->broken_size = total;
			break;
		}
		if (total > left) {
			d->torn = true;
			d->torn_at = at;
			break;
		}
		d->records++;
		need = total;
		/* a load's code bytes are not needed, only its name */
		if (id == JD_CODE_LOAD &&
		    need > JD_RECORD_HEADER_SIZE + 40 + JD_NAME_MAX)
			need = JD_RECORD_HEADER_SIZE + 40 + JD_NAME_MAX;
		if (id == JD_CODE_LOAD || id == JD_CODE_MOVE ||
		    id == JD_CODE_DEBUG_INFO) {
			rc = src_need(s, need);
			if (rc)
				return rc == -EIO ? 0 : rc;
			p = s->buf + s->pos;
		}
		switch (id) {
		case JD_CODE_LOAD:
			rc = rec_load(d, p, need, total, time, at);
			break;
		case JD_CODE_MOVE:
			rc = rec_move(d, p, total, time, at);
			break;
		case JD_CODE_DEBUG_INFO:
			rc = rec_debug(d, p, total, at);
			break;
		case JD_CODE_CLOSE:
			d->closed = true;
			break;
		default:
			/* unwinding tables, and types newer than us */
			d->skipped++;
			break;
		}
		if (rc)
			return rc;
		rc = src_skip(s, total);
		if (rc)
			return rc;
	}
	return 0;
}

void jd_free(struct jd_dump *d)
{
	free(d->code);
	free(d->move);
	free(d->ev);
	free(d->lines);
	free(d->names);
	free(d->garbled);
	d->garbled = NULL;
	d->code = NULL;
	d->move = NULL;
	d->ev = NULL;
	d->lines = NULL;
	d->names = NULL;
}
