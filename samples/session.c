// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The reader's entry point: a session directory opened as a whole.  Only
 * a missing or unreadable session.meta is an error; every data file is
 * read up to its first damage, with one warning.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <oputil/grow.h>

#include "block_internal.h"
#include "fileio_internal.h"
#include "meta_internal.h"
#include "reader_internal.h"

struct ops_maplist {
	char **paths;
	size_t n, cap;
};

struct ops_session {
	char *dir;
	struct ops_meta meta;
	struct ops_hist_data hist;
	struct ops_anon_data anon;
	char *kallsyms, *modules;
	struct ops_maplist *maps; /* one per process */
};

/* Read the container file DIR/NAME up to its first damage; a missing or
 * unreadable file is a warning, not an error. */
static int session_read(struct ops_session *s, const char *name,
			const char magic[8], ops_warn_fn warn, void *warn_arg,
			uint8_t **buf, size_t *len, char **path)
{
	int ret;

	*buf = NULL;
	*len = 0;
	*path = ops_strfmt("%s/%s", s->dir, name);
	if (!*path)
		return -ENOMEM;
	ret = ops_blocks_read(*path, magic, buf, len);
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		ops_warnf(warn, warn_arg, "cannot read %s: %s", *path,
			  ops_file_strerror(ret));
	return 0;
}

/* DIR/NAME when it exists, whatever it is: its reader says what is wrong
 * with it, and only a missing file reads as absent. */
