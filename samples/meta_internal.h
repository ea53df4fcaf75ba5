/* SPDX-License-Identifier: GPL-3.0-or-later */
/* session.meta: the text metadata file (FORMAT.md, "session.meta"). */
#ifndef OPS_META_INTERNAL_H
#define OPS_META_INTERNAL_H

#include <stddef.h>

#include <opjit/samples.h>

#include "bytes_internal.h"

#define OPS_META_MAGIC "opjit-session"
/* The largest session.meta read: room for the longest command line the
 * kernel passes, escaped. */
#define OPS_META_MAX (16u << 20)

/* Parsed metadata; the strings of info point at the owned copies. */
struct ops_meta {
	struct ops_session_info info;
	char *event, *clock, *host, *kernel_release, *command_line;
	char *event_periods;
};

int ops_meta_format(const struct ops_session_info *info, struct ops_buf *out);
/* The format version a session of INFO is written as: 1 without call
 * graphs, 5 with stack deltas, 4 with call graphs otherwise. */
uint32_t ops_meta_version(const struct ops_session_info *info);

/* Parse LEN bytes of a session.meta named PATH.  On failure ERR holds
 * one line naming PATH and the line number.  Strings are never NULL. */
int ops_meta_parse(const char *buf, size_t len, const char *path,
		   struct ops_meta *m, char *err, size_t errlen);
void ops_meta_free(struct ops_meta *m);

/* Copy INFO's strings into M (for the writer). */
int ops_meta_copy(struct ops_meta *m, const struct ops_session_info *info);

#endif /* OPS_META_INTERNAL_H */
