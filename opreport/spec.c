// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "options.h"
#include "spec.h"

struct profile_spec {
	char **images;
	size_t nr_images;
	uint32_t *tgids;
	size_t nr_tgids;
	uint32_t *tids;
	size_t nr_tids;
	size_t cap_tgids, cap_tids;
};

struct profile_spec *profile_spec_new(void)
{
	return calloc(1, sizeof(struct profile_spec));
}

void profile_spec_free(struct profile_spec *spec)
{
	if (!spec)
		return;
	options_list_free(spec->images);
	free(spec->tgids);
	free(spec->tids);
	free(spec);
}

/* The comma list of ids VALUE of WORD appended to *IDS; WHAT names them
 * in the error. */
static int parse_ids(uint32_t **ids, size_t *nr, size_t *cap, const char *word,
		     const char *value, const char *what, char *err,
		     size_t errlen)
{
	const char *p = value;

	while (*p) {
		char *end;
		unsigned long v;

		errno = 0;
		v = (*p >= '0' && *p <= '9') ? strtoul(p, &end, 10) : 0;
		if (!(*p >= '0' && *p <= '9') || errno || v == 0 ||
		    v > 0x7fffffffUL || (*end && *end != ',')) {
			snprintf(
				err, errlen,
				"bad profile specification '%s': expected %s ids",
				word, what);
			return -EINVAL;
		}
		if (oputil_grow(ids, cap, *nr + 1, sizeof(**ids)))
			return -ENOMEM;
		(*ids)[(*nr)++] = (uint32_t)v;
		p = *end ? end + 1 : end;
	}
	return 0;
}

int profile_spec_parse(struct profile_spec *spec, const char *word, char *err,
		       size_t errlen)
{
	const char *colon = strchr(word, ':');
	size_t taglen;
	const char *value;

	if (!colon) {
		snprintf(err, errlen,
			 "bad profile specification '%s': expected tag:value",
			 word);
		return -EINVAL;
	}
	taglen = (size_t)(colon - word);
	value = colon + 1;
	if (!*value || !strcmp(value, ",")) {
		snprintf(err, errlen,
			 "bad profile specification '%s': empty value", word);
		return -EINVAL;
	}
	if (taglen == 5 && !strncmp(word, "image", 5))
		return options_list_append(&spec->images, &spec->nr_images,
					   value);
	if (taglen == 4 && !strncmp(word, "tgid", 4))
		return parse_ids(&spec->tgids, &spec->nr_tgids,
				 &spec->cap_tgids, word, value, "process", err,
				 errlen);
	if (taglen == 3 && !strncmp(word, "tid", 3))
		return parse_ids(&spec->tids, &spec->nr_tids, &spec->cap_tids,
				 word, value, "thread", err, errlen);
	snprintf(err, errlen,
		 "bad profile specification '%s': unknown tag '%.*s'", word,
		 (int)taglen, word);
	return -EINVAL;
}

bool profile_spec_is_empty(const struct profile_spec *spec)
{
	return !spec ||
	       (!spec->nr_images && !spec->nr_tgids && !spec->nr_tids);
}

int profile_spec_copy(struct profile_spec *dst, const struct profile_spec *src)
{
	size_t i;

	options_list_free(dst->images);
	free(dst->tgids);
	free(dst->tids);
	memset(dst, 0, sizeof(*dst));
	for (i = 0; i < src->nr_images; i++)
		if (options_list_append(&dst->images, &dst->nr_images,
					src->images[i]))
			return -ENOMEM;
	if (src->nr_tgids) {
		dst->tgids = malloc(src->nr_tgids * sizeof(*dst->tgids));
		if (!dst->tgids)
			return -ENOMEM;
		memcpy(dst->tgids, src->tgids,
		       src->nr_tgids * sizeof(*dst->tgids));
		dst->nr_tgids = src->nr_tgids;
		dst->cap_tgids = src->nr_tgids;
	}
	if (src->nr_tids) {
		dst->tids = malloc(src->nr_tids * sizeof(*dst->tids));
		if (!dst->tids)
			return -ENOMEM;
		memcpy(dst->tids, src->tids,
		       src->nr_tids * sizeof(*dst->tids));
		dst->nr_tids = src->nr_tids;
		dst->cap_tids = src->nr_tids;
	}
	return 0;
}

bool profile_spec_has_image(const struct profile_spec *spec)
{
	return spec && spec->nr_images;
}

bool profile_spec_has_tgid(const struct profile_spec *spec)
{
	return spec && spec->nr_tgids;
}

bool profile_spec_match_image(const struct profile_spec *spec,
			      const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i;

	if (!profile_spec_has_image(spec))
		return true;
	base = base ? base + 1 : path;
	for (i = 0; i < spec->nr_images; i++) {
		const char *pat = spec->images[i];
		const char *subject = strchr(pat, '/') ? path : base;

		/* literally too: "[kernel.kallsyms]" is a bracket
		 * expression to fnmatch */
		if (!strcmp(pat, subject) || !fnmatch(pat, subject, 0))
			return true;
	}
	return false;
}

bool profile_spec_match_module(const struct profile_spec *spec,
			       const char *name)
{
	size_t i, len = strlen(name);
	char ko[256];

	if (!profile_spec_has_image(spec))
		return true;
	if ((size_t)snprintf(ko, sizeof(ko), "%s.ko", name) >= sizeof(ko))
		ko[0] = 0;
	for (i = 0; i < spec->nr_images; i++) {
		const char *pat = spec->images[i];

		if ((pat[0] == '[' && !strncmp(pat + 1, name, len) &&
		     !strcmp(pat + 1 + len, "]")) ||
		    !fnmatch(pat, name, 0) || (ko[0] && !fnmatch(pat, ko, 0)))
			return true;
	}
	return false;
}

bool profile_spec_match_tgid(const struct profile_spec *spec, uint32_t tgid)
{
	size_t i;

	if (!profile_spec_has_tgid(spec))
		return true;
	for (i = 0; i < spec->nr_tgids; i++)
		if (spec->tgids[i] == tgid)
			return true;
	return false;
}

bool profile_spec_has_tid(const struct profile_spec *spec)
{
	return spec && spec->nr_tids;
}

bool profile_spec_match_tid(const struct profile_spec *spec, uint32_t tid)
{
	size_t i;

	if (!profile_spec_has_tid(spec))
		return true;
	for (i = 0; i < spec->nr_tids; i++)
		if (spec->tids[i] == tid)
			return true;
	return false;
}
