/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * PyPy's JIT frames, read from a sample's copy of the top of its user
 * stack.  PyPy's x86-64 JIT code keeps no frame-pointer chain (rbp holds
 * its heap frame object) and has no call-frame information, but every
 * JIT frame has a fixed shape (rpython/jit/backend/x86/arch.py and
 * assembler.py's _call_header, checked on PyPy 7.3.11): the frame is
 * FRAME_FIXED_SIZE (23) words below the return address, and holds
 * vmprof's record of it 19 words up from its sp: the previous record,
 * the frame's own sp and VMPROF_JITTED_TAG (3).  So a frame is known by
 * the word that equals its own address minus 160 and the tag beside it,
 * and its caller's frame starts 24 words up (the frame and the return
 * address).  A loop that calls another (call_assembler) is such a
 * caller; the interpreter that entered the outermost one is not, and
 * the Python frames it runs are heap objects, not in the copy.
 */
#ifndef OPREPORT_UNWIND_PYPY_H
#define OPREPORT_UNWIND_PYPY_H

#include <stddef.h>
#include <stdint.h>

#include "unwind_jvm.h"

/* The words of a JIT frame, its return address not included. */
#define UNWIND_PYPY_FRAME_WORDS 23
/* Where its vmprof record starts, in words from its sp. */
#define UNWIND_PYPY_VMPROF_WORD 19
#define UNWIND_PYPY_JITTED_TAG 3
/* How far above sp the leaf frame's own sp is looked for: the JIT
 * pushes a few words around some moves and calls. */
#define UNWIND_PYPY_SLACK_WORDS 8

/*
 * The PyPy JIT frames at the top of copy C: 0 when the leaf's sp holds
 * none, else their number N, the leaf's included, with the return
 * addresses of all but the outermost in RET (room for MAX - 1): RET[0]
 * is where the leaf's frame returns to, in the JIT code of its caller,
 * and so on out.  The outermost returns into the code that entered the
 * JIT (the interpreter), which is not given.  Reads only inside the
 * copy; bounded by MAX and the copy.
 */
size_t unwind_pypy_frames(const struct unwind_jvm_copy *c, uint64_t *ret,
			  size_t max);

#endif
