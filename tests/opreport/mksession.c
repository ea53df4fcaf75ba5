// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * mksession DIR < DESCRIPTION: write a session with the samples writer
 * API, so that report tests control every sample.  One statement a line:
 *
 *   event cpu-clock | frequency 4000 | period 0 | start_unix_ns N
 *   command TEXT...            separate process[,cpu]   stop_ns N
 *   image NAME file|kernel|module PATH [build_id HEX] [size N] [mtime_ns N]
 *   ctx NAME APPIMAGE IMAGE [tgid N] [cpu N]
 *   hist CTX OFFSET COUNT
 *   process NAME TGID UID COMM EXE [start_ns N] [start_unix_ns N]
 *           [range START-END]...
 *   anon PROCESS TIME ADDR TID
 *   kallsyms PATH | modules PATH
 *   archive PROCESS PATH
 *   callgraph DEPTH            (before any other data: a call graph session)
 *   stackindex N               (before any stack: the writer's index of
 *                              stack nodes forgets past N a generation,
 *                              and stores forgotten nodes again)
 *   stack NAME [kernel N] [truncated] FRAME...   leaf first, where FRAME
 *           is IMAGE:OFFSET, anon:ADDR or unknown:ADDR
 *   stackhist CTX STACK COUNT
 *   anonstack PROCESS TIME STACK TID
 *   clock TIME                 (counts that follow are in TIME's slice)
 *
 * Numbers take C prefixes (0x...).  Errors name the line and exit 1.
 *
 * MKSESSION_DELTAS=1 in the environment writes a call graph session of
 * version 5: the stacks with an anonymous frame are given to the writer
 * at each anonstack, in their thread, and written as deltas
 * (FORMAT.md, STACK_DELTAS); a report must read it as the same session
 * written without them.  Such a run that wrote no delta fails.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opjit/samples.h>

/* the writer's own state, for stackindex */
#include "writer_internal.h"

#define MAX_NAMES 4096
#define MAX_TOK 64

struct name_id {
	char *name;
	uint32_t id;
};

struct st {
	struct ops_session_info info;
	struct ops_writer *w;
	struct name_id images[MAX_NAMES], ctxs[MAX_NAMES], procs[MAX_NAMES];
	struct name_id stacks[MAX_NAMES];
	/* with deltas, the stacks with an anonymous frame, given to the
	 * writer at each sample: their frames by the name's place */
	struct ops_stack defs[MAX_NAMES];
	struct ops_frame *def_frames[MAX_NAMES]; /* defs' frames */
	bool deltas;
	size_t nr_images, nr_ctxs, nr_procs, nr_stacks;
	uint64_t stop_ns;
	unsigned lineno;
	char *kallsyms, *modules;
	char *event, *command; /* owned copies of info's strings */
	uint64_t total, anon;
};

static void st_free(struct st *st)
{
	size_t i;

	for (i = 0; i < st->nr_images; i++)
		free(st->images[i].name);
	for (i = 0; i < st->nr_ctxs; i++)
		free(st->ctxs[i].name);
	for (i = 0; i < st->nr_procs; i++)
		free(st->procs[i].name);
	for (i = 0; i < st->nr_stacks; i++) {
		free(st->stacks[i].name);
		free(st->def_frames[i]);
	}
	free(st->kallsyms);
	free(st->modules);
	free(st->event);
	free(st->command);
}

static void die(const struct st *st, const char *msg)
{
	fprintf(stderr, "mksession: line %u: %s\n", st->lineno, msg);
	exit(1);
}

static uint64_t num(const struct st *st, const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (end == s || *end || errno)
		die(st, "bad number");
	return v;
}

static uint32_t lookup(const struct st *st, const struct name_id *t, size_t n,
		       const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return t[i].id;
	die(st, "unknown name");
	return 0;
}

/* The place of NAME in T. */
static size_t place(const struct st *st, const struct name_id *t, size_t n,
		    const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return i;
	die(st, "unknown name");
	return 0;
}

static void add_name(struct st *st, struct name_id *t, size_t *n,
		     const char *name, uint32_t id)
{
	if (*n == MAX_NAMES)
		die(st, "too many names");
	t[*n].name = strdup(name);
	t[*n].id = id;
	(*n)++;
}

static void check(struct st *st, int rc)
{
	if (rc) {
		fprintf(stderr, "mksession: line %u: %s\n", st->lineno,
			ops_writer_error(st->w));
		exit(1);
	}
}

static void parse_build_id(struct st *st, struct ops_image *img,
			   const char *hex)
{
	size_t len = strlen(hex), i;

	if (len % 2 || len / 2 > OPS_BUILD_ID_MAX)
		die(st, "bad build id");
	for (i = 0; i < len / 2; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			die(st, "bad build id");
		img->build_id[i] = (uint8_t)v;
	}
	img->build_id_size = (uint8_t)(len / 2);
}

static void stmt_image(struct st *st, char **t, int n)
{
	struct ops_image img = { 0 };
	uint32_t id;
	int i;

	if (n < 4)
		die(st, "image NAME KIND PATH");
	img.kind = !strcmp(t[2], "file")     ? OPS_IMAGE_FILE
		   : !strcmp(t[2], "kernel") ? OPS_IMAGE_KERNEL
		   : !strcmp(t[2], "module") ? OPS_IMAGE_MODULE
					     : 99;
	if (img.kind == 99)
		die(st, "bad image kind");
	img.path = t[3];
	for (i = 4; i + 1 < n; i += 2) {
		if (!strcmp(t[i], "build_id"))
			parse_build_id(st, &img, t[i + 1]);
		else if (!strcmp(t[i], "size"))
			img.size = num(st, t[i + 1]);
		else if (!strcmp(t[i], "mtime_ns"))
			img.mtime_ns = (int64_t)num(st, t[i + 1]);
		else
			die(st, "bad image attribute");
	}
	check(st, ops_writer_image(st->w, &img, &id));
	add_name(st, st->images, &st->nr_images, t[1], id);
}

static void stmt_ctx(struct st *st, char **t, int n)
{
	struct ops_context c = { .cpu = -1 };
	uint32_t id;
	int i;

	if (n < 4)
		die(st, "ctx NAME APP IMAGE");
	c.app = lookup(st, st->images, st->nr_images, t[2]);
	c.image = lookup(st, st->images, st->nr_images, t[3]);
	for (i = 4; i + 1 < n; i += 2) {
		if (!strcmp(t[i], "tgid"))
			c.tgid = (uint32_t)num(st, t[i + 1]);
		else if (!strcmp(t[i], "cpu"))
			c.cpu = (int32_t)num(st, t[i + 1]);
		else
			die(st, "bad ctx attribute");
	}
	check(st, ops_writer_context(st->w, &c, &id));
	add_name(st, st->ctxs, &st->nr_ctxs, t[1], id);
}

static void stmt_process(struct st *st, char **t, int n)
{
	struct ops_range ranges[32];
	struct ops_process p = { 0 };
	uint32_t id;
	int i;

	if (n < 6)
		die(st, "process NAME TGID UID COMM EXE");
	p.tgid = p.nspid = (uint32_t)num(st, t[2]);
	p.uid = (uint32_t)num(st, t[3]);
	p.comm = t[4];
	p.exe = t[5];
	p.ranges = ranges;
	for (i = 6; i + 1 < n; i += 2) {
		if (!strcmp(t[i], "start_ns")) {
			p.start_ns = num(st, t[i + 1]);
		} else if (!strcmp(t[i], "start_unix_ns")) {
			p.start_unix_ns = (int64_t)num(st, t[i + 1]);
		} else if (!strcmp(t[i], "range") && p.nr_ranges < 32) {
			char *dash = strchr(t[i + 1], '-');

			if (!dash)
				die(st, "range START-END");
			*dash = '\0';
			ranges[p.nr_ranges].start = num(st, t[i + 1]);
			ranges[p.nr_ranges].end = num(st, dash + 1);
			p.nr_ranges++;
		} else {
			die(st, "bad process attribute");
		}
	}
	check(st, ops_writer_process(st->w, &p, &id));
	add_name(st, st->procs, &st->nr_procs, t[1], id);
}

/* stack NAME [kernel N] [truncated] FRAME..., FRAME being IMAGE:OFFSET,
 * anon:ADDR or unknown:ADDR */
static void stmt_stack(struct st *st, char **t, int n)
{
	struct ops_frame frames[MAX_TOK];
	struct ops_stack s = { .frames = frames };
	uint32_t id;
	int i = 2;

	if (n < 3)
		die(st, "stack NAME FRAME...");
	for (; i < n; i++) {
		struct ops_frame *f = &frames[s.nr_frames];
		char *colon;

		if (!strcmp(t[i], "kernel") && i + 1 < n) {
			s.nr_kernel = (uint32_t)num(st, t[++i]);
			continue;
		}
		if (!strcmp(t[i], "truncated")) {
			s.flags |= OPS_STACK_TRUNCATED;
			continue;
		}
		colon = strrchr(t[i], ':');
		if (!colon)
			die(st,
			    "a frame is IMAGE:OFFSET, anon:ADDR or unknown:ADDR");
		*colon = '\0';
		memset(f, 0, sizeof(*f));
		if (!strcmp(t[i], "anon"))
			f->kind = OPS_FRAME_ANON;
		else if (!strcmp(t[i], "unknown"))
			f->kind = OPS_FRAME_UNKNOWN;
		else
			f->image = lookup(st, st->images, st->nr_images, t[i]);
		f->addr = num(st, colon + 1);
		s.nr_frames++;
	}
	for (i = 0; st->deltas && i < (int)s.nr_frames; i++)
		if (frames[i].kind == OPS_FRAME_ANON)
			break;
	if (st->deltas && i < (int)s.nr_frames) {
		/* a delta's id is its sample's: given at each anonstack */
		struct ops_stack *d = &st->defs[st->nr_stacks];
		struct ops_frame *f = malloc(s.nr_frames * sizeof(*frames));

		add_name(st, st->stacks, &st->nr_stacks, t[1], UINT32_MAX);
		if (!f)
			die(st, "out of memory");
		memcpy(f, frames, s.nr_frames * sizeof(*frames));
		st->def_frames[st->nr_stacks - 1] = f;
		*d = s;
		d->frames = f;
		return;
	}
	check(st, ops_writer_stack(st->w, &s, &id));
	add_name(st, st->stacks, &st->nr_stacks, t[1], id);
}

/* anonstack PROCESS TIME STACK TID */
static void stmt_anonstack(struct st *st, char **t)
{
	size_t k = place(st, st->stacks, st->nr_stacks, t[3]);
	uint32_t tid = (uint32_t)num(st, t[4]);
	uint32_t id = st->stacks[k].id;

	if (st->defs[k].frames)
		check(st, ops_writer_stack_of(st->w, &st->defs[k], tid, &id));
	check(st, ops_writer_anon_stack(
			  st->w, lookup(st, st->procs, st->nr_procs, t[1]),
			  num(st, t[2]), id, tid));
}

static void open_writer(struct st *st, const char *dir)
{
	if (st->w)
		return;
	if (ops_writer_open(&st->w, dir, &st->info)) {
		fprintf(stderr, "mksession: cannot create session %s\n", dir);
		exit(1);
	}
}

static void statement(struct st *st, const char *dir, char *line)
{
	char *t[MAX_TOK], *save = NULL;
	int n = 0;

	line[strcspn(line, "\n#")] = '\0';
	for (char *tok = strtok_r(line, " \t", &save); tok && n < MAX_TOK;
	     tok = strtok_r(NULL, " \t", &save)) {
		t[n++] = tok;
	}
	if (!n)
		return;
	/* metadata goes in before the first data statement opens the
	 * session */
	if (!strcmp(t[0], "event") && n == 2) {
		free(st->event);
		st->info.event = st->event = strdup(t[1]);
	} else if (!strcmp(t[0], "frequency") && n == 2) {
		st->info.frequency = num(st, t[1]);
	} else if (!strcmp(t[0], "period") && n == 2) {
		st->info.period = num(st, t[1]);
	} else if (!strcmp(t[0], "start_unix_ns") && n == 2) {
		st->info.start_unix_ns = (int64_t)num(st, t[1]);
	} else if (!strcmp(t[0], "stop_ns") && n == 2) {
		st->stop_ns = num(st, t[1]);
	} else if (!strcmp(t[0], "command") && n >= 2) {
		size_t len = 0;
		char *cmd;
		int i;

		for (i = 1; i < n; i++)
			len += strlen(t[i]) + 1;
		cmd = calloc(1, len + 1);
		for (i = 1; i < n; i++) {
			strcat(cmd, t[i]);
			if (i + 1 < n)
				strcat(cmd, " ");
		}
		free(st->command);
		st->info.command_line = st->command = cmd;
	} else if (!strcmp(t[0], "separate") && n == 2) {
		if (strstr(t[1], "process"))
			st->info.separate |= OPS_SEPARATE_PROCESS;
		if (strstr(t[1], "cpu"))
			st->info.separate |= OPS_SEPARATE_CPU;
	} else if (!strcmp(t[0], "callgraph") && n == 2) {
		st->info.callgraph_depth = (uint32_t)num(st, t[1]);
	} else if (!strcmp(t[0], "kallsyms") && n == 2) {
		st->kallsyms = strdup(t[1]);
	} else if (!strcmp(t[0], "modules") && n == 2) {
		st->modules = strdup(t[1]);
	} else {
		open_writer(st, dir);
		if (!strcmp(t[0], "image")) {
			stmt_image(st, t, n);
		} else if (!strcmp(t[0], "ctx")) {
			stmt_ctx(st, t, n);
		} else if (!strcmp(t[0], "hist") && n == 4) {
			uint64_t c = num(st, t[3]);

			check(st,
			      ops_writer_hist_add(st->w,
						  lookup(st, st->ctxs,
							 st->nr_ctxs, t[1]),
						  num(st, t[2]), c));
			st->total += c;
		} else if (!strcmp(t[0], "process")) {
			stmt_process(st, t, n);
		} else if (!strcmp(t[0], "anon") && n == 5) {
			check(st, ops_writer_anon(st->w,
						  lookup(st, st->procs,
							 st->nr_procs, t[1]),
						  num(st, t[2]), num(st, t[3]),
						  (uint32_t)num(st, t[4])));
			st->total++;
			st->anon++;
		} else if (!strcmp(t[0], "stackindex") && n == 2) {
			if (st->nr_stacks || !num(st, t[1]))
				die(st,
				    "stackindex N: before any stack, N > 0");
			st->w->hist.index_limit = (uint32_t)num(st, t[1]);
		} else if (!strcmp(t[0], "stack")) {
			stmt_stack(st, t, n);
		} else if (!strcmp(t[0], "stackhist") && n == 4) {
			check(st,
			      ops_writer_stack_add(st->w,
						   lookup(st, st->ctxs,
							  st->nr_ctxs, t[1]),
						   lookup(st, st->stacks,
							  st->nr_stacks, t[2]),
						   num(st, t[3])));
		} else if (!strcmp(t[0], "anonstack") && n == 5) {
			stmt_anonstack(st, t);
		} else if (!strcmp(t[0], "clock") && n == 2) {
			uint64_t end;

			check(st, ops_writer_time(st->w, num(st, t[1]), &end));
		} else if (!strcmp(t[0], "archive") && n == 3) {
			check(st, ops_writer_archive_map(st->w,
							 lookup(st, st->procs,
								st->nr_procs,
								t[1]),
							 t[2], 1 << 24));
		} else {
			die(st, "unknown statement");
		}
	}
}

int main(int argc, char **argv)
{
	struct st st = { 0 };
	char line[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: mksession DIR < DESCRIPTION\n");
		return 1;
	}
	st.info.event = "cpu-clock";
	st.info.frequency = 4000;
	st.info.clock = "CLOCK_MONOTONIC";
	st.info.start_unix_ns = 1763800000000000000LL;
	st.info.host = "testhost";
	st.info.kernel_release = "6.1.0-test";
	st.info.command_line = "oprofiled -- ./workload";
	st.info.start_ns = 1000;
	st.stop_ns = 2000000000;
	st.deltas = getenv("MKSESSION_DELTAS") &&
		    !strcmp(getenv("MKSESSION_DELTAS"), "1");
	st.info.stack_deltas = st.deltas;
	while (fgets(line, sizeof(line), stdin)) {
		st.lineno++;
		statement(&st, argv[1], line);
	}
	open_writer(&st, argv[1]);
	if (st.deltas && st.info.callgraph_depth && !st.w->hist.nr_deltas) {
		fprintf(stderr,
			"mksession: MKSESSION_DELTAS=1 wrote no delta\n");
		return 1;
	}
	if (st.kallsyms || st.modules)
		check(&st, ops_writer_kernel_symbols(st.w, st.kallsyms,
						     st.modules));
	st.info.samples = st.total;
	st.info.samples_anon = st.anon;
	ops_writer_set_totals(st.w, &st.info);
	if (ops_writer_close(st.w, st.stop_ns)) {
		fprintf(stderr, "mksession: cannot close the session %s\n",
			argv[1]);
		st_free(&st);
		return 1;
	}
	st_free(&st);
	return 0;
}
