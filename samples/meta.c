// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta_internal.h"

enum meta_type { T_STR, T_U64, T_I64, T_U32, T_BOOL };

struct meta_key {
	const char *name;
	enum meta_type type;
	size_t off;	/* in struct ops_session_info */
	size_t str_off; /* in struct ops_meta, for T_STR */
};

#define INFO(f) offsetof(struct ops_session_info, f)
#define STR(f) T_STR, INFO(f), offsetof(struct ops_meta, f)

static const struct meta_key meta_keys[] = {
	{ "event", STR(event) },
	{ "period", T_U64, INFO(period), 0 },
	{ "frequency", T_U64, INFO(frequency), 0 },
	{ "clock", STR(clock) },
	{ "start_ns", T_U64, INFO(start_ns), 0 },
	{ "stop_ns", T_U64, INFO(stop_ns), 0 },
	{ "start_unix_ns", T_I64, INFO(start_unix_ns), 0 },
	{ "host", STR(host) },
	{ "kernel_release", STR(kernel_release) },
	{ "command_line", STR(command_line) },
	{ "separate", T_U32, INFO(separate), 0 },
	{ "kernel_excluded", T_BOOL, INFO(kernel_excluded), 0 },
	{ "samples", T_U64, INFO(samples), 0 },
	{ "samples_lost", T_U64, INFO(samples_lost), 0 },
	{ "samples_unattributed", T_U64, INFO(samples_unattributed), 0 },
	{ "samples_anon", T_U64, INFO(samples_anon), 0 },
	{ "samples_kernel", T_U64, INFO(samples_kernel), 0 },
	{ "processes", T_U32, INFO(processes), 0 },
	/* written only when not 0: a flat session stays as it was */
	{ "callgraph_depth", T_U32, INFO(callgraph_depth), 0 },
	/* written only in a session of several events, likewise */
	{ "event_periods", STR(event_periods) },
};

#define NR_KEYS (sizeof(meta_keys) / sizeof(meta_keys[0]))

/* Escapes keep one field on one line whatever the string holds. */
static int meta_put_escaped(struct ops_buf *out, const char *s)
{
	char esc[5];
	int ret = 0;

	for (; s && *s && !ret; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\')
			ret = ops_buf_put(out, "\\\\", 2);
		else if (c == '\n')
			ret = ops_buf_put(out, "\\n", 2);
		else if (c == '\t')
			ret = ops_buf_put(out, "\\t", 2);
		else if (c < 0x20 || c == 0x7f) {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
			ret = ops_buf_put(out, esc, 4);
		} else
			ret = ops_buf_put_u8(out, c);
	}
	return ret;
}

uint32_t ops_meta_version(const struct ops_session_info *info)
{
	if (!info->callgraph_depth)
		return OPS_FORMAT_VERSION_FLAT;
	return info->stack_deltas ? OPS_FORMAT_VERSION_RAW
				  : OPS_FORMAT_VERSION_DEFLATE;
}

