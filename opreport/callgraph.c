// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>
#include <oputil/hash.h>
#include <oputil/idxset.h>
#include <oputil/radix.h>
#include <oputil/search.h>

#include "callgraph.h"
#include "callgraph_input.h"
#include "callgraph_name.h"
#include "strpool.h"

/*
 * Samples that make one stack of the model: the same input stack, the
 * same names in its anonymous slots, and the same application and
 * process.  A JIT's samples each have their own time, but most repeat
 * one of a few such classes: the model's stacks are built once a class,
 * not once a sample.
 */
struct cg_class {
	uint32_t stack; /* input stack */
	uint32_t who;	/* its application and process, in cg_build.whos */
	uint32_t slot0; /* its slots' names: names.slot_named + slot0 */
	uint64_t count;
};

/* Whose samples a class's are: a few, where the classes are about one
 * a sample when a JIT's samples have each a stack of its own. */
struct cg_who {
	const char *app; /* interned; NULL when the session does not say,
			  * or under --merge=lib */
	uint32_t tgid;
};

/* Samples of class (then site stack) AT in time slice SLICE. */
struct cg_tslice {
	uint32_t at, slice;
	uint64_t count;
};

struct cg_pfx {
	uint32_t parent, node, site, depth;
	bool inlined;
};

/* What building the model needs. */
struct cg_build {
	struct callgraph *cg;
	const struct cg_sources *src;
	struct cg_names names;
	struct cg_class *classes;
	size_t nr_classes, cap_classes;
	/* the classes' samples by time slice, unsorted, then (by
	 * site_slices) the site stacks' */
	struct cg_tslice *ts;
	size_t nr_ts, cap_ts;
	uint32_t *class_ss; /* per class: its stack in site_stacks */
	struct oputil_idxset node_set; /* cg->nodes, by what they describe */
	size_t cap_nodes;
	/* per name: the node of its function, when node_gen is gen: that
	 * of the application and process last expanded */
	uint32_t *node_of, *node_gen, gen, last_who;
	struct cg_who *whos;
	size_t nr_whos, cap_whos;
	/* the prefixes of the stacks, each a frame (node, site, whether
	 * inlined into the frame before it) below the prefix of its
	 * callers (CG_NONE for none), interned */
	struct cg_pfx *pfx;
	size_t nr_pfx, cap_pfx;
	struct oputil_idxset pfx_set;
	/* per input stack as a caller: the prefix its callers and it last
	 * made, and the class that made it (CG_NONE: none yet) */
	uint32_t *memo_pfx, *memo_class;
	uint32_t *path; /* class_pfx's scratch */
	size_t cap_path;
};

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* The functions here that can fail return -ENOMEM (-EINVAL for a frame
 * the session cannot name) and report nothing: the caller does. */

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
	cg_input_free(cg->in);
	free(cg->node_ids);
	free(cg->inlined);
	free(cg->site_stacks);
	free(cg->sites);
	free(cg->site_ids);
	free(cg->site_slices);
	free(cg->stack_slices);
	free(cg);
}

/* A JIT function compiled again is another code object with the same
 * name: one node, as its -l row is one row (report.c), so that its
 * samples and its children are the function's.  Handlers' names are
 * interned (anon_symcache.c), so the name's pointer is the key. */
static const void *node_sym_key(const struct cg_node *n)
{
	return n->kind == ROW_JIT && n->sym ? (const void *)n->sym->name
					    : (const void *)n->sym;
}

static bool node_eq(const struct cg_node *a, const struct cg_node *b)
{
	return a->kind == b->kind && a->image == b->image &&
	       a->app == b->app && a->tgid == b->tgid &&
	       node_sym_key(a) == node_sym_key(b);
}

static size_t node_hash(const struct cg_node *n)
{
	uint64_t h = oputil_hash_word64(OPUTIL_HASH_SEED,
					(uintptr_t)node_sym_key(n));

	h = oputil_hash_word64(h, (uintptr_t)n->image);
	h = oputil_hash_word64(h, (uintptr_t)n->app);
	return (size_t)oputil_hash_word64(h, (uint64_t)n->tgid << 3 |
						     (uint64_t)n->kind);
}

