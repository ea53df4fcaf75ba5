// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/hash.h>

#include "anon_naming.h"
#include "anon_rows.h"
#include "anon_symcache.h"
#include "callgraph_input.h"
#include "callgraph_name.h"
#include "image_bfd.h"
#include "kallsyms.h"
#include "strpool.h"

/* A distinct address looked up in an image (frames in files and the
 * kernel) or a process (anonymous frames), with how many frames are
 * there, where they go once the addresses are sorted, and its index
 * from before. */
struct key_addr {
	uint32_t key, idx;
	uint64_t addr;
	size_t n, at;
};

/* The distinct (key, address) pairs, in the order they were met. */
struct key_addrs {
	struct key_addr *v;
	size_t n, cap;
	struct oputil_idxset set;
};

/* functions DWARF says were inlined, which no symbol table has: one
 * symbol per (image, name), both interned */
struct dwarf_fn {
	const char *image, *name;
	struct report_sym *sym;
};

struct name_ctx {
	struct cg_names *nm;
	struct callgraph *cg;
	const struct cg_sources *src;
	uint32_t *image_named; /* where resolve_image puts the names */
};

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* The functions here that can fail return -ENOMEM (-EINVAL for a frame
 * the session cannot name) and report nothing: the caller does.  What a
 * handler did wrong the loader has said. */

static int key_addr_cmp(const void *pa, const void *pb)
{
	const struct key_addr *a = pa, *b = pb;

	return CMP(a->key, b->key) ?: CMP(a->addr, b->addr);
}

/* The index in A of (KEY, ADDR) in *ID, added when new; one more frame
 * counted there. */
static int key_addr_of(struct key_addrs *a, uint32_t key, uint64_t addr,
		       uint32_t *id)
{
	struct oputil_idxset_pos pos;
	/* FNV's low bits see only the inputs' low bits: mix them */
	uint64_t h = oputil_hash_u64(oputil_hash_word64(
		oputil_hash_word(OPUTIL_HASH_SEED, key), addr));
	uint32_t i;

	i = oputil_idxset_find(&a->set, h, &pos, k,
			       a->v[k].addr == addr && a->v[k].key == key);
	if (i == OPUTIL_IDXSET_NONE) {
		if (a->n >= UINT32_MAX - 1 ||
		    oputil_grow(&a->v, &a->cap, a->n + 1, sizeof(*a->v)) ||
		    oputil_idxset_put(&a->set, &pos, (uint32_t)a->n) < 0)
			return -ENOMEM;
		i = (uint32_t)a->n;
		a->v[a->n++] = (struct key_addr){ key, i, addr, 0, 0 };
	}
	a->v[i].n++;
	*id = i;
	return 0;
}

/* A's pairs sorted by (key, address), its set gone. */
static void key_addrs_sort(struct key_addrs *a)
{
	oputil_idxset_free(&a->set);
	if (a->n) /* a->v is NULL when there are none */
		qsort(a->v, a->n, sizeof(*a->v), key_addr_cmp);
}

/* The site of line AT->line of file AT->file (any string; interned
 * here) in *ID, added when new; site 0 for NULL. */
static int site_intern(struct name_ctx *nc, const struct cg_site *at,
		       uint32_t *id)
{
	struct callgraph *cg = nc->cg;
	struct cg_names *nm = nc->nm;
	struct oputil_idxset_pos pos;
	struct cg_site site = { NULL, at ? at->line : 0 };
	uint32_t i;

	if (!site.line) {
		/* a file without a line places nothing */
		*id = 0;
		return 0;
	}
	if (at->file && !(site.file = strpool_intern(cg->r->pool, at->file)))
		return -ENOMEM;
	i = oputil_idxset_find(&nm->site_set,
			       oputil_hash_u64((uintptr_t)site.file ^
					       oputil_hash_u64(site.line)),
			       &pos, k,
			       cg->sites[k].file == site.file &&
				       cg->sites[k].line == site.line);
	if (i != OPUTIL_IDXSET_NONE) {
		*id = i;
		return 0;
	}
	if (oputil_grow(&cg->sites, &nm->cap_sites, cg->nr_sites + 1,
			sizeof(*cg->sites)) ||
	    oputil_idxset_put(&nm->site_set, &pos, (uint32_t)cg->nr_sites) < 0)
		return -ENOMEM;
	cg->sites[cg->nr_sites] = site;
	*id = (uint32_t)cg->nr_sites++;
	return 0;
}

static uint64_t named_hash(const struct cg_names *nm, const struct cg_named *x)
{
	uint64_t h = OPUTIL_HASH_SEED;
	uint32_t k;

	h = oputil_hash_word64(h, (uintptr_t)x->proto);
	h = oputil_hash_word64(h, (uintptr_t)x->sym);
	h = oputil_hash_word(h, x->site);
	h = oputil_hash_word(h, x->inl_n);
	for (k = 0; k < x->inl_n; k++) {
		h = oputil_hash_word64(h,
				       (uintptr_t)nm->inl_syms[x->inl_at + k]);
		h = oputil_hash_word(h, nm->inl_sites[x->inl_at + k]);
	}
	/* FNV's low bits see only the inputs' low bits: mix them */
	return oputil_hash_u64(h);
}

