// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Stack copies unwound with libdwfl (unwind.h).  One Dwfl a recorded
 * process layout, its images reported at their recorded addresses and
 * their call-frame information cached across the copies; one thread
 * whose registers and memory are the copy being unwound.
 */
#define _GNU_SOURCE /* asprintf */
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <oputil/grow.h>
#include <oputil/hash.h>

#include "diag.h"
#include "image_bfd.h"
#include "opreport.h"
#include "unwind.h"
#include "unwind_cfi.h"
#include "unwind_memo.h"

/* x86-64 DWARF register numbers */
#define DWARF_RBP 6
#define DWARF_RSP 7

/* libdwfl's search path for debug files when it is given none */
#define DEFAULT_DEBUGINFO_PATH ":.debug:/usr/lib/debug"

/* Reads of one unwinding logged at most for the memo: a copy that
 * needs more is unwound afresh each time. */
#define UNWIND_MAX_READS 4096

/* Pcs whose mapping a process layout remembers (a power of two): the
 * return addresses of a loop's copies are a few hundred. */
#define UNWIND_SEEN 256

/* Mappings of one process layout kept at most: a process maps a few
 * hundred; a damaged session may name millions. */
#define UNWIND_MAX_MAPS 65536

/* One process layout: the mappings of process TGID of program APP,
 * sorted by start and disjoint. */
struct unwind_proc {
	uint32_t tgid, app;
	struct ops_process_map *maps;
	size_t n;
	Dwfl *dwfl;		/* made on first use */
	struct unwind_cfi *cfi; /* its rules by pc; NULL: libdwfl alone */
	bool failed;
	struct proc_seen *seen; /* made on first use; NULL: none */
};

/* proc_find()'s answers by pc: its mapping's index + 1, or 0. */
struct proc_seen {
	uint64_t pc[UNWIND_SEEN];
	uint32_t map[UNWIND_SEEN];
};

struct unwind {
	struct ops_session *s;
	const struct opreport_opts *o;
	struct unwind_proc *procs;
	size_t nr_procs;
	size_t last;	 /* the layout of the copy before */
	uint8_t *warned; /* per image: its one warning said */
	uint32_t nr_images;
	char *debuginfo_path;
	Dwfl_Callbacks cb;
	/* the copy being unwound and what it gave */
	const struct ops_stack_copy *cur;
	bool fault; /* a read outside the copy */
	/* each frame's pc, and its rbp and rsp where UNWIND_KNOWN_BP
	 * and UNWIND_KNOWN_SP say the unwinding knows them: as the memo
	 * keeps them */
	struct unwind_frame fr[UNWIND_MAX_FRAMES];
	size_t nr_pcs;
	bool jit; /* the copy's process runs JIT code: unmapped is anon */
	struct unwind_proc *cur_proc;
	size_t unwound, kept;
	/* the outcomes of copies unwound before, and the reads of the
	 * unwinding under way (reads_over: too many, or no memory) */
	struct unwind_memo *memo;
	struct unwind_read *reads;
	size_t nr_reads, cap_reads;
	bool reads_over;
};

static int pmap_cmp(const void *a, const void *b)
{
	const struct ops_process_map *x = *(const struct ops_process_map **)a,
				     *y = *(const struct ops_process_map **)b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->app != y->app)
		return x->app < y->app ? -1 : 1;
	/* the order they were recorded in: a later one replaces */
	return x < y ? -1 : x > y;
}

