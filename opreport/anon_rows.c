// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oputil/grow.h>

#include "anon_naming.h"
#include "anon_rows.h"
#include "anon_symcache.h"
#include "spec.h"
#include "anon_sort.h"
#include "strpool.h"

/* Room to split a run of samples by thread. */
struct tid_split {
	uint32_t *tids;
	size_t cap;
};

static int tid_cmp(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return (a > b) - (a < b);
}

/* PROTO for the N samples of SMP: one hit, or under --separate=thread
 * one a thread, each counting that thread's samples. */
static int add_run(struct report *r, struct report_hit *proto,
		   const struct ops_anon_sample *smp, size_t n,
		   struct tid_split *ts)
{
	size_t i, j;
	int ret;

	proto->tid = r->tid_separated ? smp[0].tid : 0;
	for (i = 1; r->tid_separated && i < n && smp[i].tid == smp[0].tid; i++)
		;
	if (!r->tid_separated || i == n) {
		proto->count = n;
		return report_add_hit(r, proto);
	}
	if (oputil_grow(&ts->tids, &ts->cap, n, sizeof(*ts->tids)))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		ts->tids[i] = smp[i].tid;
	qsort(ts->tids, n, sizeof(*ts->tids), tid_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && ts->tids[j] == ts->tids[i]; j++)
			;
		proto->tid = ts->tids[i];
		proto->count = j - i;
		ret = report_add_hit(r, proto);
		if (ret)
			return ret;
	}
	return 0;
}

/* Add runs of equal (symbol, address, line) as one hit each; without
 * -d, only the symbol matters: a row of a million addresses is then one
 * hit, not a million.  Here, as in the rest of the file, a failure is
 * -ENOMEM (-EOVERFLOW for counts) and not reported: profile_build() says
 * it, and the loader what a handler did. */
static int add_runs(struct report *r, struct report_hit *proto,
		    const struct ops_anon_sample *smp, size_t n,
		    const struct report_sym *const *syms, const char **files,
		    const uint32_t *lines, struct tid_split *ts)
{
	bool by_addr = r->opts->details;
	size_t i, j;
	int ret;

	for (i = 0; i < n; i = j) {
		for (j = i + 1;
		     j < n && syms[j] == syms[i] &&
		     (!by_addr || (smp[j].addr == smp[i].addr &&
				   (!files || files[j] == files[i]) &&
				   (!lines || lines[j] == lines[i])));
		     j++)
			;
		proto->sym = r->want_syms ? syms[i] : NULL;
		proto->vma = smp[i].addr;
		proto->file = files ? files[i] : NULL;
		proto->line = lines ? lines[i] : 0;
		ret = add_run(r, proto, smp + i, j - i, ts);
		if (ret)
			return ret;
	}
	return 0;
}

/* Where a claimed process's names go, batch by batch: straight into
 * hits, with the naming counts kept on the way. */
struct flat_sink {
	struct report *r;
	const struct ops_process *p;
	const struct ops_anon_sample *smp;
	struct anon_symcache *cache;
	const struct report_sym **syms; /* a batch's */
	size_t cap_syms;
	struct report_hit proto;
	struct anon_naming_count count;
	struct tid_split ts;
};

static int flat_proto(struct flat_sink *fs, const char *handler)
{
	struct report *r = fs->r;
	struct report_hit *proto = &fs->proto;

	proto->kind = ROW_JIT;
	proto->handler = strpool_intern(r->pool, handler ? handler : "?");
	proto->image = proto->handler
			       ? anon_rows_jit_label(r, fs->p, proto->handler)
			       : NULL;
	proto->app = strpool_intern(r->pool, fs->p->exe	   ? fs->p->exe
					     : fs->p->comm ? fs->p->comm
							   : "?");
	proto->tgid = fs->p->tgid;
	proto->cpu = -1;
	return proto->handler && proto->image && proto->app ? 0 : -ENOMEM;
}

