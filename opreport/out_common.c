// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>
#include <stdio.h>
#include <time.h>

#include "out.h"

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

void out_date(const struct report *r, char *buf, size_t len)
{
	time_t t = (time_t)(r->info->start_unix_ns / 1000000000);
	struct tm tm;

	if (!r->info->start_unix_ns || !gmtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "at an unknown time");
}
