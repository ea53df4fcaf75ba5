// SPDX-License-Identifier: GPL-3.0-or-later
#include "evname.h"

#include <linux/perf_event.h>
#include <string.h>

#define SW(n, c)                                         \
	{                                                \
		n, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c \
	}
#define HW(n, c)                                         \
	{                                                \
		n, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c \
	}

static const struct evname evname_table[] = {
	SW("cpu-clock", CPU_CLOCK),
	SW("task-clock", TASK_CLOCK),
	SW("page-faults", PAGE_FAULTS),
	SW("faults", PAGE_FAULTS),
	SW("context-switches", CONTEXT_SWITCHES),
	SW("cs", CONTEXT_SWITCHES),
	SW("cpu-migrations", CPU_MIGRATIONS),
	SW("migrations", CPU_MIGRATIONS),
	SW("minor-faults", PAGE_FAULTS_MIN),
	SW("major-faults", PAGE_FAULTS_MAJ),
	SW("alignment-faults", ALIGNMENT_FAULTS),
	SW("emulation-faults", EMULATION_FAULTS),
	HW("cycles", CPU_CYCLES),
	HW("cpu-cycles", CPU_CYCLES),
	HW("instructions", INSTRUCTIONS),
	HW("cache-references", CACHE_REFERENCES),
	HW("cache-misses", CACHE_MISSES),
	HW("branches", BRANCH_INSTRUCTIONS),
	HW("branch-instructions", BRANCH_INSTRUCTIONS),
	HW("branch-misses", BRANCH_MISSES),
	HW("bus-cycles", BUS_CYCLES),
	HW("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND),
	HW("stalled-cycles-backend", STALLED_CYCLES_BACKEND),
	HW("ref-cycles", REF_CPU_CYCLES),
};

const struct evname *evname_find(const char *name)
{
	for (size_t i = 0; i < sizeof(evname_table) / sizeof(*evname_table);
	     i++)
		if (!strcmp(evname_table[i].name, name))
			return &evname_table[i];
	return NULL;
}

bool evname_is_hardware(const struct evname *ev)
{
	return ev->type == PERF_TYPE_HARDWARE;
}
