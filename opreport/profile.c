// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/u64map.h>

#include "anon_rows.h"
#include "callgraph.h"
#include "diag.h"
#include "image_bfd.h"
#include "kallsyms.h"
#include "profile.h"
#include "profile_jvm.h"
#include "slice_counts.h"
#include "unwind.h"
#include "spec.h"
#include "strpool.h"

/* Of the functions here, only profile_build() reports a failure: the
 * others return -ENOMEM, -EOVERFLOW or the session's errno for it to
 * say, once; warnings they say themselves. */

struct profile {
	struct image_cache *images;
	struct kallsyms *ks;
	struct callgraph *cg;
	uint64_t copy_cut; /* samples whose unwound stack a copy cut */
	/* the counted samples' time slices, while the graph is built */
	struct slice_counts slices;
};

/* A selected histogram entry, to be resolved with the others of its
 * image in one sorted batch. */
struct pick {
	uint32_t image;
	uint64_t offset;
	const struct ops_hist_entry *e;
};

static int pick_cmp(const void *pa, const void *pb)
{
	const struct pick *a = pa, *b = pb;

	if (a->image != b->image)
		return a->image < b->image ? -1 : 1;
	return (a->offset > b->offset) - (a->offset < b->offset);
}

/* Whether tgid: and tid: keep CTX's samples. */
static bool ctx_threads_selected(const struct report *r,
				 const struct ops_context *ctx)
{
	const struct profile_spec *spec = r->opts->spec;

	if (profile_spec_has_tgid(spec) &&
	    !profile_spec_match_tgid(spec, ctx->tgid))
		return false;
	/* a histogram keeps its thread only when recorded with
	 * --separate=thread: else tid: selects none of it */
	return !profile_spec_has_tid(spec) ||
	       ((r->info->separate & OPS_SEPARATE_THREAD) &&
		profile_spec_match_tid(spec, ctx->tid));
}

static bool ctx_selected(const struct report *r, const struct ops_image *img,
			 const struct ops_image *app,
			 const struct ops_context *ctx)
{
	const struct profile_spec *spec = r->opts->spec;

	return ctx_threads_selected(r, ctx) &&
	       (profile_spec_match_image(spec, img->path) ||
		(app && profile_spec_match_image(spec, app->path)));
}

static enum row_kind kind_of(const struct ops_image *img)
{
	return img->kind == OPS_IMAGE_FILE ? ROW_FILE : ROW_KERNEL;
}

static const char *module_name(struct strpool *pool, const char *path)
{
	size_t len;
	const char *name = ops_image_module_name(path, &len);

	return strpool_printf(pool, "%.*s", (int)len, name);
}

/* The kernel's symbols, read once, when the session has a kernel or
 * module image: one recorded without the kernel has no kallsyms copy,
 * and no use for the warning that it is missing.  0 or -ENOMEM (not
 * reported). */
static int kernel_syms(struct profile *p, struct ops_session *s)
{
	uint32_t id, nr = ops_session_nr_images(s);

	if (p->ks)
		return 0;
	for (id = 0; id < nr; id++)
		if (ops_session_image(s, id)->kind != OPS_IMAGE_FILE)
			break;
	if (id == nr)
		return 0;
	return kallsyms_load(&p->ks, ops_session_dir(s),
			     ops_session_kallsyms(s), ops_session_modules(s));
}

/* The symbol of ADDR, a sample filed under the kernel, in *SYM; when
 * it lies in a module's code, the module as its image in *IMAGE
 * ("[name]", as kallsyms writes it), else NULL.  0 or -ENOMEM. */
static int kernel_sym(struct report *r, struct kallsyms *ks, uint64_t addr,
		      const struct report_sym **sym, const char **image)
{
	const char *module;
	int ret = kallsyms_resolve_kernel(ks, addr, sym, &module);

	*image = NULL;
	if (ret || !module)
		return ret;
	*image = strpool_printf(r->pool, "[%s]", module);
	return *image ? 0 : -ENOMEM;
}

/* Whether the spec keeps a sample at ADDR of CTX, whose image is IMG.
 * The recorder files a module's code under the kernel, and the report
 * names it by its module: image: selects it by its module too
 * (image:[ext4]), and [kernel.kallsyms] then means the kernel's own
 * code.  1, 0 or -ENOMEM (not reported). */
