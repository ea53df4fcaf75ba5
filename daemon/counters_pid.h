/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Opening the counters for what the user asked to profile. */
#ifndef OPJIT_DAEMON_COUNTERS_PID_H
#define OPJIT_DAEMON_COUNTERS_PID_H

#include "counters.h"
#include "options.h"

/* Open counters on every thread of PID, including threads that appear
 * while we look. */
int counters_open_pid(struct counters *c, pid_t pid);
/* One line saying why the counters could not be opened. */
void counters_report_open_error(const struct options *o,
				const struct counters *c, int err);
/* kernel.perf_event_paranoid, 2 when it cannot be read. */
int counters_paranoid(void);

#endif
