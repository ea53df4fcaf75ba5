// SPDX-License-Identifier: GPL-3.0-or-later
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <oputil/bump.h>
#include <oputil/grow.h>
#include <oputil/radix.h>
#include <oputil/search.h>

#include "diag.h"
#include "bfd_inc.h"
#include "elf_plt.h"
#include "elf_symcover.h"
#include "elf_symtab.h"
#include "image_bfd.h"
#include "out.h"

/* libiberty's demangle.h is not installed with binutils-dev */
#define OPJIT_DMGL_PARAMS (1 << 0)
#define OPJIT_DMGL_ANSI (1 << 1)

struct load_sec {
	uint64_t filepos, size, vma;
};

struct line_sec {
	uint64_t vma, size;
	asection *sec;
};

struct image_bfd {
	const struct opreport_opts *opts;
	char *path; /* the file opened */
	bfd *abfd;
	bfd *dbg;    /* separate debug file, or NULL */
	bfd *symbfd; /* the one whose symbols are used */
	asymbol **syms_a, **dyn_a, **syms_d;
	asymbol *synth;
	long nr_syms_a;
	struct elf_symtab *symtab; /* holds the names of syms, when ELF */
	struct report_sym *syms;   /* sorted by vma */
	size_t nr_syms;
	/* an ELF static table read for the addresses asked (syms is then
	 * empty), the symbols it named so far by vma, their memory, and
	 * whether reading it failed (said once) */
	struct elf_symcover *cover;
	struct report_sym **found;
	size_t nr_found, cap_found;
	struct oputil_bump found_mem;
	bool cover_failed;
	struct report_sym *plt; /* PLT stubs, read on first use */
	struct elf_plt elf_plt; /* holds the names of plt, when ELF */
	size_t nr_plt;
	uint64_t plt_lo, plt_hi; /* the .plt sections' span */
	bool plt_read;
	struct load_sec *secs; /* sorted by file position */
	size_t nr_secs;
	struct line_sec *lsecs; /* sections of the line bfd, by vma */
	size_t nr_lsecs;
	bfd *linebfd;
	asymbol **linesyms;
	bool linesyms_read;
	char **owned; /* demangled names */
	size_t nr_owned, cap_owned;
	struct report_sym nosyms;
	struct report_line_src line_src;
};

struct image_cache {
	const struct opreport_opts *opts;
	struct image_bfd **images;
	uint32_t nr_images;
};

static bool whole_tables;
static unsigned long dynamic_reads;

void image_bfd_whole_tables(bool whole)
{
	whole_tables = whole;
}

unsigned long image_bfd_dynamic_reads(void)
{
	return dynamic_reads;
}

/* bfd prints its own complaints about odd files; our one line per image
 * says enough. */
static void bfd_quiet(const char *fmt, va_list ap)
{
}

int image_cache_new(struct image_cache **out, const struct opreport_opts *o,
		    uint32_t nr_images)
{
	struct image_cache *c;
	struct rlimit rl;

	if (bfd_init() != BFD_INIT_MAGIC) {
		diag("libbfd does not match bfd.h");
		return -ENOTSUP;
	}
	bfd_set_error_handler(bfd_quiet);
	/* every image (and debug file) holds its descriptor open, so that
	 * libbfd never reopens it by name (bfd_open_object): allow as many
	 * as the hard limit does */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	c = calloc(1, sizeof(*c));
	if (c)
		c->images =
			calloc(nr_images ? nr_images : 1, sizeof(*c->images));
	if (!c || !c->images) {
		free(c);
		diag("out of memory");
		return -ENOMEM;
	}
	c->opts = o;
	c->nr_images = nr_images;
	*out = c;
	return 0;
}

static void image_free(struct image_bfd *img)
{
	size_t i;

	if (!img)
		return;
	for (i = 0; i < img->nr_owned; i++)
		free(img->owned[i]);
	free(img->owned);
	free(img->syms);
	free(img->found);
	oputil_bump_free(&img->found_mem);
	elf_symcover_free(img->cover);
	free(img->plt);
	free(img->secs);
	free(img->lsecs);
	free(img->syms_a);
	free(img->dyn_a);
	free(img->syms_d);
	free(img->synth);
	elf_symtab_free(img->symtab);
	elf_plt_free(&img->elf_plt);
	if (img->dbg)
		bfd_close(img->dbg);
	if (img->abfd)
		bfd_close(img->abfd);
	free(img->path);
	free(img);
}

void image_cache_free(struct image_cache *c)
{
	uint32_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr_images; i++)
		image_free(c->images[i]);
	free(c->images);
	free(c);
}

static char *path_join(const char *dir, const char *sep, const char *name)
{
	char *p;

	if (asprintf(&p, "%s%s%s", dir, sep, name) < 0)
		return NULL;
	return p;
}

char *image_bfd_find(const struct opreport_opts *o, const char *path)
{
	const char *base = strrchr(path, '/');
	struct stat st;
	char **dir;

	if (!stat(path, &st) || !o->image_path)
		return strdup(path);
	base = base ? base + 1 : path;
	for (dir = o->image_path; *dir; dir++) {
		char *p = path_join(*dir, path[0] == '/' ? "" : "/", path);

		if (p && !stat(p, &st))
			return p;
		free(p);
		p = path_join(*dir, "/", base);
		if (p && !stat(p, &st))
			return p;
		free(p);
	}
	return strdup(path);
}