int ops_meta_format(const struct ops_session_info *info, struct ops_buf *out)
{
	const char *base = (const char *)info;
	char num[32];
	size_t i;
	int ret;

	out->len = 0;
	snprintf(num, sizeof(num), "%s %u\n", OPS_META_MAGIC,
		 ops_meta_version(info));
	ret = ops_buf_put(out, num, strlen(num));
	for (i = 0; i < NR_KEYS && !ret; i++) {
		const struct meta_key *k = &meta_keys[i];
		const void *f = base + k->off;

		if (f == (const void *)&info->callgraph_depth &&
		    !info->callgraph_depth)
			continue;
		if (f == (const void *)&info->event_periods &&
		    (!info->event_periods || !*info->event_periods))
			continue;
		ret = ops_buf_put(out, k->name, strlen(k->name));
		ret = ret ? ret : ops_buf_put_u8(out, ' ');
		if (ret)
			break;
		switch (k->type) {
		case T_STR:
			ret = meta_put_escaped(out, *(const char *const *)f);
			num[0] = 0;
			break;
		case T_U64:
			snprintf(num, sizeof(num), "%" PRIu64,
				 *(const uint64_t *)f);
			break;
		case T_I64:
			snprintf(num, sizeof(num), "%" PRId64,
				 *(const int64_t *)f);
			break;
		case T_U32:
			snprintf(num, sizeof(num), "%" PRIu32,
				 *(const uint32_t *)f);
			break;
		case T_BOOL:
			snprintf(num, sizeof(num), "%d", *(const bool *)f);
			break;
		}
		ret = ret ? ret : ops_buf_put(out, num, strlen(num));
		ret = ret ? ret : ops_buf_put_u8(out, '\n');
	}
	return ret;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static char *meta_unescape(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i < n; i++) {
		if (s[i] != '\\') {
			*o++ = s[i];
			continue;
		}
		if (++i == n)
			goto bad;
		switch (s[i]) {
		case '\\':
			*o++ = '\\';
			break;
		case 'n':
			*o++ = '\n';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'x':
			if (n - i < 3 || hexval(s[i + 1]) < 0 ||
			    hexval(s[i + 2]) < 0 ||
			    !(hexval(s[i + 1]) | hexval(s[i + 2])))
				goto bad;
			*o++ = (char)(hexval(s[i + 1]) << 4 |
				      hexval(s[i + 2]));
			i += 2;
			break;
		default:
			goto bad;
		}
	}
	*o = 0;
	return out;
bad:
	free(out);
	errno = EINVAL;
	return NULL;
}

static int meta_parse_u64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (!n || n > 20)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -EINVAL;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static int meta_parse_value(struct ops_meta *m, const struct meta_key *k,
			    const char *v, size_t n)
{
	void *f = (char *)&m->info + k->off;
	uint64_t x;
	char **sp, *s;
	bool neg;

	switch (k->type) {
	case T_STR:
		s = meta_unescape(v, n);
		if (!s)
			return -errno;
		sp = (char **)((char *)m + k->str_off);
		free(*sp);
		*sp = s;
		return 0;
	case T_I64:
		neg = n && v[0] == '-';
		if (meta_parse_u64(v + neg, n - neg, &x) ||
		    x > (uint64_t)INT64_MAX + neg)
			return -EINVAL;
		*(int64_t *)f = neg ? (int64_t)(0 - x) : (int64_t)x;
		return 0;
	case T_U64:
		if (meta_parse_u64(v, n, &x))
			return -EINVAL;
		*(uint64_t *)f = x;
		return 0;
	case T_U32:
		if (meta_parse_u64(v, n, &x) || x > UINT32_MAX)
			return -EINVAL;
		*(uint32_t *)f = (uint32_t)x;
		return 0;
	case T_BOOL:
		if (n != 1 || (v[0] != '0' && v[0] != '1'))
			return -EINVAL;
		*(bool *)f = v[0] == '1';
		return 0;
	}
	return -EINVAL;
}

static void meta_point_strings(struct ops_meta *m)
{
	char **s[] = {
		&m->event,	    &m->clock,	      &m->host,
		&m->kernel_release, &m->command_line, &m->event_periods
	};
	size_t i;

	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		if (!*s[i])
			*s[i] = strdup("");
	m->info.event = m->event;
	m->info.clock = m->clock;
	m->info.host = m->host;
	m->info.kernel_release = m->kernel_release;
	m->info.command_line = m->command_line;
	m->info.event_periods = m->event_periods;
}

static int meta_parse_header(const char *line, size_t n, const char *path,
			     uint32_t *version, char *err, size_t errlen)
{
	size_t ml = strlen(OPS_META_MAGIC);
	uint64_t v;

	if (n <= ml + 1 || memcmp(line, OPS_META_MAGIC " ", ml + 1) ||
	    meta_parse_u64(line + ml + 1, n - ml - 1, &v)) {
		snprintf(err, errlen, "%s: line 1: not an opjit session file",
			 path);
		return -EINVAL;
	}
	if (v < OPS_FORMAT_VERSION_FLAT || v > OPS_FORMAT_VERSION) {
		snprintf(err, errlen,
			 "%s: line 1: unknown version %" PRIu64
			 " (this reader knows %d)",
			 path, v, OPS_FORMAT_VERSION);
		return -EPROTONOSUPPORT;
	}
	*version = (uint32_t)v;
	return 0;
}

