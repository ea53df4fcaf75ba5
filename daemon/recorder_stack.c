// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The call chain of a sample as a stack of the session.  The kernel
 * gives the chain leaf first, divided by PERF_CONTEXT_KERNEL/USER
 * markers; each frame is placed as a flat sample is (kernel address,
 * image and file offset, or anonymous address) with the same tables
 * (or as the same address was last time, while the process's mappings
 * stay as they were), and the stack goes to the writer.
 */
#include "recorder.h"
#include "ring.h"

#include <oputil/hash.h>

#include <linux/perf_event.h>
#include <string.h>

/* The bytes above sp kept of a JIT leaf's copy: a JVM's interpreted
 * frames are a hundred bytes and more each, and only their Method*
 * words are read (the frames are not unwound with DWARF). */
#define RECORDER_JIT_COPY 2048u

enum chain_part { PART_NONE, PART_KERNEL, PART_USER, PART_SKIP };

/* The part of the chain a context marker opens, or PART_NONE for a value
 * in the markers' range that is none of them: a frame-pointer walk that
 * ran off the stack read it, and what follows is no more a chain. */
static enum chain_part chain_marker(uint64_t ip)
{
	switch (ip) {
	case (uint64_t)PERF_CONTEXT_KERNEL:
		return PART_KERNEL;
	case (uint64_t)PERF_CONTEXT_USER:
		return PART_USER;
	case (uint64_t)PERF_CONTEXT_HV:
	case (uint64_t)PERF_CONTEXT_GUEST:
	case (uint64_t)PERF_CONTEXT_GUEST_KERNEL:
	case (uint64_t)PERF_CONTEXT_GUEST_USER:
		return PART_SKIP;
	}
	return PART_NONE;
}

/* The end of the run of frames (no context marker) from I of CHAIN's N
 * entries.  Every marker has the top bit set, as no user address has:
 * a chain of user frames alone (a JIT sample's, tens of frames) is
 * known to run to its end by one OR of its entries, which the compiler
 * does several at a time; a compare a frame was 8% of a node recorder's
 * instructions.  Else four at a time, with no branch between them. */
_Static_assert((uint64_t)PERF_CONTEXT_MAX >> 63,
	       "every context marker has the top bit set");

static uint32_t chain_run_end(const uint64_t *chain, uint32_t i, uint32_t n)
{
	typedef uint64_t pair __attribute__((vector_size(16)));
	const uint64_t m = (uint64_t)PERF_CONTEXT_MAX;
	pair a0 = { 0, 0 }, a1 = a0, a2 = a0, a3 = a0, t;
	uint64_t any = 0;
	uint32_t j = i;

	/* eight entries a turn, in four words: a turn's count and branch
	 * cost as much as two of its ORs, and the tail is ORed in a
	 * general register (moved into and out of a vector one, it was
	 * seven instructions an entry) */
	for (; n - j >= 8; j += 8) {
		memcpy(&t, chain + j, sizeof(t));
		a0 |= t;
		memcpy(&t, chain + j + 2, sizeof(t));
		a1 |= t;
		memcpy(&t, chain + j + 4, sizeof(t));
		a2 |= t;
		memcpy(&t, chain + j + 6, sizeof(t));
		a3 |= t;
	}
	for (; j < n; j++)
		any |= chain[j];
	a0 |= a1 | a2 | a3;
	if (!((any | a0[0] | a0[1]) >> 63))
		return n;
	while (n - i >= 4 && !((chain[i] >= m) | (chain[i + 1] >= m) |
			       (chain[i + 2] >= m) | (chain[i + 3] >= m)))
		i += 4;
	while (i < n && chain[i] < m)
		i++;
	return i;
}

/* A user frame at IP of P. */
static void recorder_user_frame(struct recorder *r, struct proc *p,
				uint64_t ip, struct ops_frame *f)
{
	struct maptab_entry *e = p ? maptab_find(&p->maps, ip) : NULL;

	f->image = 0;
	f->addr = ip;
	/* none: a frame-pointer walk through code built without them
	 * finds such addresses, kept for the report to show */
	f->kind = OPS_FRAME_UNKNOWN;
	if (!e)
		return;
	if (e->image == MAPTAB_ANON) {
		if (!recorder_anon_note(r, p, e))
			f->kind = OPS_FRAME_ANON;
		return;
	}
	f->kind = OPS_FRAME_IMAGE;
	f->image = e->image;
	f->addr = maptab_offset(e, ip);
}

