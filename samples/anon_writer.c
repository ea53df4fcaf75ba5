// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * anon.samples writer.  Each process has a small buffer of delta-coded
 * samples; a buffer becomes one SAMPLES block when it fills or at flush.
 * PROCESS blocks are written at once: they are rare, and a process must
 * be on disk before any of its samples.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "writer_internal.h"

/* Largest time step a sample record carries (its zigzag code shifted by
 * two must fit in 64 bits); a bigger one, never seen with a real clock,
 * starts a new block, whose base is absolute. */
#define TIME_STEP_MAX (INT64_C(1) << 60)

int ops_anon_writer_open(struct ops_writer *w)
{
	char *path = ops_strfmt("%s/anon.samples", w->dir);
	int ret;

	if (!path)
		return ops_writer_fail(w, -ENOMEM, "out of memory");
	w->anon.bf.version = w->callgraph ? ops_meta_version(&w->meta.info)
					  : 0;
	w->anon.nr_events = w->nr_events;
	ret = ops_blockfile_create(&w->anon.bf, w->dfd, path, "anon.samples",
				   false, OPS_ANON_MAGIC, w->err,
				   sizeof(w->err));
	free(path);
	return ret;
}

static int anon_put_process(struct ops_writer *w, uint32_t id,
			    const struct ops_process *p)
{
	struct ops_buf *b = &w->payload;
	uint32_t i;
	int ret;

	if (p->nr_ranges && !p->ranges)
		return -EINVAL;
	for (i = 0; i < p->nr_ranges; i++)
		if (p->ranges[i].end < p->ranges[i].start)
			return -EINVAL;
	b->len = 0;
	ret = ops_buf_put_varint(b, id);
	ret = ret ? ret : ops_buf_put_varint(b, p->tgid);
	ret = ret ? ret : ops_buf_put_varint(b, p->nspid);
	ret = ret ? ret : ops_buf_put_varint(b, p->uid);
	ret = ret ? ret : ops_buf_put_varint(b, p->flags);
	ret = ret ? ret : ops_buf_put_varint(b, p->start_ns);
	ret = ret ? ret : ops_buf_put_svarint(b, p->start_unix_ns);
	ret = ret ? ret : ops_buf_put_str(b, p->comm);
	ret = ret ? ret : ops_buf_put_str(b, p->exe);
	ret = ret ? ret : ops_buf_put_varint(b, p->nr_ranges);
	for (i = 0; i < p->nr_ranges && !ret; i++) {
		ret = ops_buf_put_varint(b, p->ranges[i].start);
		ret = ret ? ret
			  : ops_buf_put_varint(b, p->ranges[i].end -
							  p->ranges[i].start);
	}
	/* optional, so that a process without one is written as before */
	if (!ret && p->jitdump && *p->jitdump)
		ret = ops_buf_put_str(b, p->jitdump);
	w->out.len = 0;
	w->anon_framed = 0;
	ret = ret ? ret
		  : ops_block_frame(&w->out, OPS_ANON_PROCESS, b->data,
				    b->len);
	return ret;
}

static int anon_write_process(struct ops_writer *w, uint32_t id,
			      const struct ops_process *p)
{
	int ret = anon_put_process(w, id, p);

	if (ret)
		return ops_writer_fail(
			w, ret,
			"%s/anon.samples: cannot record process %u: %s",
			w->dir, p->tgid, strerror(-ret));
	return ops_blockfile_append(&w->anon.bf, w->out.data, w->out.len,
				    w->err, sizeof(w->err));
}

int ops_writer_process(struct ops_writer *w, const struct ops_process *p,
		       uint32_t *proc_id)
{
	struct ops_anon_writer *a = &w->anon;
	int ret;

	if (a->nr_procs == a->cap_procs) {
		uint32_t cap = a->cap_procs ? a->cap_procs * 2 : 64;
		struct ops_anon_proc *n;

		n = cap > a->cap_procs ? realloc(a->procs, cap * sizeof(*n))
				       : NULL;
		if (!n)
			return ops_writer_fail(
				w, -ENOMEM, "%s/anon.samples: out of memory",
				w->dir);
		a->procs = n;
		a->cap_procs = cap;
	}
	ret = anon_write_process(w, a->nr_procs, p);
	if (ret)
		return ret;
	memset(&a->procs[a->nr_procs], 0, sizeof(a->procs[0]));
	*proc_id = a->nr_procs++;
	return 0;
}

/* Frame PR's buffered samples as one SAMPLES block (STACK_SAMPLES for
 * a stack stream; the EVENT_ ones, which say their event, for EVENT
 * after the first) at the end of W->out, and empty the buffer. */
static int anon_put_block(struct ops_writer *w, uint32_t id, uint32_t event,
			  struct ops_anon_proc *pr, uint16_t type)
{
	struct ops_buf *b = &w->payload;
	int ret;

