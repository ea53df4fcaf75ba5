// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Code bytes to instructions through libopcodes, the disassembler
 * objdump itself uses, called in process: no objdump is run.  ELF code
 * is read through libbfd at its link-time addresses.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "bfd_inc.h"
#include <dis-asm.h>

#include "annotate.h"

/* Where libopcodes prints one instruction. */
struct ann_text {
	char *buf;
	size_t len, cap;
};

static int ann_text_vprintf(struct ann_text *t, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static int ann_text_vprintf(struct ann_text *t, const char *fmt, va_list ap)
{
	int n;

	if (t->len + 1 >= t->cap)
		return 0;
	n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	if (n > 0)
		t->len = t->len + (size_t)n < t->cap ? t->len + (size_t)n
						     : t->cap - 1;
	return n;
}

static int ann_text_printf(void *stream, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int ann_text_printf(void *stream, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = ann_text_vprintf(stream, fmt, ap);
	va_end(ap);
	return n;
}

static int ann_text_styled(void *stream, enum disassembler_style style,
			   const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int ann_text_styled(void *stream, enum disassembler_style style,
			   const char *fmt, ...)
{
	va_list ap;
	int n;

	(void)style;
	va_start(ap, fmt);
	n = ann_text_vprintf(stream, fmt, ap);
	va_end(ap);
	return n;
}

/* libopcodes reports a read past the buffer through this, and prints
 * by default; the caller counts the instruction as truncated instead. */
static void ann_memory_error(int status, bfd_vma addr,
			     struct disassemble_info *info)
{
	(void)status;
	(void)addr;
	(void)info;
}

int ann_disasm(void *abfd_arg, const uint8_t *buf, size_t len, uint64_t vma,
	       struct ann_insn **out, size_t *nr, bool *trunc)
{
	bfd *abfd = abfd_arg;
	struct disassemble_info info;
	disassembler_ftype dis;
	struct ann_insn *insns = NULL;
	size_t n = 0, cap = 0, off = 0;
	struct ann_text t;
	enum bfd_architecture arch;
	unsigned long mach;
	bool big = false;
	int ret = 0;

	*out = NULL;
	*nr = 0;
	*trunc = false;
	if (abfd) {
		arch = bfd_get_arch(abfd);
		mach = bfd_get_mach(abfd);
		big = bfd_big_endian(abfd);
	} else {
#if defined(__x86_64__)
		arch = bfd_arch_i386;
		mach = bfd_mach_x86_64;
#elif defined(__aarch64__)
		arch = bfd_arch_aarch64;
		mach = bfd_mach_aarch64;
#else
		return -ENOTSUP;
#endif
	}
	dis = disassembler(arch, big, mach, abfd);
	if (!dis)
		return -ENOTSUP;
	init_disassemble_info(&info, &t, ann_text_printf, ann_text_styled);
	info.arch = arch;
	info.mach = mach;
	info.endian = big ? BFD_ENDIAN_BIG : BFD_ENDIAN_LITTLE;
	info.buffer = (bfd_byte *)buf;
	info.buffer_vma = vma;
	info.buffer_length = len;
	info.memory_error_func = ann_memory_error;
	disassemble_init_for_target(&info);
	while (off < len) {
		struct ann_insn *in;
		int step;

		if (oputil_grow(&insns, &cap, n + 1, sizeof(*insns))) {
			ret = -ENOMEM;
			goto out;
		}
		in = &insns[n];
		t = (struct ann_text){ in->text, 0, sizeof(in->text) };
		in->text[0] = '\0';
		step = dis(vma + off, &info);
		if (step <= 0 || (size_t)step > len - off) {
			/* the bytes end inside an instruction */
			*trunc = true;
			break;
		}
		in->vma = vma + off;
		in->len = (unsigned)step;
		n++;
		off += (size_t)step;
	}
out:
	disassemble_free_target(&info);
	if (ret) {
		free(insns);
		return ret;
	}
	*out = insns;
	*nr = n;
	return 0;
}

int ann_elf_code(const char *path, uint64_t vma, uint64_t *lenp, uint8_t **buf,
		 void **abfd_out, char *why, size_t whylen)
{
	asection *sec, *code = NULL;
	bfd *abfd;
	uint64_t len = *lenp;
	uint8_t *b;

	*buf = NULL;
	*abfd_out = NULL;
	bfd_init();
	abfd = bfd_openr(path, NULL);
	if (!abfd) {
		snprintf(why, whylen, "%s", bfd_errmsg(bfd_get_error()));
		return -ENOENT;
	}
	if (!bfd_check_format(abfd, bfd_object)) {
		snprintf(why, whylen, "not an object file: %s",
			 bfd_errmsg(bfd_get_error()));
		bfd_close(abfd);
		return -EINVAL;
	}
	for (sec = abfd->sections; sec; sec = sec->next) {
		uint64_t start = bfd_section_vma(sec);
		uint64_t size = bfd_section_size(sec);

		if ((bfd_section_flags(sec) & (SEC_CODE | SEC_HAS_CONTENTS)) !=
		    (SEC_CODE | SEC_HAS_CONTENTS))
			continue;
		if (vma >= start && vma - start < size) {
			code = sec;
			break;
		}
	}
	if (!code) {
		snprintf(why, whylen, "no code section holds 0x%llx",
			 (unsigned long long)vma);
		bfd_close(abfd);
		return -ENOENT;
	}
	/* a size that runs past its section is cut at the section's end */
	if (len > bfd_section_vma(code) + bfd_section_size(code) - vma)
		len = bfd_section_vma(code) + bfd_section_size(code) - vma;
	b = malloc(len ? len : 1);
	if (!b) {
		bfd_close(abfd);
		return -ENOMEM;
	}
	if (!bfd_get_section_contents(abfd, code, b,
				      (file_ptr)(vma - bfd_section_vma(code)),
				      len)) {
		snprintf(why, whylen, "cannot read its code: %s",
			 bfd_errmsg(bfd_get_error()));
		free(b);
		bfd_close(abfd);
		return -EIO;
	}
	*buf = b;
	*abfd_out = abfd;
	*lenp = len;
	return 0;
}

void ann_elf_close(void *abfd)
{
	if (abfd)
		bfd_close(abfd);
}
