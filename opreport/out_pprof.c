// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * --format=pprof: the call graph model as a gzip-compressed profile.proto
 * (profile.proto, google/pprof's, compiled by protoc-c), the format
 * `go tool pprof`, Pyroscope, Parca and Google Cloud Profiler read.
 *
 * One function per node of the model (its source file and first line
 * when known).  One location per frame of a different function or
 * source line (the model's sites: the line executing in the leaf, the
 * line of the call in a caller), at the address of the function's
 * start, its line that site's line, 0 when not known: a location is a
 * place in the source, never the function's first line made up for it.
 * A chain of inlined functions is one location with a line per
 * function, innermost first, each at its own site, as profile.proto
 * has inlining.  One mapping per image, JIT label or anonymous bucket;
 * one sample per stack unique by site, leaf first, valued in samples
 * and in the session's event (nanoseconds of a clock event: the
 * period, or 1e9 / frequency).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile.pb-c.h"

#include <oputil/grow.h>
#include <oputil/gzip.h>
#include <oputil/hash.h>
#include <oputil/idxset.h>

#include "callgraph.h"
#include "out.h"
#include "strpool.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_value_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

/* The string table; equal strings may repeat, which readers allow. */
struct strtab {
	char **v;
	size_t n, cap;
};

static int64_t str_add(struct strtab *t, const char *s)
{
	if (!s || !*s)
		return 0;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		char **g = realloc(t->v, cap * sizeof(*g));

		if (!g)
			return -1;
		t->v = g;
		t->cap = cap;
	}
	t->v[t->n] = (char *)s;
	return (int64_t)t->n++;
}

/* The locations the stacks hold, each a frame, or a chain of inlined
 * frames, outermost first: v[l].len (node, site) pairs from
 * frames + v[l].at; location id l + 1. */
struct loc_frame {
	uint32_t node, site;
};

struct loc_table {
	struct loc_frame *frames;
	size_t nr_frames, cap_frames;
	struct loc_entry {
		size_t at;
		uint32_t len;
	} * v;
	size_t n, cap;
	struct oputil_idxset set; /* of v, by their frames */
};

static uint64_t loc_hash(const struct loc_frame *f, uint32_t len)
{
	uint64_t h = OPUTIL_HASH_SEED;
	uint32_t i;

	for (i = 0; i < len; i++)
		h = oputil_hash_word(oputil_hash_word(h, f[i].node),
				     f[i].site);
	return h ^ (h >> 31);
}

static bool loc_eq(const struct loc_frame *a, const struct loc_frame *b,
		   uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (a[i].node != b[i].node || a[i].site != b[i].site)
			return false;
	return true;
}

/* The index of the location of F[0..LEN), added when new; -1 out of
 * memory. */
static long loc_intern(struct loc_table *t, const struct loc_frame *f,
		       uint32_t len)
{
	struct oputil_idxset_pos pos;
	uint32_t i;

	i = oputil_idxset_find(&t->set, loc_hash(f, len), &pos, k,
			       t->v[k].len == len &&
				       loc_eq(t->frames + t->v[k].at, f, len));
	if (i != OPUTIL_IDXSET_NONE)
		return (long)i;
	if (oputil_grow(&t->frames, &t->cap_frames, t->nr_frames + len,
			sizeof(*t->frames)) ||
	    oputil_grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v)) ||
	    oputil_idxset_put(&t->set, &pos, (uint32_t)t->n) < 0)
		return -1;
	memcpy(t->frames + t->nr_frames, f, len * sizeof(*f));
	t->v[t->n] = (struct loc_entry){ t->nr_frames, len };
	t->nr_frames += len;
	return (long)t->n++;
}

static void loc_table_free(struct loc_table *t)
{
	free(t->frames);
	free(t->v);
	oputil_idxset_free(&t->set);
}

