// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * sessiondump DIR [EVENT]: a session as plain lines, for the end-to-end
 * tests; with EVENT (an index in its event list) that event's samples
 * alone, as a report of it reads them (ops_session_select_event).
 *   info KEY VALUE
 *   image ID KIND PATH
 *   context ID APP IMAGE TGID CPU TID
 *   ctxevent ID EVENT          (sessions of several events)
 *   thread TGID TID NAME
 *   hist CTX OFFSET COUNT
 *   process ID TGID NSPID UID FLAGS COMM EXE NR_RANGES START_NS START_UNIX_NS
 *   range ID START END
 *   anon ID TIME ADDR TID
 *   stack ID NR_KERNEL FLAGS FRAME...   leaf first; FRAME is IMAGE:ADDR
 *                                       (image id), anon:ADDR, unknown:ADDR
 *   stackhist CTX STACK COUNT
 *   stackcopy ID CTX STACK COUNT IP SP BP SIZE
 *   pmap ID TGID APP IMAGE START LEN PGOFF
 *   anonstack ID TIME STACK TID
 * Numbers are decimal, so that any awk can compare them; spaces in
 * names are shown as '?', so that fields stay fields.
 *   archived ID PATH
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <opjit/samples.h>

static void dump_warn(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "sessiondump: %s\n", msg);
}