static int map_start_cmp(const void *a, const void *b)
{
	const struct ops_process_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* M into P's mappings, replacing those it overlaps (as mmap would). */
static int proc_map_add(struct unwind_proc *p, size_t *cap,
			const struct ops_process_map *m)
{
	size_t i, k = 0;

	for (i = 0; i < p->n; i++)
		if (p->maps[i].start >= m->start + m->len ||
		    m->start >= p->maps[i].start + p->maps[i].len)
			p->maps[k++] = p->maps[i];
	p->n = k;
	if (p->n >= UNWIND_MAX_MAPS ||
	    oputil_grow(&p->maps, cap, p->n + 1, sizeof(*p->maps)))
		return p->n >= UNWIND_MAX_MAPS ? 0 : -ENOMEM;
	p->maps[p->n++] = *m;
	return 0;
}

/* The session's mappings as process layouts. */
static int procs_build(struct unwind *u, const struct ops_process_map *pm,
		       size_t n)
{
	const struct ops_process_map **v = malloc(n * sizeof(*v));
	size_t i, cap = 0, cap_procs = 0;
	struct unwind_proc *p = NULL;
	int ret = -ENOMEM;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		v[i] = &pm[i];
	qsort(v, n, sizeof(*v), pmap_cmp);
	for (i = 0; i < n; i++) {
		if (!p || p->tgid != v[i]->tgid || p->app != v[i]->app) {
			if (oputil_grow(&u->procs, &cap_procs, u->nr_procs + 1,
					sizeof(*u->procs)))
				goto out;
			p = &u->procs[u->nr_procs++];
			memset(p, 0, sizeof(*p));
			p->tgid = v[i]->tgid;
			p->app = v[i]->app;
			cap = 0;
		}
		if (proc_map_add(p, &cap, v[i]))
			goto out;
	}
	for (i = 0; i < u->nr_procs; i++)
		qsort(u->procs[i].maps, u->procs[i].n, sizeof(*p->maps),
		      map_start_cmp);
	ret = 0;
out:
	free(v);
	return ret;
}

/* The mapping of P that holds ADDR, or NULL: remembered by address,
 * since a copy's frames are looked up a dozen times each (the join, the
 * splice) and its return addresses are those of the copies before. */
static const struct ops_process_map *proc_find(struct unwind_proc *p,
					       uint64_t addr)
{
	size_t lo = 0, hi = p->n;
	size_t h = (size_t)oputil_hash_u64(addr) & (UNWIND_SEEN - 1);

	/* without memory for it, every lookup searches */
	if (!p->seen && p->n)
		p->seen = calloc(1, sizeof(*p->seen));
	if (p->seen && p->seen->map[h] && p->seen->pc[h] == addr)
		return &p->maps[p->seen->map[h] - 1];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start + p->maps[mid].len <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->n && p->maps[lo].start <= addr) {
		if (p->seen) {
			p->seen->pc[h] = addr;
			p->seen->map[h] = (uint32_t)lo + 1;
		}
		return &p->maps[lo];
	}
	return NULL;
}

static void warn_image(struct unwind *u, uint32_t image, const char *why)
{
	const struct ops_image *img = ops_session_image(u->s, image);

	if (image >= u->nr_images || u->warned[image])
		return;
	u->warned[image] = 1;
	diag("warning: %s: %s; stacks unwound from stack copies stop in its code",
	     img ? img->path : "?", why);
}

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return dwfl_pid(dwfl);
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

/* The stack is the copy, and nothing else: an address outside it ends
 * the unwinding there. */
static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			   void *arg)
{
	struct unwind *u = arg;
	uint64_t w;
	bool ok = ops_stack_copy_word(u->cur, addr, &w);

	(void)dwfl;
	if (!u->reads_over &&
	    (u->nr_reads >= UNWIND_MAX_READS ||
	     oputil_grow(&u->reads, &u->cap_reads, u->nr_reads + 1,
			 sizeof(*u->reads))))
		u->reads_over = true;
	if (ok)
		*result = w;
	if (!u->reads_over)
		u->reads[u->nr_reads++] =
			(struct unwind_read){ addr, ok ? w : 0, ok };
	if (!ok)
		u->fault = true;
	return ok;
}

/* cb_memory_read for unwind_cfi_walk */
static bool cfi_read(uint64_t addr, uint64_t *val, void *arg)
{
	Dwarf_Word w = 0;
	bool ok = cb_memory_read(NULL, addr, &w, arg);

	*val = w;
	return ok;
}

/* The registers the recorder keeps: the others are unknown, and a
 * frame whose rule needs one ends the unwinding. */
static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct ops_stack_copy *c = ((struct unwind *)arg)->cur;
	Dwarf_Word regs[2] = { c->bp, c->sp };

	dwfl_thread_state_register_pc(thread, c->ip);
	return dwfl_thread_state_registers(thread, DWARF_RBP, 2, regs);
}

