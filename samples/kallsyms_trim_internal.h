/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The trim of the session's kallsyms copy at a clean stop (FORMAT.md,
 * kallsyms). */
#ifndef OPS_KALLSYMS_TRIM_INTERNAL_H
#define OPS_KALLSYMS_TRIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bytes_internal.h"

/* A kernel sample the trim keeps symbols for: its module as kallsyms
 * names it (MODULE_LEN bytes, not NUL-terminated; empty for the kernel
 * itself) and its address. */
struct ops_ksym_want {
	const char *module;
	size_t module_len;
	uint64_t addr;
};

/* Whether LINE (LEN bytes, no newline) is a code line of a kallsyms table
 * as ops_kallsyms_parse_line() and ops_kallsyms_is_code() take it, without
 * changing it: then its address, and its module (*MODULE_LEN 0 for the
 * kernel itself). */
bool ops_kallsyms_scan_code(const char *line, size_t len, uint64_t *addr,
			    const char **module, size_t *module_len);

/*
 * Append to OUT the lines of kallsyms TEXT (LEN bytes) that name and bound
 * the samples WANT (N of them, any order, repeats allowed), byte for byte
 * and in their order, each with a newline: for each sample, the last code
 * line of its module at or below its address, every code line of the
 * module at that address, and the first code line of the module at the
 * lowest address above it.  Two passes over TEXT and a sort of WANT,
 * whatever order the table is in.  1 when TEXT has no code line with an
 * address (nothing appended: the table is kept as it is), 0, or -ENOMEM.
 * WANT is sorted in place.
 */
int ops_kallsyms_trim(const char *text, size_t len, struct ops_ksym_want *want,
		      size_t n, struct ops_buf *out);

/* The same for the table in file FD, read from its start twice in chunks
 * of a fixed size; a read's error (negative errno) as well. */
int ops_kallsyms_trim_fd(int fd, struct ops_ksym_want *want, size_t n,
			 struct ops_buf *out);

/* A code line of an indexed table (kallsyms_index.c). */
struct ops_ksym_index_entry {
	uint64_t addr;
	uint32_t off, len; /* the line's bytes, without its newline */
};

/* The index of a kallsyms table of TABLE_SIZE bytes, its bytes parsed:
 * group 0 the kernel's lines, 1 .. NR_GROUPS - 2 the modules' (NAMES,
 * NAME_LENS), the last every module's lines; group g is entries
 * E[GROUP_AT[g] .. GROUP_AT[g + 1]), by address and then offset. */
struct ops_ksym_index {
	uint64_t table_size;
	uint32_t nr_groups;
	const uint32_t *group_at;
	const char **names;
	size_t *name_lens;
	const struct ops_ksym_index_entry *e;
};

/* The order of an index's groups: module names A (ALEN bytes) and B
 * (BLEN), bytewise, a name before any longer one it begins. */
static inline int ops_ksym_module_cmp(const char *a, size_t alen,
				      const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c ? c : (alen > blen) - (alen < blen);
}

/* IX from the index's bytes P (LEN, 8-aligned, held while IX is used):
 * 0, -EINVAL when they are no index, or -ENOMEM. */
int ops_kallsyms_index_parse(const void *p, size_t len,
			     struct ops_ksym_index *ix);
void ops_kallsyms_index_free(struct ops_ksym_index *ix);

/* What ops_kallsyms_trim() appends, from TEXT (LEN bytes) searched by
 * IX, its index: reading only the lines it keeps.  -ESTALE (OUT as it
 * was) when IX is not TEXT's, as far as the lines kept show. */
int ops_kallsyms_trim_index(const char *text, size_t len,
			    const struct ops_ksym_index *ix,
			    const struct ops_ksym_want *want, size_t n,
			    struct ops_buf *out);

#endif