static int flat_batch(void *ctx, const struct anon_resolved *b, size_t base,
		      size_t n)
{
	struct flat_sink *fs = ctx;
	size_t i;

	if (!fs->proto.image && flat_proto(fs, b->handler))
		return -ENOMEM;
	if (oputil_grow(&fs->syms, &fs->cap_syms, n, sizeof(*fs->syms)))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		fs->syms[i] = anon_symcache_get(fs->cache, fs->r, b->syms[i]);
		if (!fs->syms[i])
			return -ENOMEM;
	}
	anon_naming_count(&fs->count, b, n, NULL);
	return add_runs(fs->r, &fs->proto, fs->smp + base, n, fs->syms,
			b->files, b->lines, &fs->ts);
}

const char *anon_rows_jit_label(struct report *r, const struct ops_process *p,
				const char *handler)
{
	/* merged processes share the label, so that their rows of one
	 * function are one row */
	if (r->opts->merge & MERGE_TGID)
		return strpool_printf(r->pool, "jit:%s (%s)", handler,
				      p->comm ? p->comm : "?");
	return strpool_printf(r->pool, "jit:%s (tgid:%u %s)", handler, p->tgid,
			      p->comm ? p->comm : "?");
}

static int range_cmp(const void *pa, const void *pb)
{
	const struct ops_range *a = pa, *b = pb;

	return (a->start > b->start) - (a->start < b->start);
}

/* The bucket of address ADDR: the index of the range of RANGES[0..NR)
 * (sorted) that holds it, else NR.  *LO moves forward only, so that a
 * walk over sorted samples costs one pass. */
static size_t bucket_of(const struct ops_range *ranges, size_t nr, size_t *lo,
			uint64_t addr)
{
	while (*lo < nr && ranges[*lo].end <= addr)
		(*lo)++;
	return *lo < nr && ranges[*lo].start <= addr ? *lo : nr;
}

/* One bucket per anonymous range the process had; samples outside every
 * known range share one more bucket spanning them.  Without -d, a
 * bucket's samples are one hit. */
static int add_buckets(struct report *r, const struct ops_process *p,
		       const struct ops_anon_sample *smp, size_t n)
{
	struct ops_range *ranges = NULL;
	const char **labels = NULL;
	struct report_sym *syms = NULL;
	struct report_hit proto = { 0 };
	struct tid_split ts = { 0 };
	size_t i, j, b, nr = p->nr_ranges, lo = 0;
	uint64_t out_min = UINT64_MAX, out_max = 0;
	bool by_addr = r->opts->details;
	int ret = -ENOMEM;

	ranges = malloc((nr + 1) * sizeof(*ranges));
	labels = calloc(nr + 1, sizeof(*labels));
	syms = strpool_alloc(r->pool, (nr + 1) * sizeof(*syms));
	if (!ranges || !labels || !syms)
		goto out;
	if (nr)
		memcpy(ranges, p->ranges, nr * sizeof(*ranges));
	qsort(ranges, nr, sizeof(*ranges), range_cmp);
	for (i = 0; i < n; i++) {
		if (bucket_of(ranges, nr, &lo, smp[i].addr) < nr)
			continue;
		if (smp[i].addr < out_min)
			out_min = smp[i].addr;
		if (smp[i].addr >= out_max)
			out_max = smp[i].addr + 1;
	}
	ranges[nr] = (struct ops_range){ out_min, out_max };
	proto.kind = ROW_ANON;
	proto.app = strpool_intern(r->pool, p->exe    ? p->exe
					    : p->comm ? p->comm
						      : "?");
	proto.tgid = p->tgid;
	proto.cpu = -1;
	if (!proto.app)
		goto out;
	lo = 0;
	for (i = 0; i < n; i = j) {
		size_t lo_next;

		b = bucket_of(ranges, nr, &lo, smp[i].addr);
		if (!labels[b]) {
			labels[b] = strpool_printf(
				r->pool, "anon (tgid:%u range:0x%llx-0x%llx)",
				p->tgid, (unsigned long long)ranges[b].start,
				(unsigned long long)ranges[b].end);
			if (!labels[b])
				goto out;
			syms[b].name = "(no symbols)";
		}
		for (j = i + 1, lo_next = lo; j < n; j++) {
			if (by_addr && smp[j].addr != smp[i].addr)
				break;
			if (bucket_of(ranges, nr, &lo_next, smp[j].addr) != b)
				break;
		}
		proto.image = labels[b];
		proto.sym = r->want_syms ? &syms[b] : NULL;
		proto.vma = smp[i].addr;
		ret = add_run(r, &proto, smp + i, j - i, &ts);
		if (ret)
			goto out;
	}
	ret = 0;
out:
	free(ts.tids);
	free(ranges);
	free(labels);
	return ret;
}