	if (!pr || !pr->count)
		return 0;
	b->len = 0;
	ret = ops_buf_put_varint(b, id);
	if (event) {
		type = type == OPS_ANON_STACK_SAMPLES
			       ? OPS_ANON_EVENT_STACK_SAMPLES
			       : OPS_ANON_EVENT_SAMPLES;
		ret = ret ? ret : ops_buf_put_varint(b, event);
	}
	ret = ret ? ret : ops_buf_put_varint(b, pr->count);
	ret = ret ? ret : ops_buf_put_varint(b, pr->t0);
	ret = ret ? ret : ops_buf_put_varint(b, pr->a0);
	ret = ret ? ret : ops_buf_put_varint(b, pr->tid0);
	ret = ret ? ret : ops_buf_put(b, pr->enc.data, pr->enc.len);
	ret = ret ? ret : ops_block_frame(&w->out, type, b->data, b->len);
	if (!ret) {
		w->anon_framed += pr->count;
		pr->count = 0;
		pr->enc.len = 0;
	}
	return ret;
}

/* Append the blocks framed in w->out, counting their samples as on disk
 * only when the write succeeded. */
static int anon_append(struct ops_writer *w)
{
	int ret = ops_blockfile_append(&w->anon.bf, w->out.data, w->out.len,
				       w->err, sizeof(w->err));

	if (!ret)
		w->anon_on_disk += w->anon_framed;
	w->anon_framed = 0;
	return ret;
}

/* The stream of EVENT of process PR (NULL when it has none yet). */
static struct ops_anon_proc *anon_event(struct ops_anon_proc *pr,
					uint32_t event)
{
	if (!event)
		return pr;
	return pr->events ? &pr->events[event - 1] : NULL;
}

/* Every stream of process ID, each event's flat then stack samples, at
 * the end of W->out. */
static int anon_put_events(struct ops_writer *w, uint32_t id,
			   struct ops_anon_proc *pr)
{
	struct ops_anon_proc *ev;
	uint32_t e;
	int ret = 0;

	for (e = 0; e < w->nr_events && !ret; e++) {
		ev = anon_event(pr, e);
		if (!ev)
			break;
		ret = anon_put_block(w, id, e, ev, OPS_ANON_SAMPLES);
		ret = ret ? ret
			  : anon_put_block(w, id, e, ev->stacks,
					   OPS_ANON_STACK_SAMPLES);
	}
	return ret;
}

/* Every stream of process ID at the end of W->out (emptied first),
 * after the stack definitions they name (which go to samples.hist,
 * through W->out, so first). */
static int anon_put_samples(struct ops_writer *w, uint32_t id,
			    struct ops_anon_proc *pr)
{
	struct ops_anon_proc *ev;
	bool stacks = false;
	uint32_t e;
	int ret = 0;

	for (e = 0; e < w->nr_events && (ev = anon_event(pr, e)); e++)
		stacks |= ev->stacks && ev->stacks->count;
	if (stacks)
		ret = ops_hist_writer_defs(w);
	w->out.len = 0;
	w->anon_framed = 0;
	return ret ? ret : anon_put_events(w, id, pr);
}

/* Give back PR's buffers, of every one of the NR_EVENTS events. */
static void anon_proc_free(uint32_t nr_events, struct ops_anon_proc *pr)
{
	uint32_t e;

	for (e = nr_events; e-- > 0;) {
		struct ops_anon_proc *ev = anon_event(pr, e);

		if (!ev)
			continue;
		ops_buf_free(&ev->enc);
		if (ev->stacks)
			ops_buf_free(&ev->stacks->enc);
		free(ev->stacks);
		ev->stacks = NULL;
	}
	free(pr->events);
	pr->events = NULL;
}

int ops_writer_process_update(struct ops_writer *w, uint32_t proc_id,
			      const struct ops_process *p)
{
	struct ops_anon_proc *pr;
	int ret;

	if (proc_id >= w->anon.nr_procs)
		return ops_writer_fail(
			w, -EINVAL, "%s/anon.samples: unknown process id %u",
			w->dir, proc_id);
	pr = &w->anon.procs[proc_id];
	ret = anon_write_process(w, proc_id, p);
	if (ret || !(p->flags & OPS_PROC_EXITED))
		return ret;
	/* an exited process sends nothing more: give its buffers back */
	ret = anon_put_samples(w, proc_id, pr);
	ret = ret ? ret : anon_append(w);
	if (!ret)
		anon_proc_free(w->nr_events, pr);
	return ret;
}

/*
 * One sample record: key = zigzag(time step) << 2 | code, where code 0-2
 * names the thread by its place among the last three threads seen and 3
 * means another thread, whose tid follows as a step from the latest one;
 * then the address as a step from that thread's last address.  Threads
 * interleave in a stream, so this costs no tid byte and keeps each
 * thread's addresses close together.
 */