/* The id of the node of PROTO (kind, image, handler) with symbol SYM in
 * the stacks of class C, separated as the report says; added when new. */
static int class_node(struct cg_build *b, const struct cg_class *c,
		      const struct cg_node *proto,
		      const struct report_sym *sym, uint32_t *id)
{
	struct callgraph *cg = b->cg;
	struct oputil_idxset_pos pos;
	struct cg_node n = *proto;
	uint32_t i;

	n.sym = sym;
	n.app = b->whos[c->who].app;
	if (!n.app && !(cg->r->opts->merge & MERGE_LIB))
		n.app = n.image;
	/* JIT and anonymous images name their process (JIT code not
	 * under --merge=tgid, where a function is one node whatever the
	 * process); files and the kernel only when the profile separates
	 * processes */
	n.tgid = cg->r->tgid_separated ||
				 (n.kind == ROW_JIT &&
				  !(cg->r->opts->merge & MERGE_TGID)) ||
				 n.kind == ROW_ANON
			 ? b->whos[c->who].tgid
			 : 0;
	i = oputil_idxset_find(&b->node_set, node_hash(&n), &pos, k,
			       node_eq(&cg->nodes[k], &n));
	if (i != OPUTIL_IDXSET_NONE) {
		*id = i;
		return 0;
	}
	if (oputil_grow(&cg->nodes, &b->cap_nodes, cg->nr_nodes + 1,
			sizeof(*cg->nodes)) ||
	    oputil_idxset_put(&b->node_set, &pos, (uint32_t)cg->nr_nodes) < 0)
		return -ENOMEM;
	cg->nodes[cg->nr_nodes] = n;
	*id = (uint32_t)cg->nr_nodes++;
	return 0;
}

/* The application of samples of CTX, interned (NULL under --merge=lib,
 * or when the session does not say). */
static int ctx_app(struct callgraph *cg, struct ops_session *s,
		   const struct cg_raw_ctx *c, const char **app)
{
	const struct ops_image *img;
	const struct ops_process *p;
	const char *path = NULL;

	*app = NULL;
	if (cg->r->opts->merge & MERGE_LIB)
		return 0;
	if (c->app != CG_NONE && (img = ops_session_image(s, c->app)))
		path = img->path;
	else if (c->proc != CG_NONE && (p = ops_session_process(s, c->proc)))
		path = p->exe ? p->exe : p->comm ? p->comm : "?";
	if (path && !(*app = strpool_intern(cg->r->pool, path)))
		return -ENOMEM;
	return 0;
}

static uint64_t class_hash(const struct cg_class *c, const uint32_t *names,
			   uint32_t n)
{
	uint64_t h = OPUTIL_HASH_SEED;
	uint32_t k;

	h = oputil_hash_word(h, c->stack);
	h = oputil_hash_word(h, c->who);
	for (k = 0; k < n; k++)
		h = oputil_hash_word(h, names[k]);
	/* FNV's low bits see only the inputs' low bits: mix them */
	return oputil_hash_u64(h);
}

static bool class_same(const struct cg_class *a, const struct cg_class *b,
		       const uint32_t *slot_named, uint32_t n)
{
	return a->stack == b->stack && a->who == b->who &&
	       !memcmp(slot_named + a->slot0, slot_named + b->slot0,
		       n * sizeof(*slot_named));
}

/* COUNT samples of class K in time slice SLICE; a run of one class's
 * samples in one slice (a JIT's, one after another) is one entry. */
