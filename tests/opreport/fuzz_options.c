// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Command lines come from users: opreport's whole popt table, with every
 * value parser and profile specifications behind it.  The input is split
 * into words at newlines; each word is one argv entry.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "spec.h"

#define MAX_WORDS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* --help and --usage print and exit inside popt, which would end the
 * run; the version and handler listing are harmless. */
static int word_exits(const char *w)
{
	if (w[0] != '-')
		return 0;
	if (w[1] != '-')
		return strchr(w, '?') != NULL;
	return !strncmp(w, "--help", 6) || !strncmp(w, "--usage", 7);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *argv[MAX_WORDS + 2];
	struct opreport_opts o;
	char *s, *p, *nl;
	int argc = 0;

	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	argv[argc++] = "opreport";
	for (p = s; p && argc <= MAX_WORDS; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (word_exits(p))
			goto out;
		argv[argc++] = p;
	}
	argv[argc] = NULL;
	if (options_parse(&o, argc, argv) == 0 && o.spec) {
		profile_spec_match_image(o.spec, "/usr/lib/libc.so.6");
		profile_spec_match_tgid(o.spec, 42);
	}
	options_free(&o);
out:
	free(s);
	return 0;
}
