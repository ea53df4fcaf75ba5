// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The --time value: parsed once, applied to a session as a window of ns
 * from its start (ops_session_set_window), before any sample is read.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opjit/samples.h>

#include "timerange.h"

/* A number from P up to STOP (exclusive), none when P == STOP. */
static bool timerange_num(const char *p, const char *stop, double *v,
			  bool *given)
{
	char buf[64], *end;

	*given = p != stop;
	if (!*given)
		return true;
	if ((size_t)(stop - p) >= sizeof(buf))
		return false;
	memcpy(buf, p, stop - p);
	buf[stop - p] = '\0';
	/* digits and one point: no sign, exponent, hex, inf or nan */
	if (strspn(buf, "0123456789.") != strlen(buf))
		return false;
	errno = 0;
	*v = strtod(buf, &end);
	return !errno && end != buf && !*end && isfinite(*v);
}

int timerange_parse(const char *s, struct timerange *t, char *err,
		    size_t errlen)
{
	const char *sep, *end = s + strlen(s), *why = NULL;
	bool has_from, has_to;

	*t = (struct timerange){ .set = true, .to = -1 };
	t->percent = strchr(s, '%') != NULL;
	if (t->percent) {
		/* P%-Q%: both sides, each ending in % */
		sep = strstr(s, "%-");
		if (!sep || end - s < 2 || end[-1] != '%' ||
		    !timerange_num(s, sep, &t->from, &has_from) ||
		    !timerange_num(sep + 2, end - 1, &t->to, &has_to) ||
		    !has_from || !has_to)
			why = "expected START,END in seconds or P%-Q%";
		else if (t->to > 100)
			why = "a share is at most 100%";
	} else {
		sep = strchr(s, ',');
		if (!sep || !timerange_num(s, sep, &t->from, &has_from) ||
		    !timerange_num(sep + 1, end, &t->to, &has_to) ||
		    (!has_from && !has_to))
			why = "expected START,END in seconds or P%-Q%";
		if (!why && !has_from)
			t->from = 0;
		if (!why && !has_to)
			t->to = -1;
	}
	if (!why && t->to >= 0 && t->from >= t->to)
		why = "the start is not before the end";
	if (why) {
		snprintf(err, errlen, "invalid --time '%s': %s", s, why);
		t->set = false;
		return -EINVAL;
	}
	return 0;
}

uint64_t timerange_session_len(const struct ops_session *s)
{
	const struct ops_session_info *i = ops_session_info(s);
	const struct ops_time_count *tc;
	uint64_t len = 0;
	size_t n, k;

	if (i->stop_ns > i->start_ns)
		return i->stop_ns - i->start_ns;
	tc = ops_session_time_counts(s, &n);
	for (k = 0; k < n; k++)
		if (tc[k].start_ns + tc[k].len_ns > len)
			len = tc[k].start_ns + tc[k].len_ns;
	return len;
}

static uint64_t timerange_ns(double v)
{
	return v * 1e9 >= 1.8e19 ? UINT64_MAX : (uint64_t)(v * 1e9 + 0.5);
}

int timerange_apply(const struct timerange *t, struct ops_session *s,
		    uint64_t *untimed, char *err, size_t errlen)
{
	uint64_t from, to, len;

	*untimed = 0;
	if (!t->set)
		return 0;
	if (t->percent) {
		len = timerange_session_len(s);
		if (!len) {
			snprintf(
				err, errlen,
				"session %s: its length is not known (the recorder did not stop cleanly): give --time in seconds",
				ops_session_dir(s));
			return -EINVAL;
		}
		from = (uint64_t)((double)len * t->from / 100);
		to = t->to >= 100 ? UINT64_MAX
				  : (uint64_t)((double)len * t->to / 100);
	} else {
		from = timerange_ns(t->from);
		to = t->to < 0 ? UINT64_MAX : timerange_ns(t->to);
	}
	*untimed = ops_session_untimed(s);
	if (ops_session_set_window(s, from, to)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}
