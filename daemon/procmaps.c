// SPDX-License-Identifier: GPL-3.0-or-later
#include "procmaps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int parse_hex(const char **s, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;
	int digits = 0;

	for (;; p++, digits++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (digits >= 16)
			return -EINVAL;
		v = v << 4 | d;
	}
	if (!digits)
		return -EINVAL;
	*s = p;
	*out = v;
	return 0;
}

static int expect(const char **s, char c)
{
	if (**s != c)
		return -EINVAL;
	(*s)++;
	return 0;
}

/* start-end perms offset major:minor inode [path] */
int procmaps_parse_line(char *line, struct procmaps_line *out)
{
	const char *p = line;
	uint64_t major, minor, inode = 0;
	char *nl = strchr(line, '\n');
	int digits = 0;

	if (nl)
		*nl = '\0';
	if (parse_hex(&p, &out->start) || expect(&p, '-') ||
	    parse_hex(&p, &out->end) || expect(&p, ' '))
		return -EINVAL;
	if (out->end < out->start)
		return -EINVAL;
	if (strlen(p) < 4 || !strchr("r-", p[0]) || !strchr("w-", p[1]) ||
	    !strchr("x-", p[2]) || !strchr("ps", p[3]))
		return -EINVAL;
	out->exec = p[2] == 'x';
	out->write = p[1] == 'w';
	out->shared = p[3] == 's';
	p += 4;
	if (expect(&p, ' ') || parse_hex(&p, &out->pgoff) || expect(&p, ' ') ||
	    parse_hex(&p, &major) || expect(&p, ':') ||
	    parse_hex(&p, &minor) || expect(&p, ' '))
		return -EINVAL;
	if (major > UINT32_MAX || minor > UINT32_MAX)
		return -EINVAL;
	out->dev_major = major;
	out->dev_minor = minor;
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (digits >= 20 || inode > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		inode = inode * 10 + (uint64_t)(*p - '0');
	}
	if (!digits)
		return -EINVAL;
	out->inode = inode;
	if (*p && *p != ' ')
		return -EINVAL;
	while (*p == ' ')
		p++;
	out->path = p;
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

bool mapname_is_jitdump(const char *name, size_t *len)
{
	const char *base = strrchr(name, '/'), *p;
	size_t n = strlen(name);

	if (!base || name[0] != '/')
		return false;
	if (ends_with(name, " (deleted)"))
		n -= strlen(" (deleted)");
	base++;
	if (strncmp(base, "jit-", 4))
		return false;
	for (p = base + 4; *p >= '0' && *p <= '9'; p++)
		;
	if (p == base + 4 || (size_t)(p - name) + 5 != n ||
	    strncmp(p, ".dump", 5))
		return false;
	*len = n;
	return true;
}

enum mapkind mapname_classify(const char *name)
{
	if (!*name || !strcmp(name, "//anon") || !strncmp(name, "[anon:", 6) ||
	    !strncmp(name, "[anon_shmem:", 12) || !strcmp(name, "[heap]") ||
	    !strncmp(name, "[stack", 6))
		return MAPKIND_ANON;
	/* doubly-mapped JIT code, and code whose file is gone: no ELF
	 * image is left to read, only the JIT's own map can name it */
	if (!strncmp(name, "/memfd:", 7) || ends_with(name, " (deleted)"))
		return MAPKIND_ANON;
	if (name[0] == '[')
		return MAPKIND_SPECIAL;
	if (name[0] == '/')
		return MAPKIND_FILE;
	/* anon_inode:... and other names of no file */
	return MAPKIND_ANON;
}