static int sample_selected(struct profile *p, const struct report *r,
			   struct ops_session *s, const struct ops_image *img,
			   const struct ops_image *app,
			   const struct ops_context *ctx, uint64_t addr)
{
	const struct profile_spec *spec = r->opts->spec;
	const struct report_sym *sym;
	const char *module;
	int ret;

	if (img->kind == OPS_IMAGE_KERNEL && profile_spec_has_image(spec) &&
	    ops_session_kallsyms(s) && ctx_threads_selected(r, ctx)) {
		ret = kernel_syms(p, s);
		if (!ret)
			ret = kallsyms_resolve_kernel(p->ks, addr, &sym,
						      &module);
		if (ret)
			return ret;
		if (module)
			return profile_spec_match_module(spec, module) ||
			       (app &&
				profile_spec_match_image(spec, app->path));
	}
	return ctx_selected(r, img, app, ctx);
}

/* Resolve one image's picks [first, last) and add them as hits. */
static int add_image(struct profile *p, struct report *r,
		     struct ops_session *s, struct pick *pk, size_t n)
{
	const struct ops_image *img = ops_session_image(s, pk[0].image);
	const struct report_sym **syms = NULL;
	const struct report_line_src *lsrc = NULL;
	uint64_t *offs = NULL, *vmas = NULL;
	const char *image = strpool_intern(r->pool, img->path);
	const char *module = NULL, **images = NULL;
	struct image_bfd *ib = NULL;
	size_t i, nu = 0, u;
	int ret = -ENOMEM;

	if (!image)
		goto out;
	offs = malloc(n * sizeof(*offs));
	vmas = malloc(n * sizeof(*vmas));
	syms = malloc(n * sizeof(*syms));
	images = calloc(n, sizeof(*images));
	if (!offs || !vmas || !syms || !images)
		goto out;
	for (i = 0; i < n; i++)
		if (!nu || offs[nu - 1] != pk[i].offset)
			offs[nu++] = pk[i].offset;
	if (!r->want_syms) {
		memcpy(vmas, offs, nu * sizeof(*vmas));
		memset(syms, 0, nu * sizeof(*syms));
		/* module code filed under the kernel is its module's image
		 * in the summary as well; a session without the copy has
		 * nothing to say of it here */
		if (img->kind == OPS_IMAGE_KERNEL && ops_session_kallsyms(s)) {
			ret = kernel_syms(p, s);
			for (i = 0; i < nu && !ret; i++)
				ret = kernel_sym(r, p->ks, offs[i], &syms[i],
						 &images[i]);
			memset(syms, 0, nu * sizeof(*syms));
			if (ret)
				goto out;
			ret = -ENOMEM;
		}
	} else if (img->kind == OPS_IMAGE_FILE) {
		ib = image_cache_get(p->images, pk[0].image, img);
		if (!ib)
			goto out;
		image_bfd_resolve(ib, offs, nu, syms, vmas);
		if (r->opts->details && r->opts->debug_info)
			lsrc = image_bfd_line_src(ib);
	} else {
		ret = kernel_syms(p, s);
		if (ret)
			goto out;
		if (img->kind == OPS_IMAGE_MODULE)
			module = module_name(r->pool, img->path);
		for (i = 0; i < nu; i++) {
			vmas[i] = offs[i];
			if (img->kind == OPS_IMAGE_MODULE) {
				syms[i] = kallsyms_resolve(p->ks, module,
							   offs[i]);
				continue;
			}
			ret = kernel_sym(r, p->ks, offs[i], &syms[i],
					 &images[i]);
			if (ret)
				goto out;
		}
		ret = -ENOMEM;
	}
	for (i = u = 0; i < n; i++) {
		const struct ops_context *ctx =
			ops_session_context(s, pk[i].e->ctx);
		const struct ops_image *app = ops_session_image(s, ctx->app);
		struct report_hit h = {
			.kind = kind_of(img),
			.image = image,
			.app = app ? strpool_intern(r->pool, app->path)
				   : image,
			.tgid = ctx->tgid,
			.cpu = ctx->cpu,
			.tid = ctx->tid,
			.count = pk[i].e->count,
			.line_src = lsrc,
		};

		while (offs[u] != pk[i].offset)
			u++;
		h.sym = syms[u];
		h.vma = vmas[u];
		if (images[u])
			h.image = images[u];
		if (!h.app)
			goto out;
		ret = report_add_hit(r, &h);
		if (ret)
			goto out;
	}
	ret = 0;
out:
	free(offs);
	free(vmas);
	free(syms);
	free(images);
	return ret;
}

