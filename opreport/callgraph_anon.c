// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The call graph's anonymous frames, named each at its sample's time.
 * The slots are put in groups by (process, address), and each process's
 * handed to its handler sorted by (address, time) (give_frames): only
 * the groups are sorted, and each sample's slots are placed into their
 * groups in recording order, which is time order already.  A handler
 * whose names do not depend on the time, and a process none claims,
 * name a group at a time: the memory is then the groups', not a frame's
 * per slot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "anon_naming.h"
#include "anon_rows.h"
#include "anon_symcache.h"
#include "callgraph_input.h"
#include "callgraph_name_priv.h"
#include "strpool.h"

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

/* A walk over the samples of process PROC in in->samples[i..end), the
 * first one's first slot AT. */
struct proc_walk {
	const struct cg_input *in;
	uint32_t proc;
	size_t i, end, at;
};

/* The walk's next sample of its process in *SMP, its slots in [*AT,
 * *AT + *NS); false at the end.  Samples of other processes are
 * stepped over, their slots counted. */
static bool proc_walk_next(struct proc_walk *w,
			   const struct cg_sample_in **smp, size_t *at,
			   size_t *ns)
{
	while (w->i < w->end) {
		const struct cg_sample_in *s = &w->in->samples[w->i++];
		size_t n = cg_slots_n(w->in, s->stack);

		w->at += n;
		if (cg_sample_ctx(w->in, s)->proc == w->proc) {
			*smp = s;
			*at = w->at - n;
			*ns = n;
			return true;
		}
	}
	return false;
}

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
	size_t ng = pf->hi - pf->lo;
	struct proc_walk w = { in, pf->proc, pf->next, ag->end[pf->proc],
			       pf->next_slot };
	const struct cg_sample_in *smp;
	size_t k, at, m = 0, lo, ns;

	if (!pf->cnt && !(pf->cnt = malloc(ng * sizeof(*pf->cnt))))
		return -ENOMEM;
	memset(pf->cnt, 0, ng * sizeof(*pf->cnt));
	/* the part's samples, and their frames in each group */
	while (m < GIVE_PART && proc_walk_next(&w, &smp, &at, &ns)) {
		for (k = 0; k < ns; k++)
			pf->cnt[ag->rank[slot_named[at + k]] - pf->lo]++;
		m += ns;
	}
	if (part_room(pf, m ? m : 1))
		return -ENOMEM;
	pf->fs->out = slot_named;
	for (k = 0, lo = 0; k < ng; k++) {
		ag->g.v[pf->lo + k].at = lo;
		lo += pf->cnt[k];
	}
	/* each slot placed in its group, in recording order */
	w.end = w.i;
	w.i = pf->next;
	w.at = pf->next_slot;
	while (proc_walk_next(&w, &smp, &at, &ns)) {
		cg_input_slots(in, smp->stack, NULL, ag->w);
		for (k = 0; k < ns; k++) {
			size_t slot = at + k;
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
	pf->next = w.i;
	pf->next_slot = w.at;
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
	struct proc_walk w = { pf->nc->cg->in, pf->proc,
			       pf->ag->first[pf->proc], pf->ag->end[pf->proc],
			       pf->ag->first_slot[pf->proc] };
	const struct cg_sample_in *smp;
	size_t k, at, ns;

	while (proc_walk_next(&w, &smp, &at, &ns))
		for (k = 0; k < ns; k++)
			pf->nc->nm->slot_named[at + k] = id;
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

int cg_name_anon_slots(struct name_ctx *nc, uint32_t unknown)
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
