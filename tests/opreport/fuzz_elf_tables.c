// SPDX-License-Identifier: GPL-3.0-or-later
/* Any file can be named as an image in a session (or planted where one
 * was): opreport reads its ELF symbol tables and PLT stubs itself, and
 * a static or dynamic table in part (elf_symcover.c).  Parse anything. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf_plt.h"
#include "elf_symcover.h"
#include "elf_symtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(bfd *abfd, bool dynamic)
{
	struct elf_symtab *t = NULL;
	struct elf_code_sym *c;
	size_t i, n;

	if (elf_symtab_read(&t, abfd, dynamic) || !t)
		return;
	c = calloc(elf_symtab_count(t) + 1, sizeof(*c));
	if (c) {
		n = elf_symtab_code(t, c);
		/* every name is a string the report may print, and a
		 * size lookup by it stays in the table */
		for (i = 0; i < n; i++) {
			if (!strlen(c[i].name))
				abort(); /* empty names are not code symbols */
			elf_symtab_size(t, c[i].vma, c[i].name);
		}
		free(c);
	}
	elf_symtab_free(t);
}

static int u64_cmp(const void *pa, const void *pb)
{
	const uint64_t *a = pa, *b = pb;

	return (*a > *b) - (*a < *b);
}

/* The static (DYNAMIC: dynamic) table read in part, around some of its
 * symbols: what it gives is there in the whole table, which is read
 * exactly when it is. */
static void cover(bfd *abfd, bool dynamic)
{
	struct elf_code_sym *all = NULL, *part = NULL;
	struct elf_symcover *c = NULL;
	struct elf_symtab *t = NULL;
	uint64_t q[66];
	size_t na = 0, np = 0, nq = 0, i, j, u;

	if ((dynamic ? elf_symcover_open_dynamic(&c, abfd)
		     : elf_symcover_open(&c, abfd)) ||
	    !c)
		return;
	if (elf_symtab_read(&t, abfd, dynamic) || !t)
		abort(); /* the table one finds, the other reads */
	all = calloc(elf_symtab_count(t) + 1, sizeof(*all));
	if (all)
		na = elf_symtab_code(t, all);
	q[nq++] = 0;
	q[nq++] = UINT64_MAX;
	for (i = 0; i < na && nq + 2 <= sizeof(q) / sizeof(q[0]); i++) {
		q[nq++] = all[i].vma;
		q[nq++] = all[i].vma + all[i].size;
	}
	qsort(q, nq, sizeof(*q), u64_cmp);
	for (i = u = 0; i < nq; i++)
		if (!u || q[u - 1] != q[i])
			q[u++] = q[i];
	if (all && !elf_symcover_find(c, q, u, &part, &np)) {
		for (i = 0; i < np; i++) {
			for (j = 0; j < na; j++)
				if (all[j].vma == part[i].vma &&
				    !strcmp(all[j].name, part[i].name))
					break;
			if (j == na)
				abort(); /* a symbol the table does not give */
		}
		free(part);
	}
	free(all);
	elf_symtab_free(t);
	elf_symcover_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	char path[64];
	bfd *abfd;
	int fd;

	if (!ready) {
		bfd_init();
		ready = true;
	}
	fd = memfd_create("image", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	/* the ELF target named, so that only our reader looks at the
	 * bytes: libbfd's own format checks are not ours to fuzz */
	abfd = bfd_openr(path, "elf64-x86-64");
	if (abfd) {
		struct elf_plt plt;

		walk(abfd, false);
		walk(abfd, true);
		cover(abfd, false);
		cover(abfd, true);
		if (elf_plt_read(&plt, abfd) > 0)
			elf_plt_free(&plt);
		bfd_close(abfd);
	}
	close(fd);
	return 0;
}
