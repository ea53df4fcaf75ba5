/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Profile specifications, OProfile's way of choosing what a report
 * covers: "image:PATTERN[,PATTERN...]", "tgid:N[,N...]" and
 * "tid:N[,N...]".  Tags of the same kind add up; different tags must all
 * match.
 */
#ifndef OPREPORT_SPEC_H
#define OPREPORT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profile_spec;

/* NULL when out of memory (not reported). */
struct profile_spec *profile_spec_new(void);
void profile_spec_free(struct profile_spec *spec);

/* Add one command-line word.  0, -ENOMEM, or -EINVAL with one line in
 * ERR naming the word and the problem (not reported). */
int profile_spec_parse(struct profile_spec *spec, const char *word, char *err,
		       size_t errlen);

/* No word at all: everything matches. */
bool profile_spec_is_empty(const struct profile_spec *spec);
/* DST's words become SRC's.  0 or -ENOMEM (not reported). */
int profile_spec_copy(struct profile_spec *dst,
		      const struct profile_spec *src);
bool profile_spec_has_image(const struct profile_spec *spec);
bool profile_spec_has_tgid(const struct profile_spec *spec);

/* Whether an image path matches: a pattern matches the whole path or,
 * when it has no '/', the base name, literally or with shell
 * wildcards. */
bool profile_spec_match_image(const struct profile_spec *spec,
			      const char *path);
/* Whether a kernel module's code matches, by NAME as /proc/modules
 * writes it: "[NAME]" as reports show it, NAME, or NAME.ko (shell
 * wildcards work in the last two), for module code the recorder filed
 * under the kernel. */
bool profile_spec_match_module(const struct profile_spec *spec,
			       const char *name);
bool profile_spec_match_tgid(const struct profile_spec *spec, uint32_t tgid);
/* tid:N,...: the threads asked for; only JIT samples carry their thread */
bool profile_spec_has_tid(const struct profile_spec *spec);
bool profile_spec_match_tid(const struct profile_spec *spec, uint32_t tid);

#endif
