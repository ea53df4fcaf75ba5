// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer target: the session.meta parser on arbitrary bytes; what
 * parses must write back and parse to the same fields. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "meta_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same_str(const char *a, const char *b)
{
	if (!a || !b || strcmp(a, b))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ops_meta m, again;
	struct ops_buf out = { 0 };
	char err[256];

	err[0] = 0;
	if (ops_meta_parse((const char *)data, size, "fuzz/session.meta", &m,
			   err, sizeof(err))) {
		/* a failure is always one line naming the file */
		if (strncmp(err, "fuzz/session.meta", 17) || strchr(err, '\n'))
			abort();
		return 0;
	}
	if (ops_meta_format(&m.info, &out) ||
	    ops_meta_parse((const char *)out.data, out.len, "again", &again,
			   err, sizeof(err)))
		abort();
	same_str(m.info.event, again.info.event);
	same_str(m.info.clock, again.info.clock);
	same_str(m.info.host, again.info.host);
	same_str(m.info.kernel_release, again.info.kernel_release);
	same_str(m.info.command_line, again.info.command_line);
	same_str(m.info.event_periods, again.info.event_periods);
	if (m.info.samples != again.info.samples ||
	    m.info.start_unix_ns != again.info.start_unix_ns ||
	    m.info.kernel_excluded != again.info.kernel_excluded ||
	    m.info.separate != again.info.separate)
		abort();
	ops_meta_free(&m);
	ops_meta_free(&again);
	ops_buf_free(&out);
	return 0;
}