/* A user frame at IP of P, placed as recorder_user_frame() would: as
 * it was last time when P's mappings have not changed since. */
static void recorder_user_frame_again(struct recorder *r, struct proc *p,
				      uint64_t ip, struct ops_frame *f)
{
	struct recorder_placed *c =
		&r->placed[oputil_hash_u64(ip) & (RECORDER_PLACED - 1)];
	uint64_t gen = p ? p->maps.gen : 0;

	if (c->ip == ip && c->gen == gen && gen) {
		*f = c->frame;
		return;
	}
	recorder_user_frame(r, p, ip, f);
	/* a failed note may have left a place that is not the mappings'
	 * (and recording stops) */
	if (!r->err)
		*c = (struct recorder_placed){ ip, gen, *f };
}

void recorder_stack_user(struct pending_sample *s, const uint64_t *p,
			 uint64_t n)
{
	uint64_t size, dyn;

	/* abi, bp, sp, ip, size, data (size bytes), dyn_size */
	if (n < 1 + RING_STACK_NR_REGS + 1 || !p[0])
		return;
	size = p[1 + RING_STACK_NR_REGS];
	if (size % 8 || size / 8 + 1 > n - (2 + RING_STACK_NR_REGS))
		return;
	dyn = size ? p[2 + RING_STACK_NR_REGS + size / 8] : 0;
	s->regs = p + 1;
	s->stack = (const uint8_t *)(p + 2 + RING_STACK_NR_REGS);
	/* the kernel copies SIZE bytes but only DYN_SIZE were stack */
	s->stack_size = (uint32_t)(dyn < size ? dyn : size);
}

/* P's executable file mappings to the writer, when they changed since
 * it last had them: the report places what it unwinds from P's copies
 * with them.  LEAF is the image of the sample's leaf, the application
 * of its context when P has none of its own. */
static int recorder_give_maps(struct recorder *r, struct proc *p,
			      uint32_t leaf)
{
	struct ops_process_map m = { .tgid = p->tgid };
	size_t i;
	int err = 0;

	if (p->maps_given == p->maps.gen)
		return 0;
	m.app = p->has_app ? p->app : leaf;
	for (i = 0; i < p->maps.n && !err; i++) {
		const struct maptab_entry *e = &p->maps.v[i];

		if (e->image == MAPTAB_ANON)
			continue;
		m.image = e->image;
		m.start = e->start;
		m.len = e->end - e->start;
		m.pgoff = e->pgoff;
		err = ops_writer_process_map(r->w, &m);
	}
	if (!err)
		p->maps_given = p->maps.gen;
	return err;
}

/* The sample's stack copy, counted against stack ID in CTX. */
static void recorder_stack_copy(struct recorder *r, struct proc *p,
				const struct pending_sample *s, uint32_t ctx,
				uint32_t id, uint32_t leaf, uint32_t size)
{
	struct ops_stack_copy c = {
		.ctx = ctx,
		.stack = id,
		.bp = s->regs[0],
		.sp = s->regs[1],
		.ip = s->regs[2],
		.size = size,
		.bytes = s->stack,
	};

	if ((p && recorder_give_maps(r, p, leaf)) ||
	    ops_writer_stack_copy(r->w, &c))
		recorder_fail(r, -EIO, true);
}

/* The frames of a chain's addresses, for the writer: the process's
 * and the recorder's tables (ops_chain.place). */
struct chain_place {
	struct recorder *r;
	struct proc *p;
	bool anon_leaf; /* a lone leaf's place: not the placed table's */
};

static void chain_place(void *arg, uint64_t addr, bool kernel,
			struct ops_frame *f)
{
	struct chain_place *cp = arg;
	struct recorder *r = cp->r;

	if (kernel) {
		*f = (struct ops_frame){ OPS_FRAME_UNKNOWN, 0, addr };
		if (r->has_kernel_image)
			*f = (struct ops_frame){ OPS_FRAME_IMAGE,
						 r->kernel_image, addr };
	} else if (cp->anon_leaf) {
		recorder_user_frame(r, cp->p, addr, f);
	} else {
		recorder_user_frame_again(r, cp->p, addr, f);
	}
}

