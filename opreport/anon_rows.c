// SPDX-License-Identifier: GPL-3.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon_rows.h"
#include "spec.h"
#include "anon_sort.h"
#include "strpool.h"

static int ptr_cmp(const void *pa, const void *pb)
{
	uintptr_t a = (uintptr_t) * (const void *const *)pa;
	uintptr_t b = (uintptr_t) * (const void *const *)pb;

	return (a > b) - (a < b);
}

struct sym_map {
	const struct anon_symbol **keys; /* sorted, unique */
	struct report_sym *syms;
	size_t n;
};

static int sym_map_build(struct sym_map *m, struct strpool *pool,
			 const struct anon_symbol **in, size_t n)
{
	size_t i, k = 0;

	m->keys = malloc((n ? n : 1) * sizeof(*m->keys));
	if (!m->keys)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (in[i])
			m->keys[k++] = in[i];
	qsort(m->keys, k, sizeof(*m->keys), ptr_cmp);
	for (i = m->n = 0; i < k; i++)
		if (!m->n || m->keys[m->n - 1] != m->keys[i])
			m->keys[m->n++] = m->keys[i];
	m->syms = strpool_alloc(pool, (m->n + 1) * sizeof(*m->syms));
	if (!m->syms)
		return -ENOMEM;
	for (i = 0; i < m->n; i++) {
		const struct anon_symbol *a = m->keys[i];
		struct report_sym *s = &m->syms[i];

		s->name = a->name ? a->name : "(unknown)";
		s->vma = a->start;
		s->size = a->size;
		s->file = a->file;
		s->line = a->line;
		s->has_vma = true;
		s->referenced = true;
	}
	return 0;
}

static const struct report_sym *sym_map_get(const struct sym_map *m,
					    const struct anon_symbol *key)
{
	const struct anon_symbol **hit =
		bsearch(&key, m->keys, m->n, sizeof(*m->keys), ptr_cmp);

	return hit ? &m->syms[hit - m->keys] : NULL;
}

/* Add runs of equal (symbol, address, line) as one hit each; without
 * -d, only the symbol matters: a row of a million addresses is then one
 * hit, not a million. */
static int add_runs(struct report *r, struct report_hit *proto,
		    const struct ops_anon_sample *smp, size_t n,
		    const struct report_sym *const *syms, const char **files,
		    const uint32_t *lines)
{
	bool by_addr = r->opts->details;
	size_t i, j;
	int ret;

	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && syms[j] == syms[i] &&
				(!by_addr ||
				 (smp[j].addr == smp[i].addr &&
				  (!files || files[j] == files[i]) &&
				  (!lines || lines[j] == lines[i])));
		     j++)
			;
		proto->sym = r->want_syms ? syms[i] : NULL;
		proto->vma = smp[i].addr;
		proto->count = j - i;
		proto->file = files ? files[i] : NULL;
		proto->line = lines ? lines[i] : 0;
		ret = report_add_hit(r, proto);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * One line per process whose JIT samples were not all named, with the
 * handler's reasons, so that an "(unknown)" row is never silent:
 * "opreport: tgid 4242 (node): 120 of 5000 JIT samples unnamed: 100 no
 * entry, 20 before load".
 */
static void warn_unnamed(const struct report_naming *nm)
{
	uint64_t unnamed = nm->samples - nm->named;
	bool first = true;
	uint32_t i;

	fprintf(stderr, "opreport: tgid %u (%s): %" PRIu64 " of %" PRIu64
		" JIT samples unnamed:", nm->tgid, nm->comm, unnamed,
		nm->samples);
	/* the handler's reasons first, "no reason given" last */
	for (i = 1; i <= REPORT_NR_REASONS; i++) {
		uint32_t r = i % REPORT_NR_REASONS;

		if (!nm->unnamed[r])
			continue;
		fprintf(stderr, "%s %" PRIu64 " %s", first ? "" : ",",
			nm->unnamed[r], anon_reason_text(r));
		first = false;
	}
	fputc('\n', stderr);
}

/* What became of the N shown anonymous samples of P: CLAIMED is
 * anon_handlers_resolve()'s answer, or 0 without handlers. */