static const char *dump_name(const char *s, char *buf, size_t size)
{
	size_t i;

	if (!s || !*s)
		return "-";
	for (i = 0; s[i] && i + 1 < size; i++)
		buf[i] = (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') ? '?'
								       : s[i];
	buf[i] = '\0';
	return buf;
}

static void dump_info(const struct ops_session_info *i)
{
	printf("info event %s\n", i->event ? i->event : "-");
	printf("info frequency %" PRIu64 "\n", i->frequency);
	printf("info period %" PRIu64 "\n", i->period);
	printf("info separate %u\n", i->separate);
	printf("info kernel_excluded %d\n", i->kernel_excluded ? 1 : 0);
	printf("info start_ns %" PRIu64 "\n", i->start_ns);
	printf("info stop_ns %" PRIu64 "\n", i->stop_ns);
	printf("info samples %" PRIu64 "\n", i->samples);
	printf("info lost %" PRIu64 "\n", i->samples_lost);
	printf("info unattributed %" PRIu64 "\n", i->samples_unattributed);
	printf("info anon %" PRIu64 "\n", i->samples_anon);
	printf("info kernel %" PRIu64 "\n", i->samples_kernel);
	printf("info processes %u\n", i->processes);
	printf("info format_version %u\n", i->format_version);
	printf("info callgraph_depth %u\n", i->callgraph_depth);
}

int main(int argc, char **argv)
{
	struct ops_session *s;
	const struct ops_hist_entry *h;
	const struct ops_thread *th;
	char err[512], name[OPS_THREAD_NAME_MAX + 1];
	size_t n;
	char *end = NULL;
	unsigned long event = 0;
	int rc = 0;

	if (argc == 3)
		event = strtoul(argv[2], &end, 10);
	if ((argc != 2 && argc != 3) ||
	    (argc == 3 && (!*argv[2] || *end || event > UINT32_MAX))) {
		fprintf(stderr, "usage: sessiondump DIR [EVENT]\n");
		return 2;
	}
	if (ops_session_open(&s, argv[1], dump_warn, NULL, err, sizeof(err))) {
		fprintf(stderr, "sessiondump: %s\n", err);
		return 1;
	}
	if (argc == 3 && ops_session_select_event(s, (uint32_t)event)) {
		fprintf(stderr, "sessiondump: %s has no event %lu\n", argv[1],
			event);
		ops_session_close(s);
		return 1;
	}
	dump_info(ops_session_info(s));
	for (uint32_t i = 0; i < ops_session_nr_images(s); i++) {
		const struct ops_image *img = ops_session_image(s, i);

		printf("image %u %u %s\n", i, img->kind, img->path);
	}
	for (uint32_t i = 0; i < ops_session_nr_contexts(s); i++) {
		const struct ops_context *c = ops_session_context(s, i);

		printf("context %u %u %u %u %d %u\n", i, c->app, c->image,
		       c->tgid, c->cpu, c->tid);
		if (ops_session_nr_events(s) > 1)
			printf("ctxevent %u %u\n", i, c->event);
	}
	th = ops_session_threads(s, &n);
	for (size_t i = 0; i < n; i++)
		printf("thread %u %u %s\n", th[i].tgid, th[i].tid,
		       dump_name(th[i].name, name, sizeof(name)));
	h = ops_session_hist(s, &n);
	for (size_t i = 0; i < n; i++)
		printf("hist %u %" PRIu64 " %" PRIu64 "\n", h[i].ctx,
		       h[i].offset, h[i].count);
	for (uint32_t i = 0; i < ops_session_nr_stacks(s); i++) {
		const struct ops_stack *st = ops_session_stack(s, i);

		printf("stack %u %u %u", i, st->nr_kernel, st->flags);
		for (uint32_t f = 0; f < st->nr_frames; f++) {
			const struct ops_frame *fr = &st->frames[f];

			if (fr->kind == OPS_FRAME_IMAGE)
				printf(" %u:%" PRIu64, fr->image, fr->addr);
			else
				printf(" %s:%" PRIu64,
				       fr->kind == OPS_FRAME_ANON ? "anon"
								  : "unknown",
				       fr->addr);
		}
		printf("\n");
	}
	{
		const struct ops_stack_count *sc =
			ops_session_stack_hist(s, &n);

		for (size_t i = 0; i < n; i++)
			printf("stackhist %u %u %" PRIu64 "\n", sc[i].ctx,
			       sc[i].stack, sc[i].count);
	}
	{
		const struct ops_stack_copy *c =
			ops_session_stack_copies(s, &n);

		for (size_t i = 0; i < n; i++)
			printf("stackcopy %zu %u %u %" PRIu64 " %" PRIu64
			       " %" PRIu64 " %" PRIu64 " %u\n",
			       i, c[i].ctx, c[i].stack, c[i].count, c[i].ip,
			       c[i].sp, c[i].bp, c[i].size);
	}
	{
		const struct ops_process_map *m =
			ops_session_process_maps(s, &n);

		for (size_t i = 0; i < n; i++)
			printf("pmap %zu %u %u %u %" PRIu64 " %" PRIu64
			       " %" PRIu64 "\n",
			       i, m[i].tgid, m[i].app, m[i].image, m[i].start,
			       m[i].len, m[i].pgoff);
	}
	for (uint32_t i = 0; i < ops_session_nr_processes(s); i++) {
		const struct ops_process *p = ops_session_process(s, i);
		const struct ops_anon_sample *a;
		const char *const *paths;
		size_t na, np;

		char comm[64], exe[4096];

		printf("process %u %u %u %u %u %s %s %u %" PRIu64 " %" PRId64
		       "\n",
		       i, p->tgid, p->nspid, p->uid, p->flags,
		       dump_name(p->comm, comm, sizeof(comm)),
		       dump_name(p->exe, exe, sizeof(exe)), p->nr_ranges,
		       p->start_ns, p->start_unix_ns);
		for (uint32_t r = 0; r < p->nr_ranges; r++)
			printf("range %u %" PRIu64 " %" PRIu64 "\n", i,
			       p->ranges[r].start, p->ranges[r].end);
		if (ops_session_anon(s, i, &a, &na)) {
			fprintf(stderr, "sessiondump: out of memory\n");
			rc = 1;
			break;
		}
		for (size_t k = 0; k < na; k++)
			printf("anon %u %" PRIu64 " %" PRIu64 " %u\n", i,
			       a[k].time_ns, a[k].addr, a[k].tid);
		{
			const struct ops_anon_stack_sample *as;

			if (ops_session_anon_stacks(s, i, &as, &na)) {
				fprintf(stderr,
					"sessiondump: out of memory\n");
				rc = 1;
				break;
			}
			for (size_t k = 0; k < na; k++)
				printf("anonstack %u %" PRIu64 " %u %u\n", i,
				       as[k].time_ns, as[k].stack, as[k].tid);
		}
		np = ops_session_archived_maps(s, i, &paths);
		for (size_t k = 0; k < np; k++)
			printf("archived %u %s\n", i, paths[k]);
	}
	ops_session_close(s);
	return rc;
}
