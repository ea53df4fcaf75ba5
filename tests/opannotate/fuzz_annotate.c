// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libFuzzer target for what opannotate reads from outside: code bytes a
 * handler kept (disassembled for the host's machine, any bytes at any
 * address) and source files (split into lines).  Besides memory errors
 * it checks that the instructions tile the bytes they came from.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ann_srcfile.h"
#include "annotate.h"
#include "diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void quiet(const char *line, void *ctx)
{
	(void)line;
	(void)ctx;
}

static void fuzz_disasm(const uint8_t *data, size_t size)
{
	struct ann_insn *in;
	uint64_t vma = 0x7f0000000000ull - (size & 0xff);
	size_t n, i, off = 0;
	bool trunc;

	if (ann_disasm(NULL, data, size, vma, &in, &n, &trunc))
		return;
	for (i = 0; i < n; i++) {
		if (in[i].vma != vma + off || !in[i].len ||
		    in[i].len > size - off ||
		    !memchr(in[i].text, '\0', sizeof(in[i].text)))
			__builtin_trap();
		off += in[i].len;
	}
	if (!trunc && off != size)
		__builtin_trap();
	free(in);
}

static void fuzz_source(const uint8_t *data, size_t size)
{
	struct ann_srcfiles *c = ann_srcfiles_new();
	char path[64];
	uint32_t nr = 0, line;
	size_t len;
	int fd;

	fd = memfd_create("fuzz-source", MFD_CLOEXEC);
	if (!c || fd < 0 || write(fd, data, size) != (ssize_t)size)
		goto out;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ann_srcfile_line(c, path, 1, &len, &nr);
	for (line = 0; line <= nr + 1 && line < 4096; line++) {
		const char *s = ann_srcfile_line(c, path, line, &len, NULL);

		if (s && memchr(s, '\n', len))
			__builtin_trap();
		if ((s != NULL) != (line >= 1 && line <= nr))
			__builtin_trap();
	}
out:
	if (fd >= 0)
		close(fd);
	ann_srcfiles_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	diag_set_sink(quiet, NULL);
	if (!size)
		return 0;
	if (data[0] & 1)
		fuzz_disasm(data + 1, size - 1);
	else
		fuzz_source(data + 1, size - 1);
	return 0;
}
