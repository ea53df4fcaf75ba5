/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ELF images through libbfd.  Each image of the session is opened once;
 * an ELF static table is read where the addresses asked need it, any
 * other table whole and sorted once; samples keyed by file offset are
 * mapped to link-time addresses through the loadable sections, so PIE
 * and multi-segment binaries come out right.  Separate debug files are
 * found by build-id and .gnu_debuglink.  A missing or changed image
 * resolves every sample to "(no symbols)", with one warning.
 */
#ifndef OPREPORT_IMAGE_BFD_H
#define OPREPORT_IMAGE_BFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <opjit/samples.h>

#include "opreport.h"
#include "report.h"

struct image_cache;
struct image_bfd;

/* The recorded PATH of an image, or its copy under an -p directory
 * (malloc'ed; NULL out of memory). */
char *image_bfd_find(const struct opreport_opts *o, const char *path);

/* 0, or a negative errno (reported): -ENOTSUP when the libbfd loaded is
 * not the one opreport was built with, or -ENOMEM. */
int image_cache_new(struct image_cache **out, const struct opreport_opts *o,
		    uint32_t nr_images);
void image_cache_free(struct image_cache *c);

/* Whether an ELF image's static table, or a stripped x86 image's
 * dynamic one, is read whole when the image is opened (true), or in part
 * for the addresses each image_bfd_resolve() asks (false, the default);
 * the symbols are the same.  For tests. */
void image_bfd_whole_tables(bool whole);
/* How many dynamic symbol tables libbfd has read whole so far.  For
 * tests. */
unsigned long image_bfd_dynamic_reads(void);

/* The image of session image ID, opened on first use.  Never NULL unless
 * out of memory (not reported); an unusable image resolves to "(no
 * symbols)". */
struct image_bfd *image_cache_get(struct image_cache *c, uint32_t id,
				  const struct ops_image *img);

/* OFFSETS are file offsets sorted ascending.  Fills SYMS[i] (never NULL)
 * and VMAS[i], the link-time address (the offset itself when it maps to
 * no section). */
void image_bfd_resolve(struct image_bfd *img, const uint64_t *offsets,
		       size_t n, const struct report_sym **syms,
		       uint64_t *vmas);

/* A function at an address, as DWARF names it: the innermost one with
 * the line there, or a function it was inlined into with the line of the
 * call. */
struct image_inline {
	const char *name; /* the image's, valid while it is open */
	const char *file;
	uint32_t line;
};

/* The functions at link-time address VMA, innermost first, out to the
 * one whose code it is, at most MAX of them: fewer than 2 when nothing
 * was inlined there, or the image has no line information. */
size_t image_bfd_inlines(struct image_bfd *img, uint64_t vma,
			 struct image_inline *out, size_t max);

/* Source lines of link-time addresses, for -d -g. */
const struct report_line_src *image_bfd_line_src(struct image_bfd *img);

/* Demangle the symbols samples fell in and, with LINES, find the source
 * line of each once, in address order. */
void image_cache_finish(struct image_cache *c, bool lines);

#endif
