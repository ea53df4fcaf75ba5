// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph_input.h"
#include "profile_jvm.h"
#include "unwind_jvm.h"

/* The name the JVM's javamap map gives its interpreter's code. */
#define PROFILE_JVM_INTERPRETER "Interpreter"

/* One (address, time) to name: frame K of sample J's code or word. */
struct jvm_query {
	struct ops_anon_sample q;
	size_t j;
	uint32_t k;
	bool word;
};

struct jvm_frames {
	const struct anon_symbol *code, *word;
};

static int query_cmp(const void *a, const void *b)
{
	const struct jvm_query *x = a, *y = b;

	if (x->q.addr != y->q.addr)
		return x->q.addr < y->q.addr ? -1 : 1;
	return (x->q.time_ns > y->q.time_ns) - (x->q.time_ns < y->q.time_ns);
}

struct jvm_sink {
	const struct jvm_query *qs;
	struct jvm_frames *named; /* per sample, OPS_STACK_MAX_FRAMES */
};

static int jvm_batch(void *ctx, const struct anon_resolved *b, size_t base,
		     size_t n)
{
	struct jvm_sink *js = ctx;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct jvm_query *q = &js->qs[base + i];
		struct jvm_frames *f =
			&js->named[q->j * OPS_STACK_MAX_FRAMES + q->k];

		if (q->word)
			f->word = b->syms[i];
		else
			f->code = b->syms[i];
	}
	return 0;
}

/* The user frames from the leaf that are JIT code: the chain that
 * unwind_jvm_values() follows, at most OPS_STACK_MAX_FRAMES. */
static size_t jit_chain(const struct ops_stack *st, uint64_t *chain)
{
	size_t k;

	if (st->nr_kernel)
		return 0;
	for (k = 0; k < st->nr_frames && st->frames[k].kind == OPS_FRAME_ANON;
	     k++)
		chain[k] = st->frames[k].addr;
	return k;
}

static void raw_frames(const struct ops_stack *st, struct cg_raw_frame *fr)
{
	uint32_t k;

	for (k = 0; k < st->nr_frames; k++) {
		const struct ops_frame *f = &st->frames[k];

		fr[k].addr = f->addr;
		fr[k].image = f->kind == OPS_FRAME_IMAGE  ? f->image
			      : f->kind == OPS_FRAME_ANON ? CG_ANON
							  : CG_UNKNOWN;
	}
}

int profile_jvm_add(struct callgraph *cg, struct anon_handlers *handlers,
		    struct ops_session *s, uint32_t proc,
		    const struct cg_raw_ctx *c,
		    const struct profile_jvm_sample *smp, size_t n)
{
	uint64_t *values = NULL, chain[OPS_STACK_MAX_FRAMES];
	struct jvm_frames *named = NULL;
	struct jvm_query *qs = NULL;
	struct cg_raw_frame *fr = NULL;
	struct anon_resolved ar = { 0 };
	size_t j, nq = 0;
	uint32_t k, sid;
	int ret = -ENOMEM;

	if (!n)
		return 0;
	values = calloc(n * OPS_STACK_MAX_FRAMES, sizeof(*values));
	named = calloc(n * OPS_STACK_MAX_FRAMES, sizeof(*named));
	qs = malloc(2 * n * OPS_STACK_MAX_FRAMES * sizeof(*qs));
	fr = malloc(OPS_STACK_MAX_FRAMES * sizeof(*fr));
	if (!values || !named || !qs || !fr)
		goto out;
	for (j = 0; j < n && handlers; j++) {
		const struct ops_stack *st =
			ops_session_stack(s, smp[j].stack);
		const struct ops_stack_copy *cp = smp[j].copy;
		struct unwind_jvm_copy uc = { cp->sp, cp->bp, cp->bytes,
					      cp->size };
		uint64_t *v = values + j * OPS_STACK_MAX_FRAMES;
		size_t nc = st ? jit_chain(st, chain) : 0;

		/* the leaf's own frame is where the sample ran, not a
		 * call: its code is named as it is */
		if (!nc || !unwind_jvm_values(&uc, chain, nc, v))
			continue;
		for (k = 1; k < nc; k++) {
			if (!v[k])
				continue;
			qs[nq++] = (struct jvm_query){
				{ smp[j].time_ns, cg_lookup_addr(k, chain[k]),
				  0 },
				j,
				k,
				false
			};
			qs[nq++] = (struct jvm_query){ { smp[j].time_ns, v[k],
							 0 },
						       j,
						       k,
						       true };
		}
	}
	if (nq) {
		struct ops_anon_sample *q = malloc(nq * sizeof(*q));
		struct jvm_sink js = { qs, named };
		int claimed;

		if (!q)
			goto out;
		qsort(qs, nq, sizeof(*qs), query_cmp);
		for (j = 0; j < nq; j++)
			q[j] = qs[j].q;
		claimed = anon_handlers_resolve(handlers, s, proc, q, nq,
						jvm_batch, &js, &ar);
		free(q);
		if (claimed == -ENOMEM)
			goto out;
	}
	for (j = 0; j < n; j++) {
		const struct ops_stack *st =
			ops_session_stack(s, smp[j].stack);
		const struct jvm_frames *nf = named + j * OPS_STACK_MAX_FRAMES;

		if (!st)
			continue;
		raw_frames(st, fr);
		for (k = 1; k < st->nr_frames; k++)
			if (nf[k].code && nf[k].word &&
			    !strcmp(nf[k].code->name, PROFILE_JVM_INTERPRETER))
				/* a caller is named at its address - 1
				 * (cg_lookup_addr): there, the Method* */
				fr[k].addr =
					values[j * OPS_STACK_MAX_FRAMES + k] +
					1;
		ret = callgraph_add_stack(cg, fr, st->nr_frames,
					  st->flags & OPS_STACK_TRUNCATED,
					  &sid);
		ret = ret ? ret
			  : callgraph_add_samples(cg, c, sid, smp[j].time_ns,
						  1);
		if (ret)
			goto out;
	}
	ret = 0;
out:
	free(values);
	free(named);
	free(qs);
	free(fr);
	return ret;
}
