// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * opannotate: OProfile's annotation over an opjit session.  The session
 * is read as opreport reads it (its profile specifications, handlers and
 * report model, with a row per symbol and its sampled addresses), then
 * shown as annotated disassembly (--assembly) and source (--source).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon_handlers.h"
#include "annotate.h"
#include "diag.h"
#include "out.h"
#include "profile.h"
#include "report.h"
#include "timerange.h"

static void ann_diag_sink(const char *line, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "opannotate: %s\n", line);
}

static void ann_session_warn(void *arg, const char *msg)
{
	(void)arg;
	out_warnf("%s", msg);
}

static int ann_write(FILE *f, const struct annotate_opts *o,
		     const struct report *r)
{
	int ret = 0;

	if (o->json)
		fprintf(f, "{\n  \"session\": ");
	if (o->json)
		out_json_str(f, r->session_dir);
	if (o->json)
		fprintf(f, ",\n  \"samples\": %" PRIu64 ",\n", r->total);
	else
		fprintf(f,
			"opannotate: session %s, %" PRIu64
			" samples; shares are of each symbol's samples in --assembly, of the profile's in --source\n",
			out_safe(r->pool, r->session_dir), r->total);
	if (o->assembly)
		ret = ann_assembly(f, o, r);
	if (!ret && o->assembly && o->source && o->json)
		fprintf(f, ",\n");
	if (!ret && o->source)
		ret = ann_source(f, o, r);
	if (o->json)
		fprintf(f, "\n}\n");
	if (!ret && (fflush(f) || ferror(f)))
		ret = -EIO;
	return ret;
}

static int ann_run(const struct annotate_opts *o)
{
	struct anon_handlers *handlers = NULL;
	struct ops_session *s = NULL;
	struct profile *prof = NULL;
	struct report r;
	bool ready = false;
	char err[512] = "";
	uint64_t untimed = 0;
	int ret;

	if (o->rep.nr_anon_handlers) {
		anon_handlers_want_code();
		ret = anon_handlers_load(
			&handlers, (const char *const *)o->rep.anon_handlers,
			o->rep.nr_anon_handlers, o->rep.handler_path);
		if (ret)
			goto out;
	}
	ret = report_init(&r, &o->rep);
	if (ret) {
		diag("out of memory");
		goto out;
	}
	ready = true;
	ret = ops_session_open(&s, o->rep.session_dir, ann_session_warn, NULL,
			       err, sizeof(err));
	if (ret) {
		if (err[0])
			diag("%s", err);
		else
			diag("cannot open session %s: %s", o->rep.session_dir,
			     strerror(-ret));
		goto out;
	}
	ret = timerange_apply(&o->rep.time, s, &untimed, err, sizeof(err));
	if (ret) {
		diag("%s", err);
		goto out;
	}
	if (untimed)
		diag("warning: session %s: %" PRIu64
		     " samples were counted without a time (recorded before time slices); --time leaves them out",
		     o->rep.session_dir, untimed);
	ret = profile_build(&prof, &r, s, handlers);
	if (ret)
		goto out;
	ret = report_finish(&r);
	if (ret) {
		diag("out of memory");
		goto out;
	}
	if (r.anon_hidden)
		diag("%" PRIu64
		     " samples of JIT or anonymous code are left out: annotate them with --anon-handler=auto",
		     r.anon_hidden);
	ret = ann_write(stdout, o, &r);
	if (ret)
		diag("cannot write the annotation: %s", strerror(-ret));
out:
	if (ready)
		report_release(&r);
	profile_free(prof);
	if (s)
		ops_session_close(s);
	if (handlers)
		anon_handlers_free(handlers);
	return ret;
}

int main(int argc, char **argv)
{
	struct annotate_opts o;
	int ret;

	diag_set_sink(ann_diag_sink, NULL);
	ret = ann_options_parse(&o, argc, (const char **)argv);
	if (ret) {
		ann_options_free(&o);
		return ret > 0 ? 0 : 1;
	}
	anon_handlers_isolate(&o.rep.isolation);
	ret = ann_run(&o);
	ann_options_free(&o);
	return ret ? 1 : 0;
}
