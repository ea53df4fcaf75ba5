/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Source files as annotation reads them: each read once, split into
 * lines, and a file that cannot be read said once (then its lines are
 * shown as numbers alone).
 */
#ifndef OPANNOTATE_ANN_SRCFILE_H
#define OPANNOTATE_ANN_SRCFILE_H

#include <stddef.h>
#include <stdint.h>

struct ann_srcfiles;

/* NULL out of memory (not reported). */
struct ann_srcfiles *ann_srcfiles_new(void);
void ann_srcfiles_free(struct ann_srcfiles *c);

/* Line LINE (from 1) of PATH, without its newline, in *LEN bytes; NULL
 * when the file cannot be read (said once through diag()) or is shorter.
 * *NR_LINES, when not NULL, gets the file's line count (0 unread). */
const char *ann_srcfile_line(struct ann_srcfiles *c, const char *path,
			     uint32_t line, size_t *len, uint32_t *nr_lines);

#endif