static const Dwfl_Thread_Callbacks thread_cb = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

/* Where libdwfl is to place image file FD whose mapping M is at
 * M->start: for a shared object, the address of its first loadable
 * segment; 0 for an executable (placed where it was linked).  -1 with
 * *WHY when the file is no ELF or M maps no loadable segment of it. */
static int image_base(int fd, const struct ops_process_map *m, GElf_Addr *base,
		      const char **why)
{
	GElf_Addr first = 0, bias = 0;
	bool have_first = false, have_bias = false;
	GElf_Ehdr eh;
	size_t i, nph;
	Elf *elf;
	int ret = -1;

	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	*why = "not an ELF file";
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nph))
		goto out;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!have_first) {
			first = ph.p_align > 1 ? ph.p_vaddr & -ph.p_align
					       : ph.p_vaddr;
			have_first = true;
		}
		/* the segment the mapping's file offset falls in */
		if (!have_bias &&
		    m->pgoff >= (ph.p_offset & -(GElf_Addr)4096) &&
		    m->pgoff < ph.p_offset + ph.p_filesz) {
			bias = m->start - m->pgoff -
			       (ph.p_vaddr - ph.p_offset);
			have_bias = true;
		}
	}
	*why = "its recorded mapping holds no loadable segment";
	if (!have_first || !have_bias)
		goto out;
	*base = eh.e_type == ET_DYN ? bias + first : 0;
	*why = NULL;
	ret = 0;
out:
	if (elf)
		elf_end(elf);
	return ret;
}

/* Whether ELF file FD has a .debug_frame section with contents, and
 * its build id is the BITS_LEN bytes at BITS. */
static bool debug_file_fits(int fd, const unsigned char *bits, int bits_len,
			    bool *has_cfi)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id;
	Elf_Scn *scn = NULL;
	bool fits = false;
	size_t shstrndx;

	*has_cfi = false;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) ||
	    dwelf_elf_gnu_build_id(elf, &id) != bits_len ||
	    memcmp(id, bits, (size_t)bits_len))
		goto out;
	fits = true;
	while (!*has_cfi && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		*has_cfi = name && (!strcmp(name, ".debug_frame") ||
				    !strcmp(name, ".zdebug_frame"));
	}
out:
	if (elf)
		elf_end(elf);
	return fits;
}

/* Whether the debug file libdwfl's search would take for MOD, the first
 * DIR/.build-id/NN/REST.debug in the absolute directories of PATH (as
 * libdwfl's own search by build id, which comes first), is there with
 * MOD's build id and no .debug_frame. */
static bool debug_file_lacks_cfi(Dwfl_Module *mod, const char *path)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	char *dirs, *next, *dir, *name = NULL;
	int i, n = dwfl_module_build_id(mod, &bits, &vaddr), fd = -1;
	char id[2 * 64 + sizeof("/.build-id/x/.debug")], *p = id;
	bool fits = false, has_cfi = true;
	struct stat st;

	if (n < 3 || n > 64)
		return false;
	p += sprintf(p, "/.build-id/%02x/", bits[0]);
	for (i = 1; i < n; i++)
		p += sprintf(p, "%02x", bits[i]);
	strcpy(p, ".debug");
	dirs = strdup(path);
	for (next = dirs; fd < 0 && next && (dir = strsep(&next, ":"));) {
		dir += *dir == '+' || *dir == '-';
		if (*dir != '/')
			continue;
		free(name);
		name = NULL;
		if (asprintf(&name, "%s%s", dir, id) < 0)
			break;
		fd = ops_file_open(name, UINT64_MAX, &st);
	}
	if (fd >= 0) {
		fits = debug_file_fits(fd, bits, n, &has_cfi);
		close(fd);
	}
	free(name);
	free(dirs);
	return fits && !has_cfi;
}

/* A module's debug file, as libdwfl's standard search finds it, but
 * none when the one its search by build id finds has no .debug_frame:
 * the unwinder asks for the debug file for that section alone (when
 * .eh_frame has no entry for a pc), and libdw inflates every compressed
 * debug section of a file it opens (glibc's ld.so, whose hand-written
 * entry has no entry, has a 2 MB debug file without .debug_frame). */
