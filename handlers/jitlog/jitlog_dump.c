// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * opjit-jitlog dump FILE: a time-stamped map (any version) as text, one
 * record a line, in file order, then one line on how the file ends.
 * For JIT authors checking what their JIT logs, and for bug reports.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/crc32c.h>

#include "jm_events.h"
#include "jm_format.h"
#include "jm_parse.h"

static uint64_t le(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static void text(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		putchar(p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?');
}

/* 2.1: a CODE_LOAD may end in its code's bytes, after its pcs */
static bool with_code;

/* The code bytes after the NR pcs at P, LEFT bytes: how many, or -1
 * when the record holds none. */
static long long code_bytes(const unsigned char *p, size_t left, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		size_t n;

		if (left < JM_PC_FIXED)
			return -1;
		n = JM_PC_FIXED + le(p + 4, 2) * JM_FRAME_SIZE;
		if (n > left)
			return -1;
		p += n;
		left -= n;
	}
	if (!with_code || left < JM_CODE_BYTES_FIXED)
		return -1;
	return (long long)le(p, 4);
}

/* One record: its kind, time and fields. */
static void record(const unsigned char *r, size_t rlen)
{
	unsigned kind = (unsigned)le(r, 2);
	const unsigned char *p = r + JM_REC_HEADER_SIZE;
	size_t left = rlen - JM_REC_HEADER_SIZE;

	printf("t=%" PRIu64 " ", le(r + 8, 8));
	if (kind == JM_REC_METHOD && left >= JM_METHOD_FIXED) {
		size_t nl = le(p + 8, 4), fl = le(p + 12, 4);

		printf("method id=%" PRIu64 " lines=%" PRIu64 " name=",
		       le(p, 8), le(p + 16, 4));
		if (JM_METHOD_FIXED + nl + fl <= left) {
			text(p + JM_METHOD_FIXED, nl);
			printf(" file=");
			text(p + JM_METHOD_FIXED + nl, fl);
		}
	} else if (kind == JM_REC_CODE_LOAD && left >= JM_CODE_LOAD_FIXED) {
		long long code = code_bytes(p + JM_CODE_LOAD_FIXED,
					    left - JM_CODE_LOAD_FIXED,
					    le(p + 20, 4));

		printf("load id=%" PRIu64 " addr=0x%" PRIx64 " size=%" PRIu64
		       " pcs=%" PRIu64,
		       le(p, 8), le(p + 8, 8), le(p + 16, 4), le(p + 20, 4));
		if (code >= 0)
			printf(" code=%lld", code);
	} else if (kind == JM_REC_CODE_UNLOAD && left >= JM_CODE_UNLOAD_SIZE) {
		printf("unload id=%" PRIu64 " addr=0x%" PRIx64, le(p, 8),
		       le(p + 8, 8));
	} else if (kind == JM_REC_DYNAMIC_CODE && left >= JM_DYNAMIC_FIXED) {
		size_t nl = le(p + 12, 4);

		printf("dynamic addr=0x%" PRIx64 " size=%" PRIu64 " name=",
		       le(p, 8), le(p + 8, 4));
		if (JM_DYNAMIC_FIXED + nl <= left)
			text(p + JM_DYNAMIC_FIXED, nl);
	} else if ((kind == JM_REC_ALLOC || kind == JM_REC_LOCK) &&
		   left >= JM_EVENT_FIXED) {
		size_t wl = le(p + 24, 4);

		printf("%s tid=%" PRIu64 " %s=%" PRIu64 " %s=%" PRIu64
		       " frames=%" PRIu64 " class=",
		       kind == JM_REC_ALLOC ? "alloc" : "lock", le(p, 8),
		       kind == JM_REC_ALLOC ? "size" : "waited_ns",
		       le(p + 8, 8),
		       kind == JM_REC_ALLOC ? "interval" : "threshold_ns",
		       le(p + 16, 8), le(p + 28, 4));
		if (JM_EVENT_FIXED + wl <= left)
			text(p + JM_EVENT_FIXED, wl);
	} else {
		printf("kind=%u bytes=%zu", kind, rlen);
	}
	if (le(r + 2, 2) & JM_REC_REPLAYED)
		printf(" older");
	if (le(r + 2, 2) & JM_REC_DATA)
		printf(" data");
	putchar('\n');
}

static int dump(const char *path, const unsigned char *b, size_t len)
{
	size_t at, n = 0;
	unsigned major;
	bool framed;

	if (len < JM_HEADER_SIZE || !jm_is_javamap(b, len)) {
		fprintf(stderr,
			"opjit-jitlog: %s: not an opjit time-stamped "
			"map\n",
			path);
		return 1;
	}
	major = (unsigned)le(b + 8, 2);
	framed = major == JM_VERSION_FRAMED;
	with_code = framed && le(b + 10, 2) >= 1;
	printf("version %u.%" PRIu64 " pid=%" PRIu64 " start_ns=%" PRIu64 "\n",
	       major, le(b + 10, 2), le(b + 16, 4), le(b + 24, 8));
	at = le(b + 12, 4);
	while (at < len) {
		size_t h = at + (framed ? JM_FRAME_HEADER_SIZE : 0), rlen;

		if (framed &&
		    (len - at < JM_FRAME_HEADER_SIZE || le(b + at, 4) == 0))
			break;
		if (h + JM_REC_HEADER_SIZE > len)
			break;
		rlen = le(b + h + 4, 4);
		if (rlen < JM_REC_HEADER_SIZE || rlen > len - h)
			break;
		if (framed) {
			if (oputil_crc32c(0, b + h, rlen) != le(b + at + 4, 4))
				break;
			printf("seq=%" PRIu64 " ", le(b + at, 4));
		}
		record(b + h, rlen);
		n++;
		at = framed ? (h + rlen + 7) / 8 * 8 : h + rlen;
	}
	printf("%zu records; %s at offset %zu of %zu\n", n,
	       at >= len ? "the file ends" : "the log ends", at, len);
	return 0;
}

static int folded_one(void *arg, const char *const *frames, size_t n,
		      uint64_t weight)
{
	for (size_t i = 0; i < n; i++) {
		/* ';' separates frames and ' ' ends them in folded stacks */
		for (const char *c = frames[i]; *c; c++)
			putchar(*c == ';' ? ':' : *c == '\n' ? '?' : *c);
		putchar(i + 1 < n ? ';' : ' ');
	}
	printf("%" PRIu64 "\n", weight);
	return 0;
}

/* The event samples of KIND as folded stacks, one a line. */
static int folded(const char *path, const char *what, const unsigned char *b,
		  size_t len)
{
	struct jm_state st;
	unsigned kind;
	int rc = 1;

	if (!strcmp(what, "alloc"))
		kind = JM_REC_ALLOC;
	else if (!strcmp(what, "lock"))
		kind = JM_REC_LOCK;
	else {
		fprintf(stderr,
			"opjit-jitlog: unknown event '%s' (alloc or lock)\n",
			what);
		return 2;
	}
	if (jm_state_init(&st, b, len)) {
		fprintf(stderr, "opjit-jitlog: %s: %s\n", path, st.error);
		goto out;
	}
	if (st.map.damage[0])
		fprintf(stderr, "opjit-jitlog: %s: %s\n", path, st.map.damage);
	if (jm_events_walk(&st, kind, 0, folded_one, NULL)) {
		fprintf(stderr, "opjit-jitlog: out of memory\n");
		goto out;
	}
	rc = 0;
out:
	jm_state_free(&st);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	FILE *f;
	int rc;

	const char *path;

	if (argc == 3 && !strcmp(argv[1], "dump"))
		path = argv[2];
	else if (argc == 4 && !strcmp(argv[1], "folded"))
		path = argv[3];
	else {
		fprintf(stderr,
			"usage: opjit-jitlog dump FILE\n"
			"       opjit-jitlog folded alloc|lock FILE\n");
		return 2;
	}
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "opjit-jitlog: cannot open %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	for (;;) {
		size_t got;

		if (len == cap) {
			unsigned char *b = realloc(buf, cap ? cap * 2 : 65536);

			if (!b) {
				fprintf(stderr,
					"opjit-jitlog: out of memory\n");
				fclose(f);
				free(buf);
				return 1;
			}
			buf = b;
			cap = cap ? cap * 2 : 65536;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (!got)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "opjit-jitlog: cannot read %s: %s\n", path,
			strerror(errno));
		fclose(f);
		free(buf);
		return 1;
	}
	fclose(f);
	if (argc == 4)
		rc = folded(path, argv[2], buf, len);
	else
		rc = dump(path, buf, len);
	free(buf);
	return rc;
}
