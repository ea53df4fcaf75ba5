// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * anon.samples reader.  Opening only walks the blocks (checksums,
 * process identities, which block holds whose samples); a process's
 * samples are decoded when asked for, since a report usually wants a few
 * processes out of many.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "block_internal.h"
#include "reader_internal.h"

#define NO_BLOCK UINT32_MAX

static void rproc_clear(struct ops_anon_rproc *r)
{
	free((char *)r->p.comm);
	free((char *)r->p.exe);
	free((char *)r->p.jitdump);
	free((struct ops_range *)r->p.ranges);
	memset(&r->p, 0, sizeof(r->p));
}

static const char *anon_process(struct ops_anon_data *a, struct ops_cur *c)
{
	struct ops_process p = { 0 };
	struct ops_range *ranges = NULL;
	uint32_t id = ops_cur_varint32(c), i;
	const char *why = "bad process record";
	char *comm = NULL, *exe = NULL, *jitdump = NULL;
	struct ops_anon_rproc *r;

	if (!c->ok || id > a->nr_procs)
		return "process id out of order";
	p.tgid = ops_cur_varint32(c);
	p.nspid = ops_cur_varint32(c);
	p.uid = ops_cur_varint32(c);
	p.flags = ops_cur_varint32(c);
	p.start_ns = ops_cur_varint(c);
	p.start_unix_ns = ops_cur_svarint(c);
	ops_cur_str(c, &comm);
	ops_cur_str(c, &exe);
	p.nr_ranges = ops_cur_varint32(c);
	if (!c->ok || p.nr_ranges > ops_cur_left(c) / 2)
		goto bad;
	ranges = calloc(p.nr_ranges ? p.nr_ranges : 1, sizeof(*ranges));
	if (!ranges) {
		why = "out of memory";
		goto bad;
	}
	for (i = 0; i < p.nr_ranges; i++) {
		uint64_t len;

		ranges[i].start = ops_cur_varint(c);
		len = ops_cur_varint(c);
		ranges[i].end = ranges[i].start + len;
		if (ranges[i].end < ranges[i].start) {
			why = "bad range";
			goto bad;
		}
	}
	if (c->ok && ops_cur_left(c))
		ops_cur_str(c, &jitdump);
	if (!c->ok)
		goto bad;
	if (ops_cur_left(c)) {
		why = "trailing bytes in process block";
		goto bad;
	}
	if (id == a->nr_procs) {
		if (a->nr_procs == a->cap_procs) {
			uint32_t cap = a->cap_procs ? a->cap_procs * 2 : 64;
			void *n = cap > a->cap_procs
					  ? realloc(a->procs, cap * sizeof(*r))
					  : NULL;

			if (!n) {
				why = "out of memory";
				goto bad;
			}
			a->procs = n;
			a->cap_procs = cap;
		}
		r = &a->procs[a->nr_procs++];
		memset(r, 0, sizeof(*r));
		r->first_block = r->last_block = NO_BLOCK;
		r->first_sblock = r->last_sblock = NO_BLOCK;
	} else {
		r = &a->procs[id];
		rproc_clear(r);
	}
	p.comm = comm;
	p.exe = exe;
	p.ranges = ranges;
	p.jitdump = jitdump;
	r->p = p;
	return NULL;
bad:
	free(comm);
	free(exe);
	free(jitdump);
	free(ranges);
	return why;
}