static int class_slice(struct cg_build *b, uint32_t k, uint32_t slice,
		       uint64_t count)
{
	struct cg_tslice *last = b->nr_ts ? &b->ts[b->nr_ts - 1] : NULL;

	if (slice == CG_NO_SLICE)
		return 0;
	if (last && last->at == k && last->slice == slice) {
		last->count += count;
		return 0;
	}
	if (oputil_grow(&b->ts, &b->cap_ts, b->nr_ts + 1, sizeof(*b->ts)))
		return -ENOMEM;
	b->ts[b->nr_ts++] = (struct cg_tslice){ k, slice, count };
	return 0;
}

/* The index of (APP, TGID) in B's whos, added when new, into *WHO; a
 * linear search, made when the samples' context changes (a process's
 * samples come together), in whos as few as the processes. */
static int who_of(struct cg_build *b, const char *app, uint32_t tgid,
		  uint32_t *who)
{
	size_t i;

	for (i = b->nr_whos; i-- > 0;)
		if (b->whos[i].app == app && b->whos[i].tgid == tgid) {
			*who = (uint32_t)i;
			return 0;
		}
	if (b->nr_whos >= UINT32_MAX ||
	    oputil_grow(&b->whos, &b->cap_whos, b->nr_whos + 1,
			sizeof(*b->whos)))
		return -ENOMEM;
	b->whos[b->nr_whos] = (struct cg_who){ app, tgid };
	*who = (uint32_t)b->nr_whos++;
	return 0;
}

/* The samples gathered into classes, their counts summed. */
static int gather_classes(struct cg_build *b)
{
	const struct cg_input *in = b->cg->in;
	const uint32_t *slot_named = b->names.slot_named;
	struct oputil_idxset set = { 0 };
	struct oputil_idxset_pos pos;
	struct cg_raw_ctx last = { CG_NONE, CG_NONE, 0 };
	const char *app = NULL;
	uint32_t who = 0;
	size_t i, at = 0;
	int ret = 0;

	for (i = 0; in && i < in->nr_samples && !ret; i++) {
		const struct cg_sample_in *smp = &in->samples[i];
		const struct cg_raw_ctx *ctx = cg_sample_ctx(in, smp);
		uint32_t n = cg_slots_n(in, smp->stack), k;
		struct cg_class c;
		uint64_t h;

		/* a process's samples come together: its application is
		 * looked up once */
		if (i == 0 || ctx->app != last.app || ctx->proc != last.proc) {
			last = *ctx;
			ret = ctx_app(b->cg, b->src->s, ctx, &app)
				      ?: who_of(b, app, ctx->tgid, &who);
			if (ret)
				break;
		}
		/* the names resolved at most UINT32_MAX - 1 slots */
		c = (struct cg_class){ smp->stack, who, (uint32_t)at,
				       smp->count };
		at += n;
		h = class_hash(&c, slot_named + c.slot0, n);
		k = oputil_idxset_find(&set, h, &pos, j,
				       set.hash[j] == (uint32_t)h &&
					       class_same(&b->classes[j], &c,
							  slot_named, n));
		if (k != OPUTIL_IDXSET_NONE) {
			b->classes[k].count += c.count;
		} else if (oputil_grow(&b->classes, &b->cap_classes,
				       b->nr_classes + 1,
				       sizeof(*b->classes)) ||
			   oputil_idxset_put(&set, &pos,
					     (uint32_t)b->nr_classes) < 0) {
			ret = -ENOMEM;
			break;
		} else {
			k = (uint32_t)b->nr_classes;
			b->classes[b->nr_classes++] = c;
		}
		ret = class_slice(b, k, smp->slice, smp->count);
	}
	oputil_idxset_free(&set);
	return ret;
}

/* The node of name ID's own function in the stacks of class C, looked
 * up once while classes of one application and process follow each
 * other (as a process's samples do). */
static int named_node(struct cg_build *b, const struct cg_class *c,
		      uint32_t id, uint32_t *node)
{
	const struct cg_named *x = &b->names.named[id];
	int ret;

	if (b->node_gen[id] == b->gen) {
		*node = b->node_of[id];
		return 0;
	}
	ret = class_node(b, c, x->proto, x->sym, node);
	if (!ret) {
		b->node_gen[id] = b->gen;
		b->node_of[id] = *node;
	}
	return ret;
}