static char *session_optional(struct ops_session *s, const char *name)
{
	char *p = ops_strfmt("%s/%s", s->dir, name);
	struct stat st;

	if (p && lstat(p, &st) && errno == ENOENT) {
		free(p);
		p = NULL;
	}
	return p;
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A plain copy whose compressed trim is there too is one a recorder
 * stopped between the two (FORMAT.md): the trim serves. */
static void maplist_drop_replaced(struct ops_maplist *m)
{
	size_t i, j, k = 0, n;

	for (i = 0; i < m->n; i++) {
		n = strlen(m->paths[i]);
		for (j = 0; j < m->n; j++)
			if (m->paths[j] &&
			    !strncmp(m->paths[j], m->paths[i], n) &&
			    !strcmp(m->paths[j] + n, OPS_ARCHIVE_SUFFIX))
				break;
		if (j < m->n) {
			free(m->paths[i]);
			m->paths[i] = NULL;
		}
	}
	for (i = 0; i < m->n; i++)
		if (m->paths[i])
			m->paths[k++] = m->paths[i];
	m->n = k;
}

/* DIR/maps/<proc id>/<name>: the archived copies, dot files (copies in
 * progress) left out. */
static int session_scan_maps(struct ops_session *s, uint32_t id)
{
	struct ops_maplist *m = &s->maps[id];
	char *dir = ops_strfmt("%s/maps/%u", s->dir, id), *p;
	struct dirent *de;
	struct stat st;
	char **v;
	DIR *d;
	int ret = 0;

	if (!dir)
		return -ENOMEM;
	d = opendir(dir);
	if (!d)
		goto out;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		p = ops_strfmt("%s/%s", dir, de->d_name);
		if (!p) {
			ret = -ENOMEM;
			break;
		}
		if (lstat(p, &st) || !S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		ret = oputil_grow(&m->paths, &m->cap, m->n + 1, sizeof(*v));
		if (ret) {
			free(p);
			break;
		}
		m->paths[m->n++] = p;
	}
	closedir(d);
	maplist_drop_replaced(m);
	if (m->n)
		qsort(m->paths, m->n, sizeof(*m->paths), path_cmp);
out:
	free(dir);
	return ret;
}

/* session.meta holds the totals as of a clean stop; a recorder that did
 * not stop cleanly left them, as of its last flush, in samples.hist. */
static void session_take_totals(struct ops_session_info *i,
				const struct ops_hist_data *h)
{
	if (i->stop_ns || !h->have_totals)
		return;
	i->samples = h->totals.samples;
	i->samples_lost = h->totals.samples_lost;
	i->samples_unattributed = h->totals.samples_unattributed;
	i->samples_anon = h->totals.samples_anon;
	i->samples_kernel = h->totals.samples_kernel;
	i->processes = h->totals.processes;
}

/* anon.samples, indexed and kept open: a process's samples are read
 * when asked for.  A file that cannot be read is a warning, and the
 * session reads without it (or with what was read of it).  0, or
 * -ENOMEM with ERR set. */
static int session_open_anon(struct ops_session *s, ops_warn_fn warn,
			     void *warn_arg, char *err, size_t errlen)
{
	char *path = ops_strfmt("%s/anon.samples", s->dir);
	struct stat st;
	int fd, ret;

	if (!path)
		goto nomem;
	fd = ops_file_open(path, UINT64_MAX, &st);
	if (fd == -ENOMEM)
		goto nomem;
	if (fd < 0) {
		ops_warnf(warn, warn_arg, "cannot read %s: %s", path,
			  ops_file_strerror(fd));
		fd = -1; /* a session without anonymous samples */
	}
	ret = ops_anon_open(&s->anon, fd, path, warn, warn_arg);
	if (ret == -ENOMEM)
		goto nomem;
	/* what was read before the error still reads */
	if (ret)
		ops_warnf(warn, warn_arg, "cannot read %s: %s", path,
			  strerror(-ret));
	free(path);
	return 0;
nomem:
	snprintf(err, errlen, "cannot read %s: out of memory", s->dir);
	free(path);
	return -ENOMEM;
}

/* In *PERIOD the period of event EVENT from LIST (session.meta's
 * event_periods: NR u64 values, comma separated); -EINVAL when LIST is
 * not that. */
static int session_event_period(const char *list, uint32_t nr, uint32_t event,
				uint64_t *period)
{
	uint32_t i = 0;
	uint64_t v = 0;
	size_t digits = 0;

	for (;; list++) {
		if (*list >= '0' && *list <= '9') {
			if (v > (UINT64_MAX - (uint64_t)(*list - '0')) / 10)
				return -EINVAL;
			v = v * 10 + (uint64_t)(*list - '0');
			digits++;
			continue;
		}
		if ((*list != ',' && *list) || !digits || i >= nr)
			return -EINVAL;
		if (i == event)
			*period = v;
		i++;
		v = 0;
		digits = 0;
		if (!*list)
			break;
	}
	return i == nr ? 0 : -EINVAL;
}

static int session_load(struct ops_session *s, ops_warn_fn warn,
			void *warn_arg, char *err, size_t errlen)
{
	uint8_t *buf = NULL;
	char *path = NULL;
	bool have_maps;
	uint64_t period;
	size_t len;
	uint32_t i;
	int ret;

	path = ops_strfmt("%s/session.meta", s->dir);
	if (!path)
		goto nomem;
	ret = ops_file_read(path, OPS_META_MAX, (char **)&buf, &len);
	if (ret) {
		snprintf(err, errlen, "cannot read %s: %s", path,
			 ret == -ENOENT
				 ? "not an opjit session (no session.meta)"
				 : ops_file_strerror(ret));
		goto out;
	}
	ret = ops_meta_parse((const char *)buf, len, path, &s->meta, err,
			     errlen);
	free(buf);
	buf = NULL;
	if (ret)
		goto out;
	free(path);

	ret = session_read(s, "samples.hist", OPS_HIST_MAGIC, warn, warn_arg,
			   &buf, &len, &path);
	if (!ret && buf)
		ret = ops_hist_parse(&s->hist, buf, len, path, warn, warn_arg);
	if (!ret && buf &&
	    ops_hist_events_check(&s->hist, ops_session_nr_events(s)) &&
	    warn) {
		char msg[512];

		snprintf(msg, sizeof(msg),
			 "%s: bad context event record (an event past the %u "
			 "of session.meta): all read as the first",
			 path, ops_session_nr_events(s));
		warn(warn_arg, msg);
	}
	if (*s->meta.event_periods &&
	    session_event_period(s->meta.event_periods,
				 ops_session_nr_events(s), 0, &period)) {
		ops_warnf(warn, warn_arg,
			  "%s/session.meta: bad event_periods '%s' for %u "
			  "events: each read as the session's period",
			  s->dir, s->meta.event_periods,
			  ops_session_nr_events(s));
		s->meta.event_periods[0] = '\0';
	}
	free(buf);
	buf = NULL;
	free(path);
	path = NULL;
	if (ret)
		goto nomem;
	session_take_totals(&s->meta.info, &s->hist);

	ret = session_open_anon(s, warn, warn_arg, err, errlen);
	if (ret)
		goto out;
	s->anon.nr_stacks = s->hist.nr_stacks;
	s->anon.stack_nodes = s->hist.nodes;
	s->anon.stack_frames = s->hist.frames;
	if (s->meta.info.format_version >= OPS_FORMAT_VERSION_DELTAS) {
		/* empty when samples.hist has none: every id then lacks one */
		static const uint32_t none;

		s->anon.stack_ids = s->hist.delta_node ? s->hist.delta_node
						       : &none;
		s->anon.nr_stack_ids = s->hist.nr_deltas;
	}
	if (s->anon.max_event >= ops_session_nr_events(s))
		ops_warnf(warn, warn_arg,
			  "%s/anon.samples: offset %llu: samples of event %u, "
			  "past the %u of session.meta: left out",
			  s->dir, (unsigned long long)s->anon.max_event_off,
			  s->anon.max_event, ops_session_nr_events(s));

	s->kallsyms = session_optional(s, "kallsyms");
	s->modules = session_optional(s, "modules");
	s->maps = calloc(s->anon.nr_procs ? s->anon.nr_procs : 1,
			 sizeof(*s->maps));
	if (!s->maps)
		goto nomem;
	free(path);
	path = ops_strfmt("%s/maps", s->dir);
	if (!path)
		goto nomem;
	/* most sessions archive nothing: one look instead of one per process */
	have_maps = !access(path, F_OK);
	for (i = 0; have_maps && i < s->anon.nr_procs; i++)
		if (session_scan_maps(s, i))
			goto nomem;
	ret = 0;
	goto out;
nomem:
	ret = -ENOMEM;
	snprintf(err, errlen, "cannot read %s: out of memory", s->dir);
out:
	free(buf);
	free(path);
	return ret;
}

int ops_session_open(struct ops_session **out, const char *dir,
		     ops_warn_fn warn, void *warn_arg, char *err,
		     size_t errlen)
{
	struct ops_session *s;
	char why[256];
	int dfd, ret;

	*out = NULL;
	/* the directory is checked the way the recorder makes it: a link
	 * another user owns is not followed */
	dfd = ops_dir_open(dir, why, sizeof(why));
	if (dfd < 0) {
		snprintf(err, errlen, "cannot open session %s: %s", dir,
			 dfd == -ENOTDIR ? strerror(ENOTDIR) : why);
		return dfd;
	}
	close(dfd);
	s = calloc(1, sizeof(*s));
	if (!s || !(s->dir = strdup(dir))) {
		free(s);
		snprintf(err, errlen, "cannot open session %s: out of memory",
			 dir);
		return -ENOMEM;
	}
	s->anon.fd = -1;
	ret = session_load(s, warn, warn_arg, err, errlen);
	if (ret) {
		ops_session_close(s);
		return ret;
	}
	*out = s;
	return 0;
}

void ops_session_close(struct ops_session *s)
{
	uint32_t i;
	size_t j;

	if (!s)
		return;
	for (i = 0; s->maps && i < s->anon.nr_procs; i++) {
		for (j = 0; j < s->maps[i].n; j++)
			free(s->maps[i].paths[j]);
		free(s->maps[i].paths);
	}
	free(s->maps);
	ops_anon_data_free(&s->anon);
	ops_hist_data_free(&s->hist);
	ops_meta_free(&s->meta);
	free(s->kallsyms);
	free(s->modules);
	free(s->dir);
	free(s);
}

const char *ops_session_dir(const struct ops_session *s)
{
	return s->dir;
}

const struct ops_session_info *ops_session_info(const struct ops_session *s)
{
	return &s->meta.info;
}

uint32_t ops_session_nr_images(const struct ops_session *s)
{
	return s->hist.nr_images;
}

const struct ops_image *ops_session_image(const struct ops_session *s,
					  uint32_t id)
{
	return id < s->hist.nr_images ? &s->hist.images[id] : NULL;
}

uint32_t ops_session_nr_contexts(const struct ops_session *s)
{
	return s->hist.nr_contexts;
}

uint32_t ops_session_nr_events(const struct ops_session *s)
{
	uint32_t n = 1;

	for (const char *e = s->meta.info.event; e && *e; e++)
		n += *e == ',';
	return n;
}

int ops_session_event_name(const struct ops_session *s, uint32_t event,
			   char *buf, size_t size)
{
	const char *e = s->meta.info.event ? s->meta.info.event : "";
	size_t n;

	while (event--) {
		e = strchr(e, ',');
		if (!e)
			return -ENOENT;
		e++;
	}
	n = strcspn(e, ",");
	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(buf, e, n);
	buf[n] = '\0';
	return 0;
}

const struct ops_context *ops_session_context(const struct ops_session *s,
					      uint32_t id)
{
	return id < s->hist.nr_contexts ? &s->hist.contexts[id] : NULL;
}

const struct ops_thread *ops_session_threads(const struct ops_session *s,
					     size_t *n)
{
	*n = s->hist.nr_threads;
	return s->hist.threads;
}

const char *ops_session_thread_name(const struct ops_session *s, uint32_t tgid,
				    uint32_t tid)
{
	size_t lo = 0, hi = s->hist.nr_threads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ops_thread *t = &s->hist.threads[mid];

		if (t->tgid == tgid && t->tid == tid)
			return t->name;
		if (t->tgid < tgid || (t->tgid == tgid && t->tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct ops_hist_entry *ops_session_hist(const struct ops_session *s,
					      size_t *n)
{
	*n = s->hist.nr_entries;
	return s->hist.entries;
}

uint32_t ops_session_nr_processes(const struct ops_session *s)
{
	return s->anon.nr_procs;
}

const struct ops_process *ops_session_process(const struct ops_session *s,
					      uint32_t proc_id)
{
	return proc_id < s->anon.nr_procs ? &s->anon.procs[proc_id].p : NULL;
}

int ops_session_anon(struct ops_session *s, uint32_t proc_id,
		     const struct ops_anon_sample **samples, size_t *n)
{
	return ops_anon_decode(&s->anon, proc_id, samples, n);
}

int ops_session_anon_count(struct ops_session *s, uint32_t proc_id, size_t *n)
{
	return ops_anon_count(&s->anon, proc_id, n);
}

int ops_session_anon_take(struct ops_session *s, uint32_t proc_id,
			  struct ops_anon_sample **samples, size_t *n)
{
	return ops_anon_take(&s->anon, proc_id, samples, n);
}

void ops_session_anon_release(struct ops_session *s, uint32_t proc_id)
{
	ops_anon_release(&s->anon, proc_id);
}

const struct ops_time_count *
ops_session_time_counts(const struct ops_session *s, size_t *n)
{
	*n = s->hist.nr_slices;
	return s->hist.slices;
}

uint64_t ops_session_untimed(const struct ops_session *s)
{
	return s->hist.untimed;
}

int ops_session_select_event(struct ops_session *s, uint32_t event)
{
	uint32_t nr = ops_session_nr_events(s);
	struct ops_hist_data *h = &s->hist;
	uint64_t period;
	size_t i, n;

	if (event >= nr)
		return -ENOENT;
#define KEEP(x) (h->contexts[(x)].event == event)
	for (i = n = 0; i < h->nr_entries; i++)
		if (KEEP(h->entries[i].ctx))
			h->entries[n++] = h->entries[i];
	h->nr_entries = n;
	for (i = n = 0; i < h->nr_stack_counts; i++)
		if (KEEP(h->stack_counts[i].ctx))
			h->stack_counts[n++] = h->stack_counts[i];
	h->nr_stack_counts = n;
	for (i = n = 0; i < h->nr_slices; i++)
		if (KEEP(h->slices[i].ctx))
			h->slices[n++] = h->slices[i];
	h->nr_slices = n;
	/* a copy's id is its place: counted 0, not removed */
	for (i = 0; i < h->nr_copies; i++)
		if (!KEEP(h->copies[i].ctx))
			h->copies[i].count = 0;
#undef KEEP
	ops_anon_select_event(&s->anon, event);
	/* from here the session reads as one of that event, its name in
	 * every report's header */
	{
		char *e = s->meta.event;

		for (i = 0; i < event; i++)
			e = strchr(e, ',') + 1;
		n = strcspn(e, ",");
		memmove(s->meta.event, e, n);
		s->meta.event[n] = '\0';
	}
	/* and its period: an event that counts, beside a clock sampled at
	 * a frequency, is sampled at every occurrence */
	if (*s->meta.event_periods &&
	    !session_event_period(s->meta.event_periods, nr, event, &period) &&
	    period) {
		s->meta.info.period = period;
		s->meta.info.frequency = 0;
	}
	s->meta.event_periods[0] = '\0';
	return 0;
}

static void add_sat(uint64_t *sum, uint64_t n)
{
	if (__builtin_add_overflow(*sum, n, sum))
		*sum = UINT64_MAX;
}

int ops_session_event_samples(struct ops_session *s, uint64_t *totals,
			      uint32_t nr)
{
	const struct ops_hist_data *h = &s->hist;
	uint64_t anon;
	size_t i;
	int ret;

	for (i = 0; i < nr; i++)
		totals[i] = 0;
	for (i = 0; i < h->nr_entries; i++) {
		uint32_t ctx = h->entries[i].ctx;

		if (ctx < h->nr_contexts && h->contexts[ctx].event < nr)
			add_sat(&totals[h->contexts[ctx].event],
				h->entries[i].count);
	}
	for (i = 0; i < nr; i++) {
		ret = ops_anon_count_event(&s->anon, (uint32_t)i, &anon);
		if (ret)
			return ret;
		add_sat(&totals[i], anon);
	}
	return 0;
}

int ops_session_set_window(struct ops_session *s, uint64_t from_ns,
			   uint64_t to_ns)
{
	uint64_t start = s->meta.info.start_ns;

	s->anon.windowed = true;
	s->anon.slice_origin = start;
	s->anon.win_from = start + from_ns < start ? UINT64_MAX
						   : start + from_ns;
	s->anon.win_to = start + to_ns < start ? UINT64_MAX : start + to_ns;
	return ops_hist_window(&s->hist, from_ns, to_ns);
}

bool ops_session_slice_in_window(const struct ops_session *s,
				 const struct ops_time_count *t)
{
	return !s->anon.windowed ||
	       ops_slice_in(t, s->hist.win_from, s->hist.win_to);
}

uint32_t ops_session_nr_stacks(const struct ops_session *s)
{
	return s->hist.nr_stacks;
}

const struct ops_stack *ops_session_stack(struct ops_session *s, uint32_t id)
{
	return ops_hist_stack(&s->hist, id);
}

const struct ops_frame *ops_session_stack_top(const struct ops_session *s,
					      uint32_t id, uint32_t *parent,
					      uint32_t *flags)
{
	const struct ops_stack_node *nd;

	if (id >= s->hist.nr_stacks)
		return NULL;
	nd = &s->hist.nodes[id];
	*parent = nd->parent ? nd->parent - 1 : UINT32_MAX;
	*flags = ops_node_flags(nd);
	return &s->hist.frames[nd->frame];
}

const struct ops_stack_count *
ops_session_stack_hist(const struct ops_session *s, size_t *n)
{
	*n = s->hist.nr_stack_counts;
	return s->hist.stack_counts;
}

const struct ops_stack_copy *
ops_session_stack_copies(const struct ops_session *s, size_t *n)
{
	*n = s->hist.nr_copies;
	return s->hist.copies;
}

const struct ops_process_map *
ops_session_process_maps(const struct ops_session *s, size_t *n)
{
	*n = s->hist.nr_pmaps;
	return s->hist.pmaps;
}

int ops_session_anon_stacks(struct ops_session *s, uint32_t proc_id,
			    const struct ops_anon_stack_sample **samples,
			    size_t *n)
{
	return ops_anon_decode_stacks(&s->anon, proc_id, samples, n);
}

void ops_session_release_stacks(struct ops_session *s)
{
	ops_hist_stacks_free(&s->hist);
	ops_anon_release_stacks(&s->anon);
	/* the anonymous reader's view of the table goes with it */
	s->anon.stack_nodes = NULL;
	s->anon.stack_frames = NULL;
	s->anon.nr_stacks = 0;
}

size_t ops_session_archived_maps(const struct ops_session *s, uint32_t proc_id,
				 const char *const **paths)
{
	if (proc_id >= s->anon.nr_procs || !s->maps[proc_id].n) {
		*paths = NULL;
		return 0;
	}
	*paths = (const char *const *)s->maps[proc_id].paths;
	return s->maps[proc_id].n;
}

const char *ops_session_kallsyms(const struct ops_session *s)
{
	return s->kallsyms;
}

const char *ops_session_modules(const struct ops_session *s)
{
	return s->modules;
}
