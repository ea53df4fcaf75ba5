// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer target: the anon.samples reader, index and decode, on
 * arbitrary bytes. */
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
	const struct ops_anon_sample *s;
	struct ops_anon_data a;
	int warnings = 0;
	uint32_t p, r;
	size_t n, again;

	if (ops_anon_parse(&a, data, size, "fuzz/anon.samples", count_warning,
			   &warnings))
		return 0;
	for (p = 0; p < a.nr_procs; p++) {
		const struct ops_process *proc = &a.procs[p].p;

		if (!proc->comm || !proc->exe || (proc->nr_ranges &&
						  !proc->ranges))
			abort();
		for (r = 0; r < proc->nr_ranges; r++)
			if (proc->ranges[r].end < proc->ranges[r].start)
				abort();
		if (ops_anon_decode(&a, p, &s, &n))
			continue;
		if (n > a.procs[p].nr_samples)
			abort();
		/* cached: the same answer twice */
		if (ops_anon_decode(&a, p, &s, &again) || again != n)
			abort();
	}
	if (warnings > 1)
		abort();
	ops_anon_data_free(&a);
	return 0;
}
