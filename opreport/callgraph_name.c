// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The call graph's names: every name interned, the frames in files and
 * the kernel named once per distinct (image, address), and the order of
 * the whole (cg_names_resolve).  The anonymous frames are
 * callgraph_anon.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/hash.h>

#include "callgraph_input.h"
#include "callgraph_name_priv.h"
#include "image_bfd.h"
#include "kallsyms.h"
#include "strpool.h"

/* functions DWARF says were inlined, which no symbol table has: one
 * symbol per (image, name), both interned */
struct dwarf_fn {
	const char *image, *name;
	struct report_sym *sym;
};

static int key_addr_cmp(const void *pa, const void *pb)
{
	const struct key_addr *a = pa, *b = pb;

	return CMP(a->key, b->key) ?: CMP(a->addr, b->addr);
}

int key_addr_of(struct key_addrs *a, uint32_t key, uint64_t addr, uint32_t *id)
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

void key_addrs_sort(struct key_addrs *a)
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

int named_intern(struct name_ctx *nc, const struct cg_node *proto,
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

const struct cg_node *proto_new(struct report *r, const struct cg_node *n)
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
		       cg_name_anon_slots(&nc, unknown);
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