static int cb_find_debuginfo(Dwfl_Module *mod, void **userdata,
			     const char *modname, Dwarf_Addr base,
			     const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc,
			     char **debuginfo_file_name)
{
	const struct unwind *u = *userdata;

	if (u && debug_file_lacks_cfi(mod, u->debuginfo_path
						   ? u->debuginfo_path
						   : DEFAULT_DEBUGINFO_PATH))
		return -1;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base,
					    file_name, debuglink_file,
					    debuglink_crc,
					    debuginfo_file_name);
}

/* P's images reported to a new Dwfl at their recorded places. */
static Dwfl *proc_dwfl(struct unwind *u, struct unwind_proc *p)
{
	Dwfl *dwfl = dwfl_begin(&u->cb);
	size_t i, k, reported = 0;

	if (!dwfl)
		return NULL;
	dwfl_report_begin(dwfl);
	for (i = 0; i < p->n; i++) {
		const struct ops_process_map *m = &p->maps[i];
		const struct ops_image *img =
			ops_session_image(u->s, m->image);
		const char *why = NULL;
		Dwfl_Module *mod;
		void **userdata;
		struct stat st;
		GElf_Addr base;
		char *path;
		int fd;

		/* each image once, at its first mapping */
		for (k = 0; k < i && p->maps[k].image != m->image; k++)
			;
		if (k < i || !img || img->kind != OPS_IMAGE_FILE ||
		    img->path[0] != '/')
			continue;
		path = image_bfd_find(u->o, img->path);
		fd = path ? ops_file_open(path, UINT64_MAX, &st) : -ENOMEM;
		if (fd < 0) {
			if (fd != -ENOMEM)
				warn_image(u, m->image, ops_file_strerror(fd));
			free(path);
			continue;
		}
		if (image_base(fd, m, &base, &why)) {
			close(fd);
		} else if (!(mod = dwfl_report_elf(dwfl, img->path, path, fd,
						   base, false))) {
			why = dwfl_errmsg(-1);
			close(fd);
		} else {
			/* for cb_find_debuginfo */
			dwfl_module_info(mod, &userdata, NULL, NULL, NULL,
					 NULL, NULL, NULL);
			*userdata = u;
			reported++;
		}
		if (why)
			warn_image(u, m->image, why);
		free(path);
	}
	dwfl_report_end(dwfl, NULL, NULL);
	if (!reported ||
	    !dwfl_attach_state(dwfl, NULL, p->tgid ? (pid_t)p->tgid : 1,
			       &thread_cb, u)) {
		dwfl_end(dwfl);
		return NULL;
	}
	return dwfl;
}

int unwind_new(struct unwind **out, struct ops_session *s,
	       const struct opreport_opts *o)
{
	const struct ops_process_map *pm;
	struct unwind *u;
	size_t n, nc;

	*out = NULL;
	pm = ops_session_process_maps(s, &n);
	ops_session_stack_copies(s, &nc);
	if (!n || !nc)
		return 0;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->s = s;
	u->o = o;
	u->nr_images = ops_session_nr_images(s);
	u->warned = calloc(u->nr_images ? u->nr_images : 1, 1);
	if (o && o->debug_dir &&
	    asprintf(&u->debuginfo_path, "-:.debug:%s", o->debug_dir) < 0)
		u->debuginfo_path = NULL;
	u->cb = (Dwfl_Callbacks){
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = cb_find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = u->debuginfo_path ? &u->debuginfo_path
						    : NULL,
	};
	/* without a memo (no memory), every copy is unwound afresh */
	u->memo = unwind_memo_new();
	if (!u->warned || procs_build(u, pm, n)) {
		unwind_free(u);
		return -ENOMEM;
	}
	elf_version(EV_CURRENT);
	*out = u;
	return 0;
}

void unwind_free(struct unwind *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->nr_procs; i++) {
		unwind_cfi_free(u->procs[i].cfi);
		if (u->procs[i].dwfl)
			dwfl_end(u->procs[i].dwfl);
		free(u->procs[i].maps);
		free(u->procs[i].seen);
	}
	free(u->procs);
	unwind_memo_free(u->memo);
	free(u->reads);
	free(u->warned);
	free(u->debuginfo_path);
	free(u);
}

