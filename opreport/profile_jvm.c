// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "callgraph_input.h"
#include "profile_jvm.h"
#include "unwind_jvm.h"
#include "unwind_pypy.h"

/* The name the JVM's javamap map gives its interpreter's code. */
#define PROFILE_JVM_INTERPRETER "Interpreter"

/* Frame K of sample J, whose Method* word is VALUE: what the handler
 * names its code and the word. */
struct jvm_frame {
	size_t j;
	uint32_t k;
	uint64_t value;
	const struct anon_symbol *code, *word;
};

/* One (address, time) to name: frame F's code or word. */
struct jvm_query {
	struct ops_anon_sample q;
	size_t f;
	bool word;
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
	struct jvm_frame *fs;
};

static int jvm_batch(void *ctx, const struct anon_resolved *b, size_t base,
		     size_t n)
{
	struct jvm_sink *js = ctx;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct jvm_query *q = &js->qs[base + i];

		if (q->word)
			js->fs[q->f].word = b->syms[i];
		else
			js->fs[q->f].code = b->syms[i];
	}
	return 0;
}

/* The user frames from the user leaf (below the kernel's frames of a
 * sample taken in the kernel) that are JIT code: the chain that
 * unwind_jvm_values() follows, at most OPS_STACK_MAX_FRAMES. */
static size_t jit_chain(const struct ops_stack *st, uint64_t *chain)
{
	size_t k;

	for (k = 0; st->nr_kernel + k < st->nr_frames &&
		    st->frames[st->nr_kernel + k].kind == OPS_FRAME_ANON;
	     k++)
		chain[k] = st->frames[st->nr_kernel + k].addr;
	return k;
}

static void raw_frames(const struct ops_stack *st, struct cg_raw_frame *fr)
{
	uint32_t k;

	for (k = 0; k < st->nr_frames; k++)
		fr[k] = cg_raw_frame_of(&st->frames[k]);
}

/* Copy CP for the readers of unwind_jvm.h, its bytes whole in BUF
 * (OPS_STACK_COPY_MAX of them): the session keeps them in pieces. */
static struct unwind_jvm_copy jvm_copy(const struct ops_stack_copy *cp,
				       uint8_t *buf)
{
	bool whole = ops_stack_copy_read(cp, cp->sp, buf, cp->size);

	return (struct unwind_jvm_copy){ cp->sp, cp->bp, whole ? buf : NULL,
					 whole ? cp->size : 0 };
}

/* A PyPy sample's stack into FR: its leaf and the JIT frames that
 * called it, read from copy CP (unwind_pypy.h); the rest of the chain,
 * which the kernel walked from the JIT code's rbp (PyPy's heap frame,
 * not a frame pointer), is not a chain.  0 when the copy shows no JIT
 * caller: the stack is then kept as recorded. */
static size_t pypy_frames(const struct ops_stack *st,
			  const struct ops_stack_copy *cp,
			  struct cg_raw_frame *fr, uint8_t *buf)
{
	struct unwind_jvm_copy uc = jvm_copy(cp, buf);
	uint64_t ret[OPS_STACK_MAX_FRAMES];
	uint32_t nk = st->nr_kernel;
	size_t n, k;

	/* a sample in the kernel keeps its kernel frames below */
	if (nk >= st->nr_frames || st->frames[nk].kind != OPS_FRAME_ANON)
		return 0;
	n = unwind_pypy_frames(&uc, ret, OPS_STACK_MAX_FRAMES - nk);
	if (n < 2)
		return 0;
	for (k = 0; k < nk; k++)
		fr[k] = cg_raw_frame_of(&st->frames[k]);
	fr[nk] = (struct cg_raw_frame){ .addr = st->frames[nk].addr,
					.image = CG_ANON };
	for (k = 1; k < n; k++)
		fr[nk + k] = (struct cg_raw_frame){ .addr = ret[k - 1],
						    .image = CG_ANON };
	return nk + n;
}

/* Frame K's address in sample SM's stack. */
static uint64_t chain_addr(struct ops_session *s,
			   const struct profile_jvm_sample *sm, uint32_t k)
{
	const struct ops_stack *st = ops_session_stack(s, sm->stack);

	return st && k < st->nr_frames ? st->frames[k].addr : 0;
}

