// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The two texts a PyPy map comes in (FORMAT.md), read a line at a time.
 * A line that does not parse is counted, never fatal: a map written by a
 * process that was killed, or a log that holds other sections, still
 * names what it can.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/u64map.h>

#include "pypy.h"

#define MODULE_MAGIC "opjit-pypy "
/* no line of either text is near this long */
#define MAX_LINE 8192

enum section { S_NONE, S_ADDR, S_OPT };

struct parse {
	struct pypy_map *m;
	enum section section;
	uint32_t owner; /* the loop of the trace whose guards are listed */
};

static int add_name(struct pypy_map *m, const char *s, size_t len,
		    uint32_t *off)
{
	if (m->names_len + len + 1 > UINT32_MAX)
		return -ENOMEM;
	if (oputil_grow(&m->names, &m->names_cap, m->names_len + len + 1, 1))
		return -ENOMEM;
	memcpy(m->names + m->names_len, s, len);
	m->names[m->names_len + len] = '\0';
	*off = (uint32_t)m->names_len;
	m->names_len += len + 1;
	return 0;
}

static int add_code(struct pypy_map *m, const struct pypy_code *c)
{
	if (oputil_grow(&m->code, &m->cap, m->n + 1, sizeof(*m->code)))
		return -ENOMEM;
	m->code[m->n] = *c;
	m->code[m->n].seq = (uint32_t)m->n;
	m->n++;
	return 0;
}

static void bad_line(struct pypy_map *m)
{
	if (!m->bad_lines++)
		m->first_bad = m->lines;
}

/* The guard table of a log; id 0 is no guard. */
static int guard_set(struct pypy_map *m, uint64_t id, uint32_t loop)
{
	if (!id)
		return 0;
	return oputil_u64map_put(&m->guards, id, loop, NULL) < 0 ? -ENOMEM : 0;
}

static uint32_t guard_loop(const struct pypy_map *m, uint64_t id)
{
	uint64_t loop;

	return oputil_u64map_get(&m->guards, id, &loop) ? (uint32_t)loop : 0;
}

/* "collatz;/tmp/pp.py:2-4~#4 LOAD_FAST": the function, and the file and
 * lines (empty for a driver that names its loops otherwise). */
static int describe(struct pypy_map *m, const char *d, size_t len,
		    struct pypy_code *c)
{
	const char *semi = memchr(d, ';', len), *tilde;
	int rc;

	if (!semi)
		return add_name(m, d, len, &c->func)
			       ?: add_name(m, "", 0, &c->where);
	tilde = memchr(semi, '~', len - (size_t)(semi - d));
	if (!tilde)
		tilde = d + len;
	rc = add_name(m, d, (size_t)(semi - d), &c->func);
	return rc
		       ?: add_name(m, semi + 1, (size_t)(tilde - semi - 1),
				   &c->where);
}

/* "Loop N (DESC) has address 0xS to 0xE (bootstrap 0xB)" and "bridge out
 * of Guard 0xG has address 0xS to 0xE".  1 parsed, 0 not such a line. */
static int log_addr_line(struct pypy_map *m, const char *l)
{
	struct pypy_code c = { .kind = PYPY_LOOP };
	uint64_t s, e, boot = 0;
	unsigned loop;
	const char *open, *close;
	int n = 0;

	if (sscanf(l,
		   "bridge out of Guard %" SCNx64 " has address %" SCNx64
		   " to %" SCNx64 "%n",
		   &c.guard, &s, &e, &n) == 3 &&
	    n) {
		if (e <= s)
			return 0;
		c.kind = PYPY_BRIDGE;
		c.start = s;
		c.size = e - s;
		c.loop_no = guard_loop(m, c.guard);
		return add_name(m, "", 0, &c.func) ?:
		       add_name(m, "", 0, &c.where) ?: add_code(m, &c) ?: 1;
	}
	if (sscanf(l, "Loop %u (%n", &loop, &n) != 1 || !n)
		return 0;
	open = l + n;
	close = strstr(open, ") has address ");
	if (!close || sscanf(close,
			     ") has address %" SCNx64 " to %" SCNx64
			     " (bootstrap %" SCNx64,
			     &s, &e, &boot) < 2)
		return 0;
	if (boot && boot < s)
		s = boot; /* the preamble runs as part of the loop */
	if (e <= s)
		return 0;
	c.start = s;
	c.size = e - s;
	c.loop_no = loop;
	return describe(m, open, (size_t)(close - open), &c) ?:
	       add_code(m, &c) ?: 1;
}

/* The lines PyPy 7.3 adds under a loop: "  function: 0x...",
 * "  end: 0x..." and others.  The code from its function entry to its
 * end (the guard failure stubs included) is the loop's.  1 when such a
 * line, 0 when not. */
static int log_detail_line(struct pypy_map *m, const char *l)
{
	char key[32];
	uint64_t a;
	struct pypy_code *c = m->n ? &m->code[m->n - 1] : NULL;

	if (sscanf(l, " %31[a-z ]: 0x%" SCNx64, key, &a) != 2 || l[0] != ' ')
		return 0;
	if (!c || c->kind != PYPY_LOOP)
		return 1;
	if (!strcmp(key, "function") && a < c->start &&
	    c->start - a < (1u << 20)) {
		c->size += c->start - a;
		c->start = a;
	} else if (!strcmp(key, "end") && a > c->start + c->size &&
		   a - c->start < (1u << 24)) {
		c->size = a - c->start;
	}
	return 1;
}

