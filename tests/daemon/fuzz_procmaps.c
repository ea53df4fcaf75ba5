// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer: /proc/PID/maps lines, mapping names and /proc/PID/stat. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "procinfo.h"
#include "procmaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1);
	struct procmaps_line m;
	uint64_t ticks;

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	if (!procmaps_parse_line(line, &m)) {
		if (m.end < m.start)
			abort();
		mapname_classify(m.path);
	}
	mapname_classify(line);
	memcpy(line, data, size);
	line[size] = '\0';
	procinfo_parse_starttime(line, &ticks);
	free(line);
	return 0;
}
