/* SPDX-License-Identifier: MIT */
/*
 * What one line of /proc/modules says:
 *
 *   NAME SIZE REFCOUNT USERS STATE ADDRESS [TAINTS]
 *
 * (SIZE in decimal, ADDRESS in hex, 0 to a reader without the right to
 * see it), the one split of the kernel symbol cache's key and of the
 * session's check that a module holds an address.
 */
#ifndef OPUTIL_MODULES_LINE_H
#define OPUTIL_MODULES_LINE_H

#include <stdbool.h>
#include <stddef.h>

enum {
	OPUTIL_MODULE_NAME,
	OPUTIL_MODULE_SIZE,
	OPUTIL_MODULE_REFCOUNT,
	OPUTIL_MODULE_USERS,
	OPUTIL_MODULE_STATE,
	OPUTIL_MODULE_ADDRESS,
	OPUTIL_MODULE_FIELDS
};

/* The fields of a line, each LEN[K] bytes at F[K], not NUL-terminated. */
struct oputil_modules_line {
	const char *f[OPUTIL_MODULE_FIELDS];
	size_t len[OPUTIL_MODULE_FIELDS];
};

/* Split LINE (LEN bytes, without its newline) at its spaces (a run of
 * them is one) into its first six fields, in *M; false when it has
 * fewer.  What follows the sixth (taints) is left alone. */
static inline bool oputil_modules_line(const char *line, size_t len,
				       struct oputil_modules_line *m)
{
	const char *p = line, *end = line + len;
	int k;

	for (k = 0; k < OPUTIL_MODULE_FIELDS; k++) {
		while (p < end && *p == ' ')
			p++;
		if (p == end)
			return false;
		m->f[k] = p;
		while (p < end && *p != ' ')
			p++;
		m->len[k] = (size_t)(p - m->f[k]);
	}
	return true;
}

#endif