static size_t anon_encode(struct ops_anon_proc *pr, uint8_t *rec, int64_t dt,
			  uint64_t addr, uint32_t tid)
{
	uint32_t code, j;
	uint64_t base;
	size_t n;

	for (code = 0; code < pr->nr_mru; code++)
		if (pr->mru_tid[code] == tid)
			break;
	if (code == pr->nr_mru)
		code = OPS_ANON_MRU;
	n = ops_varint_encode(rec, ops_zigzag(dt) << 2 | code);
	if (code == OPS_ANON_MRU) {
		n += ops_varint_encode(
			rec + n,
			ops_zigzag((int64_t)tid - (int64_t)pr->mru_tid[0]));
		base = pr->mru_addr[0];
		if (pr->nr_mru < OPS_ANON_MRU)
			pr->nr_mru++;
		j = pr->nr_mru - 1;
	} else {
		base = pr->mru_addr[code];
		j = code;
	}
	n += ops_varint_encode(rec + n, ops_zigzag((int64_t)(addr - base)));
	/* move to front */
	for (; j > 0; j--) {
		pr->mru_tid[j] = pr->mru_tid[j - 1];
		pr->mru_addr[j] = pr->mru_addr[j - 1];
	}
	pr->mru_tid[0] = tid;
	pr->mru_addr[0] = addr;
	return n;
}

/* The most a sample record takes. */
#define ANON_REC_MAX (3 * OPS_VARINT_MAX)

/* Whether PR's block ends before a sample DT after its last: no room
 * for a record, a time step a record cannot carry, or the count full. */
static inline bool anon_block_ends(const struct ops_anon_proc *pr, int64_t dt)
{
	return pr->enc.len + ANON_REC_MAX > OPS_ANON_BLOCK_BYTES ||
	       dt >= TIME_STEP_MAX || dt < -TIME_STEP_MAX ||
	       pr->count == UINT32_MAX;
}

/* A sample of PR's latest thread TID at TIME_NS and ADDR encoded at the
 * end of PR's buffer, when its block has room for it and no other
 * reason to end: false, and nothing done, else.  Nearly every sample of
 * a JIT process is such, and the whole path (the thread list searched
 * and reordered, the buffer's room reserved) was most of a sample's
 * cost here. */
static inline bool anon_add_fast(struct ops_anon_proc *pr, uint64_t time_ns,
				 uint64_t addr, uint32_t tid)
{
	int64_t dt = (int64_t)(time_ns - pr->pt);
	uint8_t *p;

	if (!pr->count || pr->mru_tid[0] != tid || anon_block_ends(pr, dt) ||
	    pr->enc.cap - pr->enc.len < ANON_REC_MAX)
		return false;
	p = pr->enc.data + pr->enc.len;
	p += ops_varint_encode(p, ops_zigzag(dt) << 2);
	p += ops_varint_encode(p,
			       ops_zigzag((int64_t)(addr - pr->mru_addr[0])));
	pr->enc.len = (size_t)(p - pr->enc.data);
	pr->mru_addr[0] = addr;
	pr->pt = time_ns;
	pr->count++;
	return true;
}

/* anon_add() for a sample anon_add_fast() did not take: the stream's
 * first, another thread's, or one whose block is to end first. */
static __attribute__((noinline)) int
anon_add_slow(struct ops_writer *w, uint32_t proc_id, uint32_t event,
	      struct ops_anon_proc *pr, uint16_t type, uint64_t time_ns,
	      uint64_t addr, uint32_t tid)
{
	int64_t dt;
	int ret;

	dt = (int64_t)(time_ns - pr->pt);
	if (pr->count && anon_block_ends(pr, dt)) {
		ret = type == OPS_ANON_STACK_SAMPLES ? ops_hist_writer_defs(w)
						     : 0;
		w->out.len = 0;
		w->anon_framed = 0;
		ret = ret ? ret : anon_put_block(w, proc_id, event, pr, type);
		if (ret)
			goto fail;
		ret = anon_append(w);
		if (ret)
			return ret;
	}
	if (!pr->count) {
		pr->t0 = pr->pt = time_ns;
		pr->a0 = pr->mru_addr[0] = addr;
		pr->tid0 = pr->mru_tid[0] = tid;
		pr->nr_mru = 1;
		pr->count = 1;
		return 0;
	}
	/* reserve first: the encoder's thread list must not move ahead of
	 * the bytes that describe it */
	ret = ops_buf_reserve(&pr->enc, ANON_REC_MAX);
	if (ret)
		goto fail;
	pr->enc.len +=
		anon_encode(pr, pr->enc.data + pr->enc.len, dt, addr, tid);
	pr->pt = time_ns;
	pr->count++;
	return 0;
fail:
	return ops_writer_fail(w, ret,
			       "%s/anon.samples: cannot add sample: %s",
			       w->dir, strerror(-ret));
}