struct pp {
	const struct report *r;
	const struct callgraph *cg;
	struct strtab st;
	bool nomem;
	pb_profile prof;
	pb_value_type types[2], period_type;
	pb_value_type *type_ptrs[2];
	pb_mapping *maps;
	pb_mapping **map_ptrs;
	uint32_t *map_of; /* node -> mapping index */
	/* per node: the file of its sites, for a function no symbol
	 * table gave a file (one DWARF says was inlined), and whether
	 * any of its sites has a line */
	const char **node_file;
	bool *node_lines;
	pb_function *funcs;
	pb_function **func_ptrs;
	pb_location *locs;
	pb_location **loc_ptrs;
	pb_line *lines; /* one per frame of a location */
	pb_line **line_ptrs;
	struct loc_frame *chain; /* a location's frames, as it is built */
	pb_sample *samples;
	pb_sample **sample_ptrs;
	uint64_t *loc_ids; /* storage of the samples' location ids */
	int64_t *values;
	int64_t *comments; /* the command line, then the naming */
	struct loc_table lt;
};

/* Every string of the profile, escaped as a text report's names are:
 * profile.proto's strings must be UTF-8 for its readers, and pprof prints
 * them to terminals. */
static int64_t S(struct pp *pp, const char *s)
{
	int64_t i = str_add(&pp->st, out_safe(pp->r->pool, s));

	if (i < 0) {
		pp->nomem = true;
		return 0;
	}
	return i;
}

static bool clock_event(const char *ev)
{
	return ev && (!strcmp(ev, "cpu-clock") || !strcmp(ev, "task-clock"));
}

static void header(struct pp *pp)
{
	const struct ops_session_info *in = pp->r->info;
	int64_t period = (int64_t)in->period;

	if (!period && in->frequency && clock_event(in->event))
		period = (int64_t)(1000000000ull / in->frequency);
	if (!period)
		period = 1;
	perftools__profiles__value_type__init(&pp->types[0]);
	perftools__profiles__value_type__init(&pp->types[1]);
	perftools__profiles__value_type__init(&pp->period_type);
	pp->types[0].type = S(pp, "samples");
	pp->types[0].unit = S(pp, "count");
	pp->types[1].type = S(pp, in->event ? in->event : "events");
	pp->types[1].unit =
		S(pp, clock_event(in->event) ? "nanoseconds" : "count");
	pp->period_type = pp->types[1];
	pp->type_ptrs[0] = &pp->types[0];
	pp->type_ptrs[1] = &pp->types[1];
	pp->prof.n_sample_type = 2;
	pp->prof.sample_type = pp->type_ptrs;
	pp->prof.period_type = &pp->period_type;
	pp->prof.period = period;
	pp->prof.time_nanos = in->start_unix_ns;
	if (in->stop_ns > in->start_ns)
		pp->prof.duration_nanos =
			(int64_t)(in->stop_ns - in->start_ns);
}

/* The command line, then one comment a process on how its anonymous
 * frames were named (`go tool pprof -comments` shows them). */
static int comments(struct pp *pp)
{
	const struct report *r = pp->r;
	char *line = NULL;
	size_t i, len, n = 0;

	pp->comments = malloc((2 + r->nr_naming) * sizeof(*pp->comments));
	if (!pp->comments)
		return -ENOMEM;
	if (r->info->command_line)
		pp->comments[n++] = S(pp, r->info->command_line);
	/* a file read far from this command line must say what it lacks */
	if (r->anon_hidden) {
		char note[256];
		const char *kept;

		out_anon_hidden_note(note, sizeof(note), r);
		kept = strpool_intern(r->pool, note);
		if (!kept)
			return -ENOMEM;
		pp->comments[n++] = S(pp, kept);
	}
	for (i = 0; i < r->nr_naming; i++) {
		FILE *m = open_memstream(&line, &len);
		const char *kept;

		if (!m)
			return -ENOMEM;
		fprintf(m, "names of anonymous %ss: ", report_naming_unit(r));
		out_naming_line(m, r, &r->naming[i]);
		if (fclose(m)) {
			free(line);
			return -ENOMEM;
		}
		kept = strpool_intern(r->pool, line);
		free(line);
		line = NULL;
		if (!kept)
			return -ENOMEM;
		pp->comments[n++] = S(pp, kept);
	}
	pp->prof.n_comment = n;
	pp->prof.comment = pp->comments;
	return 0;
}

/* Nodes by their image's name (interned: one name, one pointer), the
 * unknown last: by the names, not the pointers, so that the mappings'
 * order does not follow where a report's allocations fell. */