void recorder_stack_chain(struct recorder *r, struct proc *p,
			  const struct pending_sample *s, uint32_t ctx)
{
	struct chain_place cp = { r, p, false };
	struct ops_chain c = {
		.addrs = r->addrs,
		.space = p ? p->tgid : 0,
		.gen = p ? p->maps.gen : 0,
		.place = chain_place,
		.arg = &cp,
	};
	enum chain_part part = PART_NONE;
	uint32_t i, entries = 0, id;
	bool anon = false, astray = false;
	struct ops_frame leaf;
	int err;

	if (!r->addrs || r->err)
		return;
	for (i = 0; i < s->nr_chain && c.nr < OPS_STACK_MAX_FRAMES;) {
		uint32_t run = i, take;

		if (s->chain[i] >= (uint64_t)PERF_CONTEXT_MAX) {
			part = chain_marker(s->chain[i]);
			if (part == PART_NONE) {
				astray = true;
				break;
			}
			i++;
			continue;
		}
		/* a part's frames in one run, copied whole: a JIT's chain
		 * is tens of them */
		run = chain_run_end(s->chain, run, s->nr_chain);
		take = run - i;
		/* the kernel's frames innermost; a kernel part after the
		 * user one is none of the stack's */
		if ((part == PART_KERNEL && c.nr == c.nr_kernel) ||
		    part == PART_USER) {
			if (take > OPS_STACK_MAX_FRAMES - c.nr)
				take = OPS_STACK_MAX_FRAMES - c.nr;
			/* a chain of user frames alone (a JIT sample's) is
			 * the kernel's, as it stays while it is written */
			if (part == PART_USER && !c.nr && run == s->nr_chain)
				c.addrs = s->chain + i;
			else
				memcpy(r->addrs + c.nr, s->chain + i,
				       take * sizeof(*r->addrs));
			c.nr += take;
			if (part == PART_KERNEL)
				c.nr_kernel += take;
		}
		entries += take;
		i += take;
	}
	if (!c.nr) {
		/* no chain (the kernel could not walk): the leaf alone */
		r->addrs[0] = s->ip;
		c.nr = 1;
		if ((s->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
		    PERF_RECORD_MISC_USER)
			cp.anon_leaf = true;
		else
			c.nr_kernel = 1;
		c.gen = 0;
	}
	/* cut at the cap: the kernel gave as many entries as it may, and
	 * they are the stack's frames; not where a walk went astray, nor
	 * where entries this recorder keeps no frame for (a kernel part
	 * after the user one) made up the count */
	if (entries >= r->cfg.callgraph_depth &&
	    c.nr >= r->cfg.callgraph_depth && !astray)
		c.flags |= OPS_STACK_TRUNCATED;
	err = ops_writer_chain_of(r->w, &c, s->tid, &id, &anon);
	/* a place may have failed a note, and recording stops */
	if (r->err)
		return;
	if (!err && anon)
		err = ops_writer_anon_stack_event(r->w, p->proc_id, r->event,
						  s->time, id, s->tid);
	else if (!err && ctx != MAPTAB_NO_CTX)
		err = ops_writer_stack_add(r->w, ctx, id, 1);
	if (err) {
		recorder_fail(r, err, true);
		return;
	}
	if (!s->regs || c.nr_kernel == c.nr)
		return;
	/* the user leaf, placed again (the placed table has it) */
	chain_place(&cp, c.addrs[c.nr_kernel], false, &leaf);
	/* copies of samples whose user leaf is native code (a JIT's own
	 * frames keep frame pointers; the native ones below them may
	 * not), in the kernel too: the registers and stack are the user
	 * part's, at the kernel's entry */
	if (leaf.kind == OPS_FRAME_IMAGE && ctx != MAPTAB_NO_CTX)
		recorder_stack_copy(r, p, s, ctx, id, leaf.image,
				    s->stack_size);
	/* and of JIT leaves, cut short: a JVM's interpreted callers hold
	 * their Method* in their frames (opreport/unwind_jvm.h), which the
	 * first few KiB above sp hold; counted in the executable's own
	 * context, as no image holds the leaf.  In the kernel too, as
	 * for native leaves: an interrupt taken in JIT code is a sample
	 * of it like any other */
	else if (anon && leaf.kind == OPS_FRAME_ANON &&
		 !recorder_app_context(r, p, s->cpu, s->tid, &ctx))
		recorder_stack_copy(r, p, s, ctx, id, p->app,
				    s->stack_size < RECORDER_JIT_COPY
					    ? s->stack_size
					    : RECORDER_JIT_COPY);
}