static int add_hist(struct profile *p, struct report *r, struct ops_session *s)
{
	size_t n, i, j, np = 0;
	const struct ops_hist_entry *h = ops_session_hist(s, &n);
	uint32_t nr_ctx = ops_session_nr_contexts(s);
	uint32_t nr_img = ops_session_nr_images(s);
	struct pick *pk;
	int ret = 0;

	pk = malloc((n ? n : 1) * sizeof(*pk));
	if (!pk)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct ops_context *ctx;
		const struct ops_image *img, *app;
		int sel;

		/* the reader checks ids; an entry it let through that still
		 * points nowhere is not counted rather than crash */
		if (h[i].ctx >= nr_ctx)
			continue;
		ctx = ops_session_context(s, h[i].ctx);
		if (!ctx || ctx->image >= nr_img)
			continue;
		img = ops_session_image(s, ctx->image);
		app = ctx->app < nr_img ? ops_session_image(s, ctx->app)
					: NULL;
		if (!img)
			continue;
		if (report_count_add(&r->session_total, h[i].count)) {
			free(pk);
			return -EOVERFLOW;
		}
		sel = sample_selected(p, r, s, img, app, ctx, h[i].offset);
		if (sel < 0) {
			free(pk);
			return sel;
		}
		if (!sel)
			continue;
		/* a part of the session total: cannot overflow */
		report_count_add(&r->total, h[i].count);
		pk[np++] = (struct pick){ ctx->image, h[i].offset, &h[i] };
	}
	qsort(pk, np, sizeof(*pk), pick_cmp);
	for (i = 0; i < np && !ret; i = j) {
		for (j = i; j < np && pk[j].image == pk[i].image; j++)
			;
		ret = add_image(p, r, s, pk + i, j - i);
	}
	free(pk);
	return ret;
}

/* A flat sample as a stack of one frame: what folded and pprof show of a
 * session recorded without call chains. */
static int cg_add_flat(struct profile *p, struct report *r,
		       struct ops_session *s)
{
	size_t n, i;
	const struct ops_hist_entry *h = ops_session_hist(s, &n);
	uint32_t nr_img = ops_session_nr_images(s);
	uint32_t id, nr = ops_session_nr_processes(s);
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		const struct ops_context *ctx =
			ops_session_context(s, h[i].ctx);
		const struct ops_image *img, *app;
		struct slice_key k = { OPS_TIME_COUNTS, h[i].ctx,
				       h[i].offset };
		struct cg_raw_frame fr;
		struct cg_raw_ctx c;
		uint32_t sid;

		if (!ctx || ctx->image >= nr_img)
			continue;
		img = ops_session_image(s, ctx->image);
		app = ctx->app < nr_img ? ops_session_image(s, ctx->app)
					: NULL;
		if (!img || !h[i].count)
			continue;
		ret = sample_selected(p, r, s, img, app, ctx, h[i].offset);
		if (ret <= 0)
			continue;
		c = (struct cg_raw_ctx){ app ? ctx->app : CG_NONE, CG_NONE,
					 ctx->tgid };
		fr = (struct cg_raw_frame){ ctx->image, h[i].offset };
		ret = callgraph_add_stack(p->cg, &fr, 1, false, &sid)
			      ?: slice_counts_add(&p->slices, p->cg, &c, sid,
						  &k, NULL, h[i].count);
	}
	for (id = 0; id < nr && !ret && r->opts->anon_samples; id++) {
		const struct ops_process *pr = ops_session_process(s, id);
		const struct ops_anon_sample *smp;
		size_t k, ns;

		if (!pr || !anon_rows_selected(r, pr))
			continue;
		/* fails only out of memory: a process left out would be
		 * missing from the graph without a word */
		ret = ops_session_anon(s, id, &smp, &ns);
		if (ret)
			break;
		for (k = 0; k < ns && !ret; k++) {
			struct cg_raw_ctx c = { CG_NONE, id, pr->tgid };
			struct cg_raw_frame fr = { CG_ANON, smp[k].addr };

			if (!profile_spec_match_tid(r->opts->spec, smp[k].tid))
				continue;
			ret = callgraph_add(p->cg, &c, &fr, 1, smp[k].time_ns,
					    1, false);
		}
		ops_session_anon_release(s, id);
	}
	return ret;
}

/* Which side of the kernel's edge a graph frame of image IMAGE is on. */
enum frame_side { FRAME_UNKNOWN, FRAME_KERNEL, FRAME_USER };

static enum frame_side frame_side(struct ops_session *s, uint32_t image)
{
	const struct ops_image *img;

