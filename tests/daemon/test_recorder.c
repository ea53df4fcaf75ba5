// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The recorder fed with hand-made perf records, read back through
 * libopsamples: offsets in multi-segment images, samples that arrive
 * before their mapping, fork, exec, the anonymous stream and the kernel.
 */
#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <opjit/samples.h>

#include "record.h"
#include "recorder.h"

#include "check_run.h"

static char dir[64];
static char exe[4096];
static struct ops_writer *w;
static struct recorder r;
static uint64_t clock_now = 1000;

#define MS 1000000ull

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void setup_cg(uint32_t separate, uint32_t depth)
{
	struct ops_session_info info = {
		.event = "cpu-clock",
		.frequency = 4000,
		.clock = "CLOCK_MONOTONIC",
		.separate = separate,
		.callgraph_depth = depth,
	};
	struct recorder_config cfg = {
		.separate = separate,
		.archive_maps = false,
		.callgraph_depth = depth,
	};
	ssize_t n;

	strcpy(dir, "/tmp/test_recorder.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	strcat(dir, "/s");
	ck_assert_int_eq(ops_writer_open(&w, dir, &info), 0);
	ck_assert_int_eq(recorder_init(&r, w, &cfg), 0);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
}

static void setup_sep(uint32_t separate)
{
	setup_cg(separate, 0);
}

static void setup(void)
{
	setup_sep(0);
}

static void setup_callgraph(void)
{
	setup_cg(0, 4);
}

static void setup_process(void)
{
	setup_sep(OPS_SEPARATE_PROCESS);
}

static void teardown(void)
{
	char *slash;

	recorder_free(&r);
	if (w)
		ops_writer_free(w);
	w = NULL;
	slash = strrchr(dir, '/');
	*slash = '\0';
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* Close the session and open it for reading. */
static struct ops_session *reopen(void)
{
	struct ops_session_info t;
	struct ops_session *s;
	char err[256];

	recorder_finish(&r);
	ck_assert_int_eq(r.err, 0);
	recorder_totals(&r, &t);
	ops_writer_set_totals(w, &t);
	ck_assert_int_eq(ops_writer_close(w, clock_now), 0);
	w = NULL;
	ck_assert_int_eq(
		ops_session_open(&s, dir, NULL, NULL, err, sizeof(err)), 0);
	return s;
}

static void put_id(unsigned char *end, uint32_t pid, uint32_t tid)
{
	struct record_sample_id id = { .pid = pid,
				       .tid = tid,
				       .time = clock_now++ };

	memcpy(end, &id, sizeof(id));
}

static void feed_mmap(uint32_t pid, uint64_t addr, uint64_t len,
		      uint64_t pgoff, const char *name)
{
	unsigned char buf[512] = { 0 };
	struct record_mmap2 *m = (void *)buf;
	size_t nlen = (strlen(name) + 8) & ~(size_t)7;

	m->h.type = PERF_RECORD_MMAP2;
	m->h.size = (uint16_t)(sizeof(*m) + nlen +
			       sizeof(struct record_sample_id));
	m->pid = m->tid = pid;
	m->addr = addr;
	m->len = len;
	m->pgoff = pgoff;
	m->prot = PROT_READ | PROT_EXEC;
	strcpy(m->filename, name);
	put_id(buf + sizeof(*m) + nlen, pid, pid);
	recorder_record(&r, &m->h);
}

static void feed_sample(uint32_t pid, uint32_t tid, uint64_t ip, uint16_t mode)
{
	struct record_sample s = {
		.h = { .type = PERF_RECORD_SAMPLE,
		       .misc = mode,
		       .size = sizeof(s) },
		.ip = ip,
		.pid = pid,
		.tid = tid,
		.time = clock_now++,
	};

	recorder_record(&r, &s.h);
}

/* A sample with its call chain (PERF_CONTEXT_* markers included). */
static void feed_chain(uint32_t pid, uint64_t ip, uint16_t mode,
		       const uint64_t *chain, uint64_t n)
{
	unsigned char buf[512] = { 0 };
	struct record_sample *rs = (void *)buf;

	rs->h.type = PERF_RECORD_SAMPLE;
	rs->h.misc = mode;
	rs->h.size = (uint16_t)(sizeof(*rs) + 8 * (n + 1));
	rs->ip = ip;
	rs->pid = rs->tid = pid;
	rs->time = clock_now++;
	memcpy(buf + sizeof(*rs), &n, 8);
	memcpy(buf + sizeof(*rs) + 8, chain, 8 * n);
	recorder_record(&r, &rs->h);
}

/* The frames of stack ID as text, "kind:image:addr" leaf first. */
static void stack_text(struct ops_session *s, uint32_t id, char *out,
		       size_t size)
{
	const struct ops_stack *st = ops_session_stack(s, id);
	size_t len = 0;

	ck_assert_ptr_nonnull(st);
	len += (size_t)snprintf(out, size, "k%u f%u", st->nr_kernel,
				st->flags);
	for (uint32_t i = 0; i < st->nr_frames && len < size; i++)
		len += (size_t)snprintf(
			out + len, size - len, " %u:%u:%llx",
			st->frames[i].kind, st->frames[i].image,
			(unsigned long long)st->frames[i].addr);
}

static void feed_task(uint32_t type, uint32_t pid, uint32_t ppid)
{
	struct {
		struct record_task t;
		struct record_sample_id id;
	} rec = { 0 };

	rec.t.h.type = type;
	rec.t.h.size = sizeof(rec);
	rec.t.pid = rec.t.tid = pid;
	rec.t.ppid = rec.t.ptid = ppid;
	rec.id.time = clock_now++;
	recorder_record(&r, &rec.t.h);
}

static void feed_exec(uint32_t pid, const char *comm)
{
	unsigned char buf[128] = { 0 };
	struct record_comm *c = (void *)buf;

	c->h.type = PERF_RECORD_COMM;
	c->h.misc = PERF_RECORD_MISC_COMM_EXEC;
	c->h.size = sizeof(*c) + 16 + sizeof(struct record_sample_id);
	c->pid = c->tid = pid;
	strcpy(c->comm, comm);
	put_id(buf + sizeof(*c) + 16, pid, pid);
	recorder_record(&r, &c->h);
}

/* Samples of image PATH at OFFSET, over all contexts; the process of
 * the last matching context in *TGID. */
static uint64_t count_at(struct ops_session *s, const char *path,
			 uint64_t offset, uint32_t *tgid)
{
	const struct ops_hist_entry *h;
	uint64_t n = 0;
	size_t nh;

	h = ops_session_hist(s, &nh);
	for (size_t i = 0; i < nh; i++) {
		const struct ops_context *c = ops_session_context(s, h[i].ctx);
		const struct ops_image *img = ops_session_image(s, c->image);

		if (strcmp(img->path, path) || h[i].offset != offset)
			continue;
		n += h[i].count;
		if (tgid)
			*tgid = c->tgid;
	}
	return n;
}

static void setup_threads(void)
{
	setup_sep(OPS_SEPARATE_PROCESS | OPS_SEPARATE_THREAD);
}

/* Thread TID of PID made by thread PTID (PERF_RECORD_FORK). */
static void feed_thread(uint32_t pid, uint32_t tid, uint32_t ptid)
{
	struct {
		struct record_task t;
		struct record_sample_id id;
	} rec = { 0 };

	rec.t.h.type = PERF_RECORD_FORK;
	rec.t.h.size = sizeof(rec);
	rec.t.pid = rec.t.ppid = pid;
	rec.t.tid = tid;
	rec.t.ptid = ptid;
	rec.id.time = clock_now++;
	recorder_record(&r, &rec.t.h);
}

/* Thread TID of PID renames itself (PR_SET_NAME). */
static void feed_rename(uint32_t pid, uint32_t tid, const char *comm)
{
	unsigned char buf[128] = { 0 };
	struct record_comm *c = (void *)buf;

	c->h.type = PERF_RECORD_COMM;
	c->h.size = sizeof(*c) + 16 + sizeof(struct record_sample_id);
	c->pid = pid;
	c->tid = tid;
	strcpy(c->comm, comm);
	put_id(buf + sizeof(*c) + 16, pid, tid);
	recorder_record(&r, &c->h);
}

/* Samples at OFFSET of the image PATH in contexts of thread TID. */
static uint64_t thread_count_at(struct ops_session *s, const char *path,
				uint64_t offset, uint32_t tid)
{
	const struct ops_hist_entry *h;
	uint64_t n = 0;
	size_t nh;

	h = ops_session_hist(s, &nh);
	for (size_t i = 0; i < nh; i++) {
		const struct ops_context *c = ops_session_context(s, h[i].ctx);
		const struct ops_image *img = ops_session_image(s, c->image);

		if (!strcmp(img->path, path) && h[i].offset == offset &&
		    c->tid == tid)
			n += h[i].count;
	}
	return n;
}

/* --separate=thread: each thread's counts under its own contexts, and
 * each sampled thread's name: its own, its creator's, the last it
 * took, or for a thread the recorder never saw start (and /proc no
 * longer shows), its process's.  Pids above the kernel's pid_max, so
 * that /proc has none of them. */
START_TEST(test_threads)
{
	const uint32_t pid = 5000000, t1 = pid + 1, t2 = pid + 2,
		       lost = pid + 99;
	struct ops_session *s;

	feed_exec(pid, "app");
	feed_mmap(pid, 0x400000, 0x1000, 0, exe);
	feed_thread(pid, t1, pid);
	feed_rename(pid, t1, "worker");
	for (int i = 0; i < 3; i++) {
		feed_sample(pid, pid, 0x400010, PERF_RECORD_MISC_USER);
		feed_sample(pid, t1, 0x400010, PERF_RECORD_MISC_USER);
		feed_sample(pid, t1, 0x400020, PERF_RECORD_MISC_USER);
	}
	/* renamed after its first sample; then starts a thread, which
	 * takes the new name */
	feed_rename(pid, t1, "worker2");
	feed_thread(pid, t2, t1);
	feed_sample(pid, t2, 0x400010, PERF_RECORD_MISC_USER);
	feed_sample(pid, lost, 0x400010, PERF_RECORD_MISC_USER);
	recorder_end_round(&r);
	s = reopen();
	ck_assert_uint_eq(thread_count_at(s, exe, 0x10, pid), 3);
	ck_assert_uint_eq(thread_count_at(s, exe, 0x10, t1), 3);
	ck_assert_uint_eq(thread_count_at(s, exe, 0x20, t1), 3);
	ck_assert_uint_eq(thread_count_at(s, exe, 0x10, t2), 1);
	ck_assert_uint_eq(thread_count_at(s, exe, 0x10, lost), 1);
	ck_assert_uint_eq(thread_count_at(s, exe, 0x10, 0), 0);
	ck_assert_str_eq(ops_session_thread_name(s, pid, pid), "app");
	ck_assert_str_eq(ops_session_thread_name(s, pid, t1), "worker2");
	ck_assert_str_eq(ops_session_thread_name(s, pid, t2), "worker2");
	ck_assert_str_eq(ops_session_thread_name(s, pid, lost), "app");
	ops_session_close(s);
}
END_TEST

START_TEST(test_multi_segment_and_pgoff)
{
	struct ops_session *s;

	feed_mmap(100, 0x400000, 0x2000, 0x1000, exe);
	feed_mmap(100, 0x600000, 0x1000, 0x5000, exe);
	feed_sample(100, 100, 0x400010, PERF_RECORD_MISC_USER);
	feed_sample(100, 101, 0x400010, PERF_RECORD_MISC_USER);
	feed_sample(100, 100, 0x600020, PERF_RECORD_MISC_USER);
	recorder_end_round(&r);
	s = reopen();
	ck_assert_uint_eq(count_at(s, exe, 0x1010, NULL), 2);
	ck_assert_uint_eq(count_at(s, exe, 0x5020, NULL), 1);
	ck_assert_uint_eq(ops_session_info(s)->samples, 3);
	ck_assert_uint_eq(ops_session_info(s)->samples_unattributed, 0);
	ck_assert_uint_eq(ops_session_info(s)->processes, 1);
	ops_session_close(s);
}
END_TEST

/* The round's counts are tallied before they reach the writer: keys
 * that share a slot, more keys than slots, a flush in the middle of a
 * round and a held sample placed only at the end all add up. */
START_TEST(test_counts_tallied)
{
	enum { KEYS = 3 * RECORDER_TALLY + 7 };
	struct ops_session *s;
	uint64_t total = 0;

	feed_mmap(100, 0x400000, 0x100000, 0, exe);
	for (int round = 0; round < 3; round++) {
		for (uint64_t k = 0; k < KEYS; k++)
			for (uint64_t n = 0; n <= k % 5; n++)
				feed_sample(100, 100, 0x400000 + 16 * k,
					    PERF_RECORD_MISC_USER);
		if (round == 1)
			ck_assert_int_eq(recorder_flush(&r), 0);
		recorder_end_round(&r);
	}
	/* its mapping arrives in the last round, after the sample */
	feed_sample(100, 100, 0x900010, PERF_RECORD_MISC_USER);
	feed_mmap(100, 0x900000, 0x1000, 0x300000, exe);
	s = reopen();
	for (uint64_t k = 0; k < KEYS; k++) {
		ck_assert_uint_eq(count_at(s, exe, 16 * k, NULL),
				  3 * (k % 5 + 1));
		total += 3 * (k % 5 + 1);
	}
	ck_assert_uint_eq(count_at(s, exe, 0x300010, NULL), 1);
	ck_assert_uint_eq(ops_session_info(s)->samples, total + 1);
	ops_session_close(s);
}
END_TEST

START_TEST(test_sample_before_its_mapping)
{
	struct ops_session *s;

	/* the mapping sits in another CPU's buffer, read later */
	feed_sample(200, 200, 0x500100, PERF_RECORD_MISC_USER);
	ck_assert_uint_eq(r.pending.n, 1);
	feed_mmap(200, 0x500000, 0x1000, 0, exe);
	recorder_end_round(&r);
	ck_assert_uint_eq(r.pending.n, 0);
	/* and one that no mapping ever explains */
	feed_sample(200, 200, 0x900000, PERF_RECORD_MISC_USER);
	recorder_end_round(&r);
	s = reopen();
	ck_assert_uint_eq(count_at(s, exe, 0x100, NULL), 1);
	ck_assert_uint_eq(ops_session_info(s)->samples, 2);
	ck_assert_uint_eq(ops_session_info(s)->samples_unattributed, 1);
	ops_session_close(s);
}
END_TEST

START_TEST(test_fork_copies_exec_resets)
{
	struct ops_session *s;
	uint32_t tgid = 0;

	feed_mmap(300, 0x400000, 0x1000, 0, exe);
	feed_task(PERF_RECORD_FORK, 301, 300);
	/* the child runs its parent's code until it execs */
	feed_sample(301, 301, 0x400040, PERF_RECORD_MISC_USER);
	feed_exec(301, "other");
	feed_sample(301, 301, 0x400080, PERF_RECORD_MISC_USER);
	recorder_end_round(&r);
	s = reopen();
	ck_assert_uint_eq(count_at(s, exe, 0x40, &tgid), 1);
	ck_assert_uint_eq(tgid, 301);
	ck_assert_uint_eq(count_at(s, exe, 0x80, NULL), 0);
	ck_assert_uint_eq(ops_session_info(s)->samples_unattributed, 1);
	ops_session_close(s);
}
END_TEST

START_TEST(test_anonymous_stream)
{
	uint32_t me = (uint32_t)getpid();
	const struct ops_anon_sample *a;
	const struct ops_process *p;
	struct ops_session *s;
	size_t n;

	feed_mmap(me, 0x7f0000000000, 0x1000, 0, "//anon");
	feed_mmap(me, 0x7f0000010000, 0x1000, 0, "/memfd:jit (deleted)");
	feed_sample(me, me + 1, 0x7f0000000010, PERF_RECORD_MISC_USER);
	feed_sample(me, me + 2, 0x7f0000010020, PERF_RECORD_MISC_USER);
	recorder_end_round(&r);
	ck_assert_int_eq(recorder_flush(&r), 0);
	s = reopen();
	ck_assert_uint_eq(ops_session_nr_processes(s), 1);
	p = ops_session_process(s, 0);
	ck_assert_uint_eq(p->tgid, me);
	ck_assert_uint_eq(p->uid, getuid());
	ck_assert_uint_eq(p->nr_ranges, 2);
	ck_assert_int_eq(ops_session_anon(s, 0, &a, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(a[0].addr, 0x7f0000000010);
	ck_assert_uint_eq(a[0].tid, me + 1);
	ck_assert_uint_eq(a[1].addr, 0x7f0000010020);
	ck_assert_uint_eq(a[1].tid, me + 2);
	ck_assert_uint_lt(a[0].time_ns, a[1].time_ns);
	ck_assert_uint_eq(ops_session_info(s)->samples_anon, 2);
	ops_session_close(s);
}
END_TEST

START_TEST(test_kernel_samples)
{
	struct ops_session *s;

	feed_sample(0, 0, 0xffffffff81000123, PERF_RECORD_MISC_KERNEL);
	feed_sample(400, 400, 0xffffffff81000123, PERF_RECORD_MISC_KERNEL);
	recorder_end_round(&r);
	s = reopen();
	ck_assert_uint_eq(
		count_at(s, "[kernel.kallsyms]", 0xffffffff81000123, NULL), 2);
	ck_assert_uint_eq(ops_session_info(s)->samples_kernel, 2);
	ops_session_close(s);
}
END_TEST

/* After an exec, a kernel sample before the new program's mapping (in
 * execve itself) has no program yet; those after it have the program
 * as application, not the context the first one made. */
START_TEST(test_kernel_context_after_exec)
{
	const struct ops_hist_entry *h;
	struct ops_session *s;
	uint32_t napp = 0, nkern = 0;
	size_t nh;

	feed_exec(410, "prog");
	feed_sample(410, 410, 0xffffffff81000123, PERF_RECORD_MISC_KERNEL);
	feed_mmap(410, 0x400000, 0x1000, 0, exe);
	feed_sample(410, 410, 0xffffffff81000456, PERF_RECORD_MISC_KERNEL);
	recorder_end_round(&r);
	s = reopen();
	h = ops_session_hist(s, &nh);
	for (size_t i = 0; i < nh; i++) {
		const struct ops_context *c = ops_session_context(s, h[i].ctx);
		const struct ops_image *app = ops_session_image(s, c->app);

		if (h[i].offset == 0xffffffff81000456)
			napp += !strcmp(app->path, exe);
		if (h[i].offset == 0xffffffff81000123)
			nkern += !strcmp(app->path, "[kernel.kallsyms]");
	}
	ck_assert_uint_eq(napp, 1);
	ck_assert_uint_eq(nkern, 1);
	ops_session_close(s);
}
END_TEST

START_TEST(test_exited_process_forgotten)
{
	struct ops_session *s;

	feed_mmap(500, 0x400000, 0x1000, 0, exe);
	feed_sample(500, 500, 0x400008, PERF_RECORD_MISC_USER);
	feed_task(PERF_RECORD_EXIT, 500, 1);
	/* a late sample of the dead process still finds its table */
	feed_sample(500, 500, 0x400008, PERF_RECORD_MISC_USER);
	for (int i = 0; i < 5; i++)
		recorder_end_round(&r);
	ck_assert_ptr_null(proctab_get(&r.procs, 500));
	s = reopen();
	ck_assert_uint_eq(count_at(s, exe, 0x8, NULL), 2);
	ops_session_close(s);
}
END_TEST

/* A runtime maps its jit-<pid>.dump executable only to be seen: the
 * recorder notes the path with the process and archives the dump, and
 * the mapping is neither an image nor code, so no sample is lost or
 * filed under it. */
START_TEST(test_jitdump_mapping_is_data)
{
	uint32_t me = (uint32_t)getpid();
	const struct ops_process *p;
	const char *const *maps;
	char dump[128], *slash;
	struct ops_session *s;
	size_t n, i;
	uint32_t k;
	FILE *f;

	snprintf(dump, sizeof(dump), "%s", dir);
	slash = strrchr(dump, '/');
	snprintf(slash, sizeof(dump) - (size_t)(slash - dump), "/jit-%u.dump",
		 me);
	f = fopen(dump, "w");
	ck_assert_ptr_nonnull(f);
	fputs("JiTD", f);
	fclose(f);
	r.cfg.archive_maps = true;
	r.cfg.archive_max_bytes = 1 << 20;
	feed_mmap(me, 0x7f0000000000, 0x1000, 0, "//anon");
	feed_mmap(me, 0x7f0000020000, 0x1000, 0, dump);
	feed_sample(me, me, 0x7f0000000010, PERF_RECORD_MISC_USER);
	feed_sample(me, me, 0x7f0000000020, PERF_RECORD_MISC_USER);
	recorder_end_round(&r);
	ck_assert_int_eq(recorder_flush(&r), 0);
	s = reopen();
	ck_assert_uint_eq(ops_session_info(s)->samples_anon, 2);
	ck_assert_uint_eq(ops_session_info(s)->samples_unattributed, 0);
	p = ops_session_process(s, 0);
	ck_assert_ptr_nonnull(p->jitdump);
	ck_assert_str_eq(p->jitdump, dump);
	for (k = 0; k < ops_session_nr_images(s); k++)
		ck_assert_ptr_null(
			strstr(ops_session_image(s, k)->path, "jit-"));
	n = ops_session_archived_maps(s, 0, &maps);
	for (i = 0; i < n; i++)
		if (strstr(maps[i], slash + 1))
			break;
	ck_assert_uint_lt(i, n);
	ops_session_close(s);
	unlink(dump);
}
END_TEST

/* -g: kernel then user frames, each placed like a flat sample; a stack
 * with a JIT frame goes to the process's stream; the depth limit flags
 * the stack; a held sample keeps its chain. */
START_TEST(test_callchains)
{
	const uint64_t kchain[] = { PERF_CONTEXT_KERNEL,
				    0xffffffff81000010ull,
				    PERF_CONTEXT_USER,
				    0x400030,
				    0x900000,
				    0x400040 };
	const uint64_t achain[] = { PERF_CONTEXT_USER, 0x400010,
				    0x7f0000000100ull, 0x400020 };
	const uint64_t pchain[] = { PERF_CONTEXT_USER, 0x500100, 0x500200 };
	const struct ops_anon_stack_sample *as;
	const struct ops_stack_count *sc;
	struct ops_session *s;
	char text[512];
	size_t n;

	feed_mmap(100, 0x400000, 0x2000, 0x1000, exe);
	feed_mmap(100, 0x7f0000000000ull, 0x10000, 0, "//anon");
	feed_chain(100, 0x400010, PERF_RECORD_MISC_USER, achain, 4);
	feed_chain(100, 0xffffffff81000010ull, PERF_RECORD_MISC_KERNEL, kchain,
		   6);
	/* before its mapping: held in pending with its chain */
	feed_chain(300, 0x500100, PERF_RECORD_MISC_USER, pchain, 3);
	ck_assert_uint_eq(r.pending.n, 1);
	feed_mmap(300, 0x500000, 0x1000, 0, exe);
	recorder_end_round(&r);
	ck_assert_uint_eq(r.pending.n, 0);
	s = reopen();
	ck_assert_uint_eq(ops_session_info(s)->callgraph_depth, 4);
	sc = ops_session_stack_hist(s, &n);
	ck_assert_uint_eq(n, 2);
	stack_text(s, sc[0].stack, text, sizeof(text));
	ck_assert_str_eq(text, "k0 f0 0:0:100 0:0:200");
	stack_text(s, sc[1].stack, text, sizeof(text));
	ck_assert_str_eq(
		text,
		"k1 f1 0:1:ffffffff81000010 0:0:1030 2:0:900000 0:0:1040");
	ck_assert_uint_eq(ops_session_image(s, 1)->kind, OPS_IMAGE_KERNEL);
	ck_assert_uint_eq(ops_session_nr_processes(s), 1);
	ck_assert_int_eq(ops_session_anon_stacks(s, 0, &as, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(as[0].tid, 100);
	stack_text(s, as[0].stack, text, sizeof(text));
	ck_assert_str_eq(text, "k0 f0 0:0:1010 1:0:7f0000000100 0:0:1020");
	ops_session_close(s);
}
END_TEST

/* A chain whose entries fill the depth but are not all frames of the
 * stack (here a kernel part after the user one, which no frame is kept
 * for) was not cut: its one-frame stack is not flagged. */
START_TEST(test_full_chain_of_other_parts_not_cut)
{
	const uint64_t chain[] = {
		PERF_CONTEXT_USER,     0x400010,
		PERF_CONTEXT_KERNEL,   0xffffffff81000010ull,
		0xffffffff81000020ull, 0xffffffff81000030ull
	};
	const struct ops_stack_count *sc;
	struct ops_session *s;
	char text[512];
	size_t n;

	feed_mmap(100, 0x400000, 0x2000, 0x1000, exe);
	feed_chain(100, 0x400010, PERF_RECORD_MISC_USER, chain, 6);
	recorder_end_round(&r);
	s = reopen();
	sc = ops_session_stack_hist(s, &n);
	ck_assert_uint_eq(n, 1);
	stack_text(s, sc[0].stack, text, sizeof(text));
	ck_assert_str_eq(text, "k0 f0 0:0:1010");
	ops_session_close(s);
}
END_TEST

/* A frame-pointer walk that ran off the stack and read a value in the
 * markers' range: the stack ends there (what follows is no chain), and
 * it is not cut at the depth limit. */
START_TEST(test_chain_astray_ends_stack)
{
	const uint64_t chain[] = { PERF_CONTEXT_USER, 0x400010, 0x400020,
				   (uint64_t)PERF_CONTEXT_MAX + 0x200,
				   0x400030 };
	const struct ops_stack_count *sc;
	struct ops_session *s;
	char text[512];
	size_t n;

	feed_mmap(100, 0x400000, 0x2000, 0x1000, exe);
	feed_chain(100, 0x400010, PERF_RECORD_MISC_USER, chain, 5);
	recorder_end_round(&r);
	s = reopen();
	sc = ops_session_stack_hist(s, &n);
	ck_assert_uint_eq(n, 1);
	stack_text(s, sc[0].stack, text, sizeof(text));
	ck_assert_str_eq(text, "k0 f0 0:0:1010 0:0:1020");
	ops_session_close(s);
}
END_TEST

/* The flat and the stack samples of the session in the window [FROM,
 * TO) ms: counts and anonymous samples, stack counts and anonymous stack
 * samples. */
static void window_counts(uint64_t from, uint64_t to, uint64_t *flat,
			  uint64_t *stacks)
{
	const struct ops_anon_stack_sample *as;
	const struct ops_anon_sample *an;
	const struct ops_stack_count *sc;
	const struct ops_hist_entry *h;
	struct ops_session *s;
	char err[256];
	size_t n, i;

	ck_assert_int_eq(
		ops_session_open(&s, dir, NULL, NULL, err, sizeof(err)), 0);
	if (to)
		ck_assert_int_eq(ops_session_set_window(s, from * MS, to * MS),
				 0);
	*flat = *stacks = 0;
	h = ops_session_hist(s, &n);
	for (i = 0; i < n; i++)
		*flat += h[i].count;
	sc = ops_session_stack_hist(s, &n);
	for (i = 0; i < n; i++)
		*stacks += sc[i].count;
	for (uint32_t p = 0; p < ops_session_nr_processes(s); p++) {
		ck_assert_int_eq(ops_session_anon(s, p, &an, &n), 0);
		*flat += n;
		ck_assert_int_eq(ops_session_anon_stacks(s, p, &as, &n), 0);
		*stacks += n;
	}
	ops_session_close(s);
}

/* A sample's flat count and its stack are in one time slice, that of
 * its time, whichever way its stack is kept (a stack count, or a stack
 * sample for its JIT frame), also when it was read late from another
 * CPU's buffer or held until its mapping was known; and a window takes
 * both or neither. */
START_TEST(test_stack_in_its_flat_slice)
{
	const uint64_t jchain[] = { PERF_CONTEXT_USER, 0x400010,
				    0x7f0000000100ull, 0x400020 };
	const uint64_t nchain[] = { PERF_CONTEXT_USER, 0x400030, 0x400020 };
	const uint64_t hchain[] = { PERF_CONTEXT_USER, 0x600010,
				    0x7f0000000100ull, 0x400020 };
	const uint64_t achain[] = { PERF_CONTEXT_USER, 0x7f0000000200ull,
				    0x400020 };
	uint64_t flat, stacks;

	clock_now = 150 * MS;
	feed_mmap(100, 0x400000, 0x2000, 0x1000, exe);
	feed_mmap(100, 0x7f0000000000ull, 0x10000, 0, "//anon");
	feed_chain(100, 0x400010, PERF_RECORD_MISC_USER, jchain, 4);
	feed_chain(100, 0x400030, PERF_RECORD_MISC_USER, nchain, 3);
	clock_now = 250 * MS;
	feed_chain(100, 0x400010, PERF_RECORD_MISC_USER, jchain, 4);
	/* read late, from another CPU's buffer */
	clock_now = 180 * MS;
	feed_chain(100, 0x400010, PERF_RECORD_MISC_USER, jchain, 4);
	feed_chain(100, 0x400030, PERF_RECORD_MISC_USER, nchain, 3);
	/* held until its mapping is known, in slice 2 */
	clock_now = 190 * MS;
	feed_chain(100, 0x600010, PERF_RECORD_MISC_USER, hchain, 4);
	feed_chain(100, 0x7f0000000200ull, PERF_RECORD_MISC_USER, achain, 3);
	ck_assert_uint_eq(r.pending.n, 1);
	clock_now = 260 * MS;
	feed_mmap(100, 0x600000, 0x1000, 0, exe);
	recorder_end_round(&r);
	ck_assert_uint_eq(r.pending.n, 0);
	ops_session_close(reopen());

	window_counts(0, 0, &flat, &stacks);
	ck_assert_uint_eq(flat, 7);
	ck_assert_uint_eq(stacks, 7);
	/* slice 1 */
	window_counts(100, 200, &flat, &stacks);
	ck_assert_uint_eq(flat, 6);
	ck_assert_uint_eq(stacks, 6);
	/* slice 1 by its middle: the counted samples of it, the JIT one
	 * at 190 ms by its own time */
	window_counts(0, 155, &flat, &stacks);
	ck_assert_uint_eq(flat, 5);
	ck_assert_uint_eq(stacks, 5);
	window_counts(200, 300, &flat, &stacks);
	ck_assert_uint_eq(flat, 1);
	ck_assert_uint_eq(stacks, 1);
}
END_TEST

/* The samples of the session's stack written as TEXT (stack_text()),
 * interned (counted) or in process 0's stream (JIT stacks). */
static uint64_t stack_samples(struct ops_session *s, const char *text)
{
	const struct ops_anon_stack_sample *as;
	const struct ops_stack_count *sc;
	uint64_t total = 0;
	char t[512];
	size_t n, i;

	sc = ops_session_stack_hist(s, &n);
	for (i = 0; i < n; i++) {
		stack_text(s, sc[i].stack, t, sizeof(t));
		total += strcmp(t, text) ? 0 : sc[i].count;
	}
	if (!ops_session_nr_processes(s))
		return total;
	ck_assert_int_eq(ops_session_anon_stacks(s, 0, &as, &n), 0);
	for (i = 0; i < n; i++) {
		stack_text(s, as[i].stack, t, sizeof(t));
		total += !strcmp(t, text);
	}
	return total;
}

/* A frame is placed as it was the sample before only while its
 * process's mappings stay as they were: the same addresses, with the
 * JIT's range replaced by a file's, the file remapped at another
 * offset, and JIT code mapped there again, are four stacks. */
START_TEST(test_placement_follows_mappings)
{
	const uint64_t chain[] = { PERF_CONTEXT_USER, 0x400010,
				   0x7f0000000100ull, 0x400020 };
	const uint64_t jit = 0x7f0000000000ull;
	struct ops_session *s;

	feed_mmap(100, 0x400000, 0x2000, 0x1000, exe);
	feed_mmap(100, jit, 0x1000, 0, "//anon");
	feed_chain(100, 0x400010, PERF_RECORD_MISC_USER, chain, 4);
	feed_mmap(100, jit, 0x1000, 0x3000, exe);
	feed_chain(100, 0x400010, PERF_RECORD_MISC_USER, chain, 4);
	feed_mmap(100, 0x400000, 0x2000, 0x5000, exe);
	feed_chain(100, 0x400010, PERF_RECORD_MISC_USER, chain, 4);
	feed_mmap(100, jit, 0x10000, 0, "//anon");
	feed_chain(100, 0x400010, PERF_RECORD_MISC_USER, chain, 4);
	recorder_end_round(&r);
	s = reopen();
	ck_assert_uint_eq(
		stack_samples(s, "k0 f0 0:0:1010 1:0:7f0000000100 0:0:1020"),
		1);
	ck_assert_uint_eq(stack_samples(s, "k0 f0 0:0:1010 0:0:3100 0:0:1020"),
			  1);
	ck_assert_uint_eq(stack_samples(s, "k0 f0 0:0:5010 0:0:3100 0:0:5020"),
			  1);
	ck_assert_uint_eq(
		stack_samples(s, "k0 f0 0:0:5010 1:0:7f0000000100 0:0:5020"),
		1);
	ops_session_close(s);
}
END_TEST

/* Processes whose code lies at the same addresses, each with its own
 * mapping (here the same file at another offset), sampled in turn:
 * each frame is placed in its own process's mappings. */
START_TEST(test_placement_per_process)
{
	const uint64_t chain[] = { PERF_CONTEXT_USER, 0x400010, 0x400020 };
	struct ops_session *s;
	char text[128];
	uint32_t k, round;

	/* more processes than a table of the recorder's by thread would
	 * have lanes (16), so that some share one */
	for (k = 0; k < 17; k++)
		feed_mmap(200 + k, 0x400000, 0x2000, 0x1000 * (k + 1), exe);
	for (round = 0; round < 2; round++)
		for (k = 0; k < 17; k++)
			feed_chain(200 + k, 0x400010, PERF_RECORD_MISC_USER,
				   chain, 3);
	recorder_end_round(&r);
	s = reopen();
	for (k = 0; k < 17; k++) {
		snprintf(text, sizeof(text), "k0 f0 0:0:%x 0:0:%x",
			 0x1000 * (k + 1) + 0x10, 0x1000 * (k + 1) + 0x20);
		ck_assert_uint_eq(stack_samples(s, text), 2);
	}
	ops_session_close(s);
}
END_TEST

/* An exec starts the process's mappings again from none: the program
 * mapped at the same address after it is placed anew. */
START_TEST(test_placement_after_exec)
{
	const uint64_t chain[] = { PERF_CONTEXT_USER, 0x400010, 0x400020 };
	struct ops_session *s;

	feed_mmap(300, 0x400000, 0x2000, 0x1000, exe);
	feed_chain(300, 0x400010, PERF_RECORD_MISC_USER, chain, 3);
	feed_exec(300, "other");
	feed_mmap(300, 0x400000, 0x2000, 0x3000, exe);
	feed_chain(300, 0x400010, PERF_RECORD_MISC_USER, chain, 3);
	recorder_end_round(&r);
	s = reopen();
	ck_assert_uint_eq(stack_samples(s, "k0 f0 0:0:1010 0:0:1020"), 1);
	ck_assert_uint_eq(stack_samples(s, "k0 f0 0:0:3010 0:0:3020"), 1);
	ops_session_close(s);
}
END_TEST

static Suite *recorder_suite(void)
{
	Suite *s = suite_create("recorder");
	TCase *tc = tcase_create("records");
	TCase *cg = tcase_create("callgraph");
	TCase *sep = tcase_create("separate process");
	TCase *thr = tcase_create("separate thread");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_multi_segment_and_pgoff);
	tcase_add_test(tc, test_counts_tallied);
	tcase_add_test(tc, test_sample_before_its_mapping);
	tcase_add_test(tc, test_anonymous_stream);
	tcase_add_test(tc, test_kernel_samples);
	tcase_add_test(tc, test_kernel_context_after_exec);
	tcase_add_test(tc, test_exited_process_forgotten);
	tcase_add_test(tc, test_jitdump_mapping_is_data);
	tcase_add_checked_fixture(sep, setup_process, teardown);
	tcase_add_test(sep, test_fork_copies_exec_resets);
	tcase_add_checked_fixture(cg, setup_callgraph, teardown);
	tcase_add_test(cg, test_callchains);
	tcase_add_test(cg, test_full_chain_of_other_parts_not_cut);
	tcase_add_test(cg, test_chain_astray_ends_stack);
	tcase_add_test(cg, test_stack_in_its_flat_slice);
	tcase_add_test(cg, test_placement_follows_mappings);
	tcase_add_test(cg, test_placement_per_process);
	tcase_add_test(cg, test_placement_after_exec);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, sep);
	tcase_add_checked_fixture(thr, setup_threads, teardown);
	tcase_add_test(thr, test_threads);
	suite_add_tcase(s, thr);
	suite_add_tcase(s, cg);
	return s;
}

int main(void)
{
	return opjit_check_run(recorder_suite());
}
