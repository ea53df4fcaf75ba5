// SPDX-License-Identifier: GPL-3.0-or-later
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include <oputil/escape.h>
#include "out.h"
#include "strpool.h"

const char *out_event_desc(const char *event)
{
	if (!event)
		return "";
	if (!strcmp(event, "cpu-clock"))
		return " (software timer)";
	if (!strcmp(event, "task-clock"))
		return " (software task timer)";
	return "";
}

const char *out_kind_name(enum row_kind kind)
{
	switch (kind) {
	case ROW_FILE:
		return "file";
	case ROW_KERNEL:
		return "kernel";
	case ROW_JIT:
		return "jit";
	case ROW_ANON:
		return "anon";
	}
	return "file";
}

const char *out_file_name(const struct report *r, const char *file)
{
	const char *base;

	if (!file || r->opts->long_filenames)
		return file;
	base = strrchr(file, '/');
	return base && base[1] ? base + 1 : file;
}

void out_anon_hidden_note(char *buf, size_t len, const struct report *r)
{
	snprintf(
		buf, len,
		"note: %" PRIu64 " of %" PRIu64
		" samples (%.1f%%) ran in anonymous memory (JIT code) and are not shown; " OUT_ANON_OPTION
		" names them",
		r->anon_hidden, r->total,
		report_percent(r, r->anon_hidden, 0));
}

void out_date(const struct report *r, char *buf, size_t len)
{
	time_t t = (time_t)(r->info->start_unix_ns / 1000000000);
	struct tm tm;

	if (!r->info->start_unix_ns || !gmtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "at an unknown time");
}

const char *out_safe(struct strpool *pool, const char *s)
{
	size_t len;
	char *d;

	if (!s || !oputil_escape_needed(s))
		return s;
	len = oputil_escape_text(NULL, 0, s);
	d = strpool_alloc(pool, len + 1);
	if (!d)
		return "(out of memory)";
	oputil_escape_text(d, len + 1, s);
	return d;
}

void out_warnf(const char *fmt, ...)
{
	char msg[2048], *safe;
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	len = oputil_escape_text(NULL, 0, msg);
	safe = malloc(len + 1);
	if (safe)
		oputil_escape_text(safe, len + 1, msg);
	diag("warning: %s", safe ? safe : msg);
	free(safe);
}

int out_line_limit(FILE *f, const struct report *r)
{
	struct winsize ws;
	const char *env;

	if (r->opts->long_filenames || !isatty(fileno(f)))
		return 0;
	if (!ioctl(fileno(f), TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	env = getenv("COLUMNS");
	if (env && atoi(env) > 0)
		return atoi(env);
	return 80;
}
