// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * opreport: OProfile's report over an opjit session.  This file is the
 * command: options, then session -> profile -> report -> output.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon_handlers.h"
#include "callgraph.h"
#include "diag.h"
#include "diff.h"
#include "options.h"
#include "timeline.h"
#include "out.h"
#include "profile.h"
#include "events.h"
#include "report.h"
#include "strpool.h"

static void session_warn(void *arg, const char *msg)
{
	out_warnf("%s", msg);
}

/* One profile: a session read into a finished report. */
struct side {
	struct ops_session *s;
	struct profile *prof;
	struct report r;
	struct timeline tl; /* --format=timeline-* and html */
	bool ready;
};

/* The sides of the report under way, for the note below. */
static const struct side *run_sides;

/* Every format, folded and pprof included, says on stderr, once a side
 * and before the report is written, what it leaves out and how to have
 * it: a flame graph without its JIT code looks whole.  Once the output
 * is open, so that a report that cannot be written has one line. */
static void hidden_notes(const struct opreport_opts *o)
{
	char note[256];
	size_t i;

	for (i = 0; run_sides && i < 2; i++) {
		const struct side *sd = &run_sides[i];

		if (!sd->ready || !sd->r.anon_hidden)
			continue;
		out_anon_hidden_note(note, sizeof(note), &sd->r);
		if (o->base_dir)
			fprintf(stderr, "opreport: session %s: %s\n",
				out_safe(sd->r.pool, sd->r.session_dir), note);
		else
			fprintf(stderr, "opreport: %s\n", note);
	}
	run_sides = NULL;
}

/* Write with WRITE(F, ARG) to -o FILE or stdout; a failure to open or
 * write is reported here, once. */
static int output(const struct opreport_opts *o,
		  int (*write)(FILE *f, const void *arg), const void *arg)
{
	struct out_file of;
	FILE *f = stdout;
	int ret, r;

	if (o->output_file) {
		if (out_file_open(&of, o->output_file, o->force)) {
			fprintf(stderr, "opreport: cannot write %s: %s\n",
				o->output_file, of.why);
			return -EPERM;
		}
		f = of.f;
	}
	hidden_notes(o);
	ret = write(f, arg);
	if (f != stdout) {
		r = out_file_close(&of, !ret);
		ret = ret ? ret : r;
	}
	if (ret)
		fprintf(stderr, "opreport: cannot write %s: %s\n",
			o->output_file ? o->output_file : "the report",
			strerror(-ret));
	return ret;
}

static int write_report(FILE *f, const void *arg)
{
	const struct report *r = arg;
	enum opreport_format format = r->opts->format;

	return format == OUT_JSON     ? out_json(f, r)
	       : format == OUT_CSV    ? out_csv(f, r)
	       : format == OUT_FOLDED ? out_folded(f, r)
	       : format == OUT_PPROF  ? out_pprof(f, r)
	       : format == OUT_HTML   ? out_html(f, r)
	       : r->opts->children    ? out_children(f, r)
	       : r->cg		      ? out_callgraph(f, r)
				      : out_text(f, r);
}

static int write_timeline(FILE *f, const void *arg)
{
	const struct side *sd = arg;

	return sd->r.opts->format == OUT_TIMELINE_JSON
		       ? timeline_write_json(f, &sd->tl)
		       : timeline_write_csv(f, &sd->tl, &sd->r);
}

static int write_diff(FILE *f, const void *arg)
{
	return out_diff(f, arg);
}

/* The one word for a failed allocation at this level; RET as given. */
static int out_of_memory(int ret)
{
	diag("out of memory");
	return ret;
}

/* The text header's count of each event's samples, taken while the
 * session still holds them all. */
static int side_count_events(struct report *r, struct ops_session *s,
			     uint32_t n, uint32_t pick)
{
	char name[64];
	int ret;

	r->event_names = strpool_alloc(r->pool, n * sizeof(*r->event_names));
	r->event_samples =
		strpool_alloc(r->pool, n * sizeof(*r->event_samples));
	if (!r->event_names || !r->event_samples)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		if (ops_session_event_name(s, i, name, sizeof(name)))
			snprintf(name, sizeof(name), "event %u", i);
		r->event_names[i] = strpool_intern(r->pool, name);
		if (!r->event_names[i])
			return -ENOMEM;
	}
	ret = ops_session_event_samples(s, r->event_samples, n);
	if (ret)
		return ret;
	r->nr_events = n;
	r->event_shown = pick;
	return 0;
}

