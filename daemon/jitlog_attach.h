/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Attaching to the on-attach logs of libopjit-jitlog (its opjit/jitlog.h
 * says the protocol): a process that maps the library has its control
 * block found in the library's dynamic symbols and set to ATTACH through
 * /proc/PID/mem, so that it writes its table of live code and its later
 * events for this session; at the end, once its log is archived, to
 * DETACH.
 */
#ifndef OPJIT_DAEMON_JITLOG_ATTACH_H
#define OPJIT_DAEMON_JITLOG_ATTACH_H

#include <stdbool.h>
#include <stdint.h>

struct recorder;
struct proc;

enum jitlog_attach_state {
	JITLOG_NONE,	 /* the library is not mapped */
	JITLOG_PENDING,	 /* found: attach at the end of the round */
	JITLOG_ATTACHED, /* its control block says ATTACH or later */
	JITLOG_FAILED,	 /* said why once; profiled without it */
};

/* Whether the file mapped at PATH is the library. */
bool jitlog_attach_is_library(const char *path);
/* P mapped the library's code from PATH at START, file offset PGOFF:
 * find its control block; the attach follows at the end of the round. */
void jitlog_attach_found(struct recorder *r, struct proc *p, const char *path,
			 uint64_t start, uint64_t pgoff);
/* End of a round: attach to the processes found. */
void jitlog_attach_pending(struct recorder *r);
/* End of the session: wait (at most a second) for the attached libraries
 * to write their tables, before the logs are archived. */
void jitlog_attach_settle(struct recorder *r);
/* After the archive: detach from every library attached to. */
void jitlog_attach_detach(struct recorder *r);
/* P is forgotten or reset: what was held for its attach goes. */
void jitlog_attach_forget(struct proc *p);

#endif
