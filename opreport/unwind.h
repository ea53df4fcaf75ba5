/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The frames that frame pointers missed, unwound from the session's
 * stack copies (the user registers and the top of the user stack of a
 * -g sample) with the images' call-frame information through elfutils'
 * libdwfl, placed with the recorded process mappings and joined to the
 * kernel's frame-pointer chain where it becomes valid again.
 *
 * Bad input costs bounded work: at most UNWIND_MAX_FRAMES frames a
 * copy, reads only inside the copy, and one warning line per image
 * whose frames could not be unwound; such a copy keeps its
 * frame-pointer stack.
 */
#ifndef OPREPORT_UNWIND_H
#define OPREPORT_UNWIND_H

#include <stdbool.h>
#include <stddef.h>

#include <opjit/samples.h>

#include "callgraph.h"

/* Frames unwound from one copy at most: a loop ends here. */
#define UNWIND_MAX_FRAMES 256

struct unwind;
struct opreport_opts;

/* An unwinder over the copies of session S; *OUT NULL when S has no
 * copies or no process mappings.  0 or -ENOMEM (not reported). */
int unwind_new(struct unwind **out, struct ops_session *s,
	       const struct opreport_opts *o);
void unwind_free(struct unwind *u);

/* Where an unwound stack's root is. */
enum unwind_root {
	UNWIND_WHOLE,	  /* the outermost frame */
	UNWIND_CUT_CHAIN, /* the frame-pointer chain's, cut at the depth */
	UNWIND_CUT_COPY,  /* where the copy or the frame limit ended */
};

/* Copy C's stack, leaf first, into FRAMES (room for MAX), its
 * frame-pointer stack FP joined below the unwound frames where they
 * meet (the kernel frames of a sample taken in the kernel above them,
 * the copy being of the user stack at the kernel's entry); the number of frames, or 0 when the copy could not be unwound
 * past its leaf (then its frame-pointer stack stands).  *ROOT says
 * whether the stack's root is the outermost frame. */
size_t unwind_stack(struct unwind *u, const struct ops_stack_copy *c,
		    const struct ops_stack *fp, struct cg_raw_frame *frames,
		    size_t max, enum unwind_root *root);

/* Copies unwound and copies that kept their frame-pointer stacks. */
void unwind_stats(const struct unwind *u, size_t *unwound, size_t *kept);

/* Copies whose unwinding was remembered from an earlier copy's
 * (unwind_memo.h), and copies unwound by libdwfl. */
void unwind_memo_counts(const struct unwind *u, size_t *hits, size_t *misses);

#endif