static bool named_same(const struct cg_names *nm, const struct cg_named *a,
		       const struct cg_named *b)
{
	uint32_t k;

	if (a->proto != b->proto || a->sym != b->sym || a->site != b->site ||
	    a->inl_n != b->inl_n)
		return false;
	for (k = 0; k < a->inl_n; k++)
		if (nm->inl_syms[a->inl_at + k] !=
			    nm->inl_syms[b->inl_at + k] ||
		    nm->inl_sites[a->inl_at + k] !=
			    nm->inl_sites[b->inl_at + k])
			return false;
	return true;
}

/* The name, in *ID, of a frame of PROTO in symbol SYM at site AT (NULL:
 * not known), inlined into the N functions INL (nearest caller first),
 * the K-th at site INL_AT[k]. */
static int named_intern(struct name_ctx *nc, const struct cg_node *proto,
			const struct report_sym *sym, const struct cg_site *at,
			const struct report_sym *const *inl,
			const struct cg_site *inl_at, uint32_t n, uint32_t *id)
{
	struct cg_names *nm = nc->nm;
	struct oputil_idxset_pos pos;
	struct cg_named x = { proto, sym, 0, n, nm->nr_inl };
	uint32_t k, i;
	uint64_t h;
	int ret;

	if (oputil_grow(&nm->inl_syms, &nm->cap_inl_syms, nm->nr_inl + n,
			sizeof(*nm->inl_syms)) ||
	    oputil_grow(&nm->inl_sites, &nm->cap_inl_sites, nm->nr_inl + n,
			sizeof(*nm->inl_sites)))
		return -ENOMEM;
	ret = site_intern(nc, at, &x.site);
	for (k = 0; k < n && !ret; k++) {
		nm->inl_syms[x.inl_at + k] = inl[k];
		ret = site_intern(nc, &inl_at[k],
				  &nm->inl_sites[x.inl_at + k]);
	}
	if (ret)
		return ret;
	h = named_hash(nm, &x);
	i = oputil_idxset_find(&nm->named_set, h, &pos, j,
			       nm->named_set.hash[j] == (uint32_t)h &&
				       named_same(nm, &nm->named[j], &x));
	if (i != OPUTIL_IDXSET_NONE) {
		*id = i;
		return 0;
	}
	if (oputil_grow(&nm->named, &nm->cap_named, nm->nr_named + 1,
			sizeof(*nm->named)) ||
	    oputil_idxset_put(&nm->named_set, &pos, (uint32_t)nm->nr_named) <
		    0)
		return -ENOMEM;
	nm->nr_inl += n; /* kept only with a new name */
	nm->named[nm->nr_named] = x;
	*id = (uint32_t)nm->nr_named++;
	return 0;
}

/* A node prototype (no symbol, no counts) kept as long as the report. */
static const struct cg_node *proto_new(struct report *r,
				       const struct cg_node *n)
{
	struct cg_node *p = strpool_alloc(r->pool, sizeof(*p));

	if (p)
		*p = *n;
	return p;
}

/* The symbol of function NAME of IMAGE (interned) that DWARF says was
 * inlined; NULL when out of memory. */
static const struct report_sym *
dwarf_fn_sym(struct name_ctx *nc, const char *image, const char *name)
{
	struct report *r = nc->cg->r;
	struct cg_names *nm = nc->nm;
	struct oputil_idxset_pos pos;
	struct report_sym *sym;
	uint64_t h;
	uint32_t i;

	name = strpool_intern(r->pool, name);
	if (!name)
		return NULL;
	h = oputil_hash_u64((uintptr_t)name ^
			    oputil_hash_u64((uintptr_t)image));
	i = oputil_idxset_find(&nm->dwarf_set, h, &pos, k,
			       nm->dwarf_fns[k].name == name &&
				       nm->dwarf_fns[k].image == image);
	if (i != OPUTIL_IDXSET_NONE)
		return nm->dwarf_fns[i].sym;
	if (oputil_grow(&nm->dwarf_fns, &nm->cap_dwarf_fns,
			nm->nr_dwarf_fns + 1, sizeof(*nm->dwarf_fns)))
		return NULL;
	sym = strpool_alloc(r->pool, sizeof(*sym));
	if (!sym || oputil_idxset_put(&nm->dwarf_set, &pos,
				      (uint32_t)nm->nr_dwarf_fns) < 0)
		return NULL;
	memset(sym, 0, sizeof(*sym));
	sym->name = name;
	nm->dwarf_fns[nm->nr_dwarf_fns++] =
		(struct dwarf_fn){ .image = image, .name = name, .sym = sym };
	return sym;
}

/* With -g, the functions DWARF says were inlined at VMA: the innermost
 * in *INNER, and the ones it was inlined into, nearest caller first, in
 * CALLERS (the last is PHYS, the symbol the code belongs to); 0 callers
 * when nothing was.  AT[0] is the line at VMA, AT[k] the line in
 * CALLERS[k-1] where the function before it was inlined; the names and
 * files stay the image's, valid while it is open. */
