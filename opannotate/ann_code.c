// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon_handlers.h"
#include "ann_code.h"
#include "diag.h"
#include "out.h"

static int ann_code_none(struct ann_code *code, const struct report *r,
			 const struct report_row *row, bool say,
			 const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* No disassembly for ROW: why, in the annotation and, with SAY (what
 * went wrong, as opposed to what never has code), once on stderr. */
static int ann_code_none(struct ann_code *code, const struct report *r,
			 const struct report_row *row, bool say,
			 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(code->whybuf, sizeof(code->whybuf), fmt, ap);
	va_end(ap);
	code->why = code->whybuf;
	if (say)
		diag("warning: %s in %s: no disassembly: %s",
		     out_safe(r->pool, row->sym->name),
		     out_safe(r->pool, row->image),
		     out_safe(r->pool, code->why));
	return 0;
}

/* The source line of every instruction, in one sorted batch through the
 * row's own line source (image_bfd's, with its debug files). */
static int ann_code_lines(struct ann_code *code, const struct report_row *row)
{
	uint64_t *vmas;
	size_t i;

	if (!row->line_src || !code->nr_insns)
		return 0;
	vmas = malloc(code->nr_insns * sizeof(*vmas));
	code->files = calloc(code->nr_insns, sizeof(*code->files));
	code->lines = calloc(code->nr_insns, sizeof(*code->lines));
	if (!vmas || !code->files || !code->lines) {
		free(vmas);
		return -ENOMEM;
	}
	for (i = 0; i < code->nr_insns; i++)
		vmas[i] = code->insns[i].vma;
	row->line_src->lines(row->line_src->arg, vmas, code->nr_insns,
			     code->files, code->lines);
	free(vmas);
	return 0;
}

static int ann_code_insns(struct ann_code *code, const struct report *r,
			  const struct report_row *row, void *abfd,
			  const uint8_t *buf, uint64_t start, uint64_t len)
{
	bool trunc;
	int ret;

	ret = ann_disasm(abfd, buf, len, start, &code->insns, &code->nr_insns,
			 &trunc);
	if (ret == -ENOTSUP)
		return ann_code_none(
			code, r, row, true,
			"libopcodes cannot disassemble this machine");
	if (ret)
		return ret;
	if (trunc)
		diag("warning: %s in %s: the code ends inside an instruction at 0x%" PRIx64
		     " (its size says %" PRIu64 " bytes)",
		     out_safe(r->pool, row->sym->name),
		     out_safe(r->pool, row->image),
		     start + (code->nr_insns
				      ? code->insns[code->nr_insns - 1].vma +
						code->insns[code->nr_insns - 1]
							.len -
						start
				      : 0),
		     len);
	return 0;
}

static int ann_code_elf(struct ann_code *code, const struct report *r,
			const struct report_row *row, uint64_t start,
			uint64_t len)
{
	char why[200] = "";
	uint8_t *buf = NULL;
	int ret;

	ret = ann_elf_code(row->image, start, &len, &buf, &code->abfd, why,
			   sizeof(why));
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		return ann_code_none(code, r, row, true, "%s", why);
	ret = ann_code_insns(code, r, row, code->abfd, buf, start, len);
	free(buf);
	return ret ? ret : ann_code_lines(code, row);
}

/* JIT code: the bytes its handler kept for this generation of it. */
static int ann_code_jit(struct ann_code *code, const struct report *r,
			const struct report_row *row)
{
	const struct anon_symbol *a = row->sym->anon;

	if (!a)
		return ann_code_none(code, r, row, false,
				     "no symbol names this code");
	if (!a->code_len && !a->code_err)
		return ann_code_none(code, r, row, false,
				     "its handler keeps no code bytes");
	if (!a->code_len && a->code_err == -ENOENT)
		return ann_code_none(code, r, row, false,
				     "its handler has no code bytes for it");
	if (!a->code_len)
		return ann_code_none(code, r, row, true,
				     "its handler could not give its code: %s",
				     strerror(-a->code_err));
	code->load_ns = a->code_load_ns;
	if (a->size && a->code_len < a->size)
		diag("warning: %s in %s: its handler gave %" PRIu64
		     " of its %" PRIu64
		     " bytes of code; the rest is not disassembled",
		     out_safe(r->pool, row->sym->name),
		     out_safe(r->pool, row->image), a->code_len, a->size);
	return ann_code_insns(code, r, row, NULL, a->code, a->code_addr,
			      a->code_len);
}

int ann_code_get(struct ann_code *code, const struct report *r,
		 const struct report_row *row, uint64_t start, uint64_t len)
{
	memset(code, 0, sizeof(*code));
	switch (row->kind) {
	case ROW_FILE:
		/* an image without its symbols (said when it was read) */
		if (!row->sym->has_vma)
			break;
		return ann_code_elf(code, r, row, start, len);
	case ROW_KERNEL:
		return ann_code_none(code, r, row, false,
				     "kernel code is not read");
	case ROW_JIT:
		return ann_code_jit(code, r, row);
	case ROW_ANON:
		break;
	}
	return ann_code_none(code, r, row, false, "no symbol names this code");
}

void ann_code_release(struct ann_code *code)
{
	free(code->insns);
	free(code->files);
	free(code->lines);
	ann_elf_close(code->abfd);
	memset(code, 0, sizeof(*code));
}
