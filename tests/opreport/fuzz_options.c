// SPDX-License-Identifier: GPL-3.0-or-later
/* Option strings come from users: every value parser, on anything. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct opreport_opts o = { 0 };
	struct profile_spec *spec;
	char *s = malloc(size + 1), err[256];
	enum opreport_format fmt;
	enum opreport_demangle dm;
	size_t nr = 0;
	char **list = NULL;
	double t;
	unsigned m = 0;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	options_parse_threshold(s, &t, err, sizeof(err));
	options_parse_merge(s, &m, err, sizeof(err));
	options_parse_sort(s, &o, err, sizeof(err));
	options_parse_format(s, &fmt, err, sizeof(err));
	options_parse_demangle(s, &dm, err, sizeof(err));
	options_check_handler_name(s, err, sizeof(err));
	options_list_append(&list, &nr, s);
	options_list_free(list);
	spec = profile_spec_new();
	if (spec && !profile_spec_parse(spec, s, err, sizeof(err))) {
		profile_spec_match_image(spec, "/usr/lib/libc.so.6");
		profile_spec_match_tgid(spec, 42);
	}
	profile_spec_free(spec);
	free(s);
	return 0;
}