/* A session of several events (oprofiled -e a -e b) reports one: the
 * one --event names, else cpu-clock when recorded, else the first,
 * saying once which others there are. */
static int side_select_event(struct report *r, struct ops_session *s,
			     const struct opreport_opts *o)
{
	uint32_t n = ops_session_nr_events(s), pick = n, clock = 0;
	const char *all = ops_session_info(s)->event;
	char name[64];

	for (uint32_t i = 0; i < n; i++) {
		if (ops_session_event_name(s, i, name, sizeof(name)))
			continue;
		if (o->session_event && !strcmp(name, o->session_event))
			pick = i;
		if (!strcmp(name, "cpu-clock"))
			clock = i;
	}
	if (o->session_event && pick == n) {
		fprintf(stderr,
			"opreport: --event=%s: session %s recorded %s\n",
			o->session_event, o->session_dir, all);
		return -ENOENT;
	}
	if (n == 1)
		return 0;
	if (pick == n) {
		pick = clock;
		ops_session_event_name(s, pick, name, sizeof(name));
		diag("session %s recorded %s: reporting %s (--event=NAME "
		     "for another)",
		     o->session_dir, all, name);
	}
	if (o->format == OUT_TEXT && !o->no_header &&
	    side_count_events(r, s, n, pick))
		return out_of_memory(-ENOMEM);
	return ops_session_select_event(s, pick);
}

static int side_build(struct side *sd, const struct opreport_opts *o,
		      struct anon_handlers *handlers)
{
	char err[512] = "";
	uint64_t untimed;
	int ret;

	ret = report_init(&sd->r, o);
	if (ret)
		return out_of_memory(ret);
	sd->ready = true;
	ret = ops_session_open(&sd->s, o->session_dir, session_warn, NULL, err,
			       sizeof(err));
	if (ret) {
		if (err[0])
			fprintf(stderr, "opreport: %s\n", err);
		else
			fprintf(stderr,
				"opreport: cannot open session %s: %s\n",
				o->session_dir, strerror(-ret));
		return ret;
	}
	ret = side_select_event(&sd->r, sd->s, o);
	if (ret)
		return ret;
	ret = timerange_apply(&o->time, sd->s, &untimed, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "opreport: %s\n", err);
		return ret;
	}
	if (untimed)
		diag("warning: session %s: %" PRIu64
		     " samples were counted without a time (recorded before time slices); --time leaves them out",
		     o->session_dir, untimed);
	if ((o->callgraph || o->children) &&
	    !callgraph_session_has_stacks(sd->s)) {
		/* OProfile prints nothing but this; saying it on stderr and
		 * failing lets a script tell it from an empty graph */
		fprintf(stderr,
			"opreport: session %s has no call graph: record with oprofiled -g\n",
			o->session_dir);
		return -ENOENT;
	}
	if (o->format == OUT_TIMELINE_CSV || o->format == OUT_TIMELINE_JSON) {
		ret = timeline_build(&sd->tl, sd->s, &sd->r);
		if (!ret && sd->tl.untimed && !o->time.set)
			diag("warning: session %s: %" PRIu64
			     " samples were counted without a time (recorded before time slices); the timeline leaves them out",
			     o->session_dir, sd->tl.untimed);
		/* as the rows of -l say it */
		if (!ret && sd->tl.by_thread && sd->tl.threadless)
			diag("note: native samples are not kept per thread: --separate=thread splits only JIT (anonymous) rows, and native rows show no thread (tid -)");
		return ret ? out_of_memory(ret) : 0;
	}
	if (o->format == OUT_HTML) {
		/* the page's timeline strip: the same cells as
		 * --format=timeline-json */
		ret = timeline_build(&sd->tl, sd->s, &sd->r);
		if (ret)
			return out_of_memory(ret);
		sd->r.tl = &sd->tl;
	}
	sd->r.has_stacks = callgraph_session_has_stacks(sd->s);
	ret = profile_build(&sd->prof, &sd->r, sd->s, handlers);
	if (ret)
		return ret;
	ret = report_finish(&sd->r);
	return ret ? out_of_memory(ret) : 0;
}