/* The layout copy C came from: a process of its program (and its
 * process, when the session separates them) that maps its ip at its
 * leaf frame's file offset. */
/* Whether copy C, whose context is CTX and leaf LEAF, may be of P. */
static bool proc_fits(struct unwind_proc *p, const struct ops_context *ctx,
		      const struct ops_stack_copy *c,
		      const struct ops_frame *leaf)
{
	const struct ops_process_map *m;

	if (p->app != ctx->app || (ctx->tgid && p->tgid != ctx->tgid))
		return false;
	m = proc_find(p, c->ip);
	return m && m->image == leaf->image &&
	       c->ip - m->start + m->pgoff == leaf->addr;
}

/* The layout copy C came from: a process of its program (and its
 * process, when the session separates them) that maps its ip at its
 * leaf frame's file offset; the one found last first, as copies come
 * in runs of a process. */
static struct unwind_proc *proc_of(struct unwind *u,
				   const struct ops_stack_copy *c,
				   const struct ops_frame *leaf)
{
	const struct ops_context *ctx = ops_session_context(u->s, c->ctx);
	size_t i;

	if (!ctx || leaf->kind != OPS_FRAME_IMAGE)
		return NULL;
	if (u->last < u->nr_procs &&
	    proc_fits(&u->procs[u->last], ctx, c, leaf))
		return &u->procs[u->last];
	for (i = 0; i < u->nr_procs; i++)
		if (proc_fits(&u->procs[i], ctx, c, leaf)) {
			u->last = i;
			return &u->procs[i];
		}
	return NULL;
}

/* Whether CFI, its bias BIAS, has an entry for PC. */
static bool cfi_covers(Dwarf_CFI *cfi, Dwarf_Addr bias, uint64_t pc)
{
	Dwarf_Frame *frame = NULL;
	bool found = cfi && !dwarf_cfi_addrframe(cfi, pc - bias, &frame);

	free(frame);
	return found;
}

/* The unwinding stopped with an error at PC: a word for PC's image when
 * it has no call-frame information at all, or when an entry for PC
 * could not be followed (damaged).  A frame without an entry of its own
 * (hand-written code, a program's entry point) is where the unwound
 * stack ends, as frame pointers take over. */
static void warn_stop(struct unwind *u, struct unwind_proc *p, uint64_t pc)
{
	const struct ops_process_map *m = proc_find(p, pc);
	Dwfl_Module *mod = dwfl_addrmodule(p->dwfl, pc);
	const char *err = dwfl_errmsg(-1);
	Dwarf_CFI *eh = NULL, *dw = NULL;
	Dwarf_Addr eh_bias = 0, dw_bias = 0;

	if (!m || !mod)
		return;
	eh = dwfl_module_eh_cfi(mod, &eh_bias);
	dw = dwfl_module_dwarf_cfi(mod, &dw_bias);
	if (!eh && !dw)
		warn_image(u, m->image, "no call-frame information");
	else if (!u->fault &&
		 (cfi_covers(eh, eh_bias, pc) || cfi_covers(dw, dw_bias, pc)))
		warn_image(u, m->image, err ? err : "cannot unwind");
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unwind *u = arg;
	struct unwind_frame *f;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, NULL) || !pc)
		return DWARF_CB_ABORT;
	f = &u->fr[u->nr_pcs++];
	f->known =
		(dwfl_frame_reg(state, DWARF_RBP, &f->bp) ? 0
							  : UNWIND_KNOWN_BP) |
		(dwfl_frame_reg(state, DWARF_RSP, &f->sp) ? 0
							  : UNWIND_KNOWN_SP);
	f->pc = pc;
	return u->nr_pcs < UNWIND_MAX_FRAMES ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* Frame PC as the session names frames: an image and file offset; in
 * a process that runs JIT code, an address no image holds is
 * anonymous, for its handler to name. */
static struct cg_raw_frame proc_frame(const struct unwind *u,
				      struct unwind_proc *p, uint64_t pc)
{
	const struct ops_process_map *m = proc_find(p, pc);