static bool process_selected(const struct report *r,
			     const struct ops_process *p)
{
	const struct profile_spec *spec = r->opts->spec;

	if (!profile_spec_match_tgid(spec, p->tgid))
		return false;
	return !profile_spec_has_image(spec) ||
	       profile_spec_match_image(spec, p->exe ? p->exe : "") ||
	       profile_spec_match_image(spec, "anon");
}

/* Keep the first N samples of V whose thread the spec asks for; how many. */
static size_t keep_threads(const struct profile_spec *spec,
			   struct ops_anon_sample *v, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (profile_spec_match_tid(spec, v[i].tid))
			v[k++] = v[i];
	return k;
}

bool anon_rows_selected(const struct report *r, const struct ops_process *p)
{
	return process_selected(r, p);
}

int anon_rows_add(struct report *r, struct ops_session *s,
		  struct anon_handlers *handlers)
{
	uint32_t id, nr = ops_session_nr_processes(s);
	struct ops_anon_sample *sorted = NULL;
	int ret = 0;

	for (id = 0; id < nr && !ret; id++) {
		const struct ops_process *p = ops_session_process(s, id);
		struct anon_resolved res = { 0 };
		struct flat_sink fs;
		size_t hits_before;
		bool selected, shown, by_tid;
		size_t n;
		int claimed = 0;

		if (!p)
			continue;
		/* hidden samples are only counted: no memory for them */
		selected = process_selected(r, p);
		shown = r->opts->anon_samples && selected;
		/* the thread is in each sample: they are read to count */
		by_tid = selected && profile_spec_has_tid(r->opts->spec);
		if (shown || by_tid ? ops_session_anon_take(s, id, &sorted, &n)
				    : ops_session_anon_count(s, id, &n)) {
			ret = -ENOMEM;
			continue;
		}
		if (report_count_add(&r->session_total, n)) {
			free(sorted);
			return -EOVERFLOW;
		}
		if (by_tid)
			n = keep_threads(r->opts->spec, sorted, n);
		if (!n || !selected || !shown) {
			free(sorted);
			sorted = NULL;
		}
		if (!n || !selected)
			continue;
		/* parts of the session total: cannot overflow */
		report_count_add(&r->total, n);
		if (!shown) {
			report_count_add(&r->anon_hidden, n);
			continue;
		}
		anon_sort(sorted, n);
		fs = (struct flat_sink){ .r = r, .p = p, .smp = sorted };
		fs.cache = anon_symcache_new();
		hits_before = r->nr_hits;
		if (!fs.cache)
			ret = -ENOMEM;
		else if (handlers)
			claimed = anon_handlers_resolve(handlers, s, id,
							sorted, n, flat_batch,
							&fs, &res);
		/* a handler that failed has said why; its batches' hits go
		 * and the samples stay anonymous */
		if (claimed != 1)
			r->nr_hits = hits_before;
		if (!ret)
			ret = anon_naming_note(r, p, n, claimed,
					       handlers != NULL, &res,
					       &fs.count);
		if (!ret && claimed != 1)
			ret = add_buckets(r, p, sorted, n);
		anon_symcache_free(fs.cache);
		free(fs.syms);
		free(fs.ts.tids);
		free(sorted);
		sorted = NULL;
	}
	return ret;
}