static int dwarf_chain(struct name_ctx *nc, struct image_bfd *ib,
		       const char *image, uint64_t vma,
		       const struct report_sym *phys,
		       const struct report_sym **inner,
		       const struct report_sym **callers, struct cg_site *at,
		       uint32_t *n)
{
	struct image_inline chain[CG_INLINE_MAX + 1];
	size_t k, len = image_bfd_inlines(ib, vma, chain, CG_INLINE_MAX + 1);

	for (k = 0; k < len; k++)
		at[k] = (struct cg_site){ chain[k].file, chain[k].line };
	if (!len)
		at[0] = (struct cg_site){ NULL, 0 };
	*n = 0;
	*inner = phys;
	if (len < 2)
		return 0;
	*inner = dwarf_fn_sym(nc, image, chain[0].name);
	for (k = 1; k + 1 < len; k++)
		if (!(callers[k - 1] = dwarf_fn_sym(nc, image, chain[k].name)))
			return -ENOMEM;
	callers[len - 2] = phys;
	*n = (uint32_t)(len - 1);
	return *inner ? 0 : -ENOMEM;
}

/* The node prototype of image IMG (session id ID). */
static const struct cg_node *
image_proto(struct name_ctx *nc, const struct ops_image *img, uint32_t id)
{
	struct report *r = nc->cg->r;
	struct cg_node proto = { 0 };

	proto.image = strpool_intern(r->pool, img->path);
	proto.image_id = id;
	proto.kind = img->kind == OPS_IMAGE_FILE ? ROW_FILE : ROW_KERNEL;
	return proto.image ? proto_new(r, &proto) : NULL;
}

/* The modules met among the kernel's frames, each with its prototype:
 * frames of one module come together, as the addresses are sorted. */
struct module_protos {
	const char **names; /* as kallsyms_resolve_kernel gives them */
	const struct cg_node **protos;
	size_t n, cap_names, cap_protos;
};

/* The prototype of the frames of MODULE, a copy of the kernel's KERNEL
 * but for its image ("[name]"); NULL when out of memory. */
static const struct cg_node *module_proto(struct name_ctx *nc,
					  struct module_protos *mp,
					  const struct cg_node *kernel,
					  const char *module)
{
	struct cg_node proto = *kernel;
	size_t i;

	for (i = mp->n; i--;)
		if (mp->names[i] == module)
			return mp->protos[i];
	if (oputil_grow(&mp->names, &mp->cap_names, mp->n + 1,
			sizeof(*mp->names)) ||
	    oputil_grow(&mp->protos, &mp->cap_protos, mp->n + 1,
			sizeof(*mp->protos)))
		return NULL;
	proto.image = strpool_printf(nc->cg->r->pool, "[%s]", module);
	if (!proto.image)
		return NULL;
	mp->names[mp->n] = module;
	mp->protos[mp->n] = proto_new(nc->cg->r, &proto);
	return mp->protos[mp->n++];
}

/* Name the frames of one image, FR[0..n), each address once, sorted. */
static int resolve_image(struct name_ctx *nc, const struct key_addr *fr,
			 size_t n)
{
	struct report *r = nc->cg->r;
	const struct cg_sources *src = nc->src;
	const struct ops_image *img = ops_session_image(src->s, fr[0].key);
	const struct report_sym **syms = NULL;
	uint64_t *offs = NULL, *vmas = NULL;
	const struct cg_node *proto, **protos = NULL;
	struct module_protos mp = { 0 };
	struct image_bfd *ib = NULL;
	const struct report_sym *inner, *callers[CG_INLINE_MAX];
	/* the sites of inner, then of each caller; none without -g */
	struct cg_site at[CG_INLINE_MAX + 1] = { { NULL, 0 } };
	const char *module = NULL;
	uint32_t nr_callers;
	size_t i;
	int ret = -ENOMEM;

	if (!img)
		return -EINVAL;
	proto = image_proto(nc, img, fr[0].key);
	offs = malloc(n * sizeof(*offs));
	vmas = malloc(n * sizeof(*vmas));
	syms = calloc(n, sizeof(*syms));
	protos = calloc(n, sizeof(*protos));
	if (!proto || !offs || !vmas || !syms || !protos)
		goto out;
	for (i = 0; i < n; i++)
		offs[i] = fr[i].addr;
	if (img->kind == OPS_IMAGE_FILE) {
		ib = image_cache_get(src->images, fr[0].key, img);
		if (!ib)
			goto out;
		image_bfd_resolve(ib, offs, n, syms, vmas);
	} else {
		if (img->kind == OPS_IMAGE_MODULE) {
			size_t len;
			const char *m = ops_image_module_name(img->path, &len);

			module = strpool_printf(r->pool, "%.*s", (int)len, m);
			if (!module)
				goto out;
		}
		for (i = 0; i < n && src->ks; i++) {
			const char *in = NULL;

			if (img->kind == OPS_IMAGE_MODULE) {
				syms[i] = kallsyms_resolve(src->ks, module,
							   offs[i]);
				continue;
			}
			/* the recorder files module code under the kernel */
			if (kallsyms_resolve_kernel(src->ks, offs[i], &syms[i],
						    &in))
				goto out;
			if (in &&
			    !(protos[i] = module_proto(nc, &mp, proto, in)))
				goto out;
		}
	}
	ret = 0;
	for (i = 0; i < n && !ret; i++) {
		const struct cg_node *pi = protos[i] ? protos[i] : proto;

		/* -g: what DWARF says was inlined there, as a JIT's
		 * handler says it of its code */
		inner = syms[i];
		nr_callers = 0;
		if (ib && r->opts->debug_info)
			ret = dwarf_chain(nc, ib, proto->image, vmas[i],
					  syms[i], &inner, callers, at,
					  &nr_callers);
		if (!ret)
			ret = named_intern(nc, pi, inner, &at[0], callers,
					   at + 1, nr_callers,
					   &nc->image_named[fr[i].idx]);
	}
out:
	free(offs);
	free(vmas);
	free(syms);
	free(protos);
	free(mp.names);
	free(mp.protos);
	return ret;
}

