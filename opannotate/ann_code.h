/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The code of one report row, as annotation needs it: its instructions
 * and the source line of each, from the ELF image (libbfd, libopcodes)
 * or, for JIT code, from the bytes its handler kept; or why there is
 * none, and then only the sampled addresses are shown.
 */
#ifndef OPANNOTATE_ANN_CODE_H
#define OPANNOTATE_ANN_CODE_H

#include "annotate.h"

struct ann_code {
	struct ann_insn *insns;
	size_t nr_insns;
	const char **files; /* per instruction, or NULL */
	uint32_t *lines;
	uint64_t load_ns; /* JIT code: when this generation was loaded */
	const char *why;  /* no disassembly: why, else NULL */
	char whybuf[256];
	void *abfd;
};

/* Fill CODE for ROW over [START, START + LEN).  0, or -ENOMEM (not
 * reported); a row whose code cannot be had is 0 with CODE->why set,
 * said once through diag(). */
int ann_code_get(struct ann_code *code, const struct report *r,
		 const struct report_row *row, uint64_t start, uint64_t len);
void ann_code_release(struct ann_code *code);

#endif
