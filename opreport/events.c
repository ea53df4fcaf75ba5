// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * --event=alloc|lock: every archived javamap of the session, its event
 * samples summed by stack, as text, CSV or folded stacks.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <opjit/samples.h>
#include <oputil/grow.h>

#include "diag.h"
#include "events.h"
#include "jm_events.h"
#include "jm_format.h"

struct ev_report {
	const struct opreport_opts *o;
	struct ev_row *rows;
	size_t nr, cap;
	uint64_t weight, count;
	int err;
};

static int ev_add(void *arg, const char *const *frames, size_t n,
		  uint64_t weight)
{
	struct ev_report *er = arg;
	size_t len = 0;
	char *s, *p;

	for (size_t i = 0; i < n; i++)
		len += strlen(frames[i]) + 1;
	if (er->nr == er->cap && oputil_grow((void **)&er->rows, &er->cap,
					     er->nr + 1, sizeof(*er->rows)))
		return -ENOMEM;
	s = malloc(len + 1);
	if (!s)
		return -ENOMEM;
	p = s;
	for (size_t i = 0; i < n; i++) {
		/* ';' separates the frames of a folded stack */
		for (const char *c = frames[i]; *c; c++)
			*p++ = *c == ';' || *c == '\n' ? ':' : *c;
		*p++ = i + 1 < n ? ';' : '\0';
	}
	er->rows[er->nr++] = (struct ev_row){ s, weight, 1 };
	er->weight += weight;
	er->count++;
	return 0;
}

static int row_by_stack(const void *a, const void *b)
{
	return strcmp(((const struct ev_row *)a)->stack,
		      ((const struct ev_row *)b)->stack);
}

static int row_by_weight(const void *a, const void *b)
{
	const struct ev_row *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return strcmp(x->stack, y->stack);
}

/* The map at PATH in the session (inflated), if it is a javamap. */
static int ev_read_map(struct ev_report *er, const char *path, unsigned kind)
{
	struct jm_state st;
	char why[256] = "";
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		diag("cannot open %s: %s", path, strerror(errno));
		return 0;
	}
	fd = ops_archived_map_fd(fd, path, why, sizeof(why));
	if (fd < 0) {
		diag("%s: %s", path, why[0] ? why : strerror(-fd));
		return 0;
	}
	for (;;) {
		ssize_t got;

		if (len == cap &&
		    oputil_grow((void **)&buf, &cap, len + 65536, 1)) {
			ret = -ENOMEM;
			goto out;
		}
		got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			diag("cannot read %s: %s", path, strerror(errno));
			goto out;
		}
		if (!got)
			break;
		len += (size_t)got;
	}
	/* a perf map's text under the same name has no events */
	if (!jm_is_javamap(buf, len))
		goto out;
	if (jm_state_init(&st, buf, len)) {
		diag("%s: %s", path, st.error);
	} else {
		if (st.map.damage[0])
			diag("%s: %s", path, st.map.damage);
		ret = jm_events_walk(&st, kind, 0, ev_add, er);
	}
	jm_state_free(&st);
out:
	close(fd);
	free(buf);
	return ret;
}

void events_csv_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const char *c = s; *c; c++)
		fputs(*c == '"' ? "\"\"" : (char[]){ *c, 0 }, f);
	fputc('"', f);
}

static int ev_write(FILE *f, const void *arg)
{
	const struct ev_report *er = arg;
	const struct opreport_opts *o = er->o;
	bool alloc = o->event == OPREPORT_EVENT_ALLOC;

	if (o->format == OUT_PPROF)
		return events_pprof(f, er->rows, er->nr, alloc);
	if (o->format == OUT_HTML)
		return events_html(f,
				   &(struct ev_page_side){ o->session_dir,
							   er->rows, er->nr },
				   NULL, alloc);
	if (o->format == OUT_JSON)
		return events_json(f, o->session_dir, er->rows, er->nr, alloc);
	if (o->format == OUT_FOLDED) {
		for (size_t i = 0; i < er->nr; i++)
			fprintf(f, "%s %" PRIu64 "\n", er->rows[i].stack,
				er->rows[i].weight);
		return 0;
	}
	if (o->format == OUT_CSV) {
		fprintf(f, "%s,%s,percent,stack\n",
			alloc ? "bytes" : "wait_ns",
			alloc ? "samples" : "contentions");
		for (size_t i = 0; i < er->nr; i++) {
			fprintf(f, "%" PRIu64 ",%" PRIu64 ",%.4f,",
				er->rows[i].weight, er->rows[i].count,
				100.0 * (double)er->rows[i].weight /
					(double)(er->weight ? er->weight : 1));
			events_csv_str(f, er->rows[i].stack);
			fputc('\n', f);
		}
		return 0;
	}
	if (!o->no_header)
		fprintf(f,
			alloc ? "Allocations: %" PRIu64
				" bytes estimated from %" PRIu64 " samples\n"
				"bytes            %%        samples  stack "
				"(root first; the allocated class last)\n"
			      : "Contended monitor enters: %" PRIu64
				" ns waited in %" PRIu64 " contentions\n"
				"wait_ns          %%        count    stack "
				"(root first; the monitor's class last)\n",
			er->weight, er->count);
	for (size_t i = 0; i < er->nr; i++) {
		double pct = 100.0 * (double)er->rows[i].weight /
			     (double)(er->weight ? er->weight : 1);

		if (pct < o->threshold)
			continue;
		fprintf(f, "%-16" PRIu64 " %-8.4f %-8" PRIu64 " %s\n",
			er->rows[i].weight, pct, er->rows[i].count,
			er->rows[i].stack);
	}
	return 0;
}

