/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The walk libdwfl's x86-64 unwinder makes over a stack copy
 * (dwfl_getthread_frames), made here with each pc's call-frame rules
 * looked up once per process layout and kept: libdwfl looks them up
 * afresh for every frame of every copy (an FDE search, its CFA program
 * run, a Dwarf_Frame and a frame state allocated and freed), which was
 * most of a report's time on a PyPy dwarf session and, under ASan, most
 * of its allocations.  Each step is libdwfl's (frame_unwind.c,
 * handle_cfi and expr_eval): the same registers, the same reads in the
 * same order, the same end: the .eh_frame entry for a pc, else the
 * .debug_frame one, else (JIT code, hand-written code) the x86-64
 * backend's frame-pointer step.  A frame whose step libdwfl takes
 * another way (a signal frame, an operation not written here) makes
 * the walk give up, and unwind.c unwinds that copy with libdwfl itself.
 */
#ifndef OPREPORT_UNWIND_CFI_H
#define OPREPORT_UNWIND_CFI_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind_memo.h"

struct unwind_cfi;

/* The rules of DWFL's images, none known yet; NULL (out of memory).
 * DWFL outlives it. */
struct unwind_cfi *unwind_cfi_new(Dwfl *dwfl);
void unwind_cfi_free(struct unwind_cfi *c);

/* A word of the stack at ADDR into *VAL, or false. */
typedef bool unwind_cfi_read(uint64_t addr, uint64_t *val, void *arg);

/*
 * The frames from IP with rbp BP and rsp SP into FR (room for MAX, the
 * walk ending there), the stack's words read by READ: true with *NR
 * frames and *RET what dwfl_getthread_frames would return with
 * unwind.c's frame callback (0 at the outermost frame, 1 where the
 * callback stopped: pc 0 or MAX frames, -1 where the frame-pointer
 * step failed).  False when a frame needs libdwfl's own way; then
 * nothing of the walk counts.
 */
bool unwind_cfi_walk(struct unwind_cfi *c, uint64_t ip, uint64_t bp,
		     uint64_t sp, unwind_cfi_read *read, void *arg,
		     struct unwind_frame *fr, size_t max, size_t *nr,
		     int *ret);

/* pcs whose rules are kept, and walks given up. */
void unwind_cfi_stats(const struct unwind_cfi *c, size_t *rules,
		      size_t *given_up);

#endif