	if (image == CG_ANON)
		return FRAME_USER;
	img = ops_session_image(s, image); /* NULL for CG_UNKNOWN */
	if (!img)
		return FRAME_UNKNOWN;
	return img->kind == OPS_IMAGE_KERNEL || img->kind == OPS_IMAGE_MODULE
		       ? FRAME_KERNEL
		       : FRAME_USER;
}

/*
 * The graph looks a caller up one byte back, in its call instruction
 * (cg_lookup_addr).  The user frame just above a stack's kernel frames
 * is no return address but where the program stopped (a fault, an
 * interrupt, the instruction after a system call), to be named by that
 * instruction as a leaf is, as perf names it: a fault on a function's
 * first byte would else be named by the function before.  So it enters
 * the graph one byte on.
 */
static uint64_t stopped_addr(uint64_t addr)
{
	return addr + 1;
}

/* FRAMES[0..N), leaf first: the user frame a kernel part stopped, if
 * any, one byte on (stopped_addr). */
static void cg_mark_stopped(struct ops_session *s, struct cg_raw_frame *frames,
			    size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i++) {
		if (frame_side(s, frames[i].image) != FRAME_KERNEL)
			return;
		switch (frame_side(s, frames[i + 1].image)) {
		case FRAME_USER:
			frames[i + 1].addr = stopped_addr(frames[i + 1].addr);
			return;
		case FRAME_UNKNOWN:
			return;
		case FRAME_KERNEL:
			break;
		}
	}
}

/* Whether session stack I's frame is one of a user program that a
 * kernel frame below it stopped: STOPPED[I], set for each such I. */
static int cg_table_stopped(struct ops_session *s, uint32_t n, bool **stopped)
{
	uint32_t i, parent, flags;

	*stopped = calloc(n ? n : 1, sizeof(**stopped));
	if (!*stopped)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct ops_frame *f =
			ops_session_stack_top(s, i, &parent, &flags);
		const struct ops_frame *up;
		uint32_t up_parent;

		if (!f || parent >= i ||
		    frame_side(s, cg_raw_frame_of(f).image) != FRAME_KERNEL)
			continue;
		up = ops_session_stack_top(s, parent, &up_parent, &flags);
		if (up &&
		    frame_side(s, cg_raw_frame_of(up).image) == FRAME_USER)
			(*stopped)[parent] = true;
	}
	return 0;
}

/* folded and pprof show a session without call chains as stacks of one
 * frame; -c and json show only recorded call chains */
/* The session's stack table into the call graph as it is, a tree (each
 * frame once, however many stacks pass through it), its stack ids the
 * graph's.  0 or -ENOMEM (not reported). */
static int cg_add_table(struct profile *p, struct ops_session *s)
{
	bool *stopped;
	int ret;

	ret = cg_table_stopped(s, ops_session_nr_stacks(s), &stopped);
	if (!ret)
		ret = callgraph_add_table(p->cg, s, stopped);
	free(stopped);
	return ret;
}

/* Whether a stack of process P whose leaf is LEAF is selected: by the
 * leaf, as the flat sample of the same instruction is. */
static bool anon_stack_selected(struct report *r, struct ops_session *s,
				const struct ops_process *p,
				struct cg_raw_frame leaf)
{
	const struct profile_spec *spec = r->opts->spec;
	const struct ops_image *img;

	if (leaf.image == CG_ANON || leaf.image == CG_UNKNOWN)
		return r->opts->anon_samples && anon_rows_selected(r, p);
	img = ops_session_image(s, leaf.image);
	if (!img || !profile_spec_match_tgid(spec, p->tgid) ||
	    profile_spec_has_tid(spec))
		return false;
	return profile_spec_match_image(spec, img->path) ||
	       profile_spec_match_image(spec, p->exe ? p->exe : "");
}

/* The key of (context, stack) in the map of the samples the stack
 * copies moved off each frame-pointer stack: never 0, which is no key,
 * as a stack id is below UINT32_MAX (CG_NONE). */
static uint64_t moved_key(uint32_t ctx, uint32_t stack)
{
	return (uint64_t)ctx << 32 | ((uint64_t)stack + 1);
}

/* A share of a session stack's samples, for the samples of the stack in
 * each process's stream to take in turn: each takes the first of the
 * stack's run with samples left (which sample had which copy is not
 * recorded; they differ only below the JIT frames).  The first member
 * of anon_move and jit_move. */
struct move_turn {
	uint32_t stack; /* the session's frame-pointer stack */
	uint64_t left;	/* samples still to take it */
};

