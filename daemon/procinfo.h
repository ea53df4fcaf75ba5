/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What /proc says about a process, read once per process. */
#ifndef OPROFILED_PROCINFO_H
#define OPROFILED_PROCINFO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proctab.h"

/* What is assumed of a process /proc no longer shows: no uid but root
 * is trusted with its maps. */
void procinfo_defaults(struct proc *p);
/* Fill P's identity (uid, start times, nspid, exe, mount namespace). */
int procinfo_read(struct proc *p);
int procinfo_comm(pid_t pid, char comm[PROC_COMM_MAX]);
/* Thread TID's of process PID: /proc/PID/task/TID/comm. */
int procinfo_thread_comm(pid_t pid, pid_t tid, char comm[PROC_COMM_MAX]);
/* The target of /proc/PID/exe, malloc'd. */
int procinfo_exe(pid_t pid, char **exe);
/* /proc/PID/stat's starttime (clock ticks since boot, CLOCK_BOOTTIME)
 * as CLOCK_MONOTONIC and unix ns, given the clocks read now. */
void procinfo_convert_start(uint64_t ticks, long hz, uint64_t boot_now,
			    uint64_t mono_now, int64_t real_now,
			    uint64_t *mono_ns, int64_t *unix_ns);
/* Parse the text of /proc/PID/stat: starttime (field 22). */
int procinfo_parse_starttime(const char *stat, uint64_t *ticks);
/* Whether /proc/PID/stat's text is a kernel thread's (PF_KTHREAD). */
bool procinfo_parse_kthread(const char *stat);
/* Whether PID is a kernel thread, which runs no user code. */
bool procinfo_is_kthread(pid_t pid);

#endif
