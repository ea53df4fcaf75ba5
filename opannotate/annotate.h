/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * opannotate: where inside the hot functions the samples land.  The
 * session is read into opreport's report model with per-address rows
 * (-d -g), then each kept symbol's code is disassembled (ann_disasm.c)
 * or each source file listed (ann_source.c) with those counts.
 */
#ifndef OPANNOTATE_ANNOTATE_H
#define OPANNOTATE_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "opreport.h"
#include "report.h"

struct annotate_opts {
	struct opreport_opts rep; /* session, specs, filters, handlers */
	bool assembly;		  /* --assembly */
	bool source;		  /* --source */
	bool json;		  /* --format=json */
	int context;		  /* --context=N, -1: every line */
};

/* 0 to go on, 1 when the run is over (--version), -1 on a bad option
 * (reported).  ann_options_free() in every case. */
int ann_options_parse(struct annotate_opts *o, int argc, const char **argv);
void ann_options_free(struct annotate_opts *o);

/* One instruction as libopcodes prints it. */
struct ann_insn {
	uint64_t vma;
	unsigned len;
	char text[160];
};

/*
 * Disassemble LEN bytes of BUF that sit at VMA, for the machine of ABFD
 * (a struct bfd *), or for the host when ABFD is NULL (JIT code).  Fills
 * *OUT with one entry per instruction (malloc'd); bytes that do not
 * decode come out as libopcodes says them, "(bad)".  0, -ENOMEM, or
 * -ENOTSUP when libopcodes has no disassembler for the machine (not
 * reported).  *TRUNC is set when the last instruction ran past the end.
 */
int ann_disasm(void *abfd, const uint8_t *buf, size_t len, uint64_t vma,
	       struct ann_insn **out, size_t *nr, bool *trunc);

/* The bytes of [VMA, VMA + *LEN) of the ELF image PATH, at link-time
 * addresses, *LEN cut at the end of the code section: 0 with *BUF
 * malloc'd and *ABFD open (ann_elf_close()), or a negative errno with WHY
 * saying why (not reported). */
int ann_elf_code(const char *path, uint64_t vma, uint64_t *len, uint8_t **buf,
		 void **abfd, char *why, size_t whylen);
void ann_elf_close(void *abfd);

/* The outputs; 0 or -EIO / -ENOMEM (not reported). */
int ann_assembly(FILE *f, const struct annotate_opts *o,
		 const struct report *r);
int ann_source(FILE *f, const struct annotate_opts *o, const struct report *r);

/* Whether row ROW is annotated: kept by -i/-e and the threshold, and a
 * symbol's. */
bool ann_row_wanted(const struct report *r, const struct report_row *row);

#endif