static uint64_t pfx_hash(const struct cg_pfx *x)
{
	uint64_t h = oputil_hash_word(OPUTIL_HASH_SEED, x->parent);

	h = oputil_hash_word(h, x->node);
	h = oputil_hash_word(h, x->site << 1 | x->inlined);
	/* FNV's low bits see only the inputs' low bits: mix them */
	return oputil_hash_u64(h);
}

/* The prefix of frame NODE at SITE (INLINED into the frame before it)
 * below prefix *AT, in *AT; added when new. */
static int pfx_push(struct cg_build *b, uint32_t *at, uint32_t node,
		    uint32_t site, bool inlined)
{
	struct cg_pfx x = { *at, node, site, 1, inlined };
	struct oputil_idxset_pos pos;
	uint32_t i;

	if (*at != CG_NONE)
		x.depth = b->pfx[*at].depth + 1;
	i = oputil_idxset_find(&b->pfx_set, pfx_hash(&x), &pos, k,
			       b->pfx[k].parent == x.parent &&
				       b->pfx[k].node == x.node &&
				       b->pfx[k].site == x.site &&
				       b->pfx[k].inlined == x.inlined);
	if (i != OPUTIL_IDXSET_NONE) {
		*at = i;
		return 0;
	}
	if (b->nr_pfx >= CG_NONE - 1 ||
	    oputil_grow(&b->pfx, &b->cap_pfx, b->nr_pfx + 1,
			sizeof(*b->pfx)) ||
	    oputil_idxset_put(&b->pfx_set, &pos, (uint32_t)b->nr_pfx) < 0)
		return -ENOMEM;
	b->pfx[b->nr_pfx] = x;
	*at = (uint32_t)b->nr_pfx++;
	return 0;
}

/* Prefix *AT with the frames of name ID in the stacks of class C: the
 * functions its code was inlined into, outermost first, then its own. */
static int pfx_named(struct cg_build *b, const struct cg_class *c,
		     uint32_t *at, uint32_t id)
{
	const struct cg_names *nm = &b->names;
	const struct cg_named *x = &nm->named[id];
	uint32_t k, node;
	int ret = 0;

	for (k = x->inl_n; k-- > 0 && !ret;)
		ret = class_node(b, c, x->proto, nm->inl_syms[x->inl_at + k],
				 &node)
			      ?: pfx_push(b, at, node,
					  nm->inl_sites[x->inl_at + k],
					  k + 1 < x->inl_n);
	return ret ?: named_node(b, c, id, &node) ?:
		      pfx_push(b, at, node, x->site, x->inl_n > 0);
}

/* Whether the stacks of class C name the callers from the root down to
 * stack T as class MEMO did: the same application and process, and the
 * same names in the slots of those callers.  Files' frames are named
 * the same in every stack. */
static bool memo_holds(const struct cg_build *b, uint32_t t,
		       const struct cg_class *c)
{
	const struct cg_class *m;
	uint32_t n;

	if (b->memo_class[t] == CG_NONE)
		return false;
	m = &b->classes[b->memo_class[t]];
	n = cg_caller_slots(b->cg->in, t);
	return m->who == c->who && !memcmp(b->names.slot_named + m->slot0,
					   b->names.slot_named + c->slot0,
					   n * sizeof(*b->names.slot_named));
}

/*
 * Class CI's stack as a prefix, in *AT.  The callers from the root down
 * to a stack expand to the same prefix in every class that names their
 * slots alike (a JIT whose code stays put: all of them), so each stack
 * keeps the prefix its callers last made and the class that made it,
 * and a class builds only the frames below the first caller whose
 * prefix holds for it: a tree's worth of work, not a frame per stack.
 */