int profile_jvm_add(struct callgraph *cg, struct anon_handlers *handlers,
		    struct ops_session *s, uint32_t proc,
		    const struct cg_raw_ctx *c,
		    const struct profile_jvm_sample *smp, size_t n)
{
	uint64_t v[OPS_STACK_MAX_FRAMES], chain[OPS_STACK_MAX_FRAMES];
	struct jvm_frame *fs = NULL;
	struct jvm_query *qs = NULL;
	struct ops_anon_sample *q = NULL;
	struct cg_raw_frame *fr = NULL;
	uint8_t *buf = NULL;
	struct anon_resolved ar = { 0 };
	size_t j, i, nf = 0, cap_fs = 0, f = 0;
	uint32_t k, sid;
	size_t nr;
	int ret = -ENOMEM;

	if (!n)
		return 0;
	fr = malloc(OPS_STACK_MAX_FRAMES * sizeof(*fr));
	buf = malloc(OPS_STACK_COPY_MAX);
	if (!fr || !buf)
		goto out;
	for (j = 0; j < n && handlers; j++) {
		const struct ops_stack *st =
			ops_session_stack(s, smp[j].stack);
		const struct ops_stack_copy *cp = smp[j].copy;
		struct unwind_jvm_copy uc = jvm_copy(cp, buf);
		size_t nc = st ? jit_chain(st, chain) : 0;

		/* a PyPy sample takes its JIT callers (pypy_frames) */
		if (!nc ||
		    unwind_pypy_frames(&uc, v, OPS_STACK_MAX_FRAMES) > 1 ||
		    !unwind_jvm_values(&uc, chain, nc, v))
			continue;
		/* the leaf's own frame is where the sample ran, not a
		 * call: its code is named as it is */
		for (k = 1; k < nc; k++) {
			if (!v[k])
				continue;
			if (oputil_grow(&fs, &cap_fs, nf + 1, sizeof(*fs)))
				goto out;
			/* K in the stack, past its kernel frames */
			fs[nf++] = (struct jvm_frame){ j, st->nr_kernel + k,
						       v[k], NULL, NULL };
		}
	}
	if (nf) {
		struct jvm_sink js;
		int claimed;

		qs = malloc(2 * nf * sizeof(*qs));
		q = malloc(2 * nf * sizeof(*q));
		if (!qs || !q)
			goto out;
		for (i = 0; i < nf; i++) {
			const struct profile_jvm_sample *sm = &smp[fs[i].j];

			qs[2 * i] = (struct jvm_query){
				{ sm->time_ns,
				  cg_lookup_addr(fs[i].k,
						 chain_addr(s, sm, fs[i].k)),
				  0 },
				i,
				false
			};
			qs[2 * i + 1] = (struct jvm_query){ { sm->time_ns,
							      fs[i].value, 0 },
							    i,
							    true };
		}
		qsort(qs, 2 * nf, sizeof(*qs), query_cmp);
		for (i = 0; i < 2 * nf; i++)
			q[i] = qs[i].q;
		js = (struct jvm_sink){ qs, fs };
		claimed = anon_handlers_resolve(handlers, s, proc, q, 2 * nf,
						jvm_batch, &js, &ar);
		if (claimed == -ENOMEM)
			goto out;
	}
	for (j = 0; j < n; j++) {
		const struct ops_stack *st =
			ops_session_stack(s, smp[j].stack);

		if (!st)
			continue;
		nr = pypy_frames(st, smp[j].copy, fr, buf);
		if (nr) {
			/* FS holds nothing of a PyPy sample */
			ret = callgraph_add_stack(cg, fr, nr, true, &sid);
			ret = ret ? ret
				  : callgraph_add_samples(cg, c, sid,
							  smp[j].time_ns, 1);
			if (ret)
				goto out;
			continue;
		}
		raw_frames(st, fr);
		/* FS is in sample order */
		for (; f < nf && fs[f].j == j; f++)
			if (fs[f].code && fs[f].word &&
			    !strcmp(fs[f].code->name, PROFILE_JVM_INTERPRETER))
				/* a caller is named at its address - 1
				 * (cg_lookup_addr): there, the Method* */
				fr[fs[f].k].addr = fs[f].value + 1;
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
	free(fs);
	free(qs);
	free(q);
	free(fr);
	free(buf);
	return ret;
}
