// SPDX-License-Identifier: GPL-3.0-or-later
/* The session's kallsyms and modules copies are outside files: parse
 * anything. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kallsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kallsyms *ks;
	size_t bad, first;

	if (kallsyms_parse(&ks, (const char *)data, size, &bad, &first))
		return 0;
	/* the same bytes as a module list, then lookups walk the result */
	kallsyms_parse_modules(ks, (const char *)data, size, &bad, &first);
	kallsyms_resolve(ks, NULL, 0xffffffff81000010ULL);
	kallsyms_resolve(ks, "ext4", 0xffffffffc0000004ULL);
	if (size >= 8) {
		uint64_t addr;

		const struct report_sym *sym;
		const char *module;

		memcpy(&addr, data, sizeof(addr));
		kallsyms_resolve(ks, NULL, addr);
		/* a kernel sample: named by the kernel, or by the module
		 * it says, as that module's own lookup names it */
		if (!kallsyms_resolve_kernel(ks, addr, &sym, &module) &&
		    sym != kallsyms_resolve(ks, module, addr))
			__builtin_trap();
	}
	kallsyms_free(ks);
	return 0;
}
