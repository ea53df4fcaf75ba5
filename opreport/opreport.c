// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * opreport: OProfile's report over an opjit session.  This file is the
 * command: options, then session -> profile -> report -> output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon_handlers.h"
#include "callgraph.h"
#include "options.h"
#include "out.h"
#include "profile.h"
#include "report.h"

static void session_warn(void *arg, const char *msg)
{
	out_warnf("%s", msg);
}

static int report_print(const struct opreport_opts *o,
			const struct report *r)
{
	FILE *f = stdout;
	int ret;

	if (o->output_file) {
		const char *why;

		f = out_file_open(o->output_file, &why);
		if (!f) {
			fprintf(stderr, "opreport: cannot write %s: %s\n",
				o->output_file, why);
			return -EPERM;
		}
	}
	ret = o->format == OUT_JSON   ? out_json(f, r) :
	      o->format == OUT_CSV    ? out_csv(f, r) :
	      o->format == OUT_FOLDED ? out_folded(f, r) :
	      o->format == OUT_PPROF  ? out_pprof(f, r) :
	      r->cg                   ? out_callgraph(f, r) :
					out_text(f, r);
	if (f != stdout && fclose(f))
		ret = -EIO;
	if (ret)
		fprintf(stderr, "opreport: cannot write %s: %s\n",
			o->output_file ? o->output_file : "the report",
			strerror(-ret));
	return ret;
}

static int run_report(const struct opreport_opts *o)
{
	struct anon_handlers *handlers = NULL;
	struct ops_session *s = NULL;
	struct profile *prof = NULL;
	struct report r;
	char err[512] = "";
	int ret;

	ret = report_init(&r, o);
	if (ret) {
		fprintf(stderr, "opreport: out of memory\n");
		return ret;
	}
	ret = ops_session_open(&s, o->session_dir, session_warn, NULL, err,
			       sizeof(err));
	if (ret) {
		if (err[0])
			fprintf(stderr, "opreport: %s\n", err);
		else
			fprintf(stderr, "opreport: cannot open session %s: %s\n",
				o->session_dir, strerror(-ret));
		goto out;
	}
	if (o->nr_anon_handlers) {
		ret = anon_handlers_load(&handlers,
					 (const char *const *)o->anon_handlers,
					 o->nr_anon_handlers, o->handler_path);
		if (ret)
			goto out;
	}
	if (o->callgraph && !callgraph_session_has_stacks(s)) {
		/* OProfile prints nothing but this; saying it on stderr and
		 * failing lets a script tell it from an empty graph */
		fprintf(stderr, "opreport: session %s has no call graph: record with oprofiled -g\n",
			o->session_dir);
		ret = -ENOENT;
		goto out;
	}
	r.has_stacks = callgraph_session_has_stacks(s);
	ret = profile_build(&prof, &r, s, handlers);
	if (ret)
		goto out;
	ret = report_finish(&r);
	if (ret) {
		fprintf(stderr, "opreport: out of memory\n");
		goto out;
	}
	ret = report_print(o, &r);
out:
	report_release(&r);
	profile_free(prof);
	if (handlers)
		anon_handlers_free(handlers);
	if (s)
		ops_session_close(s);
	return ret;
}

int main(int argc, char **argv)
{
	struct opreport_opts o;
	int ret;

	ret = options_parse(&o, argc, (const char **)argv);
	if (ret) {
		options_free(&o);
		return ret > 0 ? 0 : 1;
	}
	anon_handlers_isolate(&o.isolation);
	if (o.list_handlers)
		ret = anon_handlers_list(stdout, o.handler_path);
	else
		ret = run_report(&o);
	options_free(&o);
	return ret ? 1 : 0;
}