/* Where the handler's names of a process's frames go: each straight to
 * its slot's name, made with the prototype of the handler that
 * claimed the process. */
struct frame_sink {
	struct name_ctx *nc;
	const struct ops_process *p;
	/* per frame given: where its name goes in OUT, and the frames it
	 * stands for */
	const uint32_t *slots, *weights;
	uint32_t *out; /* the sample slots' names, or the groups' */
	struct anon_symcache *cache;
	const struct cg_node *proto; /* made at the first batch */
	/* the last name made without inlining, and what it was made of:
	 * the samples of one address come together and mostly name the
	 * same */
	const struct anon_symbol *last_sym;
	const char *last_file;
	uint32_t last_line, last_named;
	const struct report_sym **inl;
	struct cg_site *inl_at;
	size_t cap_inl, cap_inl_at;
	struct anon_naming_count count;
};

/* The prototype of the frames a handler named HANDLER names in a
 * process. */
static const struct cg_node *jit_proto(struct name_ctx *nc,
				       const struct ops_process *p,
				       const char *handler)
{
	struct report *r = nc->cg->r;
	struct cg_node proto = { .kind = ROW_JIT, .image_id = CG_NONE };

	proto.handler = strpool_intern(r->pool, handler ? handler : "?");
	if (!proto.handler)
		return NULL;
	proto.image = anon_rows_jit_label(r, p, proto.handler);
	return proto.image ? proto_new(r, &proto) : NULL;
}

static int frame_batch(void *ctx, const struct anon_resolved *b, size_t base,
		       size_t n)
{
	struct frame_sink *fs = ctx;
	struct report *r = fs->nc->cg->r;
	size_t i;
	uint32_t k;
	int ret;

	if (!fs->proto && !(fs->proto = jit_proto(fs->nc, fs->p, b->handler)))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct report_sym *sym;
		struct cg_site at = { NULL, 0 };
		uint32_t ni = b->nr_inl[i];
		uint32_t *named = &fs->out[fs->slots[base + i]];

		if (b->syms[i] && b->lines)
			at = (struct cg_site){ b->files ? b->files[i] : NULL,
					       b->lines[i] };
		if (!ni && fs->last_named != CG_NONE &&
		    b->syms[i] == fs->last_sym && at.file == fs->last_file &&
		    at.line == fs->last_line) {
			*named = fs->last_named;
			continue;
		}
		sym = anon_symcache_get(fs->cache, r, b->syms[i]);
		if (!sym)
			return -ENOMEM;
		if (oputil_grow(&fs->inl, &fs->cap_inl, ni,
				sizeof(*fs->inl)) ||
		    oputil_grow(&fs->inl_at, &fs->cap_inl_at, ni,
				sizeof(*fs->inl_at)))
			return -ENOMEM;
		for (k = 0; k < ni; k++) {
			fs->inl_at[k] = (struct cg_site){ b->inl[i][k].file,
							  b->inl[i][k].line };
			fs->inl[k] = anon_symcache_get(fs->cache, r,
						       b->inl[i][k].sym);
			if (!fs->inl[k])
				return -ENOMEM;
		}
		ret = named_intern(fs->nc, fs->proto, sym, &at, fs->inl,
				   fs->inl_at, ni, named);
		if (ret)
			return ret;
		if (!ni) {
			fs->last_sym = b->syms[i];
			fs->last_file = at.file;
			fs->last_line = at.line;
			fs->last_named = *named;
		}
	}
	anon_naming_count(&fs->count, b, n, fs->weights + base);
	return 0;
}

/* One frame of a group, while the group is put in time order. */
struct timed_slot {
	uint64_t time;
	uint32_t slot, weight;
};

static int timed_cmp(const void *pa, const void *pb)
{
	const struct timed_slot *a = pa, *b = pb;

	return CMP(a->time, b->time);
}

/* SMP, SLOTS and WEIGHTS [0..n), all of one address, put in time
 * order. */
