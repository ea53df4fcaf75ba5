// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon_handlers.h"
#include "options.h"

int options_parse_threshold(const char *s, double *out, char *err,
			    size_t errlen)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end != s && *end == '%')
		end++;
	/* strtod takes "nan", "inf" and hex: refuse what is not a percentage */
	if (end == s || *end || errno || !isfinite(v) || v < 0 || v > 100 ||
	    strpbrk(s, "xXnNiI")) {
		snprintf(err, errlen,
			 "bad threshold '%s': expected a percentage between 0 and 100",
			 s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* Calls FN for each non-empty item of the comma list S; stops at the
 * first non-zero return. */
static int list_each(const char *s, int (*fn)(const char *item, size_t len,
					       void *arg),
		     void *arg)
{
	const char *p = s;
	int rc;

	while (*p) {
		size_t len = strcspn(p, ",");

		if (len) {
			rc = fn(p, len, arg);
			if (rc)
				return rc;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

static int merge_item(const char *item, size_t len, void *arg)
{
	static const struct {
		const char *name;
		unsigned bits;
	} names[] = {
		{ "lib", MERGE_LIB }, { "library", MERGE_LIB },
		{ "tgid", MERGE_TGID }, { "tid", MERGE_TGID },
		{ "cpu", MERGE_CPU }, { "all", MERGE_ALL },
	};
	unsigned *out = arg;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i].name) == len &&
		    !strncmp(names[i].name, item, len)) {
			*out |= names[i].bits;
			return 0;
		}
	}
	return -EINVAL;
}

int options_parse_merge(const char *s, unsigned *out, char *err,
			size_t errlen)
{
	unsigned bits = 0;

	if (!*s || list_each(s, merge_item, &bits) || !bits) {
		snprintf(err, errlen,
			 "bad merge '%s': expected a comma list of lib, tid, tgid, cpu, all",
			 s);
		return -EINVAL;
	}
	*out |= bits;
	return 0;
}

static int sort_item(const char *item, size_t len, void *arg)
{
	static const struct {
		const char *name;
		enum opreport_sort key;
	} names[] = {
		{ "sample", SORT_SAMPLE }, { "image", SORT_IMAGE },
		{ "app-name", SORT_APP },  { "symbol", SORT_SYMBOL },
		{ "debug", SORT_DEBUG },   { "vma", SORT_VMA },
	};
	struct opreport_opts *o = arg;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i].name) != len ||
		    strncmp(names[i].name, item, len))
			continue;
		if (o->nr_sort == sizeof(o->sort) / sizeof(o->sort[0]))
			return -E2BIG;
		o->sort[o->nr_sort++] = names[i].key;
		return 0;
	}
	return -EINVAL;
}

int options_parse_sort(const char *s, struct opreport_opts *o, char *err,
		       size_t errlen)
{
	size_t saved = o->nr_sort;

	o->nr_sort = 0;
	if (!*s || list_each(s, sort_item, o)) {
		o->nr_sort = saved;
		snprintf(err, errlen,
			 "bad sort order '%s': expected a comma list of sample, image, app-name, symbol, debug, vma",
			 s);
		return -EINVAL;
	}
	return 0;
}

int options_parse_format(const char *s, enum opreport_format *out,
			 char *err, size_t errlen)
{
	if (!strcmp(s, "text"))
		*out = OUT_TEXT;
	else if (!strcmp(s, "csv"))
		*out = OUT_CSV;
	else if (!strcmp(s, "json"))
		*out = OUT_JSON;
	else if (!strcmp(s, "folded"))
		*out = OUT_FOLDED;
	else if (!strcmp(s, "pprof"))
		*out = OUT_PPROF;
	else {
		snprintf(err, errlen,
			 "bad format '%s': expected text, csv, json, folded or pprof",
			 s);
		return -EINVAL;
	}
	return 0;
}

int options_parse_demangle(const char *s, enum opreport_demangle *out,
			   char *err, size_t errlen)
{
	if (!strcmp(s, "none"))
		*out = DEMANGLE_NONE;
	else if (!strcmp(s, "normal"))
		*out = DEMANGLE_NORMAL;
	else if (!strcmp(s, "smart"))
		*out = DEMANGLE_SMART;
	else {
		snprintf(err, errlen,
			 "bad demangle mode '%s': expected none, normal or smart",
			 s);
		return -EINVAL;
	}
	return 0;
}

struct list_ctx {
	char ***list;
	size_t *nr;
};

static int list_item(const char *item, size_t len, void *arg)
{
	struct list_ctx *c = arg;
	char **grown;
	char *copy;

	copy = strndup(item, len);
	if (!copy)
		return -ENOMEM;
	grown = realloc(*c->list, (*c->nr + 2) * sizeof(*grown));
	if (!grown) {
		free(copy);
		return -ENOMEM;
	}
	grown[(*c->nr)++] = copy;
	grown[*c->nr] = NULL;
	*c->list = grown;
	return 0;
}

int options_list_append(char ***list, size_t *nr, const char *s)
{
	struct list_ctx c = { list, nr };

	return list_each(s, list_item, &c);
}

void options_list_free(char **list)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; list[i]; i++)
		free(list[i]);
	free(list);
}

int options_check_handler_name(const char *s, char *err, size_t errlen)
{
	/* the loader owns the rule, so the two can never disagree */
	return anon_handler_name_check(s, err, errlen);
}