static int class_pfx(struct cg_build *b, uint32_t ci, uint32_t *at)
{
	const struct cg_input *in = b->cg->in;
	const struct cg_names *nm = &b->names;
	const struct cg_class *c = &b->classes[ci];
	uint32_t t, n = 0, leaf = c->stack;
	int ret = 0;

	if (c->who != b->last_who || !b->gen) {
		b->last_who = c->who;
		b->gen++;
	}
	for (t = cg_in_parent(in, leaf); t != CG_NONE && !memo_holds(b, t, c);
	     t = cg_in_parent(in, t)) {
		if (oputil_grow(&b->path, &b->cap_path, n + 1,
				sizeof(*b->path)))
			return -ENOMEM;
		b->path[n++] = t;
	}
	*at = t == CG_NONE ? CG_NONE : b->memo_pfx[t];
	while (n-- > 0 && !ret) {
		t = b->path[n];
		ret = pfx_named(
			b, c, at,
			in->cslot[t] != CG_NONE
				? nm->slot_named[c->slot0 + in->cslot[t]]
				: nm->caller_named[t]);
		b->memo_pfx[t] = *at;
		b->memo_class[t] = ci;
	}
	return ret
		       ?: pfx_named(
				  b, c, at,
				  in->leaf_slot[leaf] != CG_NONE
					  ? nm->slot_named[c->slot0 +
							   in->leaf_slot[leaf]]
					  : nm->leaf_named[leaf]);
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

/*
 * Every class as a prefix (class_pfx), each distinct one a stack by site
 * with the counts of its classes summed, into cg->site_stacks
 * (unsorted): classes that differ only in addresses within the same
 * functions and lines end in one prefix.
 */
static int gather_site_stacks(struct cg_build *b)
{
	struct callgraph *cg = b->cg;
	uint32_t *stack_of = NULL; /* per prefix: its stack by site */
	uint32_t *leaves = NULL;   /* per stack by site: its prefix */
	uint64_t *counts = NULL;
	size_t i, nv = 0, cap_v = 0, cap_c = 0, at = 0, nf = 0;
	size_t nr_so = 0, cap_so = 0;
	int ret = 0;

	b->class_ss = malloc((b->nr_classes ? b->nr_classes : 1) *
			     sizeof(*b->class_ss));
	if (!b->class_ss)
		return -ENOMEM;
	for (i = 0; i < b->nr_classes && !ret; i++) {
		const struct cg_class *c = &b->classes[i];
		uint32_t p;

		ret = class_pfx(b, (uint32_t)i, &p);
		if (ret)
			break;
		cg->total += c->count;
		if (cg->in->flags[c->stack] & CG_IN_TRUNCATED)
			cg->truncated += c->count;
		/* the prefixes grow: so does the map */
		if (oputil_grow(&stack_of, &cap_so, b->nr_pfx,
				sizeof(*stack_of))) {
			ret = -ENOMEM;
			break;
		}
		while (nr_so < b->nr_pfx)
			stack_of[nr_so++] = CG_NONE;
		if (stack_of[p] == CG_NONE) {
			if (oputil_grow(&leaves, &cap_v, nv + 1,
					sizeof(*leaves)) ||
			    oputil_grow(&counts, &cap_c, nv + 1,
					sizeof(*counts))) {
				ret = -ENOMEM;
				break;
			}
			stack_of[p] = (uint32_t)nv;
			leaves[nv] = p;
			counts[nv++] = 0;
			nf += b->pfx[p].depth;
		}
		counts[stack_of[p]] += c->count;
		b->class_ss[i] = stack_of[p];
	}
	/* each stack root first, out of its prefix */
	cg->site_stacks = calloc(nv ? nv : 1, sizeof(*cg->site_stacks));
	cg->node_ids = malloc((nf ? nf : 1) * sizeof(*cg->node_ids));
	cg->inlined = malloc(nf ? nf : 1);
	cg->site_ids = malloc((nf ? nf : 1) * sizeof(*cg->site_ids));
	if (!ret && (!cg->site_stacks || !cg->node_ids || !cg->inlined ||
		     !cg->site_ids))
		ret = -ENOMEM;
	for (i = 0; !ret && i < nv; i++) {
		uint32_t p = leaves[i], d = b->pfx[p].depth;
		struct cg_stack *st = &cg->site_stacks[i];

		*st = (struct cg_stack){ .frames = cg->node_ids + at,
					 .inlined = cg->inlined + at,
					 .sites = cg->site_ids + at,
					 .depth = d,
					 .count = counts[i] };
		for (; p != CG_NONE; p = b->pfx[p].parent) {
			d--;
			cg->node_ids[at + d] = b->pfx[p].node;
			cg->inlined[at + d] = b->pfx[p].inlined;
			cg->site_ids[at + d] = b->pfx[p].site;
		}
		at += st->depth;
	}
	cg->nr_site_stacks = ret ? 0 : nv;
	free(stack_of);
	free(leaves);
	free(counts);
	return ret;
}

static int tslice_cmp(const void *pa, const void *pb)
{
	const struct cg_tslice *a = pa, *b = pb;

	return CMP(a->at, b->at) ?: CMP(a->slice, b->slice);
}

/* V[0..n) sorted (by a radix sort: qsort of a dwarf report's 12k
 * slices was 8% of its CPU), with equal neighbours summed, as slices
 * into OUT; their number in *NU.  0 or -ENOMEM. */
static int tslices_merge(struct cg_slice *out, struct cg_tslice *v, size_t n,
			 size_t *nu)
{
	struct cg_tslice *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	const struct cg_tslice *sorted;
	size_t i;

	if (!tmp)
		return -ENOMEM;
	sorted = oputil_radix_sort(v, tmp, n, t,
				   (uint64_t)t->at << 32 | t->slice);
	if (sorted != v)
		memcpy(v, sorted, n * sizeof(*v));
	free(tmp);
	*nu = 0;
	for (i = 0; i < n; i++) {
		if (*nu && i && !tslice_cmp(&v[i - 1], &v[i])) {
			out[*nu - 1].count += v[i].count;
			continue;
		}
		out[(*nu)++] = (struct cg_slice){ v[i].slice, v[i].count };
	}
	return 0;
}

/* Each site stack's samples by time slice, from its classes', before
 * the site stacks are sorted (their slices go with them). */
static int site_slices(struct cg_build *b)
{
	struct callgraph *cg = b->cg;
	size_t i, at = 0, nu;

	for (i = 0; i < b->nr_ts; i++)
		b->ts[i].at = b->class_ss[b->ts[i].at];
	cg->site_slices =
		malloc((b->nr_ts ? b->nr_ts : 1) * sizeof(*cg->site_slices));
	if (!cg->site_slices ||
	    tslices_merge(cg->site_slices, b->ts, b->nr_ts, &nu))
		return -ENOMEM;
	/* the sorted entries are by stack: each takes its run, in the
	 * order tslices_merge kept */
	for (i = 0; i < b->nr_ts; i++) {
		struct cg_stack *st = &cg->site_stacks[b->ts[i].at];

		if (i && !tslice_cmp(&b->ts[i - 1], &b->ts[i]))
			continue;
		if (!st->nr_slices)
			st->slices = cg->site_slices + at;
		st->nr_slices++;
		at++;
	}
	return 0;
}

/* Each function stack's samples by time slice: those of its site
 * stacks, which are adjacent in site_stacks, summed by slice. */
static int stack_slices(struct callgraph *cg)
{
	struct cg_tslice *v = NULL;
	size_t i, k = 0, n = 0, cap = 0, at = 0, nu;
	int ret = -ENOMEM;

	for (i = 0; i < cg->nr_site_stacks; i++)
		n += cg->site_stacks[i].nr_slices;
	cg->stack_slices = malloc((n ? n : 1) * sizeof(*cg->stack_slices));
	if (!cg->stack_slices)
		return -ENOMEM;
	for (i = 0; i < cg->nr_stacks; i++) {
		struct cg_stack *st = &cg->stacks[i];
		size_t nv = 0, j;

		for (; k < cg->nr_site_stacks &&
		       !stack_cmp(st, &cg->site_stacks[k]);
		     k++) {
			const struct cg_stack *ss = &cg->site_stacks[k];

			if (oputil_grow(&v, &cap, nv + ss->nr_slices,
					sizeof(*v)))
				goto out;
			for (j = 0; j < ss->nr_slices; j++)
				v[nv++] = (struct cg_tslice){
					0, ss->slices[j].slice,
					ss->slices[j].count
				};
		}
		st->slices = cg->stack_slices + at;
		if (tslices_merge(cg->stack_slices + at, v, nv, &nu))
			goto out;
		st->nr_slices = (uint32_t)nu;
		at += st->nr_slices;
	}
	ret = 0;
out:
	free(v);
	return ret;
}

/* Once the site stacks are gathered: unique stacks (root first) by site
 * and by function, each node's self and total, the arcs. */
static int build_model(struct cg_build *b)
{
	struct callgraph *cg = b->cg;
	uint64_t *seen = NULL;
	size_t i, j, na = 0;
	int ret;

	ret = site_slices(b);
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
	if (stack_slices(cg))
		goto out;
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

/* The tables of the model's building, once the names are known. */
static int build_tables(struct cg_build *b)
{
	size_t nn = b->names.nr_named ? b->names.nr_named : 1;
	size_t ns = b->cg->in && b->cg->in->nr_stacks ? b->cg->in->nr_stacks
						      : 1;

	b->node_of = malloc(nn * sizeof(*b->node_of));
	b->node_gen = calloc(nn, sizeof(*b->node_gen));
	b->memo_pfx = malloc(ns * sizeof(*b->memo_pfx));
	b->memo_class = malloc(ns * sizeof(*b->memo_class));
	if (!b->node_of || !b->node_gen || !b->memo_pfx || !b->memo_class)
		return -ENOMEM;
	/* no class has made a prefix yet */
	memset(b->memo_class, 0xff, ns * sizeof(*b->memo_class));
	return 0;
}

/* What gathering the site stacks needed, the raw input with it, and
 * then the session's stack table when the graph read it. */
static void build_gathered(struct cg_build *b)
{
	cg_names_free(&b->names);
	free(b->classes);
	free(b->whos);
	free(b->node_of);
	free(b->node_gen);
	free(b->pfx);
	oputil_idxset_free(&b->pfx_set);
	free(b->memo_pfx);
	free(b->memo_class);
	free(b->path);
	oputil_idxset_free(&b->node_set);
	memset(&b->names, 0, sizeof(b->names));
	b->classes = NULL;
	b->whos = NULL;
	b->node_of = b->node_gen = b->memo_pfx = b->memo_class = NULL;
	b->pfx = NULL;
	b->path = NULL;
	/* the raw input is named: only the model is kept */
	cg_input_free(b->cg->in);
	b->cg->in = NULL;
	if (b->src->release_stacks)
		ops_session_release_stacks(b->src->s);
}

/*
 * Each stage frees what the next ones do not need, as soon as it can: a
 * JIT's samples each have their own stack, and the input, the names of
 * its slots and the classes, one each a sample, were together most of
 * the report's memory, while the model is a few thousand stacks.
 */
int callgraph_resolve(struct callgraph *cg, const struct cg_sources *src)
{
	struct cg_build b = { .cg = cg, .src = src };
	int ret;

	ret = cg_names_resolve(&b.names, cg, src);
	if (!ret && cg->in)
		cg_input_named(cg->in);
	ret = ret ?: gather_classes(&b);
	if (!ret && cg->in)
		cg_input_classed(cg->in);
	ret = ret ?: build_tables(&b) ?: gather_site_stacks(&b);
	build_gathered(&b);
	ret = ret ?: build_model(&b);
	free(b.ts);
	free(b.class_ss);
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
