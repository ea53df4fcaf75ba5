// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * opjit-handler-check: the conformance checker a handler's writer runs on
 * libNAME.so.  The handler is loaded as opreport loads it (its helper
 * process, every check of the loader); then each step that calls into it
 * runs in a child process of its own under a time limit, so that a crash
 * or a hang breaks its rule and the next rule is still checked.  The
 * steps' children are not sandboxed as the helper is: they open the
 * maps given as whoever runs the checker, and a handler's own map files
 * with them, which a helper run by root could not.  The end
 * is a table of every rule, held or broken; any break is a non-zero exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "anon_handlers.h"
#include "handler_internal.h"

#define CHECK_THREADS 4
#define CHECK_MAX_MAPS 16
#define CHECK_NR_ADDRS 64  /* the checker's own addresses */
#define CHECK_MAX_GIVEN 64 /* and at most this many of --addr */
#define CHECK_MAX_ADDRS (CHECK_NR_ADDRS + CHECK_MAX_GIVEN)

/* In a ThreadSanitizer build (-DOPJIT_TSAN=ON, the handler built so
 * too) the first data race ends the step's child with this status, which
 * breaks the step's rules: a race that happens to give the same answers
 * is still one. */
#define CHECK_TSAN_STATUS 66
#if defined(__SANITIZE_THREAD__)
#define CHECK_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CHECK_TSAN 1
#endif
#endif
#ifdef CHECK_TSAN
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "halt_on_error=1:exitcode=66";
}
#endif

enum rule {
	R_LOAD,	    /* found, trusted, loaded */
	R_ENTRY,    /* opjit_handler_entry exported, returns a table */
	R_MAJOR,    /* abi_major */
	R_SIZE,	    /* abi_minor and struct_size agree */
	R_FEATURES, /* required_features */
	R_NAME,	    /* the table's name */
	R_SLOTS,    /* claim, resolve, release set */
	R_CLAIM,    /* claim answers 1, 0 or -errno with a message */
	R_MAPS,	    /* claims a process with the given maps */
	R_SORTED,   /* resolves a sorted batch with sound answers */
	R_REPEAT,  /* resolves a batch of repeated addresses, times unsorted */
	R_NAMES,   /* names every --addr address */
	R_THREADS, /* claims from several threads at once, same answers */
	R_RELEASE, /* release */
	NR_RULES,
};

static const char *const rule_text[NR_RULES] = {
	[R_LOAD] = "loads in its helper as opreport loads it",
	[R_ENTRY] = "exports opjit_handler_entry, which returns a table",
	[R_MAJOR] = "table's ABI major is the host's",
	[R_SIZE] = "table's abi_minor and struct_size agree",
	[R_FEATURES] = "requires no feature the host lacks",
	[R_NAME] = "table's name is NAME of libNAME.so",
	[R_SLOTS] = "claim, resolve and release are set",
	[R_CLAIM] = "claim answers 1, 0, or -errno with a message",
	[R_MAPS] = "claims a process with the given maps",
	[R_SORTED] = "resolves a sorted batch soundly",
	[R_REPEAT] = "resolves repeated addresses, times unsorted",
	[R_NAMES] = "names every address given with --addr",
	[R_THREADS] = "claims and resolves from threads at once alike",
	[R_RELEASE] = "releases every state",
};

enum fate { F_HELD = 1, F_BROKEN, F_SKIPPED };

static struct {
	enum fate fate;
	char why[HANDLER_WHY_LEN];
} result[NR_RULES];

static const char *lib_path, *lib_name;
static const char *map_path[CHECK_MAX_MAPS];
static size_t nr_maps;
static uint64_t given[CHECK_MAX_GIVEN];
static size_t nr_given;
static const char *comm = "opjit-check";
static unsigned timeout_s = 10;