/*
 * PATH as an object file, or NULL with *ERR a negative errno (0 when
 * libbfd refused it; bfd_get_error says why), not reported: the caller
 * knows what the file was for.  The file goes through the session
 * reader's gate first, so a FIFO or device under an image's name is
 * refused instead of hanging the report, and libbfd reads from that very
 * descriptor.
 */
static bfd *bfd_open_object(const char *path, int *err)
{
	struct stat st;
	bfd *abfd;
	int fd;

	*err = 0;
	fd = ops_file_open(path, UINT64_MAX, &st);
	if (fd < 0) {
		*err = fd;
		return NULL;
	}
	/* closes FD when it fails; the bfd is not cacheable, so libbfd
	 * never closes FD to reopen PATH later, when PATH may have been
	 * replaced by something the gate would refuse */
	abfd = bfd_fdopenr(path, NULL, fd);
	if (!abfd)
		return NULL;
	if (!bfd_check_format(abfd, bfd_object)) {
		bfd_close(abfd);
		return NULL;
	}
	return abfd;
}

/* A debug file that exists but cannot be read is worth a line; one that
 * is missing is the usual case. */
static bfd *debug_open_object(const char *path)
{
	int err;
	bfd *dbg = bfd_open_object(path, &err);

	if (!dbg && err && err != -ENOENT && err != -ENOTDIR)
		out_warnf(
			"cannot read %s: %s; its debug information is not used",
			path, ops_file_strerror(err));
	return dbg;
}

/* The GNU build-id note, if any: returns its size, 0 when none. */
static size_t read_build_id(bfd *abfd, uint8_t *id, size_t max)
{
	asection *sec = bfd_get_section_by_name(abfd, ".note.gnu.build-id");
	bfd_byte *buf = NULL;
	size_t size, pos = 0, ret = 0;

	if (!sec || !bfd_malloc_and_get_section(abfd, sec, &buf))
		return 0;
	size = bfd_section_size(sec);
	while (pos + 12 <= size) {
		uint32_t namesz = bfd_get_32(abfd, buf + pos);
		uint32_t descsz = bfd_get_32(abfd, buf + pos + 4);
		uint32_t type = bfd_get_32(abfd, buf + pos + 8);
		size_t name = pos + 12;
		size_t desc = name + ((namesz + 3u) & ~3u);

		if (desc > size || descsz > size - desc)
			break;
		if (type == 3 && namesz == 4 &&
		    !memcmp(buf + name, "GNU", 4) && descsz && descsz <= max) {
			memcpy(id, buf + desc, descsz);
			ret = descsz;
			break;
		}
		pos = desc + ((descsz + 3u) & ~3u);
	}
	free(buf);
	return ret;
}

/* Why the file on disk is not the image that was recorded, or NULL. */
static const char *image_changed(bfd *abfd, const char *path,
				 const struct ops_image *rec)
{
	uint8_t id[64];
	size_t n = read_build_id(abfd, id, sizeof(id));
	struct stat st;

	if (rec->build_id_size)
		return n == rec->build_id_size && !memcmp(id, rec->build_id, n)
			       ? NULL
			       : "build-id differs";
	if (stat(path, &st))
		return NULL;
	if ((rec->size && (uint64_t)st.st_size != rec->size) ||
	    (rec->mtime_ns &&
	     (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec !=
		     rec->mtime_ns))
		return "size and mtime differ";
	return NULL;
}

/* Whether the file at FD has the .gnu_debuglink checksum CRC. */
static bool debuglink_crc_matches(int fd, unsigned long crc)
{
	unsigned char buf[65536];
	unsigned long c = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return false;
		c = bfd_calc_gnu_debuglink_crc32(c, buf, (bfd_size_type)n);
	}
	return c == crc;
}

/*
 * The debug file .gnu_debuglink names, searched where GDB and
 * bfd_follow_gnu_debuglink look (the image's directory, its .debug
 * subdirectory, the same path under ROOT), or NULL.  Not that function
 * itself: it opens each candidate with fopen, which waits forever on a
 * FIFO planted under the name in a directory the image's owner controls.
 * Here every candidate goes through the gate first.
 */
static char *debuglink_find(bfd *abfd, const char *image, const char *root)
{
	const char *slash = strrchr(image, '/');
	int dlen = slash ? (int)(slash - image) : 1, i, fd;
	const char *dir = slash ? image : ".";
	unsigned long crc = 0;
	char *name, *path = NULL;
	struct stat st;
	bool found = false;

	name = bfd_get_debug_link_info(abfd, &crc);
	if (!name || !name[0] || strchr(name, '/')) {
		free(name);
		return NULL;
	}
	for (i = 0; i < 3 && !found; i++) {
		free(path);
		if (asprintf(&path,
			     i == 0   ? "%s%.*s/%s"
			     : i == 1 ? "%s%.*s/.debug/%s"
				      : "%s%.*s/%s",
			     i == 2 ? root : "", dlen, dir, name) < 0) {
			path = NULL;
			break;
		}
		fd = ops_file_open(path, UINT64_MAX, &st);
		if (fd < 0) {
			if (fd != -ENOENT && fd != -ENOTDIR)
				out_warnf(
					"cannot read %s: %s; its debug information is not used",
					path, ops_file_strerror(fd));
			continue;
		}
		found = debuglink_crc_matches(fd, crc);
		close(fd);
	}
	free(name);
	if (!found) {
		free(path);
		path = NULL;
	}
	return path;
}