static int note_naming(struct report *r, const struct ops_process *p,
		       size_t n, int claimed, bool handlers,
		       const struct anon_resolved *res)
{
	struct report_naming *nm = report_naming_add(r, p);
	size_t i;

	if (!nm)
		return -ENOMEM;
	nm->samples = n;
	if (claimed == 1) {
		nm->status = NAMING_CLAIMED;
		nm->handler = strpool_intern(r->pool, res->handler);
		for (i = 0; i < n; i++) {
			if (res->syms && res->syms[i])
				nm->named++;
			else
				nm->unnamed[res->reasons &&
					    res->reasons[i] < REPORT_NR_REASONS ?
					    res->reasons[i] : 0]++;
		}
	} else if (claimed < 0) {
		nm->status = NAMING_FAILED;
		nm->handler = res->handler ?
			strpool_intern(r->pool, res->handler) : NULL;
	} else if (res->map_refused) {
		nm->status = NAMING_MAP_REFUSED;
		nm->unnamed[ANON_REASON_MAP_REFUSED] = n;
		nm->why = res->refused_why && res->refused_why[0] ?
			strpool_intern(r->pool, res->refused_why) : NULL;
	} else if (res->declined_why) {
		nm->status = NAMING_UNREADABLE;
		nm->why = strpool_intern(r->pool, res->declined_why);
	} else {
		nm->status = handlers ? NAMING_UNCLAIMED : NAMING_NO_HANDLER;
	}
	if (nm->named < n && (nm->status == NAMING_CLAIMED ||
			      nm->status == NAMING_MAP_REFUSED))
		warn_unnamed(nm);
	return 0;
}

int anon_rows_syms(struct report *r, const struct anon_resolved *res,
		   size_t n, const struct report_sym **syms)
{
	struct report_sym *unknown;
	struct sym_map map = { 0 };
	size_t i;
	int ret = -ENOMEM;

	unknown = strpool_alloc(r->pool, sizeof(*unknown));
	if (!unknown || sym_map_build(&map, r->pool, res->syms, n))
		goto out;
	unknown->name = "(unknown)";
	for (i = 0; i < n; i++) {
		const struct report_sym *s =
			res->syms[i] ? sym_map_get(&map, res->syms[i]) : NULL;

		syms[i] = s ? s : unknown;
	}
	ret = 0;
out:
	free(map.keys);
	return ret;
}

static int add_claimed(struct report *r, const struct ops_process *p,
		       const struct ops_anon_sample *smp, size_t n,
		       const struct anon_resolved *res)
{
	const struct report_sym **syms = NULL;
	struct report_hit proto = { 0 };
	int ret = -ENOMEM;

	syms = malloc((n ? n : 1) * sizeof(*syms));
	if (!syms || anon_rows_syms(r, res, n, syms))
		goto out;
	proto.kind = ROW_JIT;
	proto.handler = strpool_intern(r->pool, res->handler ? res->handler :
					       "?");
	proto.image = anon_rows_jit_label(r, p, proto.handler);
	proto.app = strpool_intern(r->pool, p->exe ? p->exe :
					    p->comm ? p->comm : "?");
	proto.tgid = p->tgid;
	proto.cpu = -1;
	if (!proto.handler || !proto.image || !proto.app)
		goto out;
	ret = add_runs(r, &proto, smp, n, syms, res->files, res->lines);
out:
	free(syms);
	return ret;
}

const char *anon_rows_jit_label(struct report *r, const struct ops_process *p,
				const char *handler)
{
	return strpool_printf(r->pool, "jit:%s (tgid:%u %s)", handler,
			      p->tgid, p->comm ? p->comm : "?");
}

static int range_cmp(const void *pa, const void *pb)
{
	const struct ops_range *a = pa, *b = pb;

	return (a->start > b->start) - (a->start < b->start);
}

/* The bucket of address ADDR: the index of the range of RANGES[0..NR)
 * (sorted) that holds it, else NR.  *LO moves forward only, so that a
 * walk over sorted samples costs one pass. */
static size_t bucket_of(const struct ops_range *ranges, size_t nr,
			size_t *lo, uint64_t addr)
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
	proto.app = strpool_intern(r->pool, p->exe ? p->exe :
					    p->comm ? p->comm : "?");
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
		proto.count = j - i;
		ret = report_add_hit(r, &proto);
		if (ret)
			goto out;
	}
	ret = 0;
out:
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
		bool selected, shown;
		size_t n;
		int claimed = 0;

		if (!p)
			continue;
		/* hidden samples are only counted: no memory for them */
		selected = process_selected(r, p);
		shown = r->opts->anon_samples && selected;
		if (shown ? ops_session_anon_take(s, id, &sorted, &n) :
			    ops_session_anon_count(s, id, &n)) {
			ret = -ENOMEM;
			continue;
		}
		if (report_count_add(&r->session_total, n)) {
			free(sorted);
			return -EOVERFLOW;
		}
		if (!n || !selected) {
			free(sorted);
			sorted = NULL;
			continue;
		}
		/* parts of the session total: cannot overflow */
		report_count_add(&r->total, n);
		if (!shown) {
			report_count_add(&r->anon_hidden, n);
			continue;
		}
		anon_sort(sorted, n);
		if (handlers)
			claimed = anon_handlers_resolve(handlers, s, id,
							sorted, n, &res);
		ret = note_naming(r, p, n, claimed, handlers != NULL, &res);
		/* a handler that failed has said why; keep the samples */
		if (!ret && claimed == 1)
			ret = add_claimed(r, p, sorted, n, &res);
		else if (!ret)
			ret = add_buckets(r, p, sorted, n);
		free(sorted);
		sorted = NULL;
	}
	return ret;
}
