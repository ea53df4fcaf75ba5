// SPDX-License-Identifier: MIT
/* The agent's option string, as given after -agentpath:LIB= or to
 * jcmd JVMTI.agent_load LIB "OPTIONS". */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

static int opts_set_str(char **dst, const char *val, size_t n)
{
	free(*dst);
	*dst = strndup(val, n);
	return *dst ? 0 : -ENOMEM;
}

/* NAME[=VALUE]: VALUE in decimal, DEF when absent. */
static int opts_number(const char *val, size_t vlen, const char *name,
		       const char *unit, long long def, long long min,
		       long long max, long long *dst, char *err, size_t errlen)
{
	long long v = 0;
	size_t i;

	if (!val) {
		*dst = def;
		return 0;
	}
	for (i = 0; i < vlen && val[i] >= '0' && val[i] <= '9'; i++) {
		v = v * 10 + (val[i] - '0');
		if (v > max)
			break;
	}
	if (!vlen || i < vlen || v < min || v > max) {
		snprintf(err, errlen,
			 "%s wants %s from %lld to %lld, not '%.*s'", name,
			 unit, min, max, (int)vlen, val);
		return -EINVAL;
	}
	*dst = v;
	return 0;
}

static int opts_one(const char *item, size_t n, struct agent_opts *o,
		    char *err, size_t errlen)
{
	const char *eq = memchr(item, '=', n);
	size_t klen = eq ? (size_t)(eq - item) : n;
	const char *val = eq ? eq + 1 : NULL;
	size_t vlen = eq ? n - klen - 1 : 0;

	if (klen == 4 && !memcmp(item, "file", 4)) {
		if (!val || !vlen || val[0] != '/') {
			snprintf(err, errlen,
				 "file wants an absolute path, not '%.*s'",
				 (int)vlen, val ? val : "");
			return -EINVAL;
		}
		return opts_set_str(&o->file, val, vlen);
	}
	if (klen == 6 && !memcmp(item, "inline", 6)) {
		if (val && vlen == 3 && !memcmp(val, "yes", 3))
			o->inline_frames = 1;
		else if (val && vlen == 2 && !memcmp(val, "no", 2))
			o->inline_frames = 0;
		else {
			snprintf(err, errlen,
				 "inline wants yes or no, not '%.*s'",
				 (int)vlen, val ? val : "");
			return -EINVAL;
		}
		return 0;
	}
	if (klen == 5 && !memcmp(item, "debug", 5)) {
		if (!val)
			return opts_set_str(&o->debug, "-", 1);
		if (!vlen || val[0] != '/') {
			snprintf(err, errlen,
				 "debug wants an absolute path, not '%.*s'",
				 (int)vlen, val);
			return -EINVAL;
		}
		return opts_set_str(&o->debug, val, vlen);
	}
	if (klen == 5 && !memcmp(item, "alloc", 5))
		return opts_number(val, vlen, "alloc", "bytes", 512 << 10, 0,
				   INT32_MAX, &o->alloc, err, errlen);
	if (klen == 4 && !memcmp(item, "lock", 4))
		return opts_number(val, vlen, "lock", "nanoseconds", 10000, 0,
				   1000000000000ll, &o->lock, err, errlen);
	/* the log's own bound on the bytes of code it copies */
	if (klen == 4 && !memcmp(item, "code", 4))
		return opts_number(val, vlen, "code", "bytes",
				   AGENT_CODE_BUDGET, 1, 512ll << 20, &o->code,
				   err, errlen);
	snprintf(err, errlen,
		 "unknown option '%.*s' (known: file, inline, debug, alloc, "
		 "lock, code)",
		 (int)n, item);
	return -EINVAL;
}

int agent_opts_parse(const char *s, struct agent_opts *o, char *err,
		     size_t errlen)
{
	int ret = 0;

	o->file = NULL;
	o->debug = NULL;
	o->inline_frames = 1;
	o->alloc = -1;
	o->lock = -1;
	o->code = -1;
	if (!s)
		return 0;
	while (*s) {
		const char *end = strchr(s, ',');
		size_t n = end ? (size_t)(end - s) : strlen(s);

		if (n) {
			ret = opts_one(s, n, o, err, errlen);
			if (ret == -ENOMEM)
				snprintf(err, errlen, "out of memory");
			if (ret)
				goto out;
		}
		s += n;
		if (*s == ',')
			s++;
	}
out:
	if (ret) {
		/* the reason quotes the user's text: keep it one line */
		for (char *c = err; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
		agent_opts_free(o);
	}
	return ret;
}

void agent_opts_free(struct agent_opts *o)
{
	free(o->file);
	free(o->debug);
	o->file = NULL;
	o->debug = NULL;
}
