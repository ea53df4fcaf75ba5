// SPDX-License-Identifier: GPL-3.0-or-later
#include "evname.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/* 0 when this process could count EV on itself, user space only (what
 * an unprivileged recording can always ask for), else -errno. */
static int evname_probe(const struct evname *ev)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = ev->type,
		.config = ev->config,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	close((int)fd);
	return 0;
}

/* One line per event: its name, then its aliases (the entries after it
 * with the same type and config). */
static int evname_list_type(FILE *out, uint32_t type, const char *what)
{
	const size_t n = sizeof(evname_table) / sizeof(*evname_table);
	int listed = 0, err = 0;

	for (size_t i = 0; i < n; i++) {
		const struct evname *ev = &evname_table[i];
		int rc;

		if (ev->type != type ||
		    (i > 0 && evname_table[i - 1].type == type &&
		     evname_table[i - 1].config == ev->config))
			continue;
		rc = evname_probe(ev);
		if (rc) {
			err = err ? err : rc;
			continue;
		}
		if (!listed++)
			fprintf(out, "%s events:\n", what);
		fprintf(out, "  %s", ev->name);
		for (size_t j = i + 1; j < n && evname_table[j].type == type &&
				       evname_table[j].config == ev->config;
		     j++)
			fprintf(out, " (%s)", evname_table[j].name);
		fputc('\n', out);
	}
	if (!listed)
		fprintf(out,
			"%s events: none available on this machine (%s)\n",
			what, strerror(-err));
	return listed;
}

void evname_list(FILE *out)
{
	evname_list_type(out, PERF_TYPE_SOFTWARE, "software");
	if (!evname_list_type(out, PERF_TYPE_HARDWARE, "hardware"))
		fprintf(out, "(a virtual machine usually has no hardware "
			     "counters; sample a software event)\n");
}
