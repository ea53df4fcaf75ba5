// SPDX-License-Identifier: GPL-3.0-or-later
#include <string.h>

#include "unwind_jvm.h"

/* The word at ADDR in C's copy into *W; 0, or -1 outside it. */
static int copy_word(const struct unwind_jvm_copy *c, uint64_t addr,
		     uint64_t *w)
{
	if (!c->bytes || addr < c->sp || addr - c->sp > c->size ||
	    c->size - (addr - c->sp) < sizeof(*w))
		return -1;
	/* little-endian x86-64, as the copy's own registers */
	memcpy(w, c->bytes + (addr - c->sp), sizeof(*w));
	return 0;
}

size_t unwind_jvm_values(const struct unwind_jvm_copy *c,
			 const uint64_t *chain, size_t n, uint64_t *value)
{
	uint64_t fp = c->bp, next, ret;
	size_t i, found = 0;

	for (i = 0; i < n; i++)
		value[i] = 0;
	for (i = 0; i < n; i++) {
		if (i) {
			/* frame I returns to where frame I-1's link says,
			 * and its frame pointer is the one saved there */
			if (copy_word(c, fp + 8, &ret) || ret != chain[i] ||
			    copy_word(c, fp, &next) || next <= fp)
				break;
			fp = next;
		}
		if (fp >= (uint64_t)-UNWIND_JVM_METHOD_OFFSET &&
		    !copy_word(c, fp + UNWIND_JVM_METHOD_OFFSET, &value[i]) &&
		    value[i])
			found++;
	}
	return found;
}