	if (!m)
		return (struct cg_raw_frame){ u->jit ? CG_ANON : CG_UNKNOWN,
					      pc };
	return (struct cg_raw_frame){ m->image, pc - m->start + m->pgoff };
}

/* Unwound frames [0, I) then the chain FP from frame J on into FRAMES;
 * 0 when they do not fit. */
static size_t splice(struct unwind *u, const struct ops_stack *fp, size_t i,
		     size_t j, struct cg_raw_frame *frames, size_t max,
		     enum unwind_root *root)
{
	size_t n;

	if (i + fp->nr_frames - j > max)
		return 0;
	for (n = 0; n < i; n++)
		frames[n] = proc_frame(u, u->cur_proc, u->fr[n].pc);
	for (; j < fp->nr_frames; j++)
		frames[n++] = cg_raw_frame_of(&fp->frames[j]);
	if (fp->flags & OPS_STACK_TRUNCATED)
		*root = UNWIND_CUT_CHAIN;
	return n;
}

/*
 * The unwound frames joined to the kernel's chain where it is valid
 * again, or 0 when it never is.  The kernel walked from the sampled bp:
 * its second entry is the return address of the frame whose frame
 * pointer bp is, the first unwound frame I (past the leaf) that has bp
 * as its own rbp and its frame's base just above it (the caller's rsp,
 * bp + 16), or that is the last one unwound, in JIT code, with that rbp
 * (JIT code has no CFI, and its frame pointers are what go on).  Else
 * the first return address the two share.
 */
static size_t join(struct unwind *u, const struct ops_stack_copy *c,
		   const struct ops_stack *fp, struct cg_raw_frame *frames,
		   size_t max, enum unwind_root *root)
{
	size_t i, j, n = u->nr_pcs;

	for (i = 1; i < n && fp->nr_frames > 1; i++) {
		bool owner = (u->fr[i].known & UNWIND_KNOWN_BP) &&
			     u->fr[i].bp == c->bp;

		if (owner && i + 1 < n)
			owner = (u->fr[i + 1].known & UNWIND_KNOWN_SP) &&
				u->fr[i + 1].sp == c->bp + 16;
		else if (owner)
			owner = proc_frame(u, u->cur_proc, u->fr[i].pc).image ==
				CG_ANON;
		if (owner)
			return splice(u, fp, i + 1, 1, frames, max, root);
	}
	for (i = 1; i < n; i++) {
		struct cg_raw_frame f =
			proc_frame(u, u->cur_proc, u->fr[i].pc);

		for (j = 1; j < fp->nr_frames; j++) {
			struct cg_raw_frame g =
				cg_raw_frame_of(&fp->frames[j]);

			if (f.image == g.image && f.addr == g.addr)
				return splice(u, fp, i, j, frames, max, root);
		}
	}
	return 0;
}

/* Copy C unwound in layout P into u->fr: from the memo when a copy
 * before it read the same words, else by libdwfl (*FRESH), and then
 * remembered.  libdwfl's return. */
static int unwind_copy(struct unwind *u, struct unwind_proc *p,
		       const struct ops_stack_copy *c, bool *fresh)
{
	uint32_t layout = (uint32_t)(p - u->procs);
	struct unwind_outcome o;
	int ret;

	u->cur = c;
	u->fault = false;
	u->nr_pcs = 0;
	u->cur_proc = p;
	u->nr_reads = 0;
	u->reads_over = !u->memo;
	*fresh = false;
	if (u->memo && unwind_memo_find(u->memo, layout, c, &o)) {
		memcpy(u->fr, o.frames, o.nr * sizeof(*u->fr));
		u->nr_pcs = o.nr;
		u->fault = o.fault;
		return o.ret;
	}
	*fresh = true;
	if (!p->cfi ||
	    !unwind_cfi_walk(p->cfi, c->ip, c->bp, c->sp, cfi_read, u, u->fr,
			     UNWIND_MAX_FRAMES, &u->nr_pcs, &ret)) {
		/* what the walk read and found does not count */
		u->fault = false;
		u->nr_pcs = 0;
		u->nr_reads = 0;
		u->reads_over = !u->memo;
		ret = dwfl_getthread_frames(p->dwfl, dwfl_pid(p->dwfl),
					    frame_cb, u);
	}
	if (u->reads_over)
		return ret;
	o = (struct unwind_outcome){ u->fr, u->nr_pcs, u->fault, ret };
	/* out of memory, the copies to come are unwound afresh: the
	 * memo saves time and changes nothing */
	unwind_memo_add(u->memo, layout, c, u->reads, u->nr_reads, &o);
	return ret;
}