static int move_turn_cmp(const void *a, const void *b)
{
	const struct move_turn *x = a, *y = b;

	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* In BASE, N entries of SIZE bytes sorted by stack, each beginning with
 * its move_turn: the first of STACK's run with samples left, one of them
 * taken; or NULL. */
static void *move_take(void *base, size_t n, size_t size, uint32_t stack)
{
	struct move_turn key = { stack, 0 };
	char *m, *end = (char *)base + n * size;

	if (!n)
		return NULL;
	m = bsearch(&key, base, n, size, move_turn_cmp);
	if (!m)
		return NULL;
	while (m > (char *)base &&
	       ((struct move_turn *)(m - size))->stack == stack)
		m -= size;
	for (; m < end && ((struct move_turn *)m)->stack == stack; m += size) {
		struct move_turn *t = (struct move_turn *)m;

		if (t->left) {
			t->left--;
			return m;
		}
	}
	return NULL;
}

/* The stacks unwound from the copies of a stack with JIT frames, its
 * samples' in turn. */
struct anon_move {
	struct move_turn turn;
	uint32_t cg; /* the unwound stack in the graph */
};

/* The unwound stack for a sample of session stack STACK, or CG_NONE. */
static uint32_t anon_moved(struct anon_move *am, size_t n, uint32_t stack)
{
	struct anon_move *m = move_take(am, n, sizeof(*am), stack);

	return m ? m->cg : CG_NONE;
}

/* A JIT leaf's copy, for the samples of its stack to take in turn as
 * anon_move's: its interpreted frames are named from it (profile_jvm.h). */
struct jit_move {
	struct move_turn turn;
	const struct ops_stack_copy *copy;
};

static int jit_move_cmp(const void *a, const void *b)
{
	const struct jit_move *x = a, *y = b;

	if (x->turn.stack != y->turn.stack)
		return x->turn.stack < y->turn.stack ? -1 : 1;
	/* in the copies' order, whatever qsort does with equal keys */
	return (x->copy > y->copy) - (x->copy < y->copy);
}

/* The copy for a sample of session stack STACK, or NULL. */
static const struct ops_stack_copy *jit_moved(struct jit_move *jm, size_t n,
					      uint32_t stack)
{
	struct jit_move *m = move_take(jm, n, sizeof(*jm), stack);

	return m ? m->copy : NULL;
}

static bool stack_has_anon(const struct ops_stack *st)
{
	uint32_t i;

	for (i = 0; st && i < st->nr_frames; i++)
		if (st->frames[i].kind == OPS_FRAME_ANON)
			return true;
	return false;
}

/* The samples of the stack copies, each on the stack unwound from it;
 * MV (by moved_key) says how many each (context, stack) count gave up:
 * a map, not a list of every copy sorted, since copies are thousands
 * and their frame-pointer stacks a few.  0 or -ENOMEM (not reported). */
static int cg_add_copies(struct profile *p, struct report *r,
			 struct ops_session *s, struct oputil_u64map *mv,
			 struct anon_move **am, size_t *nam,
			 struct jit_move **jm, size_t *njm)
{
	size_t nj = 0;
	uint64_t cut = 0;
	size_t na = 0;
	uint32_t nr_img = ops_session_nr_images(s);
	const struct ops_stack_copy *cp;
	struct cg_raw_frame *frames = NULL;
	struct unwind *u = NULL;
	size_t n, i;
	uint64_t *took;
	int ret;

	*am = NULL;
	*nam = 0;
	*jm = NULL;
	*njm = 0;
	cp = ops_session_stack_copies(s, &n);
	if (!n || r->opts->no_unwind)
		return 0;
	ret = unwind_new(&u, s, r->opts);
	if (ret || !u)
		return ret;
	frames = malloc(OPS_STACK_MAX_FRAMES * sizeof(*frames));
	*am = malloc(n * sizeof(**am));
	*jm = malloc(n * sizeof(**jm));
	if (!frames || !*am || !*jm) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n && !ret; i++) {
		const struct ops_context *ctx =
			ops_session_context(s, cp[i].ctx);
		const struct ops_image *img, *app;
		const struct ops_stack *fp;
		enum unwind_root root;
		struct cg_raw_ctx c;
		size_t nf;
		uint32_t sid;

		if (!cp[i].count || !ctx || ctx->image >= nr_img)
			continue;
		img = ops_session_image(s, ctx->image);
		app = ctx->app < nr_img ? ops_session_image(s, ctx->app)
					: NULL;
		fp = ops_session_stack(s, cp[i].stack);
		/* a JIT leaf's copy is cut short, for its interpreted
		 * frames' words (unwind_jvm.h), not for DWARF to unwind:
		 * JIT code has no call-frame information */
		if (!img || !fp)
			continue;
		ret = sample_selected(p, r, s, img, app, ctx,
				      fp->frames[0].addr);
		if (ret <= 0)
			continue;
		ret = 0;
		/* the user leaf: below the kernel's frames of a sample
		 * taken in the kernel */
		if (fp->nr_kernel < fp->nr_frames &&
		    fp->frames[fp->nr_kernel].kind == OPS_FRAME_ANON) {
			(*jm)[nj++] = (struct jit_move){ { cp[i].stack,
							   cp[i].count },
							 &cp[i] };
			continue;
		}
		nf = unwind_stack(u, &cp[i], fp, frames, OPS_STACK_MAX_FRAMES,
				  &root);
		if (!nf)
			continue;
		if (root == UNWIND_CUT_COPY)
			cut += cp[i].count;
		c = (struct cg_raw_ctx){ app ? ctx->app : CG_NONE, CG_NONE,
					 ctx->tgid };
		cg_mark_stopped(s, frames, nf);
		ret = callgraph_add_stack(p->cg, frames, nf,
					  root != UNWIND_WHOLE, &sid);
		if (ret)
			break;
		if (stack_has_anon(fp)) {
			(*am)[na++] = (struct anon_move){ { cp[i].stack,
							    cp[i].count },
							  sid };
			continue;
		}
		ret = slice_counts_add(
			&p->slices, p->cg, &c, sid,
			&(struct slice_key){ OPS_TIME_COPIES, 0, i },
			&(struct slice_key){ OPS_TIME_STACKS, cp[i].ctx,
					     cp[i].stack },
			cp[i].count);
		if (ret)
			break;
		took = oputil_u64map_ref(mv, moved_key(cp[i].ctx, cp[i].stack),
					 NULL);
		if (!took) {
			ret = -ENOMEM;
			break;
		}
		*took += cp[i].count;
	}
	if (ret)
		goto out;
	qsort(*am, na, sizeof(**am), move_turn_cmp);
	*nam = na;
	qsort(*jm, nj, sizeof(**jm), jit_move_cmp);
	*njm = nj;
	p->copy_cut = cut;
out:
	free(frames);
	unwind_free(u);
	return ret;
}

