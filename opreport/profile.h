/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The session as a profile: which samples the profile specifications
 * select, merged as --merge says, each resolved to its symbol (ELF
 * images through image_bfd, the kernel through kallsyms, anonymous
 * memory through anon_rows) and added to the report.
 */
#ifndef OPREPORT_PROFILE_H
#define OPREPORT_PROFILE_H

#include <opjit/samples.h>

#include "anon_handlers.h"
#include "report.h"

struct profile;

/* Fill R from S; R must outlive nothing of the profile: free the profile
 * only after the report is printed, since symbol names live in it.
 * 0 or a negative errno (reported). */
int profile_build(struct profile **out, struct report *r,
		  struct ops_session *s, struct anon_handlers *handlers);
void profile_free(struct profile *p);

#endif