/* ER's samples of one stack summed into one row, heaviest first. */
static void ev_sum_by_stack(struct ev_report *er)
{
	size_t k = 0;

	qsort(er->rows, er->nr, sizeof(*er->rows), row_by_stack);
	for (size_t i = 0; i < er->nr; i++) {
		if (k && !strcmp(er->rows[k - 1].stack, er->rows[i].stack)) {
			er->rows[k - 1].weight += er->rows[i].weight;
			er->rows[k - 1].count += er->rows[i].count;
			free(er->rows[i].stack);
		} else {
			er->rows[k++] = er->rows[i];
		}
	}
	er->nr = k;
	qsort(er->rows, er->nr, sizeof(*er->rows), row_by_weight);
}

/* Every event sample of the session DIR into ER, one row a stack,
 * heaviest first.  0, or a negative errno said once. */
static int ev_collect(struct ev_report *er, const char *dir, unsigned kind)
{
	struct ops_session *s = NULL;
	char err[512] = "";
	int ret;

	ret = ops_session_open(&s, dir, NULL, NULL, err, sizeof(err));
	if (ret) {
		if (err[0])
			diag("%s", err);
		else
			diag("cannot open session %s: %s", dir,
			     strerror(-ret));
		return ret;
	}
	for (uint32_t p = 0; p < ops_session_nr_processes(s) && !ret; p++) {
		const char *const *paths = NULL;
		size_t n = ops_session_archived_maps(s, p, &paths);
		char name[256];

		for (size_t i = 0; i < n && paths && !ret; i++)
			if (ops_jit_map_kind(ops_archived_map_name(
				    paths[i], name, sizeof(name))) ==
			    OPS_JIT_MAP_ANON)
				ret = ev_read_map(er, paths[i], kind);
	}
	ops_session_close(s);
	if (ret) {
		diag("out of memory");
		return ret;
	}
	if (er->nr) /* qsort's array may not be NULL, even empty */
		ev_sum_by_stack(er);
	if (!er->count)
		diag("no %s samples in %s: was the JVM run with the javamap "
		     "agent's %s= option?",
		     kind == JM_REC_ALLOC ? "allocation" : "lock", dir,
		     kind == JM_REC_ALLOC ? "alloc" : "lock");
	return 0;
}

static void ev_free(struct ev_report *er)
{
	for (size_t i = 0; i < er->nr; i++)
		free(er->rows[i].stack);
	free(er->rows);
}

/* The differential page: ARG is the baseline's report, then the
 * profile's. */
static int ev_write_html_diff(FILE *f, const void *arg)
{
	const struct ev_report *er = arg;
	const struct opreport_opts *o = er[1].o;

	return events_html(
		f,
		&(struct ev_page_side){ o->session_dir, er[1].rows, er[1].nr },
		&(struct ev_page_side){ o->base_dir, er[0].rows, er[0].nr },
		o->event == OPREPORT_EVENT_ALLOC);
}

static int ev_write_pprof_side(FILE *f, const void *arg)
{
	const struct ev_report *er = arg;

	return events_pprof(f, er->rows, er->nr,
			    er->o->event == OPREPORT_EVENT_ALLOC);
}

int events_report(const struct opreport_opts *o,
		  int (*output)(const struct opreport_opts *o,
				int (*write)(FILE *f, const void *arg),
				const void *arg),
		  int (*output_pair)(const struct opreport_opts *o,
				     int (*write)(FILE *f, const void *arg),
				     const void *base_arg,
				     const void *prof_arg))
{
	unsigned kind = o->event == OPREPORT_EVENT_ALLOC ? JM_REC_ALLOC
							 : JM_REC_LOCK;
	/* the baseline, then the profile */
	struct ev_report side[2] = { { .o = o }, { .o = o } };
	struct ev_report *base = &side[0], *er = &side[1];
	struct ev_diff d = { .o = o, .dir = { o->base_dir, o->session_dir } };
	int ret;

	ret = ev_collect(er, o->session_dir, kind);
	if (!ret && o->base_dir)
		ret = ev_collect(base, o->base_dir, kind);
	if (ret || !o->base_dir) {
		if (!ret)
			ret = output(o, ev_write, er);
	} else if (o->format == OUT_PPROF) {
		ret = output_pair(o, ev_write_pprof_side, base, er);
	} else if (o->format == OUT_HTML) {
		ret = output(o, ev_write_html_diff, side);
	} else {
		const struct ev_row *rows[2] = { base->rows, er->rows };
		const size_t nr[2] = { base->nr, er->nr };

		ret = ev_diff_build(&d, rows, nr);
		if (ret)
			diag("out of memory");
		else
			ret = output(o, events_diff_write, &d);
		ev_diff_free(&d);
	}
	ev_free(er);
	ev_free(base);
	return ret;
}