static void side_free(struct side *sd)
{
	if (sd->ready)
		report_release(&sd->r);
	profile_free(sd->prof);
	timeline_free(&sd->tl);
	if (sd->s)
		ops_session_close(sd->s);
}

/* pprof compares two files: -o FILE is the profile, FILE.base the
 * baseline, as go tool pprof -diff_base takes them. */
static int output_pprof_pair(const struct opreport_opts *o,
			     int (*write)(FILE *f, const void *arg),
			     const void *base_arg, const void *prof_arg)
{
	struct opreport_opts base = *o;
	size_t len = strlen(o->output_file) + sizeof(".base");
	char *path = malloc(len);
	int ret;

	if (!path)
		return out_of_memory(-ENOMEM);
	snprintf(path, len, "%s.base", o->output_file);
	base.output_file = path;
	ret = output(&base, write, base_arg);
	if (!ret)
		ret = output(o, write, prof_arg);
	if (!ret)
		fprintf(stderr,
			"opreport: compare with: go tool pprof -diff_base=%s %s\n",
			path, o->output_file);
	free(path);
	return ret;
}

static int write_html_diff(FILE *f, const void *arg)
{
	const struct side *sd = arg;

	return out_html_diff(f, &sd[0].r, &sd[1].r);
}

static int diff_print(const struct opreport_opts *o, const struct side *sd)
{
	struct diff d;
	int ret;

	if (o->format == OUT_HTML)
		return output(o, write_html_diff, sd);
	if (o->format == OUT_PPROF)
		return output_pprof_pair(o, write_report, &sd[0].r, &sd[1].r);
	ret = diff_build(&d, &sd[0].r, &sd[1].r);
	if (ret)
		return out_of_memory(ret);
	ret = output(o, write_diff, &d);
	diff_free(&d);
	return ret;
}

static int run_report(const struct opreport_opts *o)
{
	struct anon_handlers *handlers = NULL;
	struct opreport_opts base = *o;
	struct side sd[2] = { { 0 }, { 0 } };
	int ret = 0;

	if (o->nr_anon_handlers)
		ret = anon_handlers_load(&handlers,
					 (const char *const *)o->anon_handlers,
					 o->nr_anon_handlers, o->handler_path);
	if (!ret && o->base_dir) {
		base.session_dir = o->base_dir;
		base.spec = o->base_spec;
		ret = side_build(&sd[0], &base, handlers);
	}
	if (!ret)
		ret = side_build(&sd[1], o, handlers);
	run_sides = sd;
	if (!ret && o->base_dir &&
	    (o->format == OUT_TIMELINE_CSV ||
	     o->format == OUT_TIMELINE_JSON)) {
		fprintf(stderr,
			"opreport: --format=timeline-csv and timeline-json show one profile, not a differential one\n");
		ret = -EINVAL;
	}
	if (!ret)
		ret = o->base_dir ? diff_print(o, sd)
		      : o->format == OUT_TIMELINE_CSV ||
				      o->format == OUT_TIMELINE_JSON
			      ? output(o, write_timeline, &sd[1])
			      : output(o, write_report, &sd[1].r);
	side_free(&sd[0]);
	side_free(&sd[1]);
	if (handlers)
		anon_handlers_free(handlers);
	return ret;
}

int main(int argc, char **argv)
{
	struct opreport_opts o;
	int ret;

	oputil_diag_set_program("opreport");
	/* Large blocks from mmap at a fixed threshold.  glibc's own rises
	 * to the size of the first large block freed (the session file's
	 * buffer), and then the report's arrays, which grow by doubling
	 * and go stage by stage, grow inside the heap, where each old copy
	 * stays the process's as a hole: 9 MiB of the 52 MiB a node -g
	 * session of 175k samples took (tests/bench/RESULTS.md).  mmap's
	 * blocks grow in place (mremap) and go back at their free. */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	ret = options_parse(&o, argc, (const char **)argv);
	if (ret) {
		options_free(&o);
		return ret > 0 ? 0 : 1;
	}
	anon_handlers_isolate(&o.isolation);
	if (o.list_handlers)
		ret = anon_handlers_list(stdout, o.handler_path);
	else if (o.event != OPREPORT_EVENT_CPU)
		ret = events_report(&o, output, output_pprof_pair);
	else
		ret = run_report(&o);
	options_free(&o);
	return ret ? 1 : 0;
}
