// SPDX-License-Identifier: GPL-3.0-or-later
#include <stdbool.h>
#include <string.h>

#include "unwind_pypy.h"

/* The word at ADDR in C's copy into *W; 0, or -1 outside it. */
static int copy_word(const struct unwind_jvm_copy *c, uint64_t addr,
		     uint64_t *w)
{
	if (!c->bytes || addr < c->sp || addr - c->sp > c->size ||
	    c->size - (addr - c->sp) < sizeof(*w))
		return -1;
	memcpy(w, c->bytes + (addr - c->sp), sizeof(*w));
	return 0;
}

/* Whether a JIT frame starts at SP: its vmprof record names it. */
static bool jit_frame_at(const struct unwind_jvm_copy *c, uint64_t sp)
{
	uint64_t rec = sp + 8 * UNWIND_PYPY_VMPROF_WORD, self, tag;

	return !copy_word(c, rec + 8, &self) && self == sp &&
	       !copy_word(c, rec + 16, &tag) && tag == UNWIND_PYPY_JITTED_TAG;
}

size_t unwind_pypy_frames(const struct unwind_jvm_copy *c, uint64_t *ret,
			  size_t max)
{
	uint64_t sp = c->sp, r;
	size_t n = 1, k;

	for (k = 0; k < UNWIND_PYPY_SLACK_WORDS && !jit_frame_at(c, sp); k++)
		sp += 8;
	if (k == UNWIND_PYPY_SLACK_WORDS || !max)
		return 0;
	/* the frame returns to a caller whose own frame starts just above
	 * its return address; a caller that is no JIT frame is the code
	 * that entered the JIT */
	while (n < max &&
	       !copy_word(c, sp + 8 * UNWIND_PYPY_FRAME_WORDS, &r) &&
	       jit_frame_at(c, sp + 8 * (UNWIND_PYPY_FRAME_WORDS + 1))) {
		ret[n - 1] = r;
		n++;
		sp += 8 * (UNWIND_PYPY_FRAME_WORDS + 1);
	}
	return n;
}