/* Of COUNT samples of (CTX, STACK), those no copy took. */
static uint64_t not_moved(const struct oputil_u64map *mv, uint32_t ctx,
			  uint32_t stack, uint64_t count)
{
	uint64_t took = 0;

	oputil_u64map_get(mv, moved_key(ctx, stack), &took);
	return took < count ? count - took : 0;
}

/* The recorded call chains: (context, stack) counts, and each process's
 * samples with anonymous frames, each with its time. */
static int cg_add_stacks(struct profile *p, struct report *r,
			 struct ops_session *s, struct anon_handlers *handlers)
{
	struct jit_move *jm = NULL;
	struct profile_jvm_sample *js = NULL;
	size_t njm = 0, njs, cap_js = 0;
	uint32_t nr_stacks = ops_session_nr_stacks(s);
	const struct ops_stack_count *sc;
	uint32_t id, sid, nr = ops_session_nr_processes(s);
	uint32_t nr_img = ops_session_nr_images(s);
	uint64_t missing = 0;
	struct oputil_u64map mv = { 0 };
	struct anon_move *am = NULL;
	size_t n, i, nam = 0;
	int ret = 0, timeless;
	bool probed;

	ret = cg_add_table(p, s);
	ret = ret ? ret : cg_add_copies(p, r, s, &mv, &am, &nam, &jm, &njm);
	sc = ops_session_stack_hist(s, &n);
	for (i = 0; i < n && !ret; i++) {
		const struct ops_context *ctx =
			ops_session_context(s, sc[i].ctx);
		const struct ops_image *img, *app;
		const struct ops_stack *leaf;
		struct cg_raw_ctx c;

		if (!ctx || ctx->image >= nr_img)
			continue;
		img = ops_session_image(s, ctx->image);
		app = ctx->app < nr_img ? ops_session_image(s, ctx->app)
					: NULL;
		if (!img)
			continue;
		/* a stack id the table lacks is counted as missing below */
		leaf = ops_session_stack(s, sc[i].stack);
		ret = sample_selected(p, r, s, img, app, ctx,
				      leaf ? leaf->frames[0].addr : 0);
		if (ret <= 0)
			continue;
		ret = 0;
		sid = sc[i].stack < nr_stacks ? sc[i].stack : CG_NONE;
		if (sid == CG_NONE) {
			missing += sc[i].count;
			continue;
		}
		c = (struct cg_raw_ctx){ app ? ctx->app : CG_NONE, CG_NONE,
					 ctx->tgid };
		ret = slice_counts_add(
			&p->slices, p->cg, &c, sid,
			&(struct slice_key){ OPS_TIME_STACKS, sc[i].ctx,
					     sc[i].stack },
			NULL,
			not_moved(&mv, sc[i].ctx, sc[i].stack, sc[i].count));
	}
	for (id = 0; id < nr && !ret; id++) {
		const struct ops_process *pr = ops_session_process(s, id);
		const struct ops_anon_stack_sample *smp;
		struct cg_raw_ctx c = { CG_NONE, id, 0 };

		if (!pr)
			continue;
		ret = ops_session_anon_stacks(s, id, &smp, &n);
		c.tgid = pr->tgid;
		njs = 0;
		probed = false;
		timeless = 0;
		for (i = 0; i < n && !ret; i++) {
			const struct ops_stack_copy *jc;

			sid = smp[i].stack < nr_stacks ? smp[i].stack
						       : CG_NONE;
			if (sid == CG_NONE) {
				missing++;
				continue;
			}
			/* each of these samples carries its thread, as a
			 * flat JIT sample does */
			if (!profile_spec_match_tid(r->opts->spec,
						    smp[i].tid) ||
			    !anon_stack_selected(r, s, pr,
						 callgraph_stack_leaf(p->cg,
								      sid)))
				continue;
			/* names that do not depend on the time let the
			 * samples of a stack be summed by time slice: memory
			 * for its stacks, not for its samples.  Asked at the
			 * first sample the report shows, so that a process it
			 * leaves out is not offered to the handlers (whose
			 * lines about it would be noise); the offer is kept
			 * for the naming */
			if (!probed) {
				probed = true;
				timeless = anon_handlers_timeless(handlers, s,
								  id);
				if (timeless < 0) {
					ret = timeless;
					break;
				}
			}
			jc = jit_moved(jm, njm, smp[i].stack);
			if (jc) {
				if (oputil_grow(&js, &cap_js, njs + 1,
						sizeof(*js))) {
					ret = -ENOMEM;
					break;
				}
				js[njs++] = (struct profile_jvm_sample){
					smp[i].time_ns, smp[i].stack, jc
				};
				continue;
			}
			if (nam) {
				uint32_t u = anon_moved(am, nam, smp[i].stack);

				sid = u != CG_NONE ? u : sid;
			}
			ret = timeless > 0
				      ? callgraph_sum_sample(p->cg, sid,
							     smp[i].time_ns)
				      : callgraph_add_samples(p->cg, &c, sid,
							      smp[i].time_ns,
							      1);
		}
		/* read: decoded again, should anything ask */
		ops_session_anon_release(s, id);
		if (!ret && timeless > 0)
			ret = callgraph_sum_flush(p->cg, &c);
		if (!ret)
			ret = profile_jvm_add(p->cg, handlers, s, id, &c, js,
					      njs);
	}
	free(js);
	free(jm);
	oputil_u64map_free(&mv);
	free(am);
	if (missing)
		diag("warning: session %s: %" PRIu64
		     " samples name a stack the stack table does not hold; they are left out of the call graph",
		     r->session_dir, missing);
	return ret;
}

