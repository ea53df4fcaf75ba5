/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Lines of /proc/PID/maps, and what a mapping's name says about the code
 * in it.
 */
#ifndef OPROFILED_PROCMAPS_H
#define OPROFILED_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct procmaps_line {
	uint64_t start, end, pgoff;
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	bool exec;
	bool write;
	bool shared;	  /* 's': MAP_SHARED */
	const char *path; /* points into the parsed line; "" when none */
};

/* Parse one line (its newline, if any, is cut off in place). */
int procmaps_parse_line(char *line, struct procmaps_line *out);

enum mapkind {
	MAPKIND_FILE,	 /* an ELF image the report can open */
	MAPKIND_ANON,	 /* code only a JIT's map can name */
	MAPKIND_SPECIAL, /* [vdso] and the like: counted under its name */
};

enum mapkind mapname_classify(const char *name);
/* Whether NAME is a perf jitdump file (/any/dir/jit-<pid>.dump, perhaps
 * deleted since): a runtime maps it only so that profilers see where it
 * is.  *LEN is the length of the path without " (deleted)". */
bool mapname_is_jitdump(const char *name, size_t *len);

#endif
