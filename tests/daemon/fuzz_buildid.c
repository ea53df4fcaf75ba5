// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer: build-id notes of ELF files the daemon meets. */
#include <stdint.h>
#include <stdlib.h>

#include "buildid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t id[BUILDID_MAX];
	uint8_t n = 0;

	if (!buildid_parse(data, size, id, &n) && (n == 0 || n > BUILDID_MAX))
		abort();
	return 0;
}