static bool want_callgraph(const struct report *r)
{
	const struct opreport_opts *o = r->opts;

	return o->format == OUT_FOLDED || o->format == OUT_PPROF ||
	       o->format == OUT_HTML ||
	       (r->has_stacks &&
		(o->callgraph || o->children || o->format == OUT_JSON));
}

static int cg_build(struct profile *p, struct report *r, struct ops_session *s,
		    struct anon_handlers *handlers)
{
	struct cg_sources src = { .s = s,
				  .images = p->images,
				  .handlers = handlers };
	int ret;

	ret = callgraph_new(&p->cg, r);
	if (ret)
		return ret;
	p->cg->start_ns = ops_session_info(s)->start_ns;
	ret = slice_counts_build(&p->slices, s);
	if (!ret && r->has_stacks)
		ret = cg_add_stacks(p, r, s, handlers);
	else if (!ret)
		ret = cg_add_flat(p, r, s);
	slice_counts_free(&p->slices);
	if (!ret)
		ret = kernel_syms(p, s);
	src.ks = p->ks;
	/* the graph reads the session's tree until it has named it */
	src.release_stacks = r->has_stacks;
	if (!ret)
		ret = callgraph_resolve(p->cg, &src);
	else if (r->has_stacks)
		ops_session_release_stacks(s);
	if (ret)
		return ret;
	r->cg = p->cg;
	if (p->cg->truncated > p->copy_cut)
		diag("warning: session %s: %" PRIu64
		     " samples have a call chain cut at the recording's depth limit; their stacks start below the root",
		     r->session_dir, p->cg->truncated - p->copy_cut);
	if (p->copy_cut)
		diag("warning: session %s: %" PRIu64
		     " samples have a stack unwound from its stack copy only part of the way (the copy's end, or an image without call-frame information); their stacks start below the root",
		     r->session_dir, p->copy_cut);
	return 0;
}

