// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer target: the anon.samples reader, index and decode, on
 * arbitrary bytes, each of the first three events' samples in turn, as
 * many as ops_anon_count_event counts of each beforehand. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_blocks.h"
#include "reader_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void count_warning(void *arg, const char *msg)
{
	(*(int *)arg)++;
	if (!*msg)
		abort();
}

/* Stack samples name only stacks with an entry. */
static void check_stacks(struct ops_anon_data *a, uint32_t p)
{
	const struct ops_anon_stack_sample *s;
	size_t n, i, again;

	if (ops_anon_decode_stacks(a, p, &s, &n))
		return;
	if (n > a->procs[p].nr_ssamples)
		abort();
	for (i = 0; i < n; i++)
		if (s[i].stack >= a->nr_stacks)
			abort();
	if (ops_anon_decode_stacks(a, p, &s, &again) || again != n)
		abort();
}

/* The samples of process P that decode, added to *SUM. */
static void check_process(struct ops_anon_data *a, uint32_t p, uint64_t *sum)
{
	const struct ops_process *proc = &a->procs[p].p;
	const struct ops_anon_sample *s;
	size_t n, again;
	uint32_t r;

	if (!proc->comm || !proc->exe || (proc->nr_ranges && !proc->ranges))
		abort();
	for (r = 0; r < proc->nr_ranges; r++)
		if (proc->ranges[r].end < proc->ranges[r].start)
			abort();
	/* out of memory: nothing to compare */
	if (ops_anon_decode(a, p, &s, &n)) {
		*sum = UINT64_MAX;
		return;
	}
	if (n > a->procs[p].nr_samples)
		abort();
	if (*sum != UINT64_MAX)
		*sum += n;
	/* cached: the same answer twice */
	if (ops_anon_decode(a, p, &s, &again) || again != n)
		abort();
	check_stacks(a, p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ops_anon_data a;
	uint64_t counted[3];
	int warnings = 0;
	uint8_t *buf;
	uint32_t p;
	size_t len;
	int fd;

	buf = fuzz_blocks_input(data, size, &len);
	/* the reader reads a file a block at a time */
	fd = memfd_create("anon.samples", MFD_CLOEXEC);
	if (fd < 0 || (len && write(fd, buf, len) != (ssize_t)len))
		abort();
	if (!ops_anon_open(&a, fd, "fuzz/anon.samples", count_warning,
			   &warnings)) {
		/* version 5's delta ids, when the first byte's bit 1 says
		 * so: six, each its stack's node; from 6 none */
		static const uint32_t nodes[] = { 7, 3, 1, 0, 6, 2 };

		/* stack ids from 8 have no entry */
		a.nr_stacks = 8;
		if (size && data[0] & 2) {
			a.stack_ids = nodes;
			a.nr_stack_ids = 6;
		}
		for (uint32_t e = 0; e < 3; e++)
			if (ops_anon_count_event(&a, e, &counted[e]))
				abort();
		for (uint32_t e = 0; e < 3; e++) {
			uint64_t sum = 0;

			ops_anon_select_event(&a, e);
			for (p = 0; p < a.nr_procs; p++)
				check_process(&a, p, &sum);
			if (sum != UINT64_MAX && sum != counted[e])
				abort();
		}
		/* one warning per damaged file, index and decode together */
		if (warnings > 1)
			abort();
	}
	ops_anon_data_free(&a);
	free(buf);
	return 0;
}
