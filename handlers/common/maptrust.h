/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Trust rules for JIT map files (DESIGN.md "Trust"), the one helper both
 * handlers use.  A map is used only when it is a regular file (not a
 * symlink), owned by the process's uid or by root, not writable by group
 * or others, and not last modified before the process started.
 */
#ifndef OPJIT_MAPTRUST_H
#define OPJIT_MAPTRUST_H

#include <sys/stat.h>

struct opjit_host;
struct opjit_process;

/* The reason ST may not be trusted for PROC, or NULL when it may, e.g.
 * "not owned by uid 1000 or root". */
const char *maptrust_check(const struct stat *st,
			   const struct opjit_process *proc);

/*
 * Open PATH for reading if it may be trusted for PROC (O_NOFOLLOW, then
 * fstat on the open descriptor, so the file checked is the file read).
 * Returns a descriptor, or -1: silently when PATH does not exist, with
 * one warning through HOST ("PATH: REASON") for any other refusal.
 */
int maptrust_open(const struct opjit_host *host,
		  const struct opjit_process *proc, const char *path);

#endif
