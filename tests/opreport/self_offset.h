/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * For tests that make a session of their own binary's code: the file
 * offset an address of this process has, as a recorder would count it.
 */
#ifndef OPJIT_TEST_SELF_OFFSET_H
#define OPJIT_TEST_SELF_OFFSET_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>

/* The file offset of CODE in this binary, from /proc/self/maps. */
static inline uint64_t self_offset(const void *code)
{
	uintptr_t a = (uintptr_t)code;
	unsigned long lo, hi, off;
	char line[512], perm[8];
	FILE *f = fopen("/proc/self/maps", "re");
	uint64_t ret = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &lo, &hi, perm, &off) != 4)
			continue;
		if (a >= lo && a < hi) {
			ret = a - lo + off;
			break;
		}
	}
	fclose(f);
	ck_assert_uint_ne(ret, 0);
	return ret;
}

#endif
