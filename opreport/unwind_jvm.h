/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * HotSpot's interpreted frames, read from a sample's copy of the top of
 * its user stack: each frame of a frame-pointer chain that the JVM's
 * interpreter made holds its method's Method* three words below its
 * frame pointer (frame::interpreter_frame_method_offset, -3, in
 * src/hotspot/cpu/x86/frame_x86.hpp; checked on OpenJDK 17).  The javamap
 * agent logs each Method* as a DATA range naming its method, so the
 * value names a frame the chain can only call "Interpreter".
 */
#ifndef OPREPORT_UNWIND_JVM_H
#define OPREPORT_UNWIND_JVM_H

#include <stddef.h>
#include <stdint.h>

/* Where frame::interpreter_frame_method_offset puts the Method*. */
#define UNWIND_JVM_METHOD_OFFSET (-3 * 8)

struct unwind_jvm_copy {
	uint64_t sp, bp;      /* user registers at the sample */
	const uint8_t *bytes; /* the stack from sp up */
	size_t size;
};

/*
 * For the user call chain CHAIN (N frames, leaf first, as the kernel
 * walked it from BP), the word at each frame's frame pointer
 * + UNWIND_JVM_METHOD_OFFSET into VALUE[I], or 0 where the copy does not
 * hold it.  Frame 0's frame pointer is BP, frame I's the word saved at
 * frame I-1's; the walk stops (zeros after) where the copy's return
 * address differs from CHAIN's, so that a value is never taken from a
 * frame the kernel did not walk.  Bounded by N and the copy: no loop.
 * Returns how many frames have a value.
 */
size_t unwind_jvm_values(const struct unwind_jvm_copy *c,
			 const uint64_t *chain, size_t n, uint64_t *value);

#endif