int profile_build(struct profile **out, struct report *r,
		  struct ops_session *s, struct anon_handlers *handlers)
{
	const struct ops_session_info *info = ops_session_info(s);
	const struct opreport_opts *o = r->opts;
	struct profile *p;
	bool cg_only;
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p) {
		ret = -ENOMEM;
		goto fail;
	}
	*out = p;
	r->info = info;
	r->session = s;
	r->session_dir = ops_session_dir(s);
	r->tgid_separated = (info->separate & OPS_SEPARATE_PROCESS) &&
			    !(o->merge & MERGE_TGID);
	r->cpu_separated = (info->separate & OPS_SEPARATE_CPU) &&
			   !(o->merge & MERGE_CPU);
	r->tid_separated = o->separate_thread;
	r->thread_names = r->tid_separated &&
			  (info->separate & OPS_SEPARATE_THREAD);
	/* an output of the call graph alone needs the flat samples only
	 * counted: their names would be looked up for nothing */
	cg_only = o->format == OUT_FOLDED || o->format == OUT_PPROF ||
		  o->format == OUT_HTML ||
		  ((o->callgraph || o->children) && o->format == OUT_TEXT);
	r->want_syms = !cg_only && (o->symbols || o->details ||
				    o->include_symbols || o->exclude_symbols);
	if (profile_spec_has_tgid(o->spec) &&
	    !(info->separate & OPS_SEPARATE_PROCESS))
		diag("warning: session %s was recorded without --separate=process: native samples were not kept per process, so tgid: selects only JIT (anonymous) samples; record with oprofiled --separate=process",
		     r->session_dir);
	if (profile_spec_has_tid(o->spec) &&
	    !(info->separate & OPS_SEPARATE_THREAD))
		diag("warning: native samples are not kept per thread, so tid: selects only JIT (anonymous) samples; record with oprofiled --separate=thread");
	/* reports its own failure: only it can say what is wrong with
	 * libbfd */
	ret = image_cache_new(&p->images, o, ops_session_nr_images(s));
	if (ret)
		return ret;
	ret = add_hist(p, r, s);
	/* so far the selected native samples: their rows have no thread */
	if (!ret && r->tid_separated && r->total &&
	    !(info->separate & OPS_SEPARATE_THREAD))
		diag("note: native samples are not kept per thread: --separate=thread splits only JIT (anonymous) rows, and native rows show no thread (tid -); record with oprofiled --separate=thread");
	if (!ret)
		ret = anon_rows_add(r, s, cg_only ? NULL : handlers);
	/* there the flat samples were only counted, not offered to the
	 * handlers: what they say of naming does not hold */
	if (cg_only) {
		r->nr_naming = 0;
		r->naming_frames = true;
	}
	if (!ret && want_callgraph(r))
		ret = cg_build(p, r, s, handlers);
	if (ret)
		goto fail;
	/* pprof carries each function's file and line */
	image_cache_finish(p->images, (o->debug_info && !o->no_symbol_lines) ||
					      o->format == OUT_PPROF);
	return 0;
fail:
	/* the one line for any other failure: nothing below reports */
	if (ret == -EOVERFLOW)
		diag("cannot read session %s: impossible sample counts (their sum exceeds 2^64-1)",
		     r->session_dir);
	else
		diag("%s", ret == -ENOMEM ? "out of memory" : strerror(-ret));
	return ret;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	callgraph_free(p->cg);
	image_cache_free(p->images);
	kallsyms_free(p->ks);
	free(p);
}