static int node_image_cmp_cg(const struct callgraph *cg, uint32_t a,
			     uint32_t b)
{
	const char *x = cg->nodes[a].image, *y = cg->nodes[b].image;

	if (x == y)
		return 0;
	if (!x || !y)
		return !x - !y;
	return strcmp(x, y);
}

static const struct callgraph *sort_cg; /* qsort has no argument */

static int by_image(const void *pa, const void *pb)
{
	return node_image_cmp_cg(sort_cg, *(const uint32_t *)pa,
				 *(const uint32_t *)pb);
}

static const char *build_id_hex(struct pp *pp, uint32_t image_id)
{
	const struct ops_image *img;
	char hex[2 * OPS_BUILD_ID_MAX + 1];
	size_t i;

	if (image_id == CG_NONE || !pp->r->session ||
	    !(img = ops_session_image(pp->r->session, image_id)) ||
	    !img->build_id_size)
		return NULL;
	for (i = 0; i < img->build_id_size && i < OPS_BUILD_ID_MAX; i++)
		snprintf(hex + 2 * i, 3, "%02x", img->build_id[i]);
	return strpool_intern(pp->r->pool, hex);
}

/* What the sites of the stacks say of each node's source. */
static int node_sites(struct pp *pp)
{
	const struct callgraph *cg = pp->cg;
	size_t i, nn = cg->nr_nodes ? cg->nr_nodes : 1;
	uint32_t j;

	pp->node_file = calloc(nn, sizeof(*pp->node_file));
	pp->node_lines = calloc(nn, sizeof(*pp->node_lines));
	if (!pp->node_file || !pp->node_lines)
		return -ENOMEM;
	for (i = 0; i < cg->nr_site_stacks; i++) {
		const struct cg_stack *st = &cg->site_stacks[i];

		for (j = 0; j < st->depth; j++) {
			const struct cg_site *at = &cg->sites[st->sites[j]];

			if (!pp->node_file[st->frames[j]])
				pp->node_file[st->frames[j]] = at->file;
			pp->node_lines[st->frames[j]] |= at->line != 0;
		}
	}
	return 0;
}

/* One mapping per image: nodes grouped by their interned image. */
static int mappings(struct pp *pp)
{
	const struct callgraph *cg = pp->cg;
	size_t i, j, nm = 0, nn = cg->nr_nodes;
	uint32_t *order;

	order = malloc((nn ? nn : 1) * sizeof(*order));
	pp->maps = calloc(nn ? nn : 1, sizeof(*pp->maps));
	pp->map_ptrs = calloc(nn ? nn : 1, sizeof(*pp->map_ptrs));
	pp->map_of = calloc(nn ? nn : 1, sizeof(*pp->map_of));
	if (!order || !pp->maps || !pp->map_ptrs || !pp->map_of) {
		free(order);
		return -ENOMEM;
	}
	for (i = 0; i < nn; i++)
		order[i] = (uint32_t)i;
	sort_cg = cg;
	qsort(order, nn, sizeof(*order), by_image);
	for (i = 0; i < nn; i = j) {
		const struct cg_node *n = &cg->nodes[order[i]];
		pb_mapping *m = &pp->maps[nm];
		uint64_t lo = UINT64_MAX, hi = 0;
		bool lines = false;

		perftools__profiles__mapping__init(m);
		for (j = i;
		     j < nn && !node_image_cmp_cg(cg, order[i], order[j]);
		     j++) {
			const struct report_sym *s = cg->nodes[order[j]].sym;

			pp->map_of[order[j]] = (uint32_t)nm;
			if (s && s->has_vma) {
				lo = s->vma < lo ? s->vma : lo;
				hi = s->vma + 1 > hi ? s->vma + 1 : hi;
			}
			lines |= (s && s->file && s->line) ||
				 pp->node_lines[order[j]];
		}
		m->id = nm + 1;
		m->memory_start = lo == UINT64_MAX ? 0 : lo;
		m->memory_limit = hi;
		m->filename = S(pp, n->image ? n->image : "[unknown]");
		m->build_id = S(pp, build_id_hex(pp, n->image_id));
		m->has_functions = 1;
		m->has_filenames = lines;
		m->has_line_numbers = lines;
		pp->map_ptrs[nm++] = m;
	}
	free(order);
	pp->prof.n_mapping = nm;
	pp->prof.mapping = pp->map_ptrs;
	return 0;
}