static bfd *debug_open(struct image_bfd *img)
{
	const char *root = img->opts->debug_dir ? img->opts->debug_dir
						: "/usr/lib/debug";
	uint8_t id[64], did[64];
	size_t n = read_build_id(img->abfd, id, sizeof(id)), i;
	char *path = NULL;
	bfd *dbg = NULL;

	if (n >= 2) {
		char hex[2 * sizeof(id) + 1];

		for (i = 0; i < n; i++)
			sprintf(hex + 2 * i, "%02x", id[i]);
		if (asprintf(&path, "%s/.build-id/%.2s/%s.debug", root, hex,
			     hex + 2) < 0)
			path = NULL;
		dbg = path ? debug_open_object(path) : NULL;
		free(path);
		path = NULL;
	}
	if (!dbg) {
		path = debuglink_find(img->abfd, img->path, root);
		dbg = path ? debug_open_object(path) : NULL;
		free(path);
	}
	/* a debug file for another build names the wrong code */
	if (dbg && n &&
	    (read_build_id(dbg, did, sizeof(did)) != n ||
	     memcmp(id, did, n))) {
		bfd_close(dbg);
		dbg = NULL;
	}
	return dbg;
}

/* ABFD's symbols (DYNAMIC: its dynamic ones) into a new *OUT: how many,
 * 0 when it has none or libbfd cannot read them, or -ENOMEM (not
 * reported). */
static long read_symtab(bfd *abfd, asymbol ***out, bool dynamic)
{
	long size, n;

	*out = NULL;
	if (!(bfd_get_file_flags(abfd) & HAS_SYMS) && !dynamic)
		return 0;
	size = dynamic ? bfd_get_dynamic_symtab_upper_bound(abfd)
		       : bfd_get_symtab_upper_bound(abfd);
	if (size <= 0)
		return 0;
	*out = malloc((size_t)size);
	if (!*out)
		return -ENOMEM;
	n = dynamic ? bfd_canonicalize_dynamic_symtab(abfd, *out)
		    : bfd_canonicalize_symtab(abfd, *out);
	dynamic_reads += dynamic;
	if (n < 0)
		n = 0;
	return n;
}

static bool sym_wanted(asymbol *s)
{
	const char *name = bfd_asymbol_name(s);
	asection *sec = s->section;

	if (s->flags & (BSF_SECTION_SYM | BSF_FILE | BSF_DEBUGGING |
			BSF_WARNING | BSF_INDIRECT))
		return false;
	if (!sec || bfd_is_und_section(sec) || bfd_is_com_section(sec) ||
	    bfd_is_abs_section(sec))
		return false;
	if (!(bfd_section_flags(sec) & SEC_CODE))
		return false;
	return name && *name && name[0] != '$' && strncmp(name, ".L", 2);
}

static int sym_prio(asymbol *s)
{
	return ((s->flags & BSF_FUNCTION) ? 4 : 0) +
	       ((s->flags & BSF_GLOBAL) ? 2 : 0) +
	       ((s->flags & BSF_WEAK) ? 1 : 0);
}

/* SIZES: the ELF sizes of SYMS' table, which keep a sample in a static
 * function of a stripped image from landing on the exported function
 * before it; NULL when unknown. */
static void add_cands(struct elf_code_sym *c, size_t *n, asymbol **syms,
		      long nr, struct elf_symtab *sizes)
{
	long i;

	for (i = 0; i < nr; i++) {
		asymbol *s = syms[i];

		if (!sym_wanted(s))
			continue;
		c[*n].vma = bfd_asymbol_value(s);
		c[*n].end = bfd_section_vma(s->section) +
			    bfd_section_size(s->section);
		c[*n].size = (s->flags & BSF_SYNTHETIC)
				     ? 0
				     : elf_symtab_size(sizes, c[*n].vma,
						       bfd_asymbol_name(s));
		c[*n].name = bfd_asymbol_name(s);
		c[*n].prio = sym_prio(s);
		(*n)++;
	}
}

static void add_synth(struct elf_code_sym *c, size_t *n, asymbol *synth,
		      long nr)
{
	long i;

	for (i = 0; i < nr; i++) {
		asymbol *s = &synth[i];

		c[*n].vma = bfd_asymbol_value(s);
		c[*n].end = bfd_section_vma(s->section) +
			    bfd_section_size(s->section);
		c[*n].name = bfd_asymbol_name(s);
		c[*n].prio = -1;
		(*n)++;
	}
}

/* An address and its candidate, for cands_order(). */
struct cand_key {
	uint64_t vma;
	uint32_t i;
};

