/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * --time=START,END (seconds from the session's start, either side may be
 * left out) or --time=P%-Q% (shares of the session's length), as perf
 * report's --time takes them; shared by every reporting tool.
 */
#ifndef OPREPORT_TIMERANGE_H
#define OPREPORT_TIMERANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ops_session;

struct timerange {
	bool set;
	bool percent;	 /* FROM and TO are percentages */
	double from, to; /* seconds or percent; TO < 0: the end */
};

/* Parse S into T: 0, or -EINVAL with one line in ERR naming the value. */
int timerange_parse(const char *s, struct timerange *t, char *err,
		    size_t errlen);

/* Restrict session S to T (nothing when T is not set): 0, or a negative
 * errno with one line in ERR (a share of a session whose length is not
 * known).  *UNTIMED: flat samples the window leaves out for having no
 * time (a session recorded before time slices). */
int timerange_apply(const struct timerange *t, struct ops_session *s,
		    uint64_t *untimed, char *err, size_t errlen);

/* The session's length in ns: stop - start, or, for a recorder that
 * did not stop cleanly, the end of its last time slice (0: unknown). */
uint64_t timerange_session_len(const struct ops_session *s);

#endif