static const char *anon_samples(struct ops_anon_data *a, struct ops_cur *c,
				size_t len, uint64_t offset, bool stacks,
				bool tagged)
{
	uint32_t id = ops_cur_varint32(c);
	uint32_t event = tagged ? ops_cur_varint32(c) : 0;
	uint64_t count = ops_cur_varint(c);
	struct ops_anon_rproc *r;
	struct ops_anon_block *b;

	ops_cur_varint(c);
	ops_cur_varint(c);
	ops_cur_varint32(c);
	/* the first event's samples are never in an EVENT_ block */
	if (!c->ok || (tagged && !event))
		return "bad sample block header";
	if (id >= a->nr_procs)
		return "samples for an unknown process";
	/* every sample after the first takes two bytes or more */
	if (!count || count - 1 > ops_cur_left(c) / 2)
		return "bad sample count";
	if (a->nr_blocks == a->cap_blocks) {
		uint32_t cap = a->cap_blocks ? a->cap_blocks * 2 : 256;
		void *n = cap > a->cap_blocks
				  ? realloc(a->blocks, cap * sizeof(*b))
				  : NULL;

		if (!n)
			return "out of memory";
		a->blocks = n;
		a->cap_blocks = cap;
	}
	b = &a->blocks[a->nr_blocks];
	b->off = offset;
	b->len = (uint32_t)len;
	b->next = NO_BLOCK;
	b->count = (uint32_t)count; /* at most len / 2 + 1 */
	b->event = event;
	if (event > a->max_event) {
		a->max_event = event;
		a->max_event_off = offset;
	}
	r = &a->procs[id];
	if (stacks) {
		if (r->last_sblock == NO_BLOCK)
			r->first_sblock = a->nr_blocks;
		else
			a->blocks[r->last_sblock].next = a->nr_blocks;
		r->last_sblock = a->nr_blocks++;
		r->nr_ssamples += count;
		return NULL;
	}
	if (r->last_block == NO_BLOCK)
		r->first_block = a->nr_blocks;
	else
		a->blocks[r->last_block].next = a->nr_blocks;
	r->last_block = a->nr_blocks++;
	r->nr_samples += count;
	return NULL;
}

static const char *anon_block(void *arg, uint16_t type, const uint8_t *p,
			      size_t len, uint64_t offset)
{
	struct ops_cur c;

	ops_cur_init(&c, p, len);
	switch (type) {
	case OPS_ANON_PROCESS:
		return anon_process(arg, &c);
	case OPS_ANON_SAMPLES:
		return anon_samples(arg, &c, len, offset, false, false);
	case OPS_ANON_STACK_SAMPLES:
		return anon_samples(arg, &c, len, offset, true, false);
	case OPS_ANON_EVENT_SAMPLES:
		return anon_samples(arg, &c, len, offset, false, true);
	case OPS_ANON_EVENT_STACK_SAMPLES:
		return anon_samples(arg, &c, len, offset, true, true);
	}
	return NULL; /* a later version's block: skip it */
}

int ops_anon_open(struct ops_anon_data *a, int fd, const char *path,
		  ops_warn_fn warn, void *warn_arg)
{
	uint64_t end;
	struct stat st;
	int ret;

	memset(a, 0, sizeof(*a));
	a->fd = fd;
	a->warn = warn;
	a->warn_arg = warn_arg;
	a->path = strdup(path);
	if (!a->path)
		return -ENOMEM;
	if (fd < 0)
		return 0;
	ret = ops_blocks_walk(fd, OPS_ANON_MAGIC, path, anon_block, a, warn,
			      warn_arg, &end);
	if (ret)
		return ret;
	/* damage found now is this file's one warning */
	a->warned = fstat(fd, &st) || end < (uint64_t)st.st_size;
	return 0;
}

#define MRU 3

/* Whether block B holds samples of the event being read. */
static bool anon_wanted(const struct ops_anon_data *a,
			const struct ops_anon_block *b)
{
	return a->all_events || b->event == a->event;
}

/* The samples of the event being read in the blocks from FIRST, as
 * their headers say. */
static uint64_t anon_wanted_count(const struct ops_anon_data *a,
				  uint32_t first)
{
	uint64_t n = 0;
	uint32_t b;

	for (b = first; b != NO_BLOCK; b = a->blocks[b].next)
		if (anon_wanted(a, &a->blocks[b]))
			n += a->blocks[b].count;
	return n;
}

/* Keep of OUT[0..N) the samples in the time window, if one is set. */
static size_t anon_window(const struct ops_anon_data *a,
			  struct ops_anon_sample *out, size_t n)
{
	size_t i, k = 0;

	if (!a->windowed)
		return n;
	for (i = 0; i < n; i++)
		if (out[i].time_ns >= a->win_from &&
		    out[i].time_ns < a->win_to)
			out[k++] = out[i];
	return k;
}

