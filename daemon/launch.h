/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The profiled command: forked early, held before exec until its counters
 * exist, so that nothing it runs escapes them.
 */
#ifndef OPROFILED_LAUNCH_H
#define OPROFILED_LAUNCH_H

#include <signal.h>
#include <sys/types.h>

struct launch {
	pid_t pid;
	int go_fd;  /* write end: closing it lets the child exec */
	int err_fd; /* read end: the child's errno if exec failed */
};

/* Whether execvp would find FILE: 0 or -ENOENT/-EACCES, so that a missing
 * command is reported before any session is created. */
int launch_find(const char *file);
/* The signal state the command must get, not oprofiled's own. */
struct launch_signals {
	sigset_t mask;
	int nr;
	int sig[4];
	struct sigaction action[4];
};

/* Fork the child for ARGV; it restores SIGNALS and waits. */
int launch_prepare(struct launch *l, char *const argv[],
		   const struct launch_signals *signals);
/* Let it exec: 0 once it did, or the negative errno of its failure. */
int launch_go(struct launch *l);
/* Kill a child that never ran its command. */
void launch_abort(struct launch *l);
/* Status as a shell reports it: the exit code, or 128 + signal. */
int launch_exit_code(int wstatus);

#endif