/* Rank among candidates at one address: the best first, then by name. */
static int cand_rank_cmp(const struct elf_code_sym *a,
			 const struct elf_code_sym *b)
{
	if (a->prio != b->prio)
		return b->prio - a->prio;
	return strcmp(a->name, b->name);
}

/*
 * C's order by address, then rank and name, stable (as glibc's merge
 * sort left it when qsort did this): the addresses by a radix sort over
 * the bytes in which they differ, then each run of one address (its
 * aliases, a few) by insertion.  qsort of a big image's candidates
 * (node: 110k) was a third of opannotate's CPU.  *ORDER: indexes into
 * C, to be freed; 0 or -ENOMEM.
 */
static int cands_order(const struct elf_code_sym *c, size_t n,
		       uint32_t **order)
{
	struct cand_key *base, *a;
	size_t i, j, k;
	uint32_t *o;

	*order = NULL;
	if (n > UINT32_MAX)
		return -ENOMEM;
	base = malloc(2 * (n ? n : 1) * sizeof(*base));
	o = malloc((n ? n : 1) * sizeof(*o));
	if (!base || !o) {
		free(base);
		free(o);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		base[i] = (struct cand_key){ c[i].vma, (uint32_t)i };
	a = oputil_radix_sort(base, base + n, n, e, e->vma);
	for (i = 0; i < n; i++)
		o[i] = a[i].i;
	free(base);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && c[o[j]].vma == c[o[i]].vma; j++) {
			uint32_t key = o[j];

			for (k = j;
			     k > i && cand_rank_cmp(&c[o[k - 1]], &c[key]) > 0;
			     k--)
				o[k] = o[k - 1];
			o[k] = key;
		}
	}
	*order = o;
	return 0;
}

/* Candidates into a table sorted by address, one symbol per address,
 * each ending at its ELF size, the next symbol or its section's end.
 * 0 or -ENOMEM (not reported). */
static int syms_build(struct elf_code_sym *c, size_t n,
		      struct report_sym **out, size_t *nr)
{
	size_t k, next;
	uint32_t *o;
	int rc = cands_order(c, n, &o);

	if (rc)
		return rc;
	*out = calloc(n + 1, sizeof(**out));
	if (!*out) {
		free(o);
		return -ENOMEM;
	}
	*nr = 0;
	for (k = 0; k < n; k++) {
		struct elf_code_sym *ck = &c[o[k]];
		struct report_sym *s;
		uint64_t end = ck->end;

		/* aliases: the best-ranked name of an address stands */
		if (*nr && (*out)[*nr - 1].vma == ck->vma)
			continue;
		for (next = k + 1; next < n && c[o[next]].vma == ck->vma;
		     next++)
			if (!ck->size)
				ck->size = c[o[next]].size;
		if (ck->size && ck->vma + ck->size < end)
			end = ck->vma + ck->size;
		if (next < n && c[o[next]].vma < end)
			end = c[o[next]].vma;
		s = &(*out)[(*nr)++];
		s->name = ck->name;
		s->vma = ck->vma;
		s->size = end > ck->vma ? end - ck->vma : 0;
		s->has_vma = true;
	}
	free(o);
	return 0;
}

/* The stubs' names come from the dynamic symbol table (synthetic
 * symbols), which in a big executable costs as much to read as the
 * static table: node exports all of V8.  How many dynamic symbols, or
 * -ENOMEM (not reported). */
static int read_plt(struct image_bfd *img, struct elf_code_sym **c, size_t *n)
{
	long ndyn, nsyn;

	ndyn = read_symtab(img->abfd, &img->dyn_a, true);
	if (ndyn < 0)
		return -ENOMEM;
	nsyn = bfd_get_synthetic_symtab(img->abfd, img->nr_syms_a, img->syms_a,
					ndyn, img->dyn_a, &img->synth);
	if (nsyn < 0)
		nsyn = 0;
	*c = calloc((size_t)(ndyn + nsyn) + 1, sizeof(**c));
	if (!*c)
		return -ENOMEM;
	add_synth(*c, n, img->synth, nsyn);
	return (int)ndyn;
}

/* Most profiles never sample a PLT stub, so an image with a static or
 * debug symbol table names its stubs the first time a sample lands in
 * a .plt section, in a table of their own. */
static void plt_span(struct image_bfd *img)
{
	asection *sec;

	img->plt_lo = UINT64_MAX;
	for (sec = img->abfd->sections; sec; sec = sec->next) {
		uint64_t lo = bfd_section_vma(sec);

		if (strncmp(bfd_section_name(sec), ".plt", 4) ||
		    !bfd_section_size(sec))
			continue;
		if (lo < img->plt_lo)
			img->plt_lo = lo;
		if (lo + bfd_section_size(sec) > img->plt_hi)
			img->plt_hi = lo + bfd_section_size(sec);
	}
}

static void plt_load(struct image_bfd *img)
{
	struct elf_code_sym *c = NULL;
	size_t n = 0;
	int rc;

	img->plt_read = true;
	rc = elf_plt_read(&img->elf_plt, img->abfd);
	if (rc > 0)
		rc = syms_build(img->elf_plt.v, img->elf_plt.n, &img->plt,
				&img->nr_plt);
	else if (!rc && read_plt(img, &c, &n) >= 0)
		rc = syms_build(c, n, &img->plt, &img->nr_plt);
	else
		rc = -ENOMEM;
	if (rc)
		out_warnf(
			"%s: out of memory; its PLT stubs show as (no symbols)",
			img->path);
	free(c);
}