/* Whether the stack sample S is in the time window.  One whose leaf is
 * not anonymous had its flat count in a time slice (FORMAT.md,
 * TIME_SLICES), which a window takes by the slice's middle: the sample
 * is taken likewise, by the middle of its time's slice, so that a
 * report's flat and stack samples of a window agree. */
static bool anon_stack_in_window(const struct ops_anon_data *a,
				 const struct ops_anon_sample *s)
{
	uint64_t t = s->time_ns, mid;

	if (!a->windowed)
		return true;
	if (s->addr < a->nr_stacks &&
	    a->stack_frames[a->stack_nodes[s->addr].frame].kind !=
		    OPS_FRAME_ANON) {
		/* the writer's index: a time before the start is slice 0 */
		t = t > a->slice_origin ? t - a->slice_origin : 0;
		mid = t - t % OPS_SLICE_NS + OPS_SLICE_NS / 2;
		t = a->slice_origin + mid < a->slice_origin
			    ? UINT64_MAX
			    : a->slice_origin + mid;
	}
	return t >= a->win_from && t < a->win_to;
}

/* Decode one block into OUT (room for its count); returns how many
 * samples were good, warning once per file if not all were.  The
 * mirror of anon_encode() in anon_writer.c. */
static size_t anon_decode_block(struct ops_anon_data *a,
				const struct ops_anon_block *b,
				struct ops_anon_sample *out, bool *whole)
{
	uint64_t count, i = 0, t, key, tid, mru_addr[MRU], addr;
	uint32_t mru_tid[MRU], nr_mru = 1, code, j;
	struct ops_cur c;
	int ret = ops_block_payload(a->fd, b->off, b->len, &a->payload,
				    &a->cap_payload);

	if (ret) {
		*whole = false;
		if (!a->warned)
			ops_warnf(
				a->warn, a->warn_arg, "%s: offset %llu: %s",
				a->path, (unsigned long long)b->off,
				ret == -ESTALE
					? "changed since the session was opened"
					: strerror(-ret));
		a->warned = true;
		return 0;
	}
	ops_cur_init(&c, a->payload, b->len);
	ops_cur_varint32(&c);
	if (b->event)
		ops_cur_varint32(&c);
	count = ops_cur_varint(&c);
	t = ops_cur_varint(&c);
	mru_addr[0] = ops_cur_varint(&c);
	mru_tid[0] = ops_cur_varint32(&c);
	out[0] = (struct ops_anon_sample){ t, mru_addr[0], mru_tid[0] };
	for (i = 1; i < count; i++) {
		key = ops_cur_varint(&c);
		t += (uint64_t)ops_unzigzag(key >> 2);
		code = (uint32_t)(key & 3);
		if (code == MRU) {
			tid = mru_tid[0] + (uint64_t)ops_cur_svarint(&c);
			if (tid > UINT32_MAX)
				break;
			addr = mru_addr[0];
			if (nr_mru < MRU)
				nr_mru++;
			j = nr_mru - 1;
		} else {
			if (code >= nr_mru)
				break;
			tid = mru_tid[code];
			addr = mru_addr[code];
			j = code;
		}
		addr += (uint64_t)ops_cur_svarint(&c);
		if (!c.ok)
			break;
		for (; j > 0; j--) {
			mru_tid[j] = mru_tid[j - 1];
			mru_addr[j] = mru_addr[j - 1];
		}
		mru_tid[0] = (uint32_t)tid;
		mru_addr[0] = addr;
		out[i] = (struct ops_anon_sample){ t, addr, (uint32_t)tid };
	}
	*whole = i == count && c.ok && !ops_cur_left(&c);
	if (*whole)
		return count;
	if (!a->warned)
		ops_warnf(a->warn, a->warn_arg, "%s: offset %llu: %s", a->path,
			  (unsigned long long)b->off,
			  i < count ? "bad sample record"
				    : "trailing bytes in sample block");
	a->warned = true;
	return i;
}