static void set(enum rule r, enum fate f, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set(enum rule r, enum fate f, const char *fmt, ...)
{
	va_list ap;

	result[r].fate = f;
	va_start(ap, fmt);
	vsnprintf(result[r].why, sizeof(result[r].why), fmt, ap);
	va_end(ap);
}

/* The loader's refusal, to the rule it breaks: the loader's reasons are
 * its own fixed texts. */
static enum rule refusal_rule(const char *why)
{
	static const struct {
		const char *text;
		enum rule r;
	} map[] = {
		{ "no entry point", R_ENTRY },
		{ "returned no table", R_ENTRY },
		{ "ABI major", R_MAJOR },
		{ "handler table of", R_SIZE },
		{ "requires features", R_FEATURES },
		{ "calls itself", R_NAME },
		{ "handler table has no", R_SLOTS },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strstr(why, map[i].text))
			return map[i].r;
	return R_LOAD;
}

static void check_load(void)
{
	struct anon_handler h;
	char why[HANDLER_WHY_LEN] = "";
	enum rule r, bad;
	int rc;

	anon_handlers_isolate(
		&(struct anon_isolation){ .none = 0,
					  .timeout_ms = timeout_s * 1000 });
	rc = handler_proc_load(&h, lib_path, lib_name, why, sizeof(why));
	if (rc == 0) {
		for (r = R_LOAD; r <= R_SLOTS; r++)
			set(r, F_HELD, "%s", "");
		snprintf(result[R_SIZE].why, sizeof(result[R_SIZE].why),
			 "ABI %u.%u, %zu bytes", h.tab.abi_major,
			 h.tab.abi_minor, h.tab.struct_size);
		/* opreport still loads a table from before 1.5 that is
		 * shorter than its minor says; a vendor must fix it */
		if (h.tab.abi_minor <= OPJIT_HANDLER_ABI_MINOR &&
		    h.tab.struct_size != handler_table_size(h.tab.abi_minor))
			set(R_SIZE, F_BROKEN,
			    "handler table of %zu bytes says ABI %u.%u, whose "
			    "table is %zu bytes (loaded as a shorter table "
			    "only because it predates 1.5)",
			    h.tab.struct_size, h.tab.abi_major,
			    h.tab.abi_minor,
			    handler_table_size(h.tab.abi_minor));
		handler_proc_close(&h);
		handler_close(&h);
		return;
	}
	bad = refusal_rule(why);
	for (r = R_LOAD; r <= R_SLOTS; r++) {
		if (r == bad)
			set(r, F_BROKEN, "%s", why);
		else if (r < bad || bad == R_LOAD)
			set(r, bad == R_LOAD ? F_SKIPPED : F_HELD, "%s", "");
		else
			set(r, F_SKIPPED, "not reached");
	}
}

/* ---- the steps that call into the handler, each in a child ---- */

static struct anon_handler h;

struct proc_desc {
	struct opjit_process op;
	struct opjit_map_candidate cand;
	const struct opjit_map_candidate *candp;
};

static uint32_t map_kind(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (!strncmp(base, "jit-", 4))
		return OPJIT_MAP_JITDUMP;
	if (!strncmp(base, "anon.", 5))
		return OPJIT_MAP_ANON;
	return OPJIT_MAP_PERF;
}

/* The pid a map's name gives (perf-PID.map, jit-PID.dump, anon.PID). */
static uint32_t map_pid(const char *path)
{
	const char *p = strrchr(path, '/');

	p = p ? p + 1 : path;
	while (*p && (*p < '0' || *p > '9'))
		p++;
	return *p ? (uint32_t)strtoul(p, NULL, 10) : (uint32_t)getpid();
}

/* A synthetic process: the map MAP (or none), run by us, started long
 * before the map was written.  Without a map its tgid is ours plus NTH,
 * so that processes offered at once are different processes. */
static void proc_make(struct proc_desc *d, const char *map, uint32_t nth)
{
	memset(d, 0, sizeof(*d));
	d->op.struct_size = HANDLER_GIVES_PROCESS;
	d->op.tgid = d->op.nspid = map ? map_pid(map)
				       : (uint32_t)getpid() + nth;
	d->op.uid = getuid();
	d->op.start_ns = 1;
	d->op.start_unix_ns = 1;
	d->op.comm = comm;
	d->op.exe = "/usr/bin/opjit-check";
	if (!map)
		return;
	d->cand.struct_size = HANDLER_GIVES_CANDIDATE;
	d->cand.path = map;
	d->cand.kind = map_kind(map);
	d->candp = &d->cand;
	d->op.maps = &d->candp;
	d->op.nr_maps = 1;
}

/* What a claim and a resolve gave, to compare threads with each other. */
struct outcome {
	int claim;
	char names[CHECK_MAX_ADDRS][64];
	char why[HANDLER_WHY_LEN];
	int broken;
};

static uint64_t addrs[CHECK_MAX_ADDRS], times_[CHECK_MAX_ADDRS];
static size_t nr_addrs;

static int batch_check(const struct opjit_resolve_batch *b, char *why,
		       size_t len)
{
	size_t i;

	for (i = 0; i < b->count; i++) {
		const struct opjit_symbol *s = b->symbols[i];

		if (!s)
			continue;
		if (s->struct_size < OPJIT_SYMBOL_SIZE_1_0 || s->reserved ||
		    !handler_tail_zero(s, OPJIT_SYMBOL_SIZE_1_0,
				       s->struct_size)) {
			snprintf(why, len,
				 "symbol at 0x%llx: struct_size %zu or "
				 "reserved %u not as the ABI says",
				 (unsigned long long)b->addrs[i],
				 s->struct_size, s->reserved);
			return -1;
		}
		if (!s->name) {
			snprintf(why, len, "symbol at 0x%llx has no name",
				 (unsigned long long)b->addrs[i]);
			return -1;
		}
		if (s->size && (b->addrs[i] < s->start ||
				b->addrs[i] - s->start >= s->size)) {
			snprintf(why, len,
				 "0x%llx named %.64s, which spans 0x%llx+%llu",
				 (unsigned long long)b->addrs[i], s->name,
				 (unsigned long long)s->start,
				 (unsigned long long)s->size);
			return -1;
		}
		if (b->reasons[i]) {
			snprintf(why, len,
				 "0x%llx named and given a reason too",
				 (unsigned long long)b->addrs[i]);
			return -1;
		}
	}
	return 0;
}

static int addr_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One batch of N of ADDRS/TIMES on STATE, names into O. */
static int one_batch(void *state, const uint64_t *a, const uint64_t *t,
		     size_t n, struct outcome *o)
{
	const struct opjit_symbol *syms[CHECK_MAX_ADDRS * 2] = { 0 };
	const char *files[CHECK_MAX_ADDRS * 2] = { 0 };
	uint32_t lines[CHECK_MAX_ADDRS * 2] = { 0 };
	uint32_t reasons[CHECK_MAX_ADDRS * 2] = { 0 };
	const struct opjit_inline_frame *inl[CHECK_MAX_ADDRS * 2] = { 0 };
	uint32_t nr_inl[CHECK_MAX_ADDRS * 2] = { 0 };
	struct opjit_resolve_batch b = {
		.struct_size = HANDLER_GIVES_BATCH,
		.count = n,
		.addrs = a,
		.times = t,
		.symbols = syms,
		.files = files,
		.lines = lines,
		.reasons = reasons,
		.inlined = inl,
		.nr_inlined = nr_inl,
	};
	size_t i;
	int rc = h.tab.resolve(state, &b);

	if (rc < 0) {
		const char *e = h.tab.last_error ? h.tab.last_error(state)
						 : NULL;

		snprintf(o->why, sizeof(o->why), "resolve failed: %s",
			 e ? e : "no reason given");
		return -1;
	}
	if (batch_check(&b, o->why, sizeof(o->why)) < 0)
		return -1;
	for (i = 0; i < n && i < CHECK_MAX_ADDRS; i++)
		snprintf(o->names[i], sizeof(o->names[i]), "%s",
			 syms[i] && syms[i]->name ? syms[i]->name : "");
	return 0;
}

/* Wait for the other threads of a step that runs at once, if any. */
static void phase(pthread_barrier_t *bar)
{
	if (bar)
		pthread_barrier_wait(bar);
}

/* Claim D; unless CLAIM_ONLY, resolve a sorted batch (and with REPEAT a
 * repeated one); release.  With BAR, each of the three phases starts
 * when every thread has ended the one before: all states live at once,
 * as in a host that claims several processes before naming them. */
static void run_proc(struct proc_desc *d, struct outcome *o, int repeat,
		     int claim_only, pthread_barrier_t *bar)
{
	char err[HANDLER_WHY_LEN];
	void *state = NULL;
	int claimed = 0;

	memset(err, 'x', sizeof(err));
	err[sizeof(err) - 1] = '\0';
	err[0] = '\0';
	o->claim = h.tab.claim(&h.host, &d->op, &state, err, sizeof(err));
	if (o->claim < 0) {
		if (!err[0] || !memchr(err, '\0', sizeof(err))) {
			o->broken = 1;
			snprintf(o->why, sizeof(o->why),
				 "claim returned %d with no message",
				 o->claim);
		}
	} else if (o->claim > 1 || (o->claim == 1) != (state != NULL)) {
		o->broken = 1;
		snprintf(o->why, sizeof(o->why),
			 "claim returned %d with state %p", o->claim, state);
	} else if (o->claim == 1) {
		claimed = 1;
		if (h.tab.state_flags)
			h.tab.state_flags(state);
	}
	phase(bar);
	if (claimed && !claim_only &&
	    one_batch(state, addrs, times_, nr_addrs, o) < 0)
		o->broken = 1;
	if (claimed && !claim_only && repeat && !o->broken) {
		uint64_t ra[CHECK_MAX_ADDRS * 2], rt[CHECK_MAX_ADDRS * 2];
		struct outcome r = { 0 };
		size_t i;

		/* every address twice, times running backwards */
		for (i = 0; i < nr_addrs * 2; i++) {
			ra[i] = addrs[i / 2];
			rt[i] = times_[nr_addrs - 1] - (uint64_t)i * 1000;
		}
		if (one_batch(state, ra, rt, nr_addrs * 2, &r) < 0) {
			o->broken = 2;
			snprintf(o->why, sizeof(o->why), "%s", r.why);
		}
	}
	phase(bar);
	if (claimed)
		h.tab.release(state);
}

struct thread_arg {
	struct proc_desc d;
	struct outcome o;
	pthread_barrier_t *bar;
};

static void *thread_main(void *arg)
{
	struct thread_arg *t = arg;

	run_proc(&t->d, &t->o, 0, 0, t->bar);
	return NULL;
}

/* Runs in the child: one line of answer per rule it decides, "R F why". */
static void child_step(int out, int step)
{
	struct proc_desc d;
	struct outcome o = { 0 };
	char line[5 * HANDLER_WHY_LEN];
	size_t i;
	int any = 0;

	if (step == 0) {
		/* a process with no maps of ours: any sound answer */
		proc_make(&d, NULL, 0);
		run_proc(&d, &o, 0, 1, NULL);
		snprintf(line, sizeof(line), "%d %d %s\n", R_CLAIM,
			 o.broken == 1 ? F_BROKEN : F_HELD, o.why);
		if (write(out, line, strlen(line)) < 0)
			_exit(1);
		return;
	}
	if (step == 1) {
		/* each map given: claimed, and resolved soundly */
		static struct outcome all;
		static char named[CHECK_MAX_ADDRS];
		char sorted[64], names[HANDLER_WHY_LEN] = "";
		size_t j, nr_named = 0;
		int bad = 0;

		for (i = 0; i < nr_maps; i++) {
			memset(&o, 0, sizeof(o));
			proc_make(&d, map_path[i], 0);
			run_proc(&d, &o, 1, 0, NULL);
			any |= o.claim == 1;
			if (o.broken && !bad) {
				bad = o.broken;
				all = o;
			}
			for (j = 0; j < nr_addrs; j++)
				named[j] |= o.names[j][0] != '\0';
		}
		for (j = 0; j < nr_addrs; j++)
			nr_named += named[j];
		snprintf(sorted, sizeof(sorted), "named %zu of %zu addresses",
			 nr_named, nr_addrs);
		/* each --addr named by the state of some map */
		for (j = 0; j < nr_given; j++) {
			const uint64_t *at =
				bsearch(&given[j], addrs, nr_addrs,
					sizeof(addrs[0]), addr_cmp);

			if (!named[at - addrs]) {
				snprintf(names, sizeof(names),
					 "0x%llx named by no map given",
					 (unsigned long long)given[j]);
				break;
			}
		}
		snprintf(line, sizeof(line),
			 "%d %d %s\n%d %d %s\n%d %d %s\n%d %d %s\n", R_MAPS,
			 any ? F_HELD : F_BROKEN,
			 any ? "" : "no map given was claimed", R_SORTED,
			 bad == 1 ? F_BROKEN
			 : any	  ? F_HELD
				  : F_SKIPPED,
			 bad == 1 ? all.why : sorted, R_REPEAT,
			 bad == 2 ? F_BROKEN
			 : any	  ? F_HELD
				  : F_SKIPPED,
			 bad == 2 ? all.why : "", R_NAMES,
			 !nr_given  ? F_SKIPPED
			 : bad	    ? F_SKIPPED
			 : names[0] ? F_BROKEN
				    : F_HELD,
			 !nr_given ? "no --addr given"
			 : bad	   ? "a batch broke"
				   : names);
		if (write(out, line, strlen(line)) < 0)
			_exit(1);
		return;
	}
	/* step 2: the same processes from threads at once */
	{
		static struct thread_arg t[CHECK_THREADS];
		static struct outcome ref;
		pthread_barrier_t bar;
		pthread_t tid[CHECK_THREADS];
		static char diff[HANDLER_WHY_LEN];
		const char *why = "";
		size_t j;
		int bad = 0;

		if (pthread_barrier_init(&bar, NULL, CHECK_THREADS))
			_exit(1);
		for (i = 0; i < CHECK_THREADS; i++) {
			proc_make(&t[i].d,
				  nr_maps ? map_path[i % nr_maps] : NULL,
				  (uint32_t)i);
			t[i].bar = &bar;
		}
		/* at once first, then each alone, to compare */
		for (i = 0; i < CHECK_THREADS; i++)
			if (pthread_create(&tid[i], NULL, thread_main, &t[i]))
				_exit(1);
		for (i = 0; i < CHECK_THREADS; i++)
			pthread_join(tid[i], NULL);
		for (i = 0; i < CHECK_THREADS && !bad; i++) {
			memset(&ref, 0, sizeof(ref));
			run_proc(&t[i].d, &ref, 0, 0, NULL);
			if (t[i].o.broken) {
				bad = 1;
				why = t[i].o.why;
			} else if (ref.claim != t[i].o.claim) {
				bad = 1;
				snprintf(diff, sizeof(diff),
					 "tgid %u: claim answered %d at once, "
					 "%d alone",
					 t[i].d.op.tgid, t[i].o.claim,
					 ref.claim);
				why = diff;
			} else {
				for (j = 0; j < nr_addrs && !bad; j++) {
					if (!strcmp(ref.names[j],
						    t[i].o.names[j]))
						continue;
					bad = 1;
					snprintf(diff, sizeof(diff),
						 "tgid %u: 0x%llx named '%s' "
						 "at once, '%s' alone",
						 t[i].d.op.tgid,
						 (unsigned long long)addrs[j],
						 t[i].o.names[j],
						 ref.names[j]);
					why = diff;
				}
			}
		}
		snprintf(line, sizeof(line), "%d %d %s\n", R_THREADS,
			 bad ? F_BROKEN : F_HELD, why);
		if (write(out, line, strlen(line)) < 0)
			_exit(1);
	}
}

/* Run STEP in a child with the handler loaded in it; read its verdicts;
 * a crash or a hang breaks RULES (the step's rules). */
static void run_step(int step, const enum rule *rules, size_t nr)
{
	char buf[4096], why[HANDLER_WHY_LEN];
	size_t len = 0, i;
	int fds[2], status = 0, rc;
	pid_t pid;
	struct pollfd p;
	time_t end = time(NULL) + timeout_s;
	char *s, *save;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		rc = handler_open(&h, lib_path, lib_name, why, sizeof(why));
		if (rc < 0)
			_exit(3);
		handler_host_init(&h);
		child_step(fds[1], step);
		_exit(0);
	}
	close(fds[1]);
	p.fd = fds[0];
	p.events = POLLIN;
	for (;;) {
		int left = (int)(end - time(NULL));
		ssize_t r;

		if (left <= 0 || poll(&p, 1, left * 1000) <= 0) {
			kill(pid, SIGKILL);
			for (i = 0; i < nr; i++)
				set(rules[i], F_BROKEN,
				    "no answer within %u s (hangs?)",
				    timeout_s);
			goto reap;
		}
		r = read(fds[0], buf + len, sizeof(buf) - 1 - len);
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	for (s = strtok_r(buf, "\n", &save); s;
	     s = strtok_r(NULL, "\n", &save)) {
		int r, f, n = 0;

		if (sscanf(s, "%d %d %n", &r, &f, &n) >= 2 && r >= 0 &&
		    r < NR_RULES)
			set((enum rule)r, (enum fate)f, "%s", s + n);
	}
reap:
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
		for (i = 0; i < nr; i++)
			if (result[rules[i]].fate != F_BROKEN)
				set(rules[i], F_BROKEN, "killed by %s",
				    strsignal(WTERMSIG(status)));
#ifdef CHECK_TSAN
	if (WIFEXITED(status) && WEXITSTATUS(status) == CHECK_TSAN_STATUS)
		for (i = 0; i < nr; i++)
			set(rules[i], F_BROKEN,
			    "ThreadSanitizer reported a data race (its report "
			    "is on stderr)");
#endif
	/* an exit, or an answer cut short: the handler ended the process */
	for (i = 0; i < nr; i++)
		if (!result[rules[i]].fate ||
		    (WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
		     result[rules[i]].fate != F_BROKEN))
			set(rules[i], F_BROKEN,
			    "the process ended without an answer (status %d)",
			    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static void addrs_make(void)
{
	struct timespec now;
	uint64_t now_ns;
	size_t i, n;

	/* low pages, a typical JIT heap, and the top of user space, then
	 * the addresses given: the same ascending addresses for every
	 * batch */
	for (i = 0; i < CHECK_NR_ADDRS; i++) {
		if (i < 24)
			addrs[i] = 0x1000 + i * 0x100;
		else if (i < 56)
			addrs[i] = 0x7f0000000000ull + (i - 24) * 0x40;
		else
			addrs[i] = 0x7ffffffff000ull + (i - 56) * 0x10;
	}
	memcpy(addrs + CHECK_NR_ADDRS, given, nr_given * sizeof(given[0]));
	qsort(addrs, CHECK_NR_ADDRS + nr_given, sizeof(addrs[0]), addr_cmp);
	for (i = n = 0; i < CHECK_NR_ADDRS + nr_given; i++)
		if (!n || addrs[i] != addrs[n - 1])
			addrs[n++] = addrs[i];
	nr_addrs = n;
	/* samples taken just now, a microsecond apart: after the maps
	 * given were written, so that code they load counts as loaded */
	clock_gettime(CLOCK_MONOTONIC, &now);
	now_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	for (i = 0; i < nr_addrs; i++)
		times_[i] = now_ns - (uint64_t)(nr_addrs - i) * 1000;
}

/* --addr's list: hex addresses, 0x optional, comma-separated. */
static int addrs_parse(const char *arg)
{
	const char *p = arg;
	char *end;

	for (;;) {
		if (nr_given == CHECK_MAX_GIVEN)
			return -E2BIG;
		errno = 0;
		given[nr_given] = strtoull(p, &end, 16);
		if (end == p || errno || (*end && *end != ','))
			return -EINVAL;
		nr_given++;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: opjit-handler-check [--comm=COMM] [--timeout=S] "
		"[--addr=ADDR[,ADDR...]]\n"
		"                           libNAME.so [MAP...]\n"
		"Load the handler libNAME.so as opreport does and check it "
		"against the ABI's rules;\n"
		"offer it a process for each MAP (perf-PID.map, "
		"jit-PID.dump, anon.PID).\n"
		"  --comm=COMM    the command name of the processes offered "
		"(opjit-check)\n"
		"  --timeout=S    seconds before a step counts as hung "
		"(10)\n"
		"  --addr=ADDR,.. addresses (hex) a MAP given names, which "
		"must be named\n"
		"                 (repeatable, at most %d)\n"
		"Exit status: 0 when every rule held, 1 when one broke, 2 "
		"on bad usage.\n",
		CHECK_MAX_GIVEN);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "comm", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "addr", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const enum rule claim_rules[] = { R_CLAIM };
	static const enum rule map_rules[] = { R_MAPS, R_SORTED, R_REPEAT,
					       R_NAMES };
	static const enum rule thread_rules[] = { R_THREADS };
	const char *base;
	char *name;
	size_t n;
	int c, broken = 0;
	enum rule r;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			comm = optarg;
			break;
		case 't':
			timeout_s = (unsigned)strtoul(optarg, NULL, 10);
			if (!timeout_s || timeout_s > 3600) {
				fprintf(stderr,
					"opjit-handler-check: bad --timeout "
					"'%s': 1 to 3600 seconds\n",
					optarg);
				return 2;
			}
			break;
		case 'a':
			if (addrs_parse(optarg) < 0) {
				fprintf(stderr,
					"opjit-handler-check: bad --addr '%s': "
					"hex addresses, comma-separated, at "
					"most %d in all\n",
					optarg, CHECK_MAX_GIVEN);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc || argc - optind - 1 > CHECK_MAX_MAPS) {
		usage(stderr);
		return 2;
	}
	lib_path = argv[optind];
	base = strrchr(lib_path, '/');
	base = base ? base + 1 : lib_path;
	n = strlen(base);
	if (n <= 6 || strncmp(base, "lib", 3) || strcmp(base + n - 3, ".so")) {
		fprintf(stderr,
			"opjit-handler-check: %s: not named libNAME.so\n",
			lib_path);
		return 2;
	}
	name = strndup(base + 3, n - 6);
	if (!name || !handler_name_valid(name)) {
		fprintf(stderr,
			"opjit-handler-check: %s: NAME must be [a-z0-9_-]+, "
			"at most 64 characters\n",
			lib_path);
		return 2;
	}
	lib_name = name;
	for (optind++; optind < argc; optind++)
		map_path[nr_maps++] = argv[optind];
	addrs_make();
	signal(SIGPIPE, SIG_IGN);

	set(R_NAMES, F_SKIPPED, "no --addr given");
	check_load();
	if (result[R_LOAD].fate == F_HELD && result[R_SLOTS].fate == F_HELD) {
		run_step(0, claim_rules, 1);
		/* a claim that breaks alone breaks everything after it */
		if (result[R_CLAIM].fate == F_BROKEN) {
			set(R_MAPS, F_SKIPPED, "claim broke");
			set(R_SORTED, F_SKIPPED, "claim broke");
			set(R_REPEAT, F_SKIPPED, "claim broke");
			set(R_NAMES, F_SKIPPED, "claim broke");
			set(R_THREADS, F_SKIPPED, "claim broke");
		} else {
			if (nr_maps)
				run_step(1, map_rules, nr_given ? 4 : 3);
			run_step(2, thread_rules, 1);
		}
		/* every step released what it claimed, unless it broke */
		set(R_RELEASE,
		    result[R_CLAIM].fate == F_HELD &&
				    result[R_THREADS].fate == F_HELD &&
				    result[R_SORTED].fate != F_BROKEN &&
				    result[R_REPEAT].fate != F_BROKEN
			    ? F_HELD
			    : F_SKIPPED,
		    "%s", "");
	}
	for (r = 0; r < NR_RULES; r++) {
		const char *f = result[r].fate == F_HELD     ? "held"
				: result[r].fate == F_BROKEN ? "BROKEN"
							     : "skipped";

		if (!result[r].fate)
			f = "skipped";
		if (r == R_MAPS && !nr_maps && result[R_CLAIM].fate == F_HELD)
			snprintf(result[r].why, sizeof(result[r].why),
				 "no MAP given");
		if ((r == R_SORTED || r == R_REPEAT || r == R_NAMES) &&
		    !nr_maps && result[R_CLAIM].fate == F_HELD)
			snprintf(result[r].why, sizeof(result[r].why),
				 "no MAP given");
		broken |= result[r].fate == F_BROKEN;
		printf("%-8s %-52s %s\n", f, rule_text[r], result[r].why);
	}
	free(name);
	return broken ? 1 : 0;
}