int ops_meta_parse(const char *buf, size_t len, const char *path,
		   struct ops_meta *m, char *err, size_t errlen)
{
	const char *p = buf, *end = buf + len, *nl, *sp, *nul;
	unsigned long lineno = 0, event_line = 0;
	size_t i, n, klen;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	m->info.format_version = OPS_FORMAT_VERSION;
	nul = len ? memchr(buf, 0, len) : NULL;
	if (nul) {
		snprintf(err, errlen, "%s: offset %zu: NUL byte in text file",
			 path, (size_t)(nul - buf));
		ret = -EINVAL;
		goto out;
	}
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		lineno++;
		if (lineno == 1) {
			ret = meta_parse_header(p, n, path,
						&m->info.format_version, err,
						errlen);
			if (ret)
				goto out;
			m->info.stack_deltas = m->info.format_version >=
					       OPS_FORMAT_VERSION_DELTAS;
		} else if (n) {
			sp = memchr(p, ' ', n);
			if (!sp) {
				snprintf(err, errlen,
					 "%s: line %lu: no value after key",
					 path, lineno);
				ret = -EINVAL;
				goto out;
			}
			klen = (size_t)(sp - p);
			for (i = 0; i < NR_KEYS; i++) {
				const struct meta_key *k = &meta_keys[i];

				if (strlen(k->name) != klen ||
				    memcmp(k->name, p, klen))
					continue;
				if (!strcmp(k->name, "event"))
					event_line = lineno;
				ret = meta_parse_value(m, k, sp + 1,
						       n - klen - 1);
				if (ret == -ENOMEM) {
					snprintf(err, errlen,
						 "%s: out of memory", path);
					goto out;
				}
				if (ret) {
					snprintf(
						err, errlen,
						"%s: line %lu: bad value for %s",
						path, lineno, k->name);
					goto out;
				}
				break;
			}
		}
		p += n + (nl != NULL);
	}
	if (!lineno) {
		snprintf(err, errlen, "%s: offset 0: empty file", path);
		ret = -EINVAL;
		goto out;
	}
	/* the writer ends every line: a last line without its newline is
	 * a file cut short, whose last value may be cut too */
	if (buf[len - 1] != '\n') {
		snprintf(err, errlen,
			 "%s: line %lu: truncated (no newline at the end)",
			 path, lineno);
		ret = -EINVAL;
		goto out;
	}
	/* without it no count in the session means anything */
	if (!m->event || !*m->event) {
		if (event_line)
			snprintf(err, errlen,
				 "%s: line %lu: empty value for event", path,
				 event_line);
		else
			snprintf(err, errlen, "%s: no event line", path);
		ret = -EINVAL;
		goto out;
	}
	meta_point_strings(m);
	if (!m->event || !m->clock || !m->host || !m->kernel_release ||
	    !m->command_line || !m->event_periods) {
		snprintf(err, errlen, "%s: out of memory", path);
		ret = -ENOMEM;
	}
out:
	if (ret)
		ops_meta_free(m);
	return ret;
}

void ops_meta_free(struct ops_meta *m)
{
	free(m->event);
	free(m->clock);
	free(m->host);
	free(m->kernel_release);
	free(m->command_line);
	free(m->event_periods);
	memset(m, 0, sizeof(*m));
}

int ops_meta_copy(struct ops_meta *m, const struct ops_session_info *info)
{
	const char *src[] = { info->event,	  info->clock,
			      info->host,	  info->kernel_release,
			      info->command_line, info->event_periods };
	char **dst[] = { &m->event,	   &m->clock,
			 &m->host,	   &m->kernel_release,
			 &m->command_line, &m->event_periods };
	size_t i;

	m->info = *info;
	m->info.format_version = ops_meta_version(info);
	for (i = 0; i < sizeof(dst) / sizeof(dst[0]); i++) {
		free(*dst[i]);
		*dst[i] = strdup(src[i] ? src[i] : "");
		if (!*dst[i])
			return -ENOMEM;
	}
	m->info.event = m->event;
	m->info.clock = m->clock;
	m->info.host = m->host;
	m->info.kernel_release = m->kernel_release;
	m->info.command_line = m->command_line;
	m->info.event_periods = m->event_periods;
	return 0;
}