static int time_order(struct ops_anon_sample *smp, uint32_t *slots,
		      uint32_t *weights, size_t n)
{
	struct timed_slot *t;
	size_t i;

	for (i = 1; i < n && smp[i - 1].time_ns <= smp[i].time_ns; i++)
		;
	if (i >= n)
		return 0; /* as samples normally come: in recording order */
	t = malloc(n * sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		t[i] = (struct timed_slot){ smp[i].time_ns, slots[i],
					    weights[i] };
	qsort(t, n, sizeof(*t), timed_cmp);
	for (i = 0; i < n; i++) {
		smp[i].time_ns = t[i].time;
		slots[i] = t[i].slot;
		weights[i] = t[i].weight;
	}
	free(t);
	return 0;
}

/* The frames a slot of sample SMP stands for, W of its stack's frames:
 * W times the sample's count (at most UINT32_MAX). */
static uint64_t slot_weight(const struct cg_sample_in *smp, uint32_t w)
{
	uint64_t v = w * smp->count;

	return v < UINT32_MAX ? v : UINT32_MAX;
}

/*
 * The anonymous frames of the samples, in groups by (process, address):
 * until a process is named, each of its sample slots holds its group's
 * index in slot_named.  A group knows its earliest time and the frames
 * of its slots; a process, the range of the input's samples that are
 * its (a process's samples come together).
 */
struct anon_groups {
	struct key_addrs g; /* sorted by (process, address) once gathered */
	uint64_t *time, *weight; /* per group, by its index from before */
	size_t cap_time, cap_weight;
	uint32_t *rank;	 /* per group index: its place once sorted */
	uint32_t *named; /* per group index: its name, when named so */
	/* per process: its samples, in->samples[first..end), and the
	 * index of the first one's first slot */
	size_t *first, *end, *first_slot;
	bool *by_group; /* per process: named a group at a time */
	/* a sample's slots' addresses and weights (cg_input_slots) */
	uint64_t *addr;
	uint32_t *w;
};

/* The frames of one process given to its handler, and where their names
 * go. */
struct proc_frames {
	struct name_ctx *nc;
	struct anon_groups *ag;
	struct frame_sink *fs;
	uint32_t proc;
	size_t lo, hi; /* its groups, ag->g.v[lo..hi) */
	/* the part given last, and room for one */
	struct ops_anon_sample *smp;
	uint32_t *slots, *weights;
	size_t room;
	uint32_t *cnt; /* per group: its frames in the part */
	/* the next sample to give, and its first slot */
	size_t next, next_slot;
	bool given; /* a part of per-slot frames was made */
};

/* The frames given at a time to a handler whose names depend on the
 * time: one a sample slot, so a part's memory, not the process's. */
#define GIVE_PART 65536u

/* Room in PF for a part of N frames: 0 or -ENOMEM. */
static int part_room(struct proc_frames *pf, size_t n)
{
	if (n <= pf->room)
		return 0;
	free(pf->smp);
	free(pf->slots);
	free(pf->weights);
	pf->smp = malloc(n * sizeof(*pf->smp));
	pf->slots = malloc(n * sizeof(*pf->slots));
	pf->weights = malloc(n * sizeof(*pf->weights));
	if (!pf->smp || !pf->slots || !pf->weights) {
		pf->room = 0;
		return -ENOMEM;
	}
	pf->room = n;
	pf->fs->slots = pf->slots;
	pf->fs->weights = pf->weights;
	return 0;
}

/* A timeless handler's frames: one a group, at the group's earliest
 * time, whose name then goes to all of its slots. */
static int give_groups(struct proc_frames *pf, size_t *n)
{
	struct anon_groups *ag = pf->ag;
	size_t k, m = pf->hi - pf->lo;

	if (part_room(pf, m ? m : 1))
		return -ENOMEM;
	ag->by_group[pf->proc] = true;
	pf->fs->out = ag->named;
	for (k = pf->lo; k < pf->hi; k++) {
		const struct key_addr *gr = &ag->g.v[k];
		uint64_t w = ag->weight[gr->idx];

		pf->smp[k - pf->lo] =
			(struct ops_anon_sample){ ag->time[gr->idx], gr->addr,
						  0 };
		pf->slots[k - pf->lo] = gr->idx;
		pf->weights[k - pf->lo] =
			(uint32_t)(w < UINT32_MAX ? w : UINT32_MAX);
	}
	pf->next = ag->end[pf->proc];
	*n = m;
	return 0;
}

/* Any other handler's: every slot of the next samples, up to about
 * GIVE_PART slots, at its sample's time, sorted by (address, time),
 * each name going to its slot. */
static int give_part(struct proc_frames *pf, size_t *n)
{
	struct anon_groups *ag = pf->ag;
	const struct cg_input *in = pf->nc->cg->in;
	uint32_t *slot_named = pf->nc->nm->slot_named;
	size_t ng = pf->hi - pf->lo, end = ag->end[pf->proc];
	size_t i, k, at, m = 0, lo, ns, stop;

	if (!pf->cnt && !(pf->cnt = malloc(ng * sizeof(*pf->cnt))))
		return -ENOMEM;
	memset(pf->cnt, 0, ng * sizeof(*pf->cnt));
	/* the part's samples, and their frames in each group */
	for (i = pf->next, at = pf->next_slot; i < end && m < GIVE_PART; i++) {
		const struct cg_sample_in *smp = &in->samples[i];

		ns = cg_slots_n(in, smp->stack);
		if (cg_sample_ctx(in, smp)->proc == pf->proc) {
			for (k = 0; k < ns; k++)
				pf->cnt[ag->rank[slot_named[at + k]] -
					pf->lo]++;
			m += ns;
		}
		at += ns;
	}
	stop = i;
	if (part_room(pf, m ? m : 1))
		return -ENOMEM;
	pf->fs->out = slot_named;
	for (k = 0, lo = 0; k < ng; k++) {
		ag->g.v[pf->lo + k].at = lo;
		lo += pf->cnt[k];
	}
	/* each slot placed in its group, in recording order */
	for (i = pf->next, at = pf->next_slot; i < stop; i++) {
		const struct cg_sample_in *smp = &in->samples[i];

		ns = cg_slots_n(in, smp->stack);
		if (cg_sample_ctx(in, smp)->proc != pf->proc) {
			at += ns;
			continue;
		}
		cg_input_slots(in, smp->stack, NULL, ag->w);
		for (k = 0; k < ns; k++) {
			size_t slot = at++;
			struct key_addr *gr =
				&ag->g.v[ag->rank[slot_named[slot]]];
			size_t to = gr->at++;

			pf->smp[to] = (struct ops_anon_sample){ smp->time_ns,
								gr->addr, 0 };
			pf->slots[to] = (uint32_t)slot;
			pf->weights[to] = (uint32_t)slot_weight(smp, ag->w[k]);
		}
	}
	for (k = 0, lo = 0; k < ng; k++) {
		int ret = time_order(pf->smp + lo, pf->slots + lo,
				     pf->weights + lo, pf->cnt[k]);

		if (ret)
			return ret;
		lo += pf->cnt[k];
	}
	pf->next = stop;
	pf->next_slot = at;
	pf->given = true;
	*n = m;
	return 0;
}

/* A handler claimed the process: the next part of what it names (see
 * anon_samples_fn), none once all were given. */
static int give_frames(void *ctx, bool timeless,
		       const struct ops_anon_sample **out, size_t *n)
{
	struct proc_frames *pf = ctx;

	*n = 0;
	if (pf->next >= pf->ag->end[pf->proc])
		return 0;
	if (timeless ? give_groups(pf, n) : give_part(pf, n))
		return -ENOMEM;
	*out = pf->smp;
	return 0;
}
/* Every slot of PF's process named ID: those of the parts given, and
 * those of the parts that were not. */
static void slots_name_all(struct proc_frames *pf, uint32_t id)
{
	const struct cg_input *in = pf->nc->cg->in;
	size_t i, k, ns, at = pf->ag->first_slot[pf->proc];

	for (i = pf->ag->first[pf->proc]; i < pf->ag->end[pf->proc]; i++) {
		const struct cg_sample_in *smp = &in->samples[i];

		ns = cg_slots_n(in, smp->stack);
		if (cg_sample_ctx(in, smp)->proc == pf->proc)
			for (k = 0; k < ns; k++)
				pf->nc->nm->slot_named[at + k] = id;
		at += ns;
	}
}

/* Name the anonymous frames of process PROC, its groups PF->lo to
 * PF->hi, through the handler that claims it. */
static int resolve_anon(struct proc_frames *pf)
{
	struct name_ctx *nc = pf->nc;
	struct anon_groups *ag = pf->ag;
	struct report *r = nc->cg->r;
	const struct cg_sources *src = nc->src;
	const struct ops_process *p = ops_session_process(src->s, pf->proc);
	struct anon_resolved ar = { 0 };
	struct frame_sink fs = { .nc = nc, .p = p, .last_named = CG_NONE };
	struct report_sym *bucket;
	struct cg_node proto = { .kind = ROW_ANON, .image_id = CG_NONE };
	uint64_t frames = 0;
	uint32_t id;
	size_t i, k;
	int claimed = 0, ret = -ENOMEM;

	if (!p)
		return -EINVAL;
	pf->fs = &fs;
	pf->next = ag->first[pf->proc];
	pf->next_slot = ag->first_slot[pf->proc];
	fs.cache = anon_symcache_new();
	if (!fs.cache)
		goto out;
	for (k = pf->lo; k < pf->hi; k++)
		frames += ag->weight[ag->g.v[k].idx];
	if (src->handlers)
		claimed = anon_handlers_resolve_by(src->handlers, src->s,
						   pf->proc, give_frames, pf,
						   frame_batch, &fs, &ar);
	if (claimed != 1) {
		/* a handler that failed has said why; the frames stay
		 * anonymous, one node per process, whatever batches it
		 * named before it failed */
		bucket = strpool_alloc(r->pool, sizeof(*bucket));
		proto.image =
			strpool_printf(r->pool, "anon (tgid:%u)", p->tgid);
		if (!bucket || !proto.image)
			goto out;
		memset(bucket, 0, sizeof(*bucket));
		bucket->name = "(no symbols)";
		ret = named_intern(nc, proto_new(r, &proto), bucket, NULL,
				   NULL, NULL, 0, &id);
		if (ret)
			goto out;
		/* slots already given their own names keep the bucket's;
		 * else every group of the process is the bucket */
		if (pf->given) {
			slots_name_all(pf, id);
		} else {
			ag->by_group[pf->proc] = true;
			for (i = pf->lo; i < pf->hi; i++)
				ag->named[ag->g.v[i].idx] = id;
		}
	}
	ret = 0;
	if (r->naming_frames)
		ret = anon_naming_note(r, p, frames, claimed,
				       src->handlers != NULL, &ar, &fs.count);
out:
	free(fs.inl);
	free(fs.inl_at);
	anon_symcache_free(fs.cache);
	free(pf->smp);
	free(pf->slots);
	free(pf->weights);
	free(pf->cnt);
	pf->smp = NULL;
	pf->slots = pf->weights = pf->cnt = NULL;
	pf->room = 0;
	return ret;
}

/* The name of frames in no mapping the recorder knew, or in anonymous
 * memory of no known process: one node, as perf's [unknown]. */
static int unknown_named(struct name_ctx *nc, uint32_t *id)
{
	struct report *r = nc->cg->r;
	struct cg_node unknown = { .kind = ROW_FILE, .image_id = CG_UNKNOWN };
	struct report_sym *usym = strpool_alloc(r->pool, sizeof(*usym));

	unknown.image = strpool_intern(r->pool, "[unknown]");
	if (!usym || !unknown.image)
		return -ENOMEM;
	memset(usym, 0, sizeof(*usym));
	usym->name = "[unknown]";
	return named_intern(nc, proto_new(r, &unknown), usym, NULL, NULL, NULL,
			    0, id);
}
/* The frames in files and the kernel, each distinct (image, address)
 * once: stack I's as a leaf into leaf_named[I], as a caller into
 * caller_named[I]. */
static int name_stack_frames(struct name_ctx *nc, uint32_t unknown)
{
	const struct cg_input *in = nc->cg->in;
	struct cg_names *nm = nc->nm;
	uint32_t nr_img = ops_session_nr_images(nc->src->s);
	struct key_addrs a = { 0 };
	size_t i, j;
	int ret = 0;

	for (i = 0; i < in->nr_stacks && !ret; i++) {
		struct cg_raw_frame f = cg_in_frame(in, (uint32_t)i);
		const struct cg_raw_frame *fr = &f;
		bool unk = fr->image == CG_UNKNOWN || fr->image >= nr_img;

		nm->leaf_named[i] = nm->caller_named[i] = CG_NONE;
		if (fr->image == CG_ANON)
			continue;
		/* the distinct (image, address) index for now */
		if (in->flags[i] & CG_IN_LEAF)
			ret = unk ? 0
				  : key_addr_of(&a, fr->image,
						cg_lookup_addr(0, fr->addr),
						&nm->leaf_named[i]);
		if (!ret && (in->flags[i] & CG_IN_CALLER))
			ret = unk ? 0
				  : key_addr_of(&a, fr->image,
						cg_lookup_addr(1, fr->addr),
						&nm->caller_named[i]);
	}
	key_addrs_sort(&a);
	nc->image_named = malloc((a.n ? a.n : 1) * sizeof(*nc->image_named));
	if (!ret && !nc->image_named)
		ret = -ENOMEM;
	if (!ret) {
		for (i = 0; i < a.n && !ret; i = j) {
			for (j = i; j < a.n && a.v[j].key == a.v[i].key; j++)
				;
			ret = resolve_image(nc, a.v + i, j - i);
		}
	}
	for (i = 0; i < in->nr_stacks && !ret; i++) {
		struct cg_raw_frame f = cg_in_frame(in, (uint32_t)i);
		const struct cg_raw_frame *fr = &f;
		bool unk = fr->image == CG_UNKNOWN || fr->image >= nr_img;

		if (fr->image == CG_ANON)
			continue;
		if (in->flags[i] & CG_IN_LEAF)
			nm->leaf_named[i] =
				unk ? unknown
				    : nc->image_named[nm->leaf_named[i]];
		if (in->flags[i] & CG_IN_CALLER)
			nm->caller_named[i] =
				unk ? unknown
				    : nc->image_named[nm->caller_named[i]];
	}
	free(nc->image_named);
	nc->image_named = NULL;
	free(a.v);
	return ret;
}

/*
 * The anonymous frames, each sample's slots at its time.  The slots are
 * put in groups by (process, address), and each process's handed to its
 * handler sorted by (address, time) (give_frames): only the groups are
 * sorted, and each sample's slots are placed into their groups in
 * recording order, which is time order already.  A handler whose names
 * do not depend on the time, and a process none claims, name a group
 * at a time: the memory is then the groups', not a frame's per slot.
 */
static int name_sample_slots(struct name_ctx *nc, uint32_t unknown)
{
	const struct cg_input *in = nc->cg->in;
	uint32_t *slot_named = nc->nm->slot_named;
	uint32_t nr_proc = ops_session_nr_processes(nc->src->s), k, ns;
	struct anon_groups ag = { 0 };
	size_t i, at, j;
	int ret = -ENOMEM;

	if (in->nr_sample_slots >= UINT32_MAX)
		return -ENOMEM;
	ag.first = calloc(nr_proc ? nr_proc : 1, sizeof(*ag.first));
	ag.end = calloc(nr_proc ? nr_proc : 1, sizeof(*ag.end));
	ag.first_slot = calloc(nr_proc ? nr_proc : 1, sizeof(*ag.first_slot));
	ag.by_group = calloc(nr_proc ? nr_proc : 1, sizeof(*ag.by_group));
	ag.addr =
		malloc((in->max_slots ? in->max_slots : 1) * sizeof(*ag.addr));
	ag.w = malloc((in->max_slots ? in->max_slots : 1) * sizeof(*ag.w));
	if (!ag.first || !ag.end || !ag.first_slot || !ag.by_group ||
	    !ag.addr || !ag.w)
		goto out;
	/* each slot's group, in the slot's name for now */
	for (i = at = 0; i < in->nr_samples; i++) {
		const struct cg_sample_in *s = &in->samples[i];
		uint32_t p = cg_sample_ctx(in, s)->proc;

		if (p != CG_NONE && p >= nr_proc) {
			ret = -EINVAL;
			goto out;
		}
		if (p != CG_NONE && !ag.end[p]) {
			ag.first[p] = i;
			ag.first_slot[p] = at;
		}
		if (p != CG_NONE) {
			ag.end[p] = i + 1;
			cg_input_slots(in, s->stack, ag.addr, ag.w);
		}
		for (k = 0, ns = cg_slots_n(in, s->stack); k < ns; k++, at++) {
			uint32_t gi;

			if (p == CG_NONE) {
				slot_named[at] = unknown;
				continue;
			}
			if (key_addr_of(&ag.g, p, ag.addr[k], &gi) ||
			    oputil_grow(&ag.time, &ag.cap_time, ag.g.n,
					sizeof(*ag.time)) ||
			    oputil_grow(&ag.weight, &ag.cap_weight, ag.g.n,
					sizeof(*ag.weight)))
				goto out;
			if (ag.g.v[gi].n == 1) {
				ag.time[gi] = s->time_ns;
				ag.weight[gi] = 0;
			} else if (s->time_ns < ag.time[gi]) {
				ag.time[gi] = s->time_ns;
			}
			ag.weight[gi] += slot_weight(s, ag.w[k]);
			slot_named[at] = gi;
		}
	}
	key_addrs_sort(&ag.g);
	ag.rank = malloc((ag.g.n ? ag.g.n : 1) * sizeof(*ag.rank));
	ag.named = malloc((ag.g.n ? ag.g.n : 1) * sizeof(*ag.named));
	if (!ag.rank || !ag.named)
		goto out;
	for (i = 0; i < ag.g.n; i++)
		ag.rank[ag.g.v[i].idx] = (uint32_t)i;
	ret = 0;
	for (i = 0; i < ag.g.n && !ret; i = j) {
		struct proc_frames pf = { .nc = nc, .ag = &ag };

		for (j = i; j < ag.g.n && ag.g.v[j].key == ag.g.v[i].key; j++)
			;
		pf.proc = ag.g.v[i].key;
		pf.lo = i;
		pf.hi = j;
		ret = resolve_anon(&pf);
	}
	/* the slots of processes named a group at a time take their
	 * group's name */
	for (i = at = 0; i < in->nr_samples && !ret; i++) {
		const struct cg_sample_in *s = &in->samples[i];
		uint32_t p = cg_sample_ctx(in, s)->proc;
		bool by_group = p != CG_NONE && ag.by_group[p];

		for (k = 0, ns = cg_slots_n(in, s->stack); k < ns; k++, at++)
			if (by_group)
				slot_named[at] = ag.named[slot_named[at]];
	}
out:
	oputil_idxset_free(&ag.g.set);
	free(ag.g.v);
	free(ag.time);
	free(ag.weight);
	free(ag.rank);
	free(ag.named);
	free(ag.first);
	free(ag.end);
	free(ag.first_slot);
	free(ag.addr);
	free(ag.w);
	free(ag.by_group);
	return ret;
}

int cg_names_resolve(struct cg_names *nm, struct callgraph *cg,
		     const struct cg_sources *src)
{
	struct name_ctx nc = { nm, cg, src, NULL };
	const struct cg_input *in = cg->in;
	uint32_t unknown;

	if (oputil_grow(&cg->sites, &nm->cap_sites, 1, sizeof(*cg->sites)))
		return -ENOMEM;
	/* site 0, what a frame has when nothing says its line */
	cg->sites[cg->nr_sites++] = (struct cg_site){ NULL, 0 };
	if (!in)
		return 0;
	nm->leaf_named =
		malloc((in->nr_stacks ? in->nr_stacks : 1) * sizeof(uint32_t));
	nm->caller_named =
		malloc((in->nr_stacks ? in->nr_stacks : 1) * sizeof(uint32_t));
	nm->slot_named =
		malloc((in->nr_sample_slots ? in->nr_sample_slots : 1) *
		       sizeof(*nm->slot_named));
	if (!nm->leaf_named || !nm->caller_named || !nm->slot_named)
		return -ENOMEM;
	return unknown_named(&nc, &unknown) ?:
		       name_stack_frames(&nc, unknown) ?:
		       name_sample_slots(&nc, unknown);
}

void cg_names_free(struct cg_names *nm)
{
	free(nm->named);
	free(nm->inl_syms);
	free(nm->inl_sites);
	free(nm->leaf_named);
	free(nm->caller_named);
	free(nm->slot_named);
	oputil_idxset_free(&nm->named_set);
	oputil_idxset_free(&nm->site_set);
	oputil_idxset_free(&nm->dwarf_set);
	free(nm->dwarf_fns);
}
