// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * jmdump: print a javamap file as text, for the tests that run the agent
 * alone.  It uses the handler's own parser, so what it prints is what
 * the handler understands.
 *
 *   jmdump [--pcs] FILE
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jm_format.h"
#include "jm_resolve.h"

static int dump_read(const char *path, unsigned char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	unsigned char *b = NULL, *nb;
	int ret = 0;

	if (!f)
		return -errno;
	for (;;) {
		nb = realloc(b, cap);
		if (!nb) {
			ret = -ENOMEM;
			goto out;
		}
		b = nb;
		n += fread(b + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
	}
	if (ferror(f))
		ret = -EIO;
out:
	fclose(f);
	if (ret) {
		free(b);
		return ret;
	}
	*buf = b;
	*len = n;
	return 0;
}

static const char *method_name(const struct jm_state *st, uint64_t id)
{
	const struct jm_method *me = jm_state_method(st, id);

	return me ? me->name : "?";
}

static void dump_pcs(const struct jm_state *st, const struct jm_code *co)
{
	for (size_t i = 0; i < co->nr_pcs; i++) {
		const struct jm_pc *pc = &st->map.pcs[co->pc + i];

		printf("  pc +%u", pc->off);
		for (uint32_t f = 0; f < pc->nr_frames; f++) {
			const struct jm_frame *fr =
				&st->map.frames[pc->frame + f];
			const struct jm_method *me =
				jm_state_method(st, fr->method);

			printf(" %s %s:%u", f ? "<" : "", me ? me->name : "?",
			       me ? jm_method_line(me, fr->bci) : 0);
		}
		printf("\n");
	}
}

static void dump(const struct jm_state *st, int pcs)
{
	const struct jm_map *m = &st->map;

	printf("header version=%u.%u pid=%u inline=%s start_ns=%llu\n",
	       m->major, m->minor, m->pid,
	       (m->flags & JM_HDR_INLINE) ? "yes" : "no",
	       (unsigned long long)m->start_ns);
	printf("records=%zu methods=%zu codes=%zu unknown=%zu "
	       "unmatched_unloads=%zu replay_dups=%zu bytes=%zu\n",
	       m->nr_records, m->nr_methods, m->nr_codes, m->nr_unknown,
	       m->nr_unmatched, m->nr_dups, m->valid_len);
	for (size_t i = 0; i < m->nr_methods; i++) {
		const struct jm_method *me = &m->methods[i];

		printf("method %s file=%s lines=%u first_line=%u\n", me->name,
		       me->file ? me->file : "-", me->nr_lines,
		       me->nr_lines ? me->lines[0].line : 0);
	}
	for (size_t i = 0; i < m->nr_codes; i++) {
		const struct jm_code *co = &m->codes[i];

		printf("%s 0x%llx size=%llu load=%llu unload=%lld%s %s\n",
		       co->kind == JM_CODE_DYNAMIC ? "stub"
		       : (co->flags & JM_REC_DATA) ? "data"
						   : "code",
		       (unsigned long long)co->addr,
		       (unsigned long long)co->size,
		       (unsigned long long)co->t_load,
		       co->t_unload == JM_NEVER ? -1LL
						: (long long)co->t_unload,
		       (co->flags & JM_REC_REPLAYED) ? " replayed" : "",
		       co->kind == JM_CODE_DYNAMIC
			       ? co->name
			       : method_name(st, co->method));
		if (pcs)
			dump_pcs(st, co);
	}
}

int main(int argc, char **argv)
{
	struct jm_state st;
	unsigned char *buf = NULL;
	const char *path;
	size_t len = 0;
	int pcs = 0, ret;

	if (argc == 3 && !strcmp(argv[1], "--pcs"))
		pcs = 1;
	else if (argc != 2) {
		fprintf(stderr, "usage: jmdump [--pcs] FILE\n");
		return 2;
	}
	path = argv[argc - 1];
	ret = dump_read(path, &buf, &len);
	if (ret) {
		fprintf(stderr, "jmdump: cannot read %s: %s\n", path,
			strerror(-ret));
		return 1;
	}
	ret = jm_state_init(&st, buf, len);
	if (ret) {
		fprintf(stderr, "jmdump: %s: %s\n", path, st.error);
	} else {
		if (st.map.damage[0])
			fprintf(stderr,
				"jmdump: %s: %s; keeping the %zu "
				"records before it\n",
				path, st.map.damage, st.map.nr_records);
		dump(&st, pcs);
	}
	jm_state_free(&st);
	free(buf);
	return ret ? 1 : 0;
}
