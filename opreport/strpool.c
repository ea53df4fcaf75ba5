// SPDX-License-Identifier: GPL-3.0-or-later
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <oputil/bump.h>
#include <oputil/grow.h>
#include <oputil/hash.h>
#include <oputil/idxset.h>

#include "strpool.h"

struct strpool {
	struct oputil_bump mem;
	const char **strs; /* the interned strings */
	size_t nr_strs, cap_strs;
	struct oputil_idxset set; /* of strs, by content */
};

struct strpool *strpool_new(void)
{
	struct strpool *p = calloc(1, sizeof(struct strpool));

	if (p)
		p->mem = (struct oputil_bump)OPUTIL_BUMP_INIT(65536);
	return p;
}

void strpool_free(struct strpool *p)
{
	if (!p)
		return;
	oputil_bump_free(&p->mem);
	free(p->strs);
	oputil_idxset_free(&p->set);
	free(p);
}

void *strpool_alloc(struct strpool *p, size_t size)
{
	void *mem = oputil_bump_alloc(&p->mem, size);

	if (mem)
		memset(mem, 0, size);
	return mem;
}

const char *strpool_intern(struct strpool *p, const char *s)
{
	struct oputil_idxset_pos pos;
	size_t len;
	uint32_t i;
	char *copy;

	i = oputil_idxset_find(&p->set, oputil_hash_str(OPUTIL_HASH_SEED, s),
			       &pos, k, !strcmp(p->strs[k], s));
	if (i != OPUTIL_IDXSET_NONE)
		return p->strs[i];
	/* the copy first: once in the set, the string must be there */
	len = strlen(s) + 1;
	copy = strpool_alloc(p, len);
	if (!copy || p->nr_strs >= OPUTIL_IDXSET_NONE ||
	    oputil_grow(&p->strs, &p->cap_strs, p->nr_strs + 1,
			sizeof(*p->strs)) ||
	    oputil_idxset_put(&p->set, &pos, (uint32_t)p->nr_strs) < 0)
		return NULL;
	memcpy(copy, s, len);
	p->strs[p->nr_strs++] = copy;
	return copy;
}

const char *strpool_printf(struct strpool *p, const char *fmt, ...)
{
	char small[256], *big = NULL;
	const char *ret = NULL;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (len < 0)
		return NULL;
	if ((size_t)len < sizeof(small))
		return strpool_intern(p, small);
	big = malloc((size_t)len + 1);
	if (!big)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(big, (size_t)len + 1, fmt, ap);
	va_end(ap);
	ret = strpool_intern(p, big);
	free(big);
	return ret;
}
