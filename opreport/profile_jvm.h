/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A JVM's interpreted frames in the call graph: a sample whose leaf is
 * JIT code may have a stack copy (oprofiled --callgraph=dwarf), from
 * which unwind_jvm_values() reads each frame's Method* word.  Where the
 * handler names a frame's code "Interpreter" and the word's value (a
 * Method*, which the javamap agent logs as a DATA range) at the same
 * time, the frame takes the value as its address, so that it is named
 * by its method.  A sample in PyPy's JIT code whose copy shows the JIT
 * frames that called it (unwind_pypy.h) takes those as its stack.
 */
#ifndef OPREPORT_PROFILE_JVM_H
#define OPREPORT_PROFILE_JVM_H

#include <stddef.h>
#include <stdint.h>

#include <opjit/samples.h>

#include "callgraph.h"
#include "anon_handlers.h"

/* A sample of process PROC's stream and the copy it took. */
struct profile_jvm_sample {
	uint64_t time_ns;
	uint32_t stack; /* the session's frame-pointer stack */
	const struct ops_stack_copy *copy;
};

/*
 * Add the N samples SMP of process PROC (context C) to CG, each on its
 * stack with its interpreted frames named as above.  HANDLERS may be
 * NULL: the stacks are then added as recorded.  0, or -ENOMEM (not
 * reported).
 */
int profile_jvm_add(struct callgraph *cg, struct anon_handlers *handlers,
		    struct ops_session *s, uint32_t proc,
		    const struct cg_raw_ctx *c,
		    const struct profile_jvm_sample *smp, size_t n);

#endif
