/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The kallsyms trim as it was first written, kept as the tests' oracle:
 * every code line indexed and sorted by (module, address, line), each
 * sample found by a binary search. */
#ifndef OPJIT_TESTS_KALLSYMS_TRIM_REF_H
#define OPJIT_TESTS_KALLSYMS_TRIM_REF_H

#include "kallsyms_trim_internal.h"

/* What ops_kallsyms_trim() appends for TEXT and WANT (not changed), the
 * same way: 1, 0 or -ENOMEM. */
int kallsyms_trim_ref(const char *text, size_t len,
		      const struct ops_ksym_want *want, size_t n,
		      struct ops_buf *out);

/* What ops_kallsyms_trim_index() appends for TEXT by TEXT's own index
 * (built and parsed here): its return, or -EPROTO when the index could
 * not be built or parsed. */
int kallsyms_trim_own_index(const char *text, size_t len,
			    const struct ops_ksym_want *want, size_t n,
			    struct ops_buf *out);

#endif
