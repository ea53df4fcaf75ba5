// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/hash.h>
#include <oputil/idxset.h>
#include <oputil/search.h>

#include "anon_naming.h"
#include "anon_rows.h"
#include "anon_symcache.h"
#include "callgraph.h"
#include "image_bfd.h"
#include "kallsyms.h"
#include "strpool.h"

struct cg_raw_stack {
	struct cg_raw_ctx ctx;
	uint64_t time_ns;
	uint64_t count;
	size_t first; /* index of the leaf in cg->raw */
	uint32_t n;
	bool truncated;
};

/* One frame to name, sorted with the others of its image or process. */
struct cg_ref {
	uint32_t key;	/* image id, or process id for anonymous frames */
	uint32_t stack; /* index into cg->rstacks */
	uint64_t addr;	/* caller frames already at return address - 1 */
	uint64_t time;
	size_t idx; /* into cg->raw */
};

/* What naming the frames needs: the sources, each stack's application,
 * the node table, and each frame's node id as it is found. */
struct cg_resolve {
	struct callgraph *cg;
	const struct cg_sources *src;
	const char **apps;	       /* per raw stack */
	uint32_t *ids;		       /* per raw frame */
	uint32_t *sites;	       /* per raw frame, into cg->sites */
	struct oputil_idxset node_set; /* cg->nodes, by what they describe */
	size_t cap_nodes;
	struct oputil_idxset site_set; /* cg->sites, by (file, line) */
	size_t cap_sites;
	/* per raw frame: the nodes its function was inlined into, caller
	 * first, at inl_ids + inl_at[frame], inl_n[frame] of them, and
	 * their sites at the same places of inl_sites */
	uint32_t *inl_at, *inl_n;
	uint32_t *inl_ids, *inl_sites;
	size_t nr_inl_ids, cap_inl_ids, cap_inl_sites;
	/* per raw frame: an anonymous frame whose raw stack has its address
	 * at an earlier frame (a recursion's return addresses) is named
	 * once, as that frame (ALIAS, CG_NONE for none), which then stands
	 * for 1 + EXTRA[frame] frames */
	uint32_t *alias, *extra;
	/* functions DWARF says were inlined, which no symbol table has:
	 * one symbol per (image, name), both interned */
	struct dwarf_fn {
		const char *image, *name;
		struct report_sym *sym;
	} * dwarf_fns;
	size_t cap_dwarf_fns, nr_dwarf_fns;
	struct oputil_idxset dwarf_set; /* dwarf_fns, by (image, name) */
};

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* The functions here that can fail return -ENOMEM (-EINVAL for a frame
 * the session cannot name) and report nothing: the caller does.  What a
 * handler did wrong the loader has said. */

bool callgraph_session_has_stacks(const struct ops_session *s)
{
	return ops_session_info(s)->callgraph_depth ||
	       ops_session_nr_stacks(s);
}

int callgraph_new(struct callgraph **out, struct report *r)
{
	struct callgraph *cg = calloc(1, sizeof(*cg));

	if (!cg)
		return -ENOMEM;
	cg->r = r;
	*out = cg;
	return 0;
}

void callgraph_free(struct callgraph *cg)
{
	if (!cg)
		return;
	free(cg->nodes);
	free(cg->stacks);
	free(cg->arcs);
	free(cg->rarcs);
	free(cg->raw);
	free(cg->rstacks);
	free(cg->node_ids);
	free(cg->inlined);
	free(cg->site_stacks);
	free(cg->sites);
	free(cg->site_ids);
	free(cg);
}

int callgraph_add(struct callgraph *cg, const struct cg_raw_ctx *ctx,
		  const struct cg_raw_frame *frames, size_t n,
		  uint64_t time_ns, uint64_t count, bool truncated)
{
	struct cg_raw_stack *rs;

	if (!n || !count)
		return 0;
	if (oputil_grow(&cg->raw, &cg->cap_raw, cg->nr_raw + n,
			sizeof(*cg->raw)) ||
	    oputil_grow(&cg->rstacks, &cg->cap_rstacks, cg->nr_rstacks + 1,
			sizeof(*cg->rstacks)))
		return -ENOMEM;
	rs = &cg->rstacks[cg->nr_rstacks++];
	rs->ctx = *ctx;
	rs->time_ns = time_ns;
	rs->count = count;
	rs->first = cg->nr_raw;
	rs->n = (uint32_t)n;
	rs->truncated = truncated;
	memcpy(cg->raw + cg->nr_raw, frames, n * sizeof(*frames));
	cg->nr_raw += n;
	return 0;
}

static int ref_cmp(const void *pa, const void *pb)
{
	const struct cg_ref *a = pa, *b = pb;

	return CMP(a->key, b->key) ?: CMP(a->addr, b->addr) ?:
	       CMP(a->time, b->time);
}

static bool node_eq(const struct cg_node *a, const struct cg_node *b)
{
	return a->kind == b->kind && a->image == b->image &&
	       a->app == b->app && a->tgid == b->tgid && a->sym == b->sym;
}

