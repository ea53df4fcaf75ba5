// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "anon_rows.h"
#include "callgraph.h"
#include "image_bfd.h"
#include "kallsyms.h"
#include "strpool.h"

struct cg_raw_stack {
	struct cg_raw_ctx ctx;
	uint64_t time_ns;
	uint64_t count;
	size_t first;   /* index of the leaf in cg->raw */
	uint32_t n;
	bool truncated;
};

/* A frame as resolved: what its node is made of. */
struct cg_res {
	enum row_kind kind;
	const char *image;
	const char *handler;
	uint32_t image_id;
	const struct report_sym *sym;
};

/* One frame to name, sorted with the others of its image or process. */
struct cg_ref {
	uint32_t key;   /* image id, or process id for anonymous frames */
	uint64_t addr;  /* caller frames already at return address - 1 */
	uint64_t time;
	size_t idx;     /* into cg->raw */
};

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

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
	free(cg);
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 256;
	void *g;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	g = realloc(*p, c * size);
	if (!g)
		return -ENOMEM;
	*p = g;
	*cap = c;
	return 0;
}

int callgraph_add(struct callgraph *cg, const struct cg_raw_ctx *ctx,
		  const struct cg_raw_frame *frames, size_t n,
		  uint64_t time_ns, uint64_t count, bool truncated)
{
	struct cg_raw_stack *rs;

	if (!n || !count)
		return 0;
	if (grow((void **)&cg->raw, &cg->cap_raw, cg->nr_raw + n,
		 sizeof(*cg->raw)) ||
	    grow((void **)&cg->rstacks, &cg->cap_rstacks, cg->nr_rstacks + 1,
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

/* Name the frames of one image, REFS[0..n) sorted by address. */
static int resolve_image(struct callgraph *cg, const struct cg_sources *src,
			 const struct cg_ref *refs, size_t n,
			 struct cg_res *res)
{
	struct report *r = cg->r;
	const struct ops_image *img = ops_session_image(src->s, refs[0].key);
	const struct report_sym **syms = NULL;
	uint64_t *offs = NULL, *vmas = NULL;
	struct cg_res proto = { 0 };
	const char *module = NULL;
	size_t i, u, nu = 0;
	int ret = -ENOMEM;

	if (!img)
		return 0;
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
		struct image_bfd *ib = image_cache_get(src->images, refs[0].key,
						       img);

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
	for (i = u = 0; i < n; i++) {
		while (offs[u] != refs[i].addr)
			u++;
		res[refs[i].idx] = proto;
		res[refs[i].idx].sym = syms[u];
	}
	ret = 0;
out:
	free(offs);
	free(vmas);
	free(syms);
	return ret;
}

/* Name one process's anonymous frames, REFS[0..n) sorted by (address,
 * time), in one batch through the handler that claims the process. */
static int resolve_anon(struct callgraph *cg, const struct cg_sources *src,
			const struct cg_ref *refs, size_t n,
			struct cg_res *res)
{
	struct report *r = cg->r;
	const struct ops_process *p = ops_session_process(src->s, refs[0].key);
	struct ops_anon_sample *smp = NULL;
	const struct report_sym **syms = NULL;
	struct anon_resolved ar = { 0 };
	struct report_sym *bucket;
	struct cg_res proto = { .kind = ROW_ANON, .image_id = CG_NONE };
	size_t i;
	int claimed = 0, ret = -ENOMEM;

	if (!p)
		return 0;
	bucket = strpool_alloc(r->pool, sizeof(*bucket));
	smp = malloc(n * sizeof(*smp));
	syms = malloc(n * sizeof(*syms));
	if (!bucket || !smp || !syms)
		goto out;
	for (i = 0; i < n; i++)
		smp[i] = (struct ops_anon_sample){ refs[i].time, refs[i].addr,
						   0 };
	if (src->handlers)
		claimed = anon_handlers_resolve(src->handlers, src->s,
						refs[0].key, smp, n, &ar);
	if (claimed == 1) {
		proto.kind = ROW_JIT;
		proto.handler = strpool_intern(r->pool, ar.handler ?
							ar.handler : "?");
		if (!proto.handler)
			goto out;
		proto.image = anon_rows_jit_label(r, p, proto.handler);
		if (anon_rows_syms(r, &ar, n, syms))
			goto out;
	} else {
		/* a handler that failed has said why; the frames stay
		 * anonymous, one node per process */
		bucket->name = "(no symbols)";
		proto.image = strpool_printf(r->pool, "anon (tgid:%u)",
					     p->tgid);
		for (i = 0; i < n; i++)
			syms[i] = bucket;
	}
	if (!proto.image)
		goto out;
	for (i = 0; i < n; i++) {
		res[refs[i].idx] = proto;
		res[refs[i].idx].sym = syms[i];
	}
	ret = 0;
out:
	free(smp);
	free(syms);
	return ret;
}

static int resolve_frames(struct callgraph *cg, const struct cg_sources *src,
			  struct cg_res *res)
{
	struct cg_res unknown = { .kind = ROW_FILE, .image_id = CG_UNKNOWN };
	struct report_sym *usym;
	struct cg_ref *refs;
	size_t i, j, k, nr = 0;
	int ret = 0;

	/* frames in no mapping the recorder knew: one node, as perf's
	 * [unknown] */
	usym = strpool_alloc(cg->r->pool, sizeof(*usym));
	unknown.image = strpool_intern(cg->r->pool, "[unknown]");
	if (!usym || !unknown.image)
		return -ENOMEM;
	usym->name = "[unknown]";
	unknown.sym = usym;
	for (i = 0; i < cg->nr_raw; i++)
		if (cg->raw[i].image == CG_UNKNOWN)
			res[i] = unknown;
	refs = malloc((cg->nr_raw ? cg->nr_raw : 1) * sizeof(*refs));
	if (!refs)
		return -ENOMEM;
	/* two passes over the same array: file and kernel images, then
	 * anonymous memory keyed by process */
	for (k = 0; k < 2 && !ret; k++) {
		nr = 0;
		for (i = 0; i < cg->nr_rstacks; i++) {
			const struct cg_raw_stack *rs = &cg->rstacks[i];
			uint32_t f;

			for (f = 0; f < rs->n; f++) {
				const struct cg_raw_frame *fr =
					&cg->raw[rs->first + f];
				uint64_t a = fr->addr;
				bool anon = fr->image == CG_ANON;

				if (anon != (k == 1) || fr->image == CG_UNKNOWN)
					continue;
				if (anon && rs->ctx.proc == CG_NONE) {
					/* no process to ask: not namable */
					res[rs->first + f] = unknown;
					continue;
				}
				if (f && a)
					a--; /* a return address */
				refs[nr++] = (struct cg_ref){
					anon ? rs->ctx.proc : fr->image, a,
					anon ? rs->time_ns : 0,
					rs->first + f };
			}
		}
		qsort(refs, nr, sizeof(*refs), ref_cmp);
		for (i = 0; i < nr && !ret; i = j) {
			for (j = i; j < nr && refs[j].key == refs[i].key; j++)
				;
			ret = k == 0 ?
				resolve_image(cg, src, refs + i, j - i, res) :
				resolve_anon(cg, src, refs + i, j - i, res);
		}
	}
	free(refs);
	return ret;
}

/* Frames sorted by node key, to give equal nodes equal ids. */
struct cg_key {
	struct cg_node n;
	size_t idx;
};

static int ptr_cmp(const void *a, const void *b)
{
	return CMP((uintptr_t)a, (uintptr_t)b);
}

static int node_cmp(const struct cg_node *a, const struct cg_node *b)
{
	return CMP(a->kind, b->kind) ?: ptr_cmp(a->image, b->image) ?:
	       ptr_cmp(a->app, b->app) ?: CMP(a->tgid, b->tgid) ?:
	       ptr_cmp(a->sym, b->sym);
}

static int key_cmp(const void *pa, const void *pb)
{
	const struct cg_key *a = pa, *b = pb;

	return node_cmp(&a->n, &b->n);
}

static const char *stack_app(struct callgraph *cg,
			     const struct cg_sources *src,
			     const struct cg_raw_stack *rs)
{
	const struct ops_image *img;
	const struct ops_process *p;

	if (cg->r->opts->merge & MERGE_LIB)
		return NULL;
	if (rs->ctx.app != CG_NONE &&
	    (img = ops_session_image(src->s, rs->ctx.app)))
		return strpool_intern(cg->r->pool, img->path);
	if (rs->ctx.proc != CG_NONE &&
	    (p = ops_session_process(src->s, rs->ctx.proc)))
		return strpool_intern(cg->r->pool, p->exe ? p->exe :
						p->comm ? p->comm : "?");
	return NULL;
}

/* Give each frame its node id (in place of its address). */
static int intern_nodes(struct callgraph *cg, const struct cg_sources *src,
			const struct cg_res *res, uint32_t *ids)
{
	struct cg_key *keys;
	size_t i, nk = 0;
	uint32_t f;

	keys = malloc((cg->nr_raw ? cg->nr_raw : 1) * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (i = 0; i < cg->nr_rstacks; i++) {
		const struct cg_raw_stack *rs = &cg->rstacks[i];
		const char *app = stack_app(cg, src, rs);

		for (f = 0; f < rs->n; f++) {
			const struct cg_res *x = &res[rs->first + f];
			struct cg_key *k = &keys[nk++];

			memset(k, 0, sizeof(*k));
			k->idx = rs->first + f;
			k->n.kind = x->kind;
			k->n.image = x->image;
			k->n.handler = x->handler;
			k->n.image_id = x->image_id;
			k->n.sym = x->sym;
			k->n.app = app ? app : x->image;
			if (cg->r->opts->merge & MERGE_LIB)
				k->n.app = NULL;
			k->n.tgid = cg->r->tgid_separated ||
					    x->kind == ROW_JIT ||
					    x->kind == ROW_ANON ?
					    rs->ctx.tgid : 0;
		}
	}
	qsort(keys, nk, sizeof(*keys), key_cmp);
	cg->nodes = calloc(nk ? nk : 1, sizeof(*cg->nodes));
	if (!cg->nodes) {
		free(keys);
		return -ENOMEM;
	}
	for (i = 0; i < nk; i++) {
		if (!cg->nr_nodes ||
		    node_cmp(&cg->nodes[cg->nr_nodes - 1], &keys[i].n))
			cg->nodes[cg->nr_nodes++] = keys[i].n;
		ids[keys[i].idx] = (uint32_t)(cg->nr_nodes - 1);
	}
	free(keys);
	return 0;
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
	return 0;
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

/* Unique stacks (root first), each node's self and total, the arcs. */
static int build_model(struct callgraph *cg, uint32_t *ids)
{
	uint64_t *seen = NULL;
	size_t i, j, na = 0;
	int ret = -ENOMEM;

	cg->node_ids = malloc((cg->nr_raw ? cg->nr_raw : 1) *
			      sizeof(*cg->node_ids));
	cg->stacks = calloc(cg->nr_rstacks ? cg->nr_rstacks : 1,
			    sizeof(*cg->stacks));
	cg->arcs = calloc(cg->nr_raw ? cg->nr_raw : 1, sizeof(*cg->arcs));
	seen = calloc(cg->nr_nodes ? cg->nr_nodes : 1, sizeof(*seen));
	if (!cg->node_ids || !cg->stacks || !cg->arcs || !seen)
		goto out;
	for (i = 0; i < cg->nr_rstacks; i++) {
		const struct cg_raw_stack *rs = &cg->rstacks[i];
		uint32_t *dst = cg->node_ids + rs->first, f;

		/* the kernel gives the leaf first; the model is root first */
		for (f = 0; f < rs->n; f++)
			dst[f] = ids[rs->first + rs->n - 1 - f];
		cg->stacks[i] = (struct cg_stack){ dst, rs->n, rs->count };
		cg->total += rs->count;
		if (rs->truncated)
			cg->truncated += rs->count;
	}
	qsort(cg->stacks, cg->nr_rstacks, sizeof(*cg->stacks), stack_cmp);
	for (i = 0; i < cg->nr_rstacks; i++) {
		struct cg_stack *last = cg->nr_stacks ?
			&cg->stacks[cg->nr_stacks - 1] : NULL;

		if (last && !stack_cmp(last, &cg->stacks[i]))
			last->count += cg->stacks[i].count;
		else
			cg->stacks[cg->nr_stacks++] = cg->stacks[i];
	}
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
				cg->arcs[na++] = (struct cg_arc){
					id, st->frames[j + 1], st->count };
		}
	}
	qsort(cg->arcs, na, sizeof(*cg->arcs), arc_cmp);
	for (i = 0; i < na; i++) {
		struct cg_arc *last = cg->nr_arcs ?
			&cg->arcs[cg->nr_arcs - 1] : NULL;

		if (last && !arc_cmp(last, &cg->arcs[i]))
			last->count += cg->arcs[i].count;
		else
			cg->arcs[cg->nr_arcs++] = cg->arcs[i];
	}
	cg->rarcs = malloc((cg->nr_arcs ? cg->nr_arcs : 1) *
			   sizeof(*cg->rarcs));
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
	struct cg_res *res;
	uint32_t *ids;
	int ret = -ENOMEM;

	res = calloc(cg->nr_raw ? cg->nr_raw : 1, sizeof(*res));
	ids = calloc(cg->nr_raw ? cg->nr_raw : 1, sizeof(*ids));
	if (!res || !ids)
		goto out;
	ret = resolve_frames(cg, src, res);
	if (!ret)
		ret = intern_nodes(cg, src, res, ids);
	if (!ret)
		ret = build_model(cg, ids);
out:
	free(res);
	free(ids);
	return ret;
}

static const struct cg_arc *arcs_of(const struct cg_arc *v, size_t nv,
				    uint32_t id, bool by_to, size_t *n)
{
	size_t lo = 0, hi = nv, first;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t k = by_to ? v[mid].to : v[mid].from;

		if (k < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (lo < nv && (by_to ? v[lo].to : v[lo].from) == id)
		lo++;
	*n = lo - first;
	return v + first;
}

const struct cg_arc *callgraph_callers(const struct callgraph *cg,
				       uint32_t id, size_t *n)
{
	return arcs_of(cg->rarcs, cg->nr_arcs, id, true, n);
}

const struct cg_arc *callgraph_callees(const struct callgraph *cg,
				       uint32_t id, size_t *n)
{
	return arcs_of(cg->arcs, cg->nr_arcs, id, false, n);
}