/* A function per node; ids are node + 1. */
static int functions(struct pp *pp)
{
	const struct callgraph *cg = pp->cg;
	size_t i, nn = cg->nr_nodes ? cg->nr_nodes : 1;

	pp->funcs = calloc(nn, sizeof(*pp->funcs));
	pp->func_ptrs = calloc(nn, sizeof(*pp->func_ptrs));
	if (!pp->funcs || !pp->func_ptrs)
		return -ENOMEM;
	for (i = 0; i < cg->nr_nodes; i++) {
		const struct cg_node *n = &cg->nodes[i];
		const struct report_sym *s = n->sym;
		const char *name = s && s->name ? s->name : "(no symbols)";
		pb_function *fn = &pp->funcs[i];

		perftools__profiles__function__init(fn);
		fn->id = i + 1;
		fn->name = S(pp, name);
		fn->system_name = fn->name;
		if (s && s->file && s->line) {
			fn->filename = S(pp, s->file);
			fn->start_line = s->line;
		} else {
			/* where its lines are, so that -list finds them;
			 * its first line stays unknown */
			fn->filename = S(pp, pp->node_file[i]);
		}
		pp->func_ptrs[i] = fn;
	}
	pp->prof.n_function = cg->nr_nodes;
	pp->prof.function = pp->func_ptrs;
	return 0;
}

/* The location id of the frames of ST from J, a frame not inlined into
 * the one before it, to the next such frame, which goes in *END. */
static uint64_t location_of(struct pp *pp, const struct cg_stack *st,
			    uint32_t j, uint32_t *end)
{
	uint32_t k, e = j + 1;
	long l;

	while (e < st->depth && st->inlined[e])
		e++;
	*end = e;
	for (k = j; k < e; k++)
		pp->chain[k - j] =
			(struct loc_frame){ st->frames[k], st->sites[k] };
	l = loc_intern(&pp->lt, pp->chain, e - j);
	if (l < 0) {
		pp->nomem = true;
		return 0;
	}
	return 1 + (uint64_t)l;
}

static int samples(struct pp *pp)
{
	const struct callgraph *cg = pp->cg;
	size_t i, nf = 0, ns = cg->nr_site_stacks ? cg->nr_site_stacks : 1;
	uint32_t depth = 1;
	uint64_t *ids;

	for (i = 0; i < cg->nr_site_stacks; i++) {
		nf += cg->site_stacks[i].depth;
		if (cg->site_stacks[i].depth > depth)
			depth = cg->site_stacks[i].depth;
	}
	pp->samples = calloc(ns, sizeof(*pp->samples));
	pp->sample_ptrs = calloc(ns, sizeof(*pp->sample_ptrs));
	pp->loc_ids = calloc(nf ? nf : 1, sizeof(*pp->loc_ids));
	pp->values = calloc(2 * ns, sizeof(*pp->values));
	pp->chain = calloc(depth, sizeof(*pp->chain));
	if (!pp->samples || !pp->sample_ptrs || !pp->loc_ids || !pp->values ||
	    !pp->chain)
		return -ENOMEM;
	ids = pp->loc_ids;
	for (i = 0; i < cg->nr_site_stacks; i++) {
		const struct cg_stack *st = &cg->site_stacks[i];
		pb_sample *s = &pp->samples[i];
		uint32_t j, e, n = 0;

		perftools__profiles__sample__init(s);
		for (j = 0; j < st->depth; j = e)
			ids[n++] = location_of(pp, st, j, &e);
		/* pprof wants the leaf first */
		for (j = 0; j < n / 2; j++) {
			uint64_t t = ids[j];

			ids[j] = ids[n - 1 - j];
			ids[n - 1 - j] = t;
		}
		s->n_location_id = n;
		s->location_id = ids;
		ids += n;
		s->n_value = 2;
		s->value = &pp->values[2 * i];
		s->value[0] = (int64_t)st->count;
		s->value[1] = (int64_t)st->count * pp->prof.period;
		pp->sample_ptrs[i] = s;
	}
	pp->prof.n_sample = cg->nr_site_stacks;
	pp->prof.sample = pp->sample_ptrs;
	return 0;
}