/* In the optimised traces: whose guards follow, and each guard. */
static int log_opt_line(struct parse *p, const char *l)
{
	struct pypy_map *m = p->m;
	const char *g;
	uint64_t guard;
	unsigned loop;

	if (sscanf(l, "# Loop %u (", &loop) == 1) {
		p->owner = loop;
		return 0;
	}
	if (sscanf(l, "# bridge out of Guard %" SCNx64, &guard) == 1) {
		p->owner = guard_loop(m, guard);
		return 0;
	}
	g = strstr(l, "descr=<Guard0x");
	if (g && p->owner && sscanf(g, "descr=<Guard0x%" SCNx64, &guard) == 1)
		return guard_set(m, guard, p->owner);
	return 0;
}

static int log_line(struct parse *p, const char *l)
{
	const char *end;
	int rc;

	/* "[TIMESTAMP] {SECTION" opens, "[TIMESTAMP] SECTION}" closes */
	if (l[0] == '[' && (end = strchr(l, ']')) && end[1] == ' ') {
		const char *name = end + 2;

		if (*name == '{')
			p->section =
				!strcmp(name, "{jit-backend-addr")   ? S_ADDR
				: !strncmp(name, "{jit-log-opt", 12) ? S_OPT
								     : S_NONE;
		else
			p->section = S_NONE;
		return 0;
	}
	if (p->section == S_OPT)
		return log_opt_line(p, l);
	if (p->section != S_ADDR)
		return 0;
	rc = log_detail_line(p->m, l);
	if (rc == 0)
		rc = log_addr_line(p->m, l);
	if (rc == 0)
		bad_line(p->m);
	return rc < 0 ? rc : 0;
}

/* "T loop NO 0xADDR SIZE FIRST LAST FUNC FILE..." and
 * "T bridge 0xGUARD 0xADDR SIZE LOOPNO" */
static int module_line(struct pypy_map *m, const char *l)
{
	struct pypy_code c = { 0 };
	unsigned loop, first, last;
	char func[256];
	int n = 0;
	char where[MAX_LINE];

	if (sscanf(l,
		   "%" SCNu64 " bridge %" SCNx64 " %" SCNx64 " %" SCNu64
		   " %u%n",
		   &c.t_load, &c.guard, &c.start, &c.size, &loop, &n) == 5 &&
	    n && !l[n] && c.size && c.start + c.size > c.start) {
		c.kind = PYPY_BRIDGE;
		c.loop_no = loop;
		return add_name(m, "", 0, &c.func) ?:
		       add_name(m, "", 0, &c.where) ?: add_code(m, &c) ?: 1;
	}
	if (sscanf(l,
		   "%" SCNu64 " loop %u %" SCNx64 " %" SCNu64 " %u %u "
		   "%255s %n",
		   &c.t_load, &loop, &c.start, &c.size, &first, &last, func,
		   &n) != 7 ||
	    !n || !c.size || c.start + c.size <= c.start)
		return 0;
	c.kind = PYPY_LOOP;
	c.loop_no = loop;
	if (l[n])
		snprintf(where, sizeof(where), "%s:%u-%u", l + n, first, last);
	else
		where[0] = '\0';
	return add_name(m, func, strlen(func), &c.func) ?:
	       add_name(m, where, strlen(where), &c.where) ?:
	       add_code(m, &c) ?: 1;
}

/* Which text this is, from its first line. */
static enum pypy_format format_of(struct pypy_map *m, const char *l)
{
	unsigned pid;
	uint64_t start;

	if (!strncmp(l, MODULE_MAGIC, strlen(MODULE_MAGIC))) {
		if (sscanf(l, MODULE_MAGIC "1 pid=%u start_ns=%" SCNu64, &pid,
			   &start) != 2)
			return PYPY_NOT_OURS;
		m->pid = pid;
		m->start_ns = start;
		return PYPY_MODULE_MAP;
	}
	if (l[0] == '[' && strstr(l, "] {"))
		return PYPY_LOG;
	return PYPY_NOT_OURS;
}

int pypy_parse(struct pypy_map *m, const char *text, size_t len)
{
	struct parse p = { .m = m };
	char line[MAX_LINE];
	size_t pos = 0;
	int rc = 0;

	while (pos < len && rc >= 0) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (text + pos)) : len - pos;
		bool whole = ll < sizeof(line) &&
			     !memchr(text + pos, '\0', ll);

		m->lines++;
		if (!nl)
			m->torn = true;
		if (whole) {
			memcpy(line, text + pos, ll);
			line[ll] = '\0';
			if (ll && line[ll - 1] == '\r')
				line[ll - 1] = '\0';
		}
		pos += ll + (nl != NULL);
		if (m->lines == 1) {
			m->format = whole ? format_of(m, line) : PYPY_NOT_OURS;
			if (m->format == PYPY_NOT_OURS)
				return 0;
			if (m->format == PYPY_MODULE_MAP)
				continue;
		}
		if (!nl)
			break; /* a torn last line is not read */
		if (!whole) {
			bad_line(m);
			continue;
		}
		if (m->format == PYPY_LOG) {
			rc = log_line(&p, line);
		} else if (line[0]) {
			rc = module_line(m, line);
			if (rc == 0)
				bad_line(m);
		}
	}
	if (rc < 0)
		return rc;
	return m->format != PYPY_NOT_OURS;
}

void pypy_free(struct pypy_map *m)
{
	free(m->code);
	free(m->names);
	free(m->maxend);
	oputil_u64map_free(&m->guards);
	memset(m, 0, sizeof(*m));
}
