// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer target: the samples.hist reader on arbitrary bytes. */
#include <stdint.h>
#include <stdlib.h>

#include "reader_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void count_warning(void *arg, const char *msg)
{
	(*(int *)arg)++;
	if (!*msg)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ops_hist_data h;
	int warnings = 0;
	size_t i;

	if (ops_hist_parse(&h, data, size, "fuzz/samples.hist", count_warning,
			   &warnings))
		return 0;
	/* the promises a report relies on */
	if (warnings > 1)
		abort();
	for (i = 0; i < h.nr_contexts; i++)
		if (h.contexts[i].app >= h.nr_images ||
		    h.contexts[i].image >= h.nr_images)
			abort();
	for (i = 0; i < h.nr_entries; i++) {
		if (h.entries[i].ctx >= h.nr_contexts)
			abort();
		if (i && (h.entries[i - 1].ctx > h.entries[i].ctx ||
			  (h.entries[i - 1].ctx == h.entries[i].ctx &&
			   h.entries[i - 1].offset >= h.entries[i].offset)))
			abort();
	}
	ops_hist_data_free(&h);
	return 0;
}
