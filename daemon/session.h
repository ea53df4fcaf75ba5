/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Opening the counters for what the user asked to profile. */
#ifndef OPROFILED_SESSION_H
#define OPROFILED_SESSION_H

#include "counters.h"
#include "options.h"

/* Open counters on every thread of PID, including threads that appear
 * while we look. */
int session_open_pid(struct counters *c, pid_t pid);
/* One line saying why the counters could not be opened. */
void session_report_open_error(const struct options *o, int err);
int session_paranoid(void);
uint64_t session_clock_ns(int clock);

#endif
