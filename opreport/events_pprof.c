// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * --event=alloc|lock --format=pprof: the summed stacks as profile.proto,
 * one function and one location per frame name, one sample per stack,
 * leaf first (the class), valued as Go's pprof values its own heap and
 * mutex profiles, so that `go tool pprof -sample_index=alloc_space`
 * (or alloc_objects, contentions, delay) works.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile.pb-c.h"

#include <oputil/gzip.h>

#include "events.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_value_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int file_put(void *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -EIO;
}

int events_pprof(FILE *f, const struct ev_row *rows, size_t n, bool alloc)
{
	static const char *const types[2][4] = {
		{ "contentions", "count", "delay", "nanoseconds" },
		{ "alloc_objects", "count", "alloc_space", "bytes" },
	};
	const char *const *ty = types[alloc];
	pb_profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	pb_value_type vt[2], *vtp[2];
	char **strs = NULL, *copy = NULL;
	size_t nr_frames = 0, nr_names = 0, len = 0, at = 0;
	pb_function *fn = NULL, **fnp = NULL;
	pb_location *loc = NULL, **locp = NULL;
	pb_line *ln = NULL, **lnp = NULL;
	pb_sample *sm = NULL, **smp = NULL;
	uint64_t *ids = NULL;
	int64_t *vals = NULL;
	uint8_t *buf = NULL;
	size_t total_len = 0;
	int ret = -ENOMEM;

	for (size_t i = 0; i < n; i++) {
		nr_frames++;
		total_len += strlen(rows[i].stack) + 1;
		for (const char *c = rows[i].stack; *c; c++)
			nr_frames += *c == ';';
	}
	/* the string table: "", the four type words, then the names */
	strs = calloc(5 + nr_frames, sizeof(*strs));
	copy = malloc(total_len ? total_len : 1);
	ids = calloc(nr_frames ? nr_frames : 1, sizeof(*ids));
	sm = calloc(n ? n : 1, sizeof(*sm));
	smp = calloc(n ? n : 1, sizeof(*smp));
	vals = calloc(2 * (n ? n : 1), sizeof(*vals));
	if (!strs || !copy || !ids || !sm || !smp || !vals)
		goto out;
	strs[0] = "";
	for (int i = 0; i < 4; i++)
		strs[1 + i] = (char *)ty[i];
	/* each frame's name, NUL-terminated in COPY */
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(rows[i].stack) + 1;
		char *s = copy + at, *p = s;

		memcpy(s, rows[i].stack, l);
		at += l;
		for (;;) {
			char *e = strchr(p, ';');

			strs[5 + nr_names++] = p;
			if (!e)
				break;
			*e = '\0';
			p = e + 1;
		}
	}
	qsort(strs + 5, nr_names, sizeof(*strs), name_cmp);
	len = 0;
	for (size_t i = 0; i < nr_names; i++)
		if (!len || strcmp(strs[5 + len - 1], strs[5 + i]))
			strs[5 + len++] = strs[5 + i];
	nr_names = len;
	fn = calloc(nr_names ? nr_names : 1, sizeof(*fn));
	fnp = calloc(nr_names ? nr_names : 1, sizeof(*fnp));
	loc = calloc(nr_names ? nr_names : 1, sizeof(*loc));
	locp = calloc(nr_names ? nr_names : 1, sizeof(*locp));
	ln = calloc(nr_names ? nr_names : 1, sizeof(*ln));
	lnp = calloc(nr_names ? nr_names : 1, sizeof(*lnp));
	if (!fn || !fnp || !loc || !locp || !ln || !lnp)
		goto out;
	/* name I: string 5 + I, function and location I + 1 */
	for (size_t i = 0; i < nr_names; i++) {
		perftools__profiles__function__init(&fn[i]);
		fn[i].id = i + 1;
		fn[i].name = fn[i].system_name = (int64_t)(5 + i);
		fnp[i] = &fn[i];
		perftools__profiles__line__init(&ln[i]);
		ln[i].function_id = i + 1;
		lnp[i] = &ln[i];
		perftools__profiles__location__init(&loc[i]);
		loc[i].id = i + 1;
		loc[i].n_line = 1;
		loc[i].line = &lnp[i];
		locp[i] = &loc[i];
	}
	at = 0;
	len = 0;
	for (size_t i = 0; i < n; i++) {
		const char *p = copy + at;
		const char *end = p + strlen(rows[i].stack) + 1;
		size_t first = len;

		/* COPY holds the row's frames root first, NUL-separated */
		for (; p < end; p += strlen(p) + 1) {
			char **hit = bsearch(&p, strs + 5, nr_names,
					     sizeof(*strs), name_cmp);

			ids[len++] = (uint64_t)(hit - (strs + 5)) + 1;
		}
		at = (size_t)(end - copy);
		/* pprof wants the leaf first */
		for (size_t a = first, b = len - 1; a < b; a++, b--) {
			uint64_t t = ids[a];

			ids[a] = ids[b];
			ids[b] = t;
		}
		perftools__profiles__sample__init(&sm[i]);
		sm[i].n_location_id = len - first;
		sm[i].location_id = ids + first;
		sm[i].n_value = 2;
		sm[i].value = vals + 2 * i;
		vals[2 * i] = (int64_t)rows[i].count;
		vals[2 * i + 1] = (int64_t)rows[i].weight;
		smp[i] = &sm[i];
	}
	for (int i = 0; i < 2; i++) {
		perftools__profiles__value_type__init(&vt[i]);
		vt[i].type = 1 + 2 * i;
		vt[i].unit = 2 + 2 * i;
		vtp[i] = &vt[i];
	}
	prof.n_sample_type = 2;
	prof.sample_type = vtp;
	prof.period_type = &vt[1];
	prof.period = 1;
	prof.n_sample = n;
	prof.sample = smp;
	prof.n_location = nr_names;
	prof.location = locp;
	prof.n_function = nr_names;
	prof.function = fnp;
	prof.n_string_table = 5 + nr_names;
	prof.string_table = strs;
	len = perftools__profiles__profile__get_packed_size(&prof);
	buf = malloc(len ? len : 1);
	if (!buf)
		goto out;
	perftools__profiles__profile__pack(&prof, buf);
	ret = oputil_gzip(buf, len, file_put, f);
	if (!ret && (fflush(f) || ferror(f)))
		ret = -EIO;
out:
	free(buf);
	free(fn);
	free(fnp);
	free(loc);
	free(locp);
	free(ln);
	free(lnp);
	free(sm);
	free(smp);
	free(vals);
	free(ids);
	free(strs);
	free(copy);
	return ret;
}
