// SPDX-License-Identifier: MIT
/* libFuzzer target: the agent's option string, which comes from the
 * user's command line or from jcmd. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct agent_opts o;
	char err[256];
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (!agent_opts_parse(s, &o, err, sizeof(err))) {
		/* what parsed must be usable */
		if (o.file && o.file[0] != '/')
			abort();
		agent_opts_free(&o);
	} else if (!err[0] || strchr(err, '\n')) {
		/* a refusal is one line */
		abort();
	}
	free(s);
	return 0;
}