int ops_anon_decode(struct ops_anon_data *a, uint32_t proc_id,
		    const struct ops_anon_sample **samples, size_t *n)
{
	struct ops_anon_rproc *r;
	uint64_t want;
	uint32_t b;
	size_t got = 0;

	*samples = NULL;
	*n = 0;
	if (proc_id >= a->nr_procs)
		return -ENOENT;
	r = &a->procs[proc_id];
	want = r->decoded ? 0 : anon_wanted_count(a, r->first_block);
	if (want) {
		if (want > SIZE_MAX / sizeof(*r->samples))
			return -ENOMEM;
		r->samples = malloc(want * sizeof(*r->samples));
		if (!r->samples)
			return -ENOMEM;
		for (b = r->first_block; b != NO_BLOCK;
		     b = a->blocks[b].next) {
			bool whole;

			if (!anon_wanted(a, &a->blocks[b]))
				continue;
			got += anon_window(a, r->samples + got,
					   anon_decode_block(a, &a->blocks[b],
							     r->samples + got,
							     &whole));
			/* what follows a damaged block would follow a gap */
			if (!whole)
				break;
		}
		r->nr_decoded = got;
	}
	r->decoded = true;
	*samples = r->samples;
	*n = r->nr_decoded;
	return 0;
}

int ops_anon_walk(struct ops_anon_data *a, uint32_t proc_id,
		  int (*fn)(void *arg, const struct ops_anon_sample *s,
			    size_t n),
		  void *arg)
{
	struct ops_anon_sample *scratch = NULL;
	struct ops_anon_rproc *r;
	uint32_t b, cap = 0;
	int ret = 0;

	if (proc_id >= a->nr_procs)
		return -ENOENT;
	r = &a->procs[proc_id];
	/* one block at a time, in memory the size of the largest */
	for (b = r->first_block; b != NO_BLOCK && !ret;
	     b = a->blocks[b].next) {
		const struct ops_anon_block *blk = &a->blocks[b];
		bool whole;
		size_t got;

		if (!anon_wanted(a, blk))
			continue;
		if (blk->count > cap) {
			void *grown = realloc(scratch,
					      blk->count * sizeof(*scratch));

			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			scratch = grown;
			cap = blk->count;
		}
		got = anon_window(a, scratch,
				  anon_decode_block(a, blk, scratch, &whole));
		ret = got ? fn(arg, scratch, got) : 0;
		if (!whole)
			break;
	}
	free(scratch);
	return ret;
}

static int anon_count_block(void *arg, const struct ops_anon_sample *s,
			    size_t n)
{
	(void)s;
	*(size_t *)arg += n;
	return 0;
}

int ops_anon_count(struct ops_anon_data *a, uint32_t proc_id, size_t *n)
{
	*n = 0;
	if (proc_id < a->nr_procs && a->procs[proc_id].decoded) {
		*n = a->procs[proc_id].nr_decoded;
		return 0;
	}
	return ops_anon_walk(a, proc_id, anon_count_block, n);
}

int ops_anon_count_event(struct ops_anon_data *a, uint32_t event, uint64_t *n)
{
	uint32_t keep = a->event;
	bool windowed = a->windowed, all = a->all_events;
	uint32_t i;
	int ret = 0;

	*n = 0;
	/* the walk reads what the selection says: this event, unwindowed */
	a->event = event;
	a->windowed = false;
	a->all_events = false;
	for (i = 0; i < a->nr_procs && !ret; i++) {
		size_t k = 0;

		ret = ops_anon_walk(a, i, anon_count_block, &k);
		*n += k;
	}
	a->event = keep;
	a->windowed = windowed;
	a->all_events = all;
	return ret;
}

int ops_anon_take(struct ops_anon_data *a, uint32_t proc_id,
		  struct ops_anon_sample **samples, size_t *n)
{
	const struct ops_anon_sample *s;
	int err = ops_anon_decode(a, proc_id, &s, n);

	*samples = NULL;
	if (err)
		return err;
	*samples = a->procs[proc_id].samples;
	a->procs[proc_id].samples = NULL;
	a->procs[proc_id].nr_decoded = 0;
	a->procs[proc_id].decoded = false;
	return 0;
}

void ops_anon_release(struct ops_anon_data *a, uint32_t proc_id)
{
	struct ops_anon_rproc *r;

	if (proc_id >= a->nr_procs)
		return;
	r = &a->procs[proc_id];
	free(r->samples);
	r->samples = NULL;
	r->nr_decoded = 0;
	r->decoded = false;
	free(r->ssamples);
	r->ssamples = NULL;
	r->nr_sdecoded = 0;
	r->sdecoded = false;
}