/* The ELF static table, read directly: of the debug file when it has
 * one (the fullest), else of the image.  1 when there is one, 0 when
 * not, or -ENOMEM (not reported). */
static int elf_static_symtab(struct image_bfd *img)
{
	struct elf_code_sym *c;
	size_t n;
	int err = 0;

	if (img->dbg)
		err = elf_symtab_read(&img->symtab, img->dbg, false);
	img->symbfd = img->dbg;
	if (!err && !img->symtab) {
		err = elf_symtab_read(&img->symtab, img->abfd, false);
		img->symbfd = img->abfd;
	}
	if (err || !img->symtab)
		return err;
	c = calloc(elf_symtab_count(img->symtab) + 1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	n = elf_symtab_code(img->symtab, c);
	plt_span(img);
	err = syms_build(c, n, &img->syms, &img->nr_syms);
	free(c);
	return err ? err : 1;
}

/* The ELF static table that elf_static_symtab() would read, found, to
 * be read for the addresses asked (image_bfd_resolve()).  1 when there
 * is one, 0 when not, or -ENOMEM (not reported). */
static int elf_static_cover(struct image_bfd *img)
{
	int err = 0;

	if (img->dbg)
		err = elf_symcover_open(&img->cover, img->dbg);
	img->symbfd = img->dbg;
	if (!err && !img->cover) {
		err = elf_symcover_open(&img->cover, img->abfd);
		img->symbfd = img->abfd;
	}
	if (err || !img->cover)
		return err;
	img->found_mem = (struct oputil_bump)OPUTIL_BUMP_INIT(16384);
	plt_span(img);
	return 1;
}

/*
 * A stripped x86 ELF image's dynamic table, found, to be read for the
 * addresses asked as a static one is; its PLT stubs then read on first
 * use (plt_at()).  libbfd's whole dynamic table and synthetic stubs in
 * one sorted table were most of a report's time spent on libstdc++ for
 * a few samples.  The stubs are x86's only synthetic symbols and lie in
 * the .plt sections alone, where no dynamic symbol does: a table of
 * their own names each address as the one table did.  1 when found, 0
 * when not, or -ENOMEM (not reported).
 */
static int elf_dynamic_cover(struct image_bfd *img)
{
	int err;

	if (whole_tables ||
	    bfd_get_flavour(img->abfd) != bfd_target_elf_flavour ||
	    bfd_get_arch(img->abfd) != bfd_arch_i386)
		return 0;
	err = elf_symcover_open_dynamic(&img->cover, img->abfd);
	if (err || !img->cover)
		return err;
	img->found_mem = (struct oputil_bump)OPUTIL_BUMP_INIT(16384);
	plt_span(img);
	return 1;
}

/* IMG's symbols, from the best table it has.  0 or -ENOMEM, as
 * build_sections() (not reported: image_open() says it, naming the
 * image). */
static int build_symtab(struct image_bfd *img)
{
	struct elf_symtab *sizes = NULL;
	struct elf_code_sym *c = NULL;
	long na, nd = 0, ndyn;
	size_t n = 0;
	int ret = whole_tables ? elf_static_symtab(img)
			       : elf_static_cover(img);

	if (ret)
		return ret < 0 ? ret : 0;
	/* libbfd's tables: a format other than ELF, or a stripped image */
	ret = -ENOMEM;
	na = read_symtab(img->abfd, &img->syms_a, false);
	if (img->dbg)
		nd = read_symtab(img->dbg, &img->syms_d, false);
	if (na < 0 || nd < 0)
		goto out;
	img->nr_syms_a = na;
	img->linesyms_read = true;
	img->symbfd = nd ? img->dbg : img->abfd;
	if (!nd && !na) {
		ret = elf_dynamic_cover(img);
		if (ret) {
			ret = ret < 0 ? ret : 0;
			goto out;
		}
		ret = -ENOMEM;
		/* stripped: the dynamic table names the code and the stubs */
		if (elf_symtab_read(&sizes, img->abfd, true))
			goto out;
		img->plt_read = true;
		ndyn = read_plt(img, &c, &n);
		if (ndyn < 0)
			goto out;
		add_cands(c, &n, img->dyn_a, ndyn, sizes);
	} else {
		plt_span(img);
		c = calloc((size_t)(nd ? nd : na) + 1, sizeof(*c));
		if (!c)
			goto out;
		if (nd)
			add_cands(c, &n, img->syms_d, nd, NULL);
		else
			add_cands(c, &n, img->syms_a, na, NULL);
	}
	ret = syms_build(c, n, &img->syms, &img->nr_syms);
out:
	elf_symtab_free(sizes);
	free(c);
	return ret;
}

static int sec_cmp(const void *pa, const void *pb)
{
	const struct load_sec *a = pa, *b = pb;

	return (a->filepos > b->filepos) - (a->filepos < b->filepos);
}

static int lsec_cmp(const void *pa, const void *pb)
{
	const struct line_sec *a = pa, *b = pb;

	return (a->vma > b->vma) - (a->vma < b->vma);
}

static int build_sections(struct image_bfd *img)
{
	unsigned int n = bfd_count_sections(img->abfd);
	asection *sec;

	img->secs = calloc(n + 1, sizeof(*img->secs));
	img->linebfd = img->dbg ? img->dbg : img->abfd;
	img->lsecs = calloc(bfd_count_sections(img->linebfd) + 1,
			    sizeof(*img->lsecs));
	if (!img->secs || !img->lsecs)
		return -ENOMEM;
	for (sec = img->abfd->sections; sec; sec = sec->next) {
		flagword f = bfd_section_flags(sec);

		if ((f & (SEC_LOAD | SEC_HAS_CONTENTS)) !=
			    (SEC_LOAD | SEC_HAS_CONTENTS) ||
		    (f & SEC_THREAD_LOCAL) || !bfd_section_size(sec))
			continue;
		img->secs[img->nr_secs++] =
			(struct load_sec){ (uint64_t)sec->filepos,
					   bfd_section_size(sec),
					   bfd_section_vma(sec) };
	}
	qsort(img->secs, img->nr_secs, sizeof(*img->secs), sec_cmp);
	for (sec = img->linebfd->sections; sec; sec = sec->next) {
		if (!(bfd_section_flags(sec) & SEC_CODE) ||
		    !bfd_section_size(sec))
			continue;
		img->lsecs[img->nr_lsecs++] =
			(struct line_sec){ bfd_section_vma(sec),
					   bfd_section_size(sec), sec };
	}
	qsort(img->lsecs, img->nr_lsecs, sizeof(*img->lsecs), lsec_cmp);
	return 0;
}

static void image_lines(void *arg, const uint64_t *vmas, size_t n,
			const char **files, uint32_t *lines);

/* Open IMG's file; what makes it unusable is one warning naming it. */
static void image_open(struct image_bfd *img, const struct ops_image *rec)
{
	const char *why;
	int err;

	if (rec->path[0] == '[')
		return; /* [vdso] and friends have no file */
	img->abfd = bfd_open_object(img->path, &err);
	if (!img->abfd) {
		out_warnf(
			"cannot read %s: %s; its samples show as (no symbols)",
			img->path,
			err ? ops_file_strerror(err)
			: bfd_get_error() == bfd_error_system_call
				? strerror(errno)
				: bfd_errmsg(bfd_get_error()));
		return;
	}
	why = image_changed(img->abfd, img->path, rec);
	if (why) {
		out_warnf(
			"%s changed since the session was recorded (%s); its samples show as (no symbols)",
			img->path, why);
		goto unusable;
	}
	img->dbg = debug_open(img);
	if (build_symtab(img) || build_sections(img)) {
		out_warnf("%s: out of memory", img->path);
		goto unusable;
	}
	return;
unusable:
	free(img->syms);
	img->syms = NULL;
	img->nr_syms = 0;
	elf_symcover_free(img->cover);
	img->cover = NULL;
	img->plt_read = true;
	img->nr_secs = 0;
	img->nr_lsecs = 0;
}

struct image_bfd *image_cache_get(struct image_cache *c, uint32_t id,
				  const struct ops_image *rec)
{
	struct image_bfd *img;

	if (id >= c->nr_images)
		return NULL;
	if (c->images[id])
		return c->images[id];
	img = calloc(1, sizeof(*img));
	if (!img)
		return NULL;
	img->opts = c->opts;
	img->path = image_bfd_find(c->opts, rec->path);
	if (!img->path) {
		free(img);
		return NULL;
	}
	img->nosyms.name = "(no symbols)";
	img->line_src.lines = image_lines;
	img->line_src.arg = img;
	image_open(img, rec);
	c->images[id] = img;
	return img;
}

static bool offset_to_vma(const struct image_bfd *img, uint64_t off,
			  uint64_t *vma)
{
	size_t lo = oputil_partition(0, img->nr_secs, m,
				     img->secs[m].filepos <= off);

	if (!lo || off - img->secs[lo - 1].filepos >= img->secs[lo - 1].size)
		return false;
	*vma = img->secs[lo - 1].vma + (off - img->secs[lo - 1].filepos);
	return true;
}

static struct report_sym *sym_in(struct report_sym *syms, size_t n,
				 uint64_t vma)
{
	size_t lo = oputil_partition(0, n, m, syms[m].vma <= vma);
	struct report_sym *s;

	if (!lo)
		return NULL;
	s = &syms[lo - 1];
	return vma - s->vma < s->size ? s : NULL;
}

/* VMA's PLT stub, or NULL when it is in none. */
static struct report_sym *plt_at(struct image_bfd *img, uint64_t vma)
{
	if (vma < img->plt_lo || vma >= img->plt_hi)
		return NULL;
	if (!img->plt_read)
		plt_load(img);
	return sym_in(img->plt, img->nr_plt, vma);
}

static struct report_sym *sym_at(struct image_bfd *img, uint64_t vma)
{
	struct report_sym *s = plt_at(img, vma);

	return s ? s : sym_in(img->syms, img->nr_syms, vma);
}

static int u64_cmp(const void *pa, const void *pb)
{
	const uint64_t *a = pa, *b = pb;

	return (*a > *b) - (*a < *b);
}

static int found_cmp(const void *pa, const void *pb)
{
	const struct report_sym *a = *(const struct report_sym *const *)pa;
	const struct report_sym *b = *(const struct report_sym *const *)pb;

	return (a->vma > b->vma) - (a->vma < b->vma);
}

/* The one symbol of IMG at S's address, S's copy made the first time:
 * a symbol named again for other addresses must be the same one.  NULL
 * when out of memory. */
static struct report_sym *found_get(struct image_bfd *img,
				    const struct report_sym *s,
				    struct report_sym ***fresh,
				    size_t *nr_fresh, size_t *cap_fresh)
{
	size_t lo = oputil_partition(0, img->nr_found, m,
				     img->found[m]->vma < s->vma);
	struct report_sym *f;

	if (lo < img->nr_found && img->found[lo]->vma == s->vma)
		return img->found[lo];
	if (oputil_grow(fresh, cap_fresh, *nr_fresh + 1, sizeof(**fresh)))
		return NULL;
	f = oputil_bump_alloc(&img->found_mem, sizeof(*f));
	if (!f)
		return NULL;
	*f = *s;
	(*fresh)[(*nr_fresh)++] = f;
	return f;
}

/* The new symbols FRESH[0..n) into IMG's found ones, by vma.  0 or
 * -ENOMEM. */
static int found_merge(struct image_bfd *img, struct report_sym **fresh,
		       size_t n)
{
	size_t i, j, k;

	if (!n)
		return 0;
	if (oputil_grow(&img->found, &img->cap_found, img->nr_found + n,
			sizeof(*img->found)))
		return -ENOMEM;
	qsort(fresh, n, sizeof(*fresh), found_cmp);
	i = img->nr_found;
	j = n;
	k = img->nr_found + n;
	while (j) {
		if (i && img->found[i - 1]->vma > fresh[j - 1]->vma)
			img->found[--k] = img->found[--i];
		else
			img->found[--k] = fresh[--j];
	}
	img->nr_found += n;
	return 0;
}

/*
 * The symbols of VMAS[0..n) (MAPPED[i]: VMAS[i] is in a section) from
 * the part of the static table that names them, into SYMS (NULL: none).
 * The table built of that part, as the whole one is built, holds the
 * same symbol at or below each of them.  0, -ENOMEM or -EIO.
 */
static int cover_resolve(struct image_bfd *img, const uint64_t *vmas,
			 const bool *mapped, size_t n,
			 struct report_sym **syms)
{
	struct report_sym *tab = NULL, **fresh = NULL, **built = NULL;
	struct elf_code_sym *c = NULL;
	uint64_t *q;
	size_t i, u, nq = 0, nc = 0, nt = 0, nr_fresh = 0, cap_fresh = 0;
	int ret = -ENOMEM;

	q = malloc((n ? n : 1) * sizeof(*q));
	if (!q)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (mapped[i])
			q[nq++] = vmas[i];
	qsort(q, nq, sizeof(*q), u64_cmp);
	for (i = u = 0; i < nq; i++)
		if (!u || q[i] != q[u - 1])
			q[u++] = q[i];
	nq = u;
	ret = elf_symcover_find(img->cover, q, nq, &c, &nc);
	if (ret)
		goto out;
	ret = syms_build(c, nc, &tab, &nt);
	if (ret)
		goto out;
	ret = -ENOMEM;
	built = calloc(nt ? nt : 1, sizeof(*built));
	if (!built)
		goto out;
	for (i = 0; i < n; i++) {
		struct report_sym *s = NULL;

		syms[i] = NULL;
		if (!mapped[i])
			continue;
		s = sym_in(tab, nt, vmas[i]);
		if (!s)
			continue;
		if (!built[s - tab]) {
			built[s - tab] = found_get(img, s, &fresh, &nr_fresh,
						   &cap_fresh);
			if (!built[s - tab])
				goto out;
		}
		syms[i] = built[s - tab];
	}
	ret = found_merge(img, fresh, nr_fresh);
out:
	free(q);
	free(c);
	free(tab);
	free(built);
	free(fresh);
	return ret;
}

void image_bfd_resolve(struct image_bfd *img, const uint64_t *offsets,
		       size_t n, const struct report_sym **syms,
		       uint64_t *vmas)
{
	struct report_sym **found = NULL;
	bool *mapped = NULL;
	size_t i;
	int ret = 0;

	if (img->cover && !img->cover_failed) {
		found = malloc((n ? n : 1) * sizeof(*found));
		mapped = malloc(n ? n : 1);
		ret = found && mapped ? 0 : -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct report_sym *s = NULL;
		uint64_t vma;
		bool in = offset_to_vma(img, offsets[i], &vma);

		vmas[i] = in ? vma : offsets[i];
		if (in && !img->cover)
			s = sym_at(img, vma);
		if (mapped)
			mapped[i] = in;
		if (s)
			s->referenced = true;
		syms[i] = s ? s : &img->nosyms;
	}
	if (!ret && found)
		ret = cover_resolve(img, vmas, mapped, n, found);
	if (ret) {
		img->cover_failed = true;
		out_warnf("%s: %s; its samples show as (no symbols)",
			  img->path,
			  ret == -ENOMEM ? "out of memory"
					 : "cannot read its symbol table");
	} else if (found) {
		for (i = 0; i < n; i++) {
			struct report_sym *s = mapped[i] ? plt_at(img, vmas[i])
							 : NULL;

			s = s ? s : found[i];
			if (s)
				s->referenced = true;
			syms[i] = s ? s : &img->nosyms;
		}
	}
	free(found);
	free(mapped);
}

const struct report_line_src *image_bfd_line_src(struct image_bfd *img)
{
	return img->nr_lsecs ? &img->line_src : NULL;
}

/* libbfd's line lookup takes its own symbols (for a function name
 * when the DWARF has none); read them only when lines are asked for. */
static void lines_syms(struct image_bfd *img)
{
	asymbol ***syms = img->linebfd == img->dbg ? &img->syms_d
						   : &img->syms_a;

	if (!img->linesyms_read) {
		img->linesyms_read = true;
		/* out of memory, libbfd looks lines up without them: they
		 * only fill in a function name the DWARF lacks */
		if (!*syms && read_symtab(img->linebfd, syms, false) < 0)
			*syms = NULL;
	}
	img->linesyms = *syms;
}

static const struct line_sec *lsec_at(const struct image_bfd *img,
				      uint64_t vma)
{
	size_t lo = oputil_partition(0, img->nr_lsecs, m,
				     img->lsecs[m].vma <= vma);

	if (!lo || vma - img->lsecs[lo - 1].vma >= img->lsecs[lo - 1].size)
		return NULL;
	return &img->lsecs[lo - 1];
}

/* What the line table says of link-time address VMA: its file, function
 * and line, which libbfd's inliner steps go on from.  The caller has
 * read the line symbols (lines_syms()). */
static bool nearest_line(struct image_bfd *img, uint64_t vma,
			 const char **file, const char **func,
			 unsigned int *line)
{
	const struct line_sec *ls = lsec_at(img, vma);

	*file = *func = NULL;
	*line = 0;
	return ls &&
	       bfd_find_nearest_line(img->linebfd, ls->sec, img->linesyms,
				     vma - ls->vma, file, func, line);
}

static void image_lines(void *arg, const uint64_t *vmas, size_t n,
			const char **files, uint32_t *lines)
{
	struct image_bfd *img = arg;
	size_t i;

	lines_syms(img);
	for (i = 0; i < n; i++) {
		const char *file, *func;
		unsigned int line;

		if (!nearest_line(img, vmas[i], &file, &func, &line) ||
		    !file || !line)
			continue;
		files[i] = file;
		lines[i] = line;
	}
}

size_t image_bfd_inlines(struct image_bfd *img, uint64_t vma,
			 struct image_inline *out, size_t max)
{
	const char *file, *func;
	unsigned int line;
	size_t n = 0;

	if (!img->nr_lsecs)
		return 0;
	lines_syms(img);
	if (!nearest_line(img, vma, &file, &func, &line))
		return 0;
	/* each inliner step gives the caller and the line of its call */
	do {
		if (!func)
			break;
		out[n++] = (struct image_inline){ func, file, line };
	} while (n < max &&
		 bfd_find_inliner_info(img->linebfd, &file, &func, &line));
	return n;
}

static void sym_demangle(struct image_bfd *img, struct report_sym *s)
{
	char *d = bfd_demangle(img->symbfd, s->name,
			       OPJIT_DMGL_PARAMS | OPJIT_DMGL_ANSI);

	if (!d)
		return;
	/* out of memory: the mangled name stays, still the symbol's */
	if (oputil_grow(&img->owned, &img->cap_owned, img->nr_owned + 1,
			sizeof(*img->owned))) {
		free(d);
		return;
	}
	img->owned[img->nr_owned++] = d;
	s->name = d;
}

static void syms_finish(struct image_bfd *img, struct report_sym *syms,
			size_t n, bool demangle, bool lines)
{
	size_t k;

	for (k = 0; k < n; k++) {
		struct report_sym *s = &syms[k];
		const char *file = NULL;
		uint32_t line = 0;

		if (!s->referenced)
			continue;
		if (demangle)
			sym_demangle(img, s);
		/* symbols are in address order: one sorted batch */
		if (lines && img->nr_lsecs) {
			image_lines(img, &s->vma, 1, &file, &line);
			s->file = file;
			s->line = line;
		}
	}
}

void image_cache_finish(struct image_cache *c, bool lines)
{
	bool demangle = c->opts->demangle != DEMANGLE_NONE;
	uint32_t i;
	size_t k;

	for (i = 0; i < c->nr_images; i++) {
		struct image_bfd *img = c->images[i];

		if (!img)
			continue;
		syms_finish(img, img->plt, img->nr_plt, demangle, lines);
		syms_finish(img, img->syms, img->nr_syms, demangle, lines);
		for (k = 0; k < img->nr_found; k++)
			syms_finish(img, img->found[k], 1, demangle, lines);
	}
}