/* unwind_stack() of a stack with no kernel frame */
static size_t unwind_user(struct unwind *u, const struct ops_stack_copy *c,
			  const struct ops_stack *fp,
			  struct cg_raw_frame *frames, size_t max,
			  enum unwind_root *root)
{
	struct unwind_proc *p;
	bool fresh;
	size_t i, n;
	int ret;

	*root = UNWIND_WHOLE;
	u->jit = false;
	for (i = 0; i < fp->nr_frames; i++)
		u->jit |= fp->frames[i].kind == OPS_FRAME_ANON;
	p = fp->nr_frames ? proc_of(u, c, &fp->frames[0]) : NULL;
	if (!p || p->failed || !c->size || max < 2)
		goto kept;
	if (!p->dwfl && !(p->dwfl = proc_dwfl(u, p))) {
		p->failed = true;
		goto kept;
	}
	/* without it (no memory), libdwfl unwinds every copy */
	if (!p->cfi)
		p->cfi = unwind_cfi_new(p->dwfl);
	ret = unwind_copy(u, p, c, &fresh);
	/* a remembered outcome's warning was said, or not, when it was
	 * unwound: warn_stop() depends only on what is remembered */
	if (u->nr_pcs < 2) {
		if (ret == -1 && fresh)
			warn_stop(u, p, c->ip);
		goto kept;
	}
	n = join(u, c, fp, frames, max, root);
	if (n) {
		u->unwound++;
		return n;
	}
	/* no frame of the chain past the leaf is one of the unwound: the
	 * chain was lost in frameless code; the unwound frames alone,
	 * cut where the copy or the frame limit ended them */
	n = u->nr_pcs < max ? u->nr_pcs : max;
	for (i = 0; i < n; i++)
		frames[i] = proc_frame(u, p, u->fr[i].pc);
	/* cut where the copy ran out or at the frame limit; an error
	 * otherwise is a frame with no entry, where stacks end */
	if (u->fault || u->nr_pcs >= UNWIND_MAX_FRAMES || n < u->nr_pcs)
		*root = UNWIND_CUT_COPY;
	if (ret == -1 && fresh)
		warn_stop(u, p, u->fr[u->nr_pcs - 1].pc - 1);
	u->unwound++;
	return n;
kept:
	u->kept++;
	return 0;
}

size_t unwind_stack(struct unwind *u, const struct ops_stack_copy *c,
		    const struct ops_stack *fp, struct cg_raw_frame *frames,
		    size_t max, enum unwind_root *root)
{
	struct ops_stack user;
	size_t i, k, n;

	*root = UNWIND_WHOLE;
	if (!fp || fp->nr_kernel >= fp->nr_frames || fp->nr_kernel >= max) {
		u->kept++;
		return 0;
	}
	if (!fp->nr_kernel)
		return unwind_user(u, c, fp, frames, max, root);
	/* a sample in the kernel: the copy is of the user stack at its
	 * entry, whose registers are those of the chain's user part */
	k = fp->nr_kernel;
	user = *fp;
	user.frames += k;
	user.nr_frames -= (uint32_t)k;
	user.nr_kernel = 0;
	n = unwind_user(u, c, &user, frames + k, max - k, root);
	if (!n)
		return 0;
	for (i = 0; i < k; i++)
		frames[i] = cg_raw_frame_of(&fp->frames[i]);
	return n + k;
}

void unwind_stats(const struct unwind *u, size_t *unwound, size_t *kept)
{
	*unwound = u ? u->unwound : 0;
	*kept = u ? u->kept : 0;
}

void unwind_memo_counts(const struct unwind *u, size_t *hits, size_t *misses)
{
	unwind_memo_stats(u ? u->memo : NULL, hits, misses);
}