static size_t node_hash(const struct cg_node *n)
{
	uint64_t h = (uint64_t)(uintptr_t)n->sym * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)(uintptr_t)n->image * 0xc2b2ae3d27d4eb4full;
	h ^= (uint64_t)(uintptr_t)n->app * 0x165667b19e3779f9ull;
	h ^= ((uint64_t)n->tgid << 3 | (uint64_t)n->kind) *
	     0x27d4eb2f165667c5ull;
	return (size_t)(h ^ (h >> 29));
}

/* The id of the node N describes, added when new. */
static int node_intern(struct cg_resolve *rs, const struct cg_node *n,
		       uint32_t *id)
{
	struct callgraph *cg = rs->cg;
	struct oputil_idxset_pos pos;
	uint32_t i;

	i = oputil_idxset_find(&rs->node_set, node_hash(n), &pos, k,
			       node_eq(&cg->nodes[k], n));
	if (i != OPUTIL_IDXSET_NONE) {
		*id = i;
		return 0;
	}
	if (cg->nr_nodes == rs->cap_nodes) {
		size_t cap = rs->cap_nodes ? rs->cap_nodes * 2 : 256;
		struct cg_node *g = realloc(cg->nodes, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		cg->nodes = g;
		rs->cap_nodes = cap;
	}
	if (oputil_idxset_put(&rs->node_set, &pos, (uint32_t)cg->nr_nodes) < 0)
		return -ENOMEM;
	cg->nodes[cg->nr_nodes] = *n;
	*id = (uint32_t)cg->nr_nodes++;
	return 0;
}

/* The site of line AT->line of file AT->file (any string; interned
 * here) in *ID, added when new. */
static int site_intern(struct cg_resolve *rs, const struct cg_site *at,
		       uint32_t *id)
{
	struct callgraph *cg = rs->cg;
	struct oputil_idxset_pos pos;
	struct cg_site site = { NULL, at->line };
	uint32_t i;

	if (!at->line) {
		/* a file without a line places nothing */
		*id = 0;
		return 0;
	}
	if (at->file && !(site.file = strpool_intern(cg->r->pool, at->file)))
		return -ENOMEM;
	i = oputil_idxset_find(&rs->site_set,
			       oputil_hash_u64((uintptr_t)site.file ^
					       oputil_hash_u64(site.line)),
			       &pos, k,
			       cg->sites[k].file == site.file &&
				       cg->sites[k].line == site.line);
	if (i != OPUTIL_IDXSET_NONE) {
		*id = i;
		return 0;
	}
	if (oputil_grow(&cg->sites, &rs->cap_sites, cg->nr_sites + 1,
			sizeof(*cg->sites)) ||
	    oputil_idxset_put(&rs->site_set, &pos, (uint32_t)cg->nr_sites) < 0)
		return -ENOMEM;
	cg->sites[cg->nr_sites] = site;
	*id = (uint32_t)cg->nr_sites++;
	return 0;
}

/* The node, in *ID, of PROTO (kind, image, handler) with symbol SYM, for
 * the frame of REF, separated as the frame's stack says. */
static int frame_node_id(struct cg_resolve *rs, const struct cg_ref *ref,
			 const struct cg_node *proto,
			 const struct report_sym *sym, uint32_t *id)
{
	const struct cg_raw_stack *st = &rs->cg->rstacks[ref->stack];
	struct cg_node n = *proto;

	n.sym = sym;
	n.app = rs->apps[ref->stack];
	if (!n.app && !(rs->cg->r->opts->merge & MERGE_LIB))
		n.app = n.image;
	/* JIT and anonymous images name their process; files and the
	 * kernel only when the profile separates processes */
	n.tgid = rs->cg->r->tgid_separated || n.kind == ROW_JIT ||
				 n.kind == ROW_ANON
			 ? st->ctx.tgid
			 : 0;
	return node_intern(rs, &n, id);
}

/* Give the frame of REF its node, PROTO with symbol SYM, and its site,
 * AT (NULL: not known). */
static int frame_node(struct cg_resolve *rs, const struct cg_ref *ref,
		      const struct cg_node *proto,
		      const struct report_sym *sym, const struct cg_site *at)
{
	int ret = frame_node_id(rs, ref, proto, sym, &rs->ids[ref->idx]);

	if (!ret && at)
		ret = site_intern(rs, at, &rs->sites[ref->idx]);
	return ret;
}

/* The nodes of the N functions SYMS (caller first) the function of REF's
 * frame was inlined into, each at the site AT[k] of that inlining. */
static int frame_inlined(struct cg_resolve *rs, const struct cg_ref *ref,
			 const struct cg_node *proto,
			 const struct report_sym *const *syms,
			 const struct cg_site *at, uint32_t n)
{
	uint32_t k;
	int ret;

	if (oputil_grow(&rs->inl_ids, &rs->cap_inl_ids, rs->nr_inl_ids + n,
			sizeof(*rs->inl_ids)) ||
	    oputil_grow(&rs->inl_sites, &rs->cap_inl_sites, rs->nr_inl_ids + n,
			sizeof(*rs->inl_sites)))
		return -ENOMEM;
	rs->inl_at[ref->idx] = (uint32_t)rs->nr_inl_ids;
	rs->inl_n[ref->idx] = n;
	for (k = 0; k < n; k++) {
		size_t at_k = rs->nr_inl_ids++;

		ret = frame_node_id(rs, ref, proto, syms[k],
				    &rs->inl_ids[at_k])
			      ?: site_intern(rs, &at[k], &rs->inl_sites[at_k]);
		if (ret)
			return ret;
	}
	return 0;
}

/* The symbol of function NAME of IMAGE (interned) that DWARF says was
 * inlined; NULL when out of memory. */
static const struct report_sym *
dwarf_fn_sym(struct cg_resolve *rs, const char *image, const char *name)
{
	struct report *r = rs->cg->r;
	struct oputil_idxset_pos pos;
	struct report_sym *sym;
	uint64_t h;
	uint32_t i;

	name = strpool_intern(r->pool, name);
	if (!name)
		return NULL;
	h = oputil_hash_u64((uintptr_t)name ^
			    oputil_hash_u64((uintptr_t)image));
	i = oputil_idxset_find(&rs->dwarf_set, h, &pos, k,
			       rs->dwarf_fns[k].name == name &&
				       rs->dwarf_fns[k].image == image);
	if (i != OPUTIL_IDXSET_NONE)
		return rs->dwarf_fns[i].sym;
	if (oputil_grow(&rs->dwarf_fns, &rs->cap_dwarf_fns,
			rs->nr_dwarf_fns + 1, sizeof(*rs->dwarf_fns)))
		return NULL;
	sym = strpool_alloc(r->pool, sizeof(*sym));
	if (!sym || oputil_idxset_put(&rs->dwarf_set, &pos,
				      (uint32_t)rs->nr_dwarf_fns) < 0)
		return NULL;
	memset(sym, 0, sizeof(*sym));
	sym->name = name;
	rs->dwarf_fns[rs->nr_dwarf_fns++] =
		(struct dwarf_fn){ .image = image, .name = name, .sym = sym };
	return sym;
}

/* With -g, the functions DWARF says were inlined at VMA: the innermost
 * in *INNER, and the ones it was inlined into, caller first, in CALLERS
 * (the last is PHYS, the symbol the code belongs to); 0 callers when
 * nothing was.  AT[0] is the line at VMA, AT[k] the line in CALLERS[k-1]
 * where the function before it was inlined; the names and files stay
 * the image's, valid while it is open. */
static int dwarf_chain(struct cg_resolve *rs, struct image_bfd *ib,
		       const char *image, uint64_t vma,
		       const struct report_sym *phys,
		       const struct report_sym **inner,
		       const struct report_sym **callers, struct cg_site *at,
		       uint32_t *n)
{
	struct image_inline chain[CG_INLINE_MAX + 1];
	size_t k, nc = image_bfd_inlines(ib, vma, chain, CG_INLINE_MAX + 1);

	for (k = 0; k < nc; k++)
		at[k] = (struct cg_site){ chain[k].file, chain[k].line };
	if (!nc)
		at[0] = (struct cg_site){ NULL, 0 };
	*n = 0;
	*inner = phys;
	if (nc < 2)
		return 0;
	*inner = dwarf_fn_sym(rs, image, chain[0].name);
	for (k = 1; k + 1 < nc; k++)
		if (!(callers[k - 1] = dwarf_fn_sym(rs, image, chain[k].name)))
			return -ENOMEM;
	callers[nc - 2] = phys;
	*n = (uint32_t)(nc - 1);
	return *inner ? 0 : -ENOMEM;
}

/* Name the frames of one image, REFS[0..n) sorted by address. */
static int resolve_image(struct cg_resolve *rs, const struct cg_ref *refs,
			 size_t n)
{
	struct report *r = rs->cg->r;
	const struct cg_sources *src = rs->src;
	const struct ops_image *img = ops_session_image(src->s, refs[0].key);
	const struct report_sym **syms = NULL;
	uint64_t *offs = NULL, *vmas = NULL;
	struct cg_node proto = { 0 };
	struct image_bfd *ib = NULL;
	const struct report_sym *inner = NULL, *callers[CG_INLINE_MAX];
	/* the sites of inner, then of each caller; none without -g */
	struct cg_site at[CG_INLINE_MAX + 1] = { { NULL, 0 } };
	const char *module = NULL;
	size_t i, u, nu = 0, chain_u = SIZE_MAX;
	uint32_t nc = 0;
	int ret = -ENOMEM;

	if (!img)
		return -EINVAL;
	proto.image = strpool_intern(r->pool, img->path);
	proto.image_id = refs[0].key;
	proto.kind = img->kind == OPS_IMAGE_FILE ? ROW_FILE : ROW_KERNEL;
	offs = malloc(n * sizeof(*offs));
	vmas = malloc(n * sizeof(*vmas));
	syms = calloc(n, sizeof(*syms));
	if (!proto.image || !offs || !vmas || !syms)
		goto out;
	for (i = 0; i < n; i++)
		if (!nu || offs[nu - 1] != refs[i].addr)
			offs[nu++] = refs[i].addr;
	if (img->kind == OPS_IMAGE_FILE) {
		ib = image_cache_get(src->images, refs[0].key, img);
		if (!ib)
			goto out;
		image_bfd_resolve(ib, offs, nu, syms, vmas);
	} else {
		if (img->kind == OPS_IMAGE_MODULE) {
			size_t len;
			const char *m = ops_image_module_name(img->path, &len);

			module = strpool_printf(r->pool, "%.*s", (int)len, m);
			if (!module)
				goto out;
		}
		for (i = 0; i < nu && src->ks; i++)
			syms[i] = kallsyms_resolve(src->ks, module, offs[i]);
	}
	ret = 0;
	for (i = u = 0; i < n && !ret; i++) {
		while (offs[u] != refs[i].addr)
			u++;
		/* -g: what DWARF says was inlined there, as a JIT's
		 * handler says it of its code; once per address */
		if (ib && r->opts->debug_info && u != chain_u) {
			chain_u = u;
			ret = dwarf_chain(rs, ib, proto.image, vmas[u],
					  syms[u], &inner, callers, at, &nc);
		}
		if (!ret)
			ret = frame_node(rs, &refs[i], &proto,
					 nc ? inner : syms[u], &at[0]);
		if (!ret && nc)
			ret = frame_inlined(rs, &refs[i], &proto, callers,
					    at + 1, nc);
	}
out:
	free(offs);
	free(vmas);
	free(syms);
	return ret;
}

/* Where the handler's names of a process's frames go: into SYMS, the
 * report symbol of each frame, into AT the line there, and the functions
 * it was inlined into, INL_N[i] from INL + INL_AT[i], with the lines of
 * the inlining from INL_SITES + INL_AT[i].  Files are the handler's,
 * valid until the handlers are freed. */
struct frame_sink {
	struct report *r;
	const uint32_t *weights; /* per frame: the frames it stands for */
	struct anon_symcache *cache;
	const struct report_sym **syms;
	struct cg_site *at;
	uint32_t *inl_at, *inl_n;
	const struct report_sym **inl;
	struct cg_site *inl_sites;
	size_t nr_inl, cap_inl, cap_inl_sites;
	struct anon_naming_count count;
};

static int frame_batch(void *ctx, const struct anon_resolved *b, size_t base,
		       size_t n)
{
	struct frame_sink *fs = ctx;
	size_t i, k;

	for (i = 0; i < n; i++) {
		fs->syms[base + i] =
			anon_symcache_get(fs->cache, fs->r, b->syms[i]);
		if (!fs->syms[base + i])
			return -ENOMEM;
		if (b->syms[i] && b->lines)
			fs->at[base + i] = (struct cg_site){
				b->files ? b->files[i] : NULL, b->lines[i]
			};
		fs->inl_at[base + i] = (uint32_t)fs->nr_inl;
		fs->inl_n[base + i] = b->nr_inl[i];
		if (oputil_grow(&fs->inl, &fs->cap_inl,
				fs->nr_inl + b->nr_inl[i], sizeof(*fs->inl)) ||
		    oputil_grow(&fs->inl_sites, &fs->cap_inl_sites,
				fs->nr_inl + b->nr_inl[i],
				sizeof(*fs->inl_sites)))
			return -ENOMEM;
		for (k = 0; k < b->nr_inl[i]; k++) {
			fs->inl_sites[fs->nr_inl] =
				(struct cg_site){ b->inl[i][k].file,
						  b->inl[i][k].line };
			fs->inl[fs->nr_inl] = anon_symcache_get(
				fs->cache, fs->r, b->inl[i][k].sym);
			if (!fs->inl[fs->nr_inl++])
				return -ENOMEM;
		}
	}
	anon_naming_count(&fs->count, b, n, fs->weights + base);
	return 0;
}

/* Name one process's anonymous frames, REFS[0..n) sorted by (address,
 * time), through the handler that claims the process. */
static int resolve_anon(struct cg_resolve *rs, const struct cg_ref *refs,
			size_t n)
{
	struct report *r = rs->cg->r;
	const struct cg_sources *src = rs->src;
	const struct ops_process *p = ops_session_process(src->s, refs[0].key);
	struct ops_anon_sample *smp = NULL;
	const struct report_sym **syms = NULL;
	struct anon_resolved ar = { 0 };
	struct frame_sink fs = { .r = r };
	struct report_sym *bucket;
	struct cg_node proto = { .kind = ROW_ANON, .image_id = CG_NONE };
	uint32_t *weights = NULL;
	uint64_t frames = 0;
	size_t i;
	int claimed = 0, ret = -ENOMEM;

	if (!p)
		return -EINVAL;
	bucket = strpool_alloc(r->pool, sizeof(*bucket));
	weights = malloc(n * sizeof(*weights));
	fs.weights = weights;
	smp = malloc(n * sizeof(*smp));
	syms = malloc(n * sizeof(*syms));
	fs.cache = anon_symcache_new();
	fs.syms = syms;
	fs.at = calloc(n, sizeof(*fs.at));
	fs.inl_at = calloc(n, sizeof(*fs.inl_at));
	fs.inl_n = calloc(n, sizeof(*fs.inl_n));
	if (!bucket || !weights || !smp || !syms || !fs.cache || !fs.at ||
	    !fs.inl_at || !fs.inl_n)
		goto out;
	for (i = 0; i < n; i++) {
		smp[i] = (struct ops_anon_sample){ refs[i].time, refs[i].addr,
						   0 };
		weights[i] = 1 + rs->extra[refs[i].idx];
		frames += weights[i];
	}
	if (src->handlers)
		claimed = anon_handlers_resolve(src->handlers, src->s,
						refs[0].key, smp, n,
						frame_batch, &fs, &ar);
	if (claimed == 1) {
		proto.kind = ROW_JIT;
		proto.handler =
			strpool_intern(r->pool, ar.handler ? ar.handler : "?");
		if (!proto.handler)
			goto out;
		proto.image = anon_rows_jit_label(r, p, proto.handler);
	} else {
		/* a handler that failed has said why; the frames stay
		 * anonymous, one node per process */
		bucket->name = "(no symbols)";
		proto.image =
			strpool_printf(r->pool, "anon (tgid:%u)", p->tgid);
		for (i = 0; i < n; i++)
			syms[i] = bucket;
	}
	if (!proto.image)
		goto out;
	ret = 0;
	if (r->naming_frames)
		ret = anon_naming_note(r, p, frames, claimed,
				       src->handlers != NULL, &ar, &fs.count);
	for (i = 0; i < n && !ret; i++) {
		ret = frame_node(rs, &refs[i], &proto, syms[i],
				 claimed == 1 ? &fs.at[i] : NULL);
		if (!ret && claimed == 1 && fs.inl_n[i])
			ret = frame_inlined(rs, &refs[i], &proto,
					    fs.inl + fs.inl_at[i],
					    fs.inl_sites + fs.inl_at[i],
					    fs.inl_n[i]);
	}
out:
	free(weights);
	free(fs.at);
	free(fs.inl_at);
	free(fs.inl_n);
	free(fs.inl);
	free(fs.inl_sites);
	anon_symcache_free(fs.cache);
	free(smp);
	free(syms);
	return ret;
}

/* The application of each raw stack, interned (NULL under
 * --merge=lib, or when the session does not say). */
static int stack_apps(struct cg_resolve *rs)
{
	struct callgraph *cg = rs->cg;
	struct ops_session *s = rs->src->s;
	size_t i;

	for (i = 0; i < cg->nr_rstacks; i++) {
		const struct cg_raw_ctx *c = &cg->rstacks[i].ctx;
		const struct ops_image *img;
		const struct ops_process *p;
		const char *path = NULL;

		if (cg->r->opts->merge & MERGE_LIB)
			continue;
		if (c->app != CG_NONE && (img = ops_session_image(s, c->app)))
			path = img->path;
		else if (c->proc != CG_NONE &&
			 (p = ops_session_process(s, c->proc)))
			path = p->exe ? p->exe : p->comm ? p->comm : "?";
		if (path && !(rs->apps[i] = strpool_intern(cg->r->pool, path)))
			return -ENOMEM;
	}
	return 0;
}

/* The anonymous addresses of one raw stack so far, in a table of
 * generations so that starting the next stack clears nothing. */
#define SEEN_SLOTS (2 * OPS_STACK_MAX_FRAMES)
struct frames_seen {
	uint64_t addr[SEEN_SLOTS];
	uint32_t idx[SEEN_SLOTS];
	uint32_t gen[SEEN_SLOTS];
	uint32_t cur, n; /* this stack's generation, its addresses */
};

/* The frame of this stack at ADDR before frame IDX, or CG_NONE and IDX
 * noted as the one at ADDR (while the table is at most half full, as
 * every recorded stack keeps it). */
static uint32_t seen_first(struct frames_seen *s, uint64_t addr, uint32_t idx)
{
	size_t h = (size_t)oputil_hash_u64(addr) & (SEEN_SLOTS - 1);

	for (; s->gen[h] == s->cur; h = (h + 1) & (SEEN_SLOTS - 1))
		if (s->addr[h] == addr)
			return s->idx[h];
	if (s->n == SEEN_SLOTS / 2)
		return CG_NONE;
	s->n++;
	s->gen[h] = s->cur;
	s->addr[h] = addr;
	s->idx[h] = idx;
	return CG_NONE;
}

static void seen_next_stack(struct frames_seen *s)
{
	s->n = 0;
	if (++s->cur == 0) {
		memset(s->gen, 0, sizeof(s->gen));
		s->cur = 1;
	}
}

/* Frames named as an earlier frame of their stack take its names. */
static void copy_aliases(struct cg_resolve *rs)
{
	size_t i;

	for (i = 0; i < rs->cg->nr_raw; i++) {
		uint32_t o = rs->alias[i];

		if (o == CG_NONE)
			continue;
		rs->ids[i] = rs->ids[o];
		rs->sites[i] = rs->sites[o];
		rs->inl_at[i] = rs->inl_at[o];
		rs->inl_n[i] = rs->inl_n[o];
	}
}

static int resolve_frames(struct cg_resolve *rs)
{
	struct callgraph *cg = rs->cg;
	struct report_sym *usym;
	struct cg_node unknown = { .kind = ROW_FILE, .image_id = CG_UNKNOWN };
	uint32_t nr_img = ops_session_nr_images(rs->src->s);
	struct frames_seen *seen;
	struct cg_ref *refs;
	size_t i, j, k, nr = 0;
	int ret;

	ret = stack_apps(rs);
	if (ret)
		return ret;
	/* frames in no mapping the recorder knew, or in anonymous memory
	 * of no known process: one node, as perf's [unknown] */
	usym = strpool_alloc(cg->r->pool, sizeof(*usym));
	unknown.image = strpool_intern(cg->r->pool, "[unknown]");
	if (!usym || !unknown.image)
		return -ENOMEM;
	usym->name = "[unknown]";
	refs = malloc((cg->nr_raw ? cg->nr_raw : 1) * sizeof(*refs));
	seen = calloc(1, sizeof(*seen));
	if (!refs || !seen) {
		free(refs);
		free(seen);
		return -ENOMEM;
	}
	/* two passes: file and kernel images, then anonymous memory keyed
	 * by process */
	for (k = 0; k < 2 && !ret; k++) {
		nr = 0;
		for (i = 0; i < cg->nr_rstacks && !ret; i++) {
			const struct cg_raw_stack *st = &cg->rstacks[i];
			uint32_t f, first;

			seen_next_stack(seen);
			for (f = 0; f < st->n && !ret; f++) {
				const struct cg_raw_frame *fr =
					&cg->raw[st->first + f];
				struct cg_ref ref = { fr->image, (uint32_t)i,
						      fr->addr, 0,
						      st->first + f };
				bool anon = fr->image == CG_ANON;

				if (anon != (k == 1))
					continue;
				if (f && ref.addr)
					ref.addr--; /* a return address */
				if (fr->image == CG_UNKNOWN ||
				    (anon && st->ctx.proc == CG_NONE) ||
				    (!anon && fr->image >= nr_img)) {
					ret = frame_node(rs, &ref, &unknown,
							 usym, NULL);
					continue;
				}
				if (anon) {
					ref.key = st->ctx.proc;
					ref.time = st->time_ns;
					first = seen_first(seen, ref.addr,
							   (uint32_t)ref.idx);
					if (first != CG_NONE) {
						rs->alias[ref.idx] = first;
						rs->extra[first]++;
						continue;
					}
				}
				refs[nr++] = ref;
			}
		}
		qsort(refs, nr, sizeof(*refs), ref_cmp);
		for (i = 0; i < nr && !ret; i = j) {
			for (j = i; j < nr && refs[j].key == refs[i].key; j++)
				;
			ret = k == 0 ? resolve_image(rs, refs + i, j - i)
				     : resolve_anon(rs, refs + i, j - i);
		}
	}
	if (!ret)
		copy_aliases(rs);
	free(refs);
	free(seen);
	return ret;
}

static int stack_cmp(const void *pa, const void *pb)
{
	const struct cg_stack *a = pa, *b = pb;
	uint32_t i;

	if (a->depth != b->depth)
		return CMP(a->depth, b->depth);
	for (i = 0; i < a->depth; i++)
		if (a->frames[i] != b->frames[i])
			return CMP(a->frames[i], b->frames[i]);
	/* the same functions, inlined in one and called in the other, are
	 * different addresses */
	return memcmp(a->inlined, b->inlined, a->depth);
}

/* After the functions, the sites: stacks of one function stack stay
 * adjacent, in stack_cmp's order. */
static int site_stack_cmp(const void *pa, const void *pb)
{
	const struct cg_stack *a = pa, *b = pb;
	uint32_t i;
	int c = stack_cmp(pa, pb);

	for (i = 0; !c && i < a->depth; i++)
		c = CMP(a->sites[i], b->sites[i]);
	return c;
}

/* Raw stack RS root first into FRAMES, INLINED and SITES: each frame
 * its function as the handler named it, after the functions that
 * function was inlined into, outermost first.  Returns the depth. */
static uint32_t stack_expand(const struct cg_resolve *res,
			     const struct cg_raw_stack *rs, uint32_t *frames,
			     uint8_t *inlined, uint32_t *sites)
{
	uint32_t f, k, d = 0;

	/* the kernel gives the leaf first; the model is root first */
	for (f = rs->n; f-- > 0;) {
		size_t idx = rs->first + f;
		uint32_t n = res->inl_n[idx];
		const uint32_t *chain = res->inl_ids + res->inl_at[idx];
		const uint32_t *chain_sites =
			res->inl_sites + res->inl_at[idx];

		for (k = n; k-- > 0; d++) {
			frames[d] = chain[k];
			inlined[d] = k + 1 < n;
			sites[d] = chain_sites[k];
		}
		frames[d] = res->ids[idx];
		sites[d] = res->sites[idx];
		inlined[d++] = n > 0;
	}
	return d;
}

static int arc_cmp(const void *pa, const void *pb)
{
	const struct cg_arc *a = pa, *b = pb;

	return CMP(a->from, b->from) ?: CMP(a->to, b->to);
}

static int rarc_cmp(const void *pa, const void *pb)
{
	const struct cg_arc *a = pa, *b = pb;

	return CMP(a->to, b->to) ?: CMP(a->from, b->from);
}

/* V[0..n) sorted by CMP, with equal neighbours merged into one whose
 * count is theirs; their number, 0 for none.  Each kept one is V[k]
 * with the sites it has when SITES, else with none. */
static size_t stacks_merge(struct cg_stack *out, const struct cg_stack *v,
			   size_t n, int (*cmp)(const void *, const void *),
			   bool sites)
{
	size_t i, nu = 0;

	for (i = 0; i < n; i++) {
		if (nu && !cmp(&out[nu - 1], &v[i])) {
			out[nu - 1].count += v[i].count;
			continue;
		}
		out[nu] = v[i];
		if (!sites)
			out[nu].sites = NULL;
		nu++;
	}
	return nu;
}

/* A distinct stack by site while they are gathered: its frames at AT in
 * the model's storage. */
struct site_stack_at {
	size_t at;
	uint32_t depth;
	uint64_t count;
};

static uint64_t site_stack_hash(const struct cg_stack *st)
{
	uint64_t h = OPUTIL_HASH_SEED;
	uint32_t i;

	for (i = 0; i < st->depth; i++) {
		h = oputil_hash_word(h, st->frames[i]);
		h = oputil_hash_word(h, st->sites[i] << 1 | st->inlined[i]);
	}
	return h ^ (h >> 29);
}

/* Distinct stack V as the model has it, in the storage as it is now. */
static struct cg_stack site_stack_of(const struct callgraph *cg,
				     const struct site_stack_at *v)
{
	return (struct cg_stack){ cg->node_ids + v->at, cg->inlined + v->at,
				  cg->site_ids + v->at, v->depth, v->count };
}

/* Whether distinct stack V has ST's functions, inlining and sites. */
static bool site_stack_same(const struct callgraph *cg,
			    const struct site_stack_at *v,
			    const struct cg_stack *st)
{
	struct cg_stack kept = site_stack_of(cg, v);

	return !site_stack_cmp(&kept, st);
}

/*
 * Every raw stack expanded (stack_expand), each distinct one kept once
 * with the counts of all summed, into cg->site_stacks (unsorted).  JIT
 * code makes a raw stack per sample, so that most repeat: keeping each
 * only once is what holds the model to the size of its distinct stacks.
 */
static int gather_site_stacks(struct callgraph *cg,
			      const struct cg_resolve *res)
{
	struct site_stack_at *v = NULL;
	struct oputil_idxset set = { 0 };
	struct oputil_idxset_pos pos;
	size_t i, nv = 0, cap_v = 0, cap_f = 0, cap_i = 0, cap_s = 0, at = 0;
	int ret = 0;

	for (i = 0; i < cg->nr_rstacks && !ret; i++) {
		const struct cg_raw_stack *rs = &cg->rstacks[i];
		struct cg_stack cur;
		size_t need = at, f;
		uint32_t d, k;
		uint64_t h;

		for (f = 0; f < rs->n; f++)
			need += 1 + res->inl_n[rs->first + f];
		if (oputil_grow(&cg->node_ids, &cap_f, need,
				sizeof(*cg->node_ids)) ||
		    oputil_grow(&cg->inlined, &cap_i, need, 1) ||
		    oputil_grow(&cg->site_ids, &cap_s, need,
				sizeof(*cg->site_ids))) {
			ret = -ENOMEM;
			break;
		}
		cg->total += rs->count;
		if (rs->truncated)
			cg->truncated += rs->count;
		/* expanded after the kept ones: kept if new */
		d = stack_expand(res, rs, cg->node_ids + at, cg->inlined + at,
				 cg->site_ids + at);
		cur = site_stack_of(cg, &(struct site_stack_at){ at, d, 0 });
		h = site_stack_hash(&cur);
		k = oputil_idxset_find(&set, h, &pos, j,
				       set.hash[j] == (uint32_t)h &&
					       site_stack_same(cg, &v[j],
							       &cur));
		if (k != OPUTIL_IDXSET_NONE) {
			v[k].count += rs->count;
			continue;
		}
		if (oputil_grow(&v, &cap_v, nv + 1, sizeof(*v)) ||
		    oputil_idxset_put(&set, &pos, (uint32_t)nv) < 0) {
			ret = -ENOMEM;
			break;
		}
		v[nv++] = (struct site_stack_at){ at, d, rs->count };
		at += d;
	}
	cg->site_stacks = ret ? NULL
			      : calloc(nv ? nv : 1, sizeof(*cg->site_stacks));
	if (!ret && !cg->site_stacks)
		ret = -ENOMEM;
	for (i = 0; !ret && i < nv; i++)
		cg->site_stacks[i] = site_stack_of(cg, &v[i]);
	cg->nr_site_stacks = ret ? 0 : nv;
	free(v);
	oputil_idxset_free(&set);
	return ret;
}

/* Unique stacks (root first) by site and by function, each node's self
 * and total, the arcs. */
static int build_model(struct callgraph *cg, const struct cg_resolve *res)
{
	uint64_t *seen = NULL;
	size_t i, j, na = 0;
	int ret;

	ret = gather_site_stacks(cg, res);
	if (ret)
		return ret;
	ret = -ENOMEM;
	seen = calloc(cg->nr_nodes ? cg->nr_nodes : 1, sizeof(*seen));
	if (!seen)
		goto out;
	qsort(cg->site_stacks, cg->nr_site_stacks, sizeof(*cg->site_stacks),
	      site_stack_cmp);
	/* the sorted site stacks hold those of one function stack
	 * together: merging them gives the function stacks in order */
	cg->stacks = calloc(cg->nr_site_stacks ? cg->nr_site_stacks : 1,
			    sizeof(*cg->stacks));
	if (!cg->stacks)
		goto out;
	cg->nr_stacks = stacks_merge(cg->stacks, cg->site_stacks,
				     cg->nr_site_stacks, stack_cmp, false);
	for (i = 0; i < cg->nr_stacks; i++)
		na += cg->stacks[i].depth - 1;
	cg->arcs = calloc(na ? na : 1, sizeof(*cg->arcs));
	if (!cg->arcs)
		goto out;
	na = 0;
	for (i = 0; i < cg->nr_stacks; i++) {
		const struct cg_stack *st = &cg->stacks[i];

		cg->nodes[st->frames[st->depth - 1]].self += st->count;
		for (j = 0; j < st->depth; j++) {
			uint32_t id = st->frames[j];

			/* a recursive function counts once per stack */
			if (seen[id] != i + 1) {
				seen[id] = i + 1;
				cg->nodes[id].total += st->count;
			}
			if (j + 1 < st->depth)
				cg->arcs[na++] =
					(struct cg_arc){ id, st->frames[j + 1],
							 st->count };
		}
	}
	qsort(cg->arcs, na, sizeof(*cg->arcs), arc_cmp);
	for (i = 0; i < na; i++) {
		struct cg_arc *last = cg->nr_arcs ? &cg->arcs[cg->nr_arcs - 1]
						  : NULL;

		if (last && !arc_cmp(last, &cg->arcs[i]))
			last->count += cg->arcs[i].count;
		else
			cg->arcs[cg->nr_arcs++] = cg->arcs[i];
	}
	cg->rarcs =
		malloc((cg->nr_arcs ? cg->nr_arcs : 1) * sizeof(*cg->rarcs));
	if (!cg->rarcs)
		goto out;
	memcpy(cg->rarcs, cg->arcs, cg->nr_arcs * sizeof(*cg->rarcs));
	qsort(cg->rarcs, cg->nr_arcs, sizeof(*cg->rarcs), rarc_cmp);
	ret = 0;
out:
	free(seen);
	return ret;
}

int callgraph_resolve(struct callgraph *cg, const struct cg_sources *src)
{
	struct cg_resolve rs = { .cg = cg, .src = src };
	int ret = -ENOMEM;

	rs.apps =
		calloc(cg->nr_rstacks ? cg->nr_rstacks : 1, sizeof(*rs.apps));
	rs.ids = calloc(cg->nr_raw ? cg->nr_raw : 1, sizeof(*rs.ids));
	rs.sites = calloc(cg->nr_raw ? cg->nr_raw : 1, sizeof(*rs.sites));
	rs.inl_at = calloc(cg->nr_raw ? cg->nr_raw : 1, sizeof(*rs.inl_at));
	rs.inl_n = calloc(cg->nr_raw ? cg->nr_raw : 1, sizeof(*rs.inl_n));
	rs.extra = calloc(cg->nr_raw ? cg->nr_raw : 1, sizeof(*rs.extra));
	rs.alias = cg->nr_raw < CG_NONE
			   ? malloc((cg->nr_raw ? cg->nr_raw : 1) *
				    sizeof(*rs.alias))
			   : NULL;
	if (!rs.apps || !rs.ids || !rs.sites || !rs.inl_at || !rs.inl_n ||
	    !rs.extra || !rs.alias ||
	    oputil_grow(&cg->sites, &rs.cap_sites, 1, sizeof(*cg->sites)))
		goto out;
	/* no frame is another's until resolve_frames says so */
	memset(rs.alias, 0xff,
	       (cg->nr_raw ? cg->nr_raw : 1) * sizeof(*rs.alias));
	/* site 0, what a frame has when nothing says its line */
	cg->sites[cg->nr_sites++] = (struct cg_site){ NULL, 0 };
	ret = resolve_frames(&rs);
	/* what only naming needed goes before the model is built */
	free(rs.alias);
	free(rs.extra);
	rs.alias = rs.extra = NULL;
	free(cg->raw);
	cg->raw = NULL;
	cg->cap_raw = 0;
	if (!ret)
		ret = build_model(cg, &rs);
out:
	free(rs.apps);
	free(rs.ids);
	free(rs.sites);
	free(rs.inl_at);
	free(rs.inl_n);
	free(rs.alias);
	free(rs.extra);
	free(rs.inl_ids);
	free(rs.inl_sites);
	free(rs.dwarf_fns);
	oputil_idxset_free(&rs.dwarf_set);
	oputil_idxset_free(&rs.node_set);
	oputil_idxset_free(&rs.site_set);
	return ret;
}

static const struct cg_arc *arcs_of(const struct cg_arc *v, size_t nv,
				    uint32_t id, bool by_to, size_t *n)
{
	size_t first =
		oputil_partition(0, nv, m, (by_to ? v[m].to : v[m].from) < id);
	size_t lo = first;

	while (lo < nv && (by_to ? v[lo].to : v[lo].from) == id)
		lo++;
	*n = lo - first;
	return v + first;
}

const struct cg_arc *callgraph_callers(const struct callgraph *cg, uint32_t id,
				       size_t *n)
{
	return arcs_of(cg->rarcs, cg->nr_arcs, id, true, n);
}

const struct cg_arc *callgraph_callees(const struct callgraph *cg, uint32_t id,
				       size_t *n)
{
	return arcs_of(cg->arcs, cg->nr_arcs, id, false, n);
}