/* The locations the samples hold: at the outermost function's start, a
 * line per function, innermost first (the last is the function the
 * others were inlined into), each its frame's site line. */
static int locations(struct pp *pp)
{
	const struct loc_table *t = &pp->lt;
	const struct callgraph *cg = pp->cg;
	size_t k, i, nl = t->n ? t->n : 1,
		     nf = t->nr_frames ? t->nr_frames : 1;

	pp->locs = calloc(nl, sizeof(*pp->locs));
	pp->loc_ptrs = calloc(nl, sizeof(*pp->loc_ptrs));
	pp->lines = calloc(nf, sizeof(*pp->lines));
	pp->line_ptrs = calloc(nf, sizeof(*pp->line_ptrs));
	if (!pp->locs || !pp->loc_ptrs || !pp->lines || !pp->line_ptrs)
		return -ENOMEM;
	for (k = 0; k < t->n; k++) {
		const struct loc_frame *f = t->frames + t->v[k].at;
		const uint32_t len = t->v[k].len;
		const struct report_sym *outer = cg->nodes[f[0].node].sym;
		pb_location *loc = &pp->locs[k];
		pb_line **lines = pp->line_ptrs + t->v[k].at;

		perftools__profiles__location__init(loc);
		loc->id = k + 1;
		loc->mapping_id = pp->map_of[f[0].node] + 1;
		loc->address = outer && outer->has_vma ? outer->vma : 0;
		for (i = 0; i < len; i++) {
			pb_line *ln = &pp->lines[t->v[k].at + i];
			const struct loc_frame *fi = &f[len - 1 - i];

			perftools__profiles__line__init(ln);
			ln->function_id = fi->node + 1;
			ln->line = cg->sites[fi->site].line;
			lines[i] = ln;
		}
		loc->n_line = len;
		loc->line = lines;
		pp->loc_ptrs[k] = loc;
	}
	pp->prof.n_location = t->n;
	pp->prof.location = pp->loc_ptrs;
	return 0;
}

static int file_put(void *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -EIO;
}

static void pp_free(struct pp *pp)
{
	free(pp->st.v);
	free(pp->maps);
	free(pp->map_ptrs);
	free(pp->map_of);
	free(pp->node_file);
	free(pp->node_lines);
	free(pp->funcs);
	free(pp->func_ptrs);
	free(pp->locs);
	free(pp->loc_ptrs);
	free(pp->lines);
	free(pp->line_ptrs);
	free(pp->samples);
	free(pp->sample_ptrs);
	free(pp->loc_ids);
	free(pp->values);
	free(pp->comments);
	free(pp->chain);
	loc_table_free(&pp->lt);
}

int out_pprof(FILE *f, const struct report *r)
{
	struct pp pp = { .r = r, .cg = r->cg };
	uint8_t *buf = NULL;
	size_t len;
	int ret;

	perftools__profiles__profile__init(&pp.prof);
	/* index 0 of the string table is always "" */
	if (str_add(&pp.st, "-") < 0)
		return -ENOMEM;
	pp.st.v[0] = "";
	header(&pp);
	ret = comments(&pp);
	if (!ret)
		ret = node_sites(&pp);
	if (!ret)
		ret = mappings(&pp);
	if (!ret)
		ret = functions(&pp);
	if (!ret)
		ret = samples(&pp);
	if (!ret)
		ret = locations(&pp);
	if (!ret && pp.nomem)
		ret = -ENOMEM;
	if (ret)
		goto out;
	pp.prof.n_string_table = pp.st.n;
	pp.prof.string_table = pp.st.v;
	len = perftools__profiles__profile__get_packed_size(&pp.prof);
	buf = malloc(len ? len : 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	perftools__profiles__profile__pack(&pp.prof, buf);
	/* gzip, as pprof expects */
	ret = oputil_gzip(buf, len, file_put, f);
	if (!ret && (fflush(f) || ferror(f)))
		ret = -EIO;
out:
	free(buf);
	pp_free(&pp);
	return ret;
}