/* Add a sample to stream PR of process PROC_ID (the flat one, or its
 * stack stream when TYPE says so, ADDR then being a stack id). */
static inline int anon_add(struct ops_writer *w, uint32_t proc_id,
			   uint32_t event, struct ops_anon_proc *pr,
			   uint16_t type, uint64_t time_ns, uint64_t addr,
			   uint32_t tid)
{
	/* counted before anything can fail: a sample that does not reach
	 * the disk is lost, not forgotten */
	w->samples_added++;
	if (anon_add_fast(pr, time_ns, addr, tid))
		return 0;
	return anon_add_slow(w, proc_id, event, pr, type, time_ns, addr, tid);
}

/* In *PR the stream of EVENT of process PROC_ID, made at its first
 * sample; 0 or W's failure. */
static inline int anon_stream(struct ops_writer *w, uint32_t proc_id,
			      uint32_t event, struct ops_anon_proc **pr)
{
	struct ops_anon_proc *p;

	if (proc_id >= w->anon.nr_procs)
		return ops_writer_fail(
			w, -EINVAL, "%s/anon.samples: unknown process id %u",
			w->dir, proc_id);
	if (event >= w->nr_events)
		return ops_writer_fail(
			w, -EINVAL,
			"%s/anon.samples: event %u of a session of %u", w->dir,
			event, w->nr_events);
	p = &w->anon.procs[proc_id];
	if (event && !p->events) {
		p->events = calloc(w->nr_events - 1, sizeof(*p->events));
		if (!p->events)
			return ops_writer_fail(
				w, -ENOMEM,
				"%s/anon.samples: cannot add sample: %s",
				w->dir, strerror(ENOMEM));
	}
	*pr = anon_event(p, event);
	return 0;
}

int ops_writer_anon_event(struct ops_writer *w, uint32_t proc_id,
			  uint32_t event, uint64_t time_ns, uint64_t addr,
			  uint32_t tid)
{
	struct ops_anon_proc *pr = NULL;
	int ret = anon_stream(w, proc_id, event, &pr);

	if (ret)
		return ret;
	return anon_add(w, proc_id, event, pr, OPS_ANON_SAMPLES, time_ns, addr,
			tid);
}

int ops_writer_anon(struct ops_writer *w, uint32_t proc_id, uint64_t time_ns,
		    uint64_t addr, uint32_t tid)
{
	return ops_writer_anon_event(w, proc_id, 0, time_ns, addr, tid);
}

int ops_writer_anon_stack_event(struct ops_writer *w, uint32_t proc_id,
				uint32_t event, uint64_t time_ns,
				uint32_t stack, uint32_t tid)
{
	struct ops_anon_proc *pr = NULL;
	int ret = anon_stream(w, proc_id, event, &pr);

	if (ret)
		return ret;
	/* a version 5 session's are the deltas' ids */
	if (stack >= (w->hist.deltas ? w->hist.nr_deltas : w->hist.stacks.nr))
		return ops_writer_fail(w, -EINVAL,
				       "%s/anon.samples: unknown stack %u",
				       w->dir, stack);
	if (!pr->stacks) {
		pr->stacks = calloc(1, sizeof(*pr->stacks));
		if (!pr->stacks)
			return ops_writer_fail(
				w, -ENOMEM,
				"%s/anon.samples: cannot add sample: %s",
				w->dir, strerror(ENOMEM));
	}
	return anon_add(w, proc_id, event, pr->stacks, OPS_ANON_STACK_SAMPLES,
			time_ns, stack, tid);
}

int ops_writer_anon_stack(struct ops_writer *w, uint32_t proc_id,
			  uint64_t time_ns, uint32_t stack, uint32_t tid)
{
	return ops_writer_anon_stack_event(w, proc_id, 0, time_ns, stack, tid);
}

int ops_anon_writer_flush(struct ops_writer *w)
{
	struct ops_anon_writer *a = &w->anon;
	uint32_t i;
	int ret = 0;

	if (w->callgraph)
		ret = ops_hist_writer_defs(w);
	w->out.len = 0;
	w->anon_framed = 0;
	for (i = 0; i < a->nr_procs && !ret; i++)
		ret = anon_put_events(w, i, &a->procs[i]);
	if (ret)
		return ops_writer_fail(w, ret,
				       "%s/anon.samples: cannot flush: %s",
				       w->dir, strerror(-ret));
	return anon_append(w);
}

void ops_anon_writer_free(struct ops_anon_writer *a)
{
	uint32_t i;

	ops_blockfile_close(&a->bf);
	for (i = 0; i < a->nr_procs; i++)
		anon_proc_free(a->nr_events, &a->procs[i]);
	free(a->procs);
	memset(a, 0, sizeof(*a));
}