/* The stack samples of process PROC_ID: its STACK_SAMPLES blocks decode
 * as SAMPLES blocks do, the address being the stack id. */
int ops_anon_decode_stacks(struct ops_anon_data *a, uint32_t proc_id,
			   const struct ops_anon_stack_sample **samples,
			   size_t *n)
{
	struct ops_anon_sample *tmp = NULL;
	struct ops_anon_rproc *r;
	size_t got = 0, cap = 0, k, m;
	uint64_t want;
	uint32_t b;

	*samples = NULL;
	*n = 0;
	if (proc_id >= a->nr_procs)
		return -ENOENT;
	r = &a->procs[proc_id];
	want = r->sdecoded ? 0 : anon_wanted_count(a, r->first_sblock);
	if (want) {
		if (want > SIZE_MAX / sizeof(*r->ssamples))
			return -ENOMEM;
		r->ssamples = malloc(want * sizeof(*r->ssamples));
		if (!r->ssamples)
			return -ENOMEM;
		for (b = r->first_sblock; b != NO_BLOCK;
		     b = a->blocks[b].next) {
			const struct ops_anon_block *blk = &a->blocks[b];
			bool whole;

			if (!anon_wanted(a, blk))
				continue;
			/* a block holds at most one sample per two bytes */
			if (blk->len / 2 + 1 > cap) {
				void *t = realloc(tmp, (blk->len / 2 + 1) *
							       sizeof(*tmp));

				if (!t) {
					free(tmp);
					free(r->ssamples);
					r->ssamples = NULL;
					return -ENOMEM;
				}
				tmp = t;
				cap = blk->len / 2 + 1;
			}
			m = anon_decode_block(a, blk, tmp, &whole);
			for (k = 0; k < m; k++) {
				uint64_t id = tmp[k].addr;

				/* version 5: a delta's id, to its node's */
				if (a->stack_ids)
					tmp[k].addr =
						id < a->nr_stack_ids
							? a->stack_ids[id]
							: UINT64_MAX;
				if (tmp[k].addr >= a->nr_stacks) {
					if (!a->warned)
						ops_warnf(
							a->warn, a->warn_arg,
							"%s: offset %llu: stack id %llu with no entry",
							a->path,
							(unsigned long long)
								blk->off,
							(unsigned long long)id);
					a->warned = true;
					continue;
				}
				if (!anon_stack_in_window(a, &tmp[k]))
					continue;
				r->ssamples[got++] =
					(struct ops_anon_stack_sample){
						tmp[k].time_ns,
						(uint32_t)tmp[k].addr,
						tmp[k].tid
					};
			}
			if (!whole)
				break;
		}
		free(tmp);
		r->nr_sdecoded = got;
	}
	r->sdecoded = true;
	*samples = r->ssamples;
	*n = r->nr_sdecoded;
	return 0;
}

void ops_anon_release_stacks(struct ops_anon_data *a)
{
	uint32_t i;

	for (i = 0; i < a->nr_procs; i++) {
		free(a->procs[i].ssamples);
		a->procs[i].ssamples = NULL;
		a->procs[i].nr_sdecoded = 0;
		a->procs[i].sdecoded = false;
	}
}

void ops_anon_select_event(struct ops_anon_data *a, uint32_t event)
{
	uint32_t i;

	a->event = event;
	for (i = 0; i < a->nr_procs; i++)
		ops_anon_release(a, i);
	ops_anon_release_stacks(a);
}

void ops_anon_data_free(struct ops_anon_data *a)
{
	uint32_t i;

	for (i = 0; i < a->nr_procs; i++) {
		rproc_clear(&a->procs[i]);
		free(a->procs[i].samples);
		free(a->procs[i].ssamples);
	}
	free(a->procs);
	free(a->blocks);
	free(a->path);
	free(a->payload);
	if (a->fd >= 0)
		close(a->fd);
	memset(a, 0, sizeof(*a));
	a->fd = -1;
}
