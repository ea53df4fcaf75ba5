/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What unwinding a stack copy gave, remembered for the next copy that
 * would give the same (unwind.c).  A hot loop's copies are all distinct
 * (a counter, a clock, a buffer's bytes near sp), yet they share a few
 * register sets, and the words the unwinder reads (the saved registers
 * and return addresses) are the same from copy to copy.  libdwfl is a
 * function of the registers, the process layout and the words it reads,
 * the address of each read following from the registers and the words
 * read before it; so a copy with an entry's layout and registers that
 * holds the same word at each of the entry's reads (and, where a read
 * fell outside the copy, also has nothing there) unwinds to the entry's
 * frames, and libdwfl need not run.
 */
#ifndef OPREPORT_UNWIND_MEMO_H
#define OPREPORT_UNWIND_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <opjit/samples.h>

/* One word the unwinding read: at ADDR, VALUE, or outside the copy
 * (OK false). */
struct unwind_read {
	uint64_t addr, value;
	bool ok;
};

/* One unwound frame: its pc, and its rbp and rsp where KNOWN says they
 * are known (UNWIND_KNOWN_BP, UNWIND_KNOWN_SP). */
#define UNWIND_KNOWN_BP 0x1
#define UNWIND_KNOWN_SP 0x2
struct unwind_frame {
	uint64_t pc, bp, sp;
	uint8_t known;
};

/* What one unwinding gave: its frames, whether a read fell outside the
 * copy, and libdwfl's return. */
struct unwind_outcome {
	const struct unwind_frame *frames;
	size_t nr;
	bool fault;
	int ret;
};

struct unwind_memo;

/* An empty memo, or NULL (out of memory). */
struct unwind_memo *unwind_memo_new(void);
void unwind_memo_free(struct unwind_memo *m);

/* The remembered outcome of copy C unwound in process layout LAYOUT into
 * *OUT (its frames the memo's, good until the next add): true, or false
 * when no entry is known to fit. */
bool unwind_memo_find(struct unwind_memo *m, uint32_t layout,
		      const struct ops_stack_copy *c,
		      struct unwind_outcome *out);

/* Remember outcome O of copy C in LAYOUT, whose unwinding made the NR
 * reads READS in order.  Past the memo's bound of memory nothing more
 * is remembered.  0 or -ENOMEM (the memo as it was). */
int unwind_memo_add(struct unwind_memo *m, uint32_t layout,
		    const struct ops_stack_copy *c,
		    const struct unwind_read *reads, size_t nr,
		    const struct unwind_outcome *o);

/* Copies found, and copies looked for and not found. */
void unwind_memo_stats(const struct unwind_memo *m, size_t *hits,
		       size_t *misses);

#endif
