// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A handler built many ways for the loader tests: well-formed, or wrong
 * in exactly one way chosen by a FAKE_* definition.
 *
 * A good build claims a process whose comm is its name or "any"; names
 * [0x1000,0x2000) "NAME:lo" (with source file and line) and
 * [0x2000,0x3000) "NAME:hi"; and for comm "cands" names sample I after
 * the I-th map candidate, so a test can see the list the host built.
 * For comm "inline" and a host of ABI 1.2, [0x1800,0x1900) is
 * "NAME:inner", inlined into "NAME:mid" (mid.c:20) inlined into
 * "NAME:lo" (lo.c:30); for comm "deep", into 100 frames of "NAME:mid",
 * lines 1 to 100; for comm "badinline", into "mid" and then a frame
 * whose reserved field is set.
 *
 * For comm "badresolve", every batch fails; for "badlater", each from
 * the second on.
 *
 * For comm "counted", [0x1000,0x2000) is "NAME:claim N", N the claims
 * of that tgid this handler has had (in this process, or its helper):
 * a test sees whether the host claimed a process once or twice.  A
 * count outside the states, which the concurrency rule forbids, kept
 * for that comm alone.
 *
 * A timeless build (FAKE_TIMELESS, ABI 1.3) says its names depend on the
 * address alone, refuses a batch that asks an address twice, and warns
 * "asked N" for each batch of N addresses.
 *
 * A misbehaving build (FAKE_BAD_*) claims the processes a good one does
 * and "jitdemo" too, and then does the one wrong thing it is named for.
 *
 * A shared build (FAKE_SHARED) is not thread-safe: it keeps what claim
 * made in globals, unlocked, as if one process were claimed at a time,
 * and names [0x1000,0x2000) "NAME:TGID" from there.
 * A hostile one (FAKE_HOSTILE_*) attacks while claiming: when the attack
 * works it declines with "attack succeeded: ..." as its reason (with what
 * it stole), so that a test sees it; when it fails it declines quietly
 * (setown claims, so that opreport's next call on the channel would fire
 * the signal), or, for the limits, says how far it got.
 */
#define _GNU_SOURCE /* the fcntl and prlimit calls of the hostile builds */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opjit/anon_handler.h>

#ifndef FAKE_NAME
#error "FAKE_NAME must be defined"
#endif
#if defined(FAKE_FROZEN_1_0) && !defined(OPJIT_ANON_HANDLER_FROZEN_1_0)
#error "FAKE_FROZEN_1_0: not built against the frozen 1.0 header"
#endif
#ifndef FAKE_TABLE_NAME
#define FAKE_TABLE_NAME FAKE_NAME
#endif
#ifndef FAKE_MAJOR
#define FAKE_MAJOR OPJIT_HANDLER_ABI_MAJOR
#endif
#ifndef FAKE_DESCRIPTION
#define FAKE_DESCRIPTION "fake handler " FAKE_NAME
#endif

#define MAX_CANDS 16

#if defined(FAKE_BAD_SEGV_CLAIM) || defined(FAKE_BAD_SEGV_RESOLVE) || \
	defined(FAKE_BAD_SEGV_CTOR) || defined(FAKE_BAD_SEGV_RELEASE)
#include <signal.h>
/* a real fault, not a raise(): what a bad pointer does (and not one the
 * sanitizers would catch first) */
__attribute__((no_sanitize("undefined", "address"))) static void
fake_segv(void)
{
	volatile int *volatile p = NULL;

	*p = 1;
}
#endif
#if defined(FAKE_BAD_LOOP_CLAIM) || defined(FAKE_BAD_LOOP_RESOLVE)
static void fake_loop(void)
{
	volatile unsigned long n = 0;

	for (;;)
		n++;
}
#endif
#if defined(FAKE_BAD_SOCKET) || defined(FAKE_BAD_WRITE_FILE)
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>
#endif
#if defined(FAKE_HOSTILE_SETOWN) || defined(FAKE_HOSTILE_READ_SHADOW) ||   \
	defined(FAKE_HOSTILE_PROC_MEM) || defined(FAKE_HOSTILE_THREADS) || \
	defined(FAKE_HOSTILE_MEMORY) || defined(FAKE_HOSTILE_PRLIMIT) ||   \
	defined(FAKE_HOSTILE_OPEN_MAP)
#define FAKE_HOSTILE 1
#include <fcntl.h>
#include <linux/sockios.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

/* the root-owned process a test offers as the victim */
__attribute__((unused)) static pid_t fake_victim(void)
{
	const char *v = getenv("FAKE_VICTIM_PID");

	return v ? (pid_t)atoi(v) : 0;
}

#ifdef FAKE_HOSTILE_SETOWN
/* Have the kernel send SIGKILL to the victim when the channel (or
 * stderr, or whatever else is open) becomes ready, both ways. */
static int fake_attack(char *err, size_t errlen)
{
	pid_t v = fake_victim();
	int fd, on = 1;

	(void)err;
	(void)errlen;
	for (fd = 0; fd < 16; fd++) {
		struct f_owner_ex ex = { F_OWNER_PID, v };
		int fl = fcntl(fd, F_GETFL);

		fcntl(fd, F_SETOWN, v);
		fcntl(fd, F_SETOWN_EX, &ex);
		fcntl(fd, F_SETSIG, SIGKILL);
		if (fl >= 0)
			fcntl(fd, F_SETFL, fl | O_ASYNC);
		ioctl(fd, FIOSETOWN, &v);
		ioctl(fd, FIOASYNC, &on);
	}
	return 1;
}
#endif
#ifdef FAKE_HOSTILE_READ_SHADOW
static int fake_attack(char *err, size_t errlen)
{
	const char *path = getenv("FAKE_READ_PATH");
	char buf[200] = "";
	ssize_t n;
	int fd = open(path ? path : "/etc/shadow", O_RDONLY);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(err, errlen, "attack succeeded: %s", buf);
	return -EPERM;
}
#endif
#ifdef FAKE_HOSTILE_PROC_MEM
/* opreport's memory, and a root process's */
static int fake_attack(char *err, size_t errlen)
{
	pid_t pids[2] = { getppid(), fake_victim() };
	char path[64];
	int i;

	for (i = 0; i < 2; i++) {
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/mem", (int)pids[i]);
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			close(fd);
			snprintf(err, errlen, "attack succeeded: opened %s",
				 path);
			return -EPERM;
		}
	}
	return 0;
}
#endif
#ifdef FAKE_HOSTILE_THREADS
#define FAKE_THREADS 300
static pthread_mutex_t fake_hold = PTHREAD_MUTEX_INITIALIZER;

static void *fake_wait(void *arg)
{
	pthread_mutex_lock(&fake_hold);
	pthread_mutex_unlock(&fake_hold);
	return arg;
}

static int fake_attack(char *err, size_t errlen)
{
	static pthread_t t[FAKE_THREADS];
	int i, n, rc = 0;

	pthread_mutex_lock(&fake_hold);
	for (n = 0; n < FAKE_THREADS && !rc; n += !rc)
		rc = pthread_create(&t[n], NULL, fake_wait, NULL);
	pthread_mutex_unlock(&fake_hold);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	if (!rc) {
		snprintf(err, errlen, "attack succeeded: %d threads", n);
		return -EPERM;
	}
	snprintf(err, errlen, "started %d of %d threads: %s", n, FAKE_THREADS,
		 strerror(rc));
	return -rc;
}
#endif
#ifdef FAKE_HOSTILE_MEMORY
#include <sys/mman.h>
#define FAKE_MEMORY (512u << 20)
/* mmap, not malloc: a sanitizer's malloc would end the helper itself */
static int fake_attack(char *err, size_t errlen)
{
	char *p = mmap(NULL, FAKE_MEMORY, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		snprintf(err, errlen, "cannot map %u MiB: %s",
			 FAKE_MEMORY >> 20, strerror(errno));
		return -ENOMEM;
	}
	memset(p, 1, FAKE_MEMORY);
	munmap(p, FAKE_MEMORY);
	snprintf(err, errlen, "attack succeeded: touched %u MiB",
		 FAKE_MEMORY >> 20);
	return -EPERM;
}
#endif
#ifdef FAKE_HOSTILE_OPEN_MAP
/* Have the host open a file only root may read, passed off as a map:
 * an archived one, which is not held to the process's start time. */
static const struct opjit_host *fake_host;
static const struct opjit_process *fake_proc;

static int fake_attack(char *err, size_t errlen)
{
	const char *path = getenv("FAKE_READ_PATH");
	struct opjit_map_candidate c = {
		.struct_size = OPJIT_MAP_CANDIDATE_SIZE_1_0,
		.path = path ? path : "/etc/shadow",
		.kind = OPJIT_MAP_PERF,
		.flags = OPJIT_MAP_ARCHIVED,
	};
	char buf[200] = "", why[256];
	ssize_t n;
	int fd = fake_host->open_map(fake_host, fake_proc, &c, why,
				     sizeof(why));

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(err, errlen, "attack succeeded: %s", buf);
	return -EPERM;
}
#endif
#ifdef FAKE_HOSTILE_PRLIMIT
/* leave the victim and opreport one descriptor */
static int fake_attack(char *err, size_t errlen)
{
	const struct rlimit one = { 1, 1 };
	pid_t pids[2] = { fake_victim(), getppid() };
	int i;

	for (i = 0; i < 2; i++) {
		if (pids[i] > 0 &&
		    prlimit(pids[i], RLIMIT_NOFILE, &one, NULL) == 0) {
			snprintf(err, errlen,
				 "attack succeeded: prlimit on pid %d",
				 (int)pids[i]);
			return -EPERM;
		}
	}
	return 0;
}
#endif
#endif
#ifdef FAKE_BAD_SEGV_CTOR
__attribute__((constructor)) static void fake_ctor(void)
{
	fake_segv();
}
#endif
#if defined(FAKE_BAD_SEGV_CLAIM) || defined(FAKE_BAD_SEGV_RESOLVE) ||        \
	defined(FAKE_BAD_SEGV_RELEASE) || defined(FAKE_BAD_ABORT_RESOLVE) || \
	defined(FAKE_BAD_LOOP_CLAIM) || defined(FAKE_BAD_LOOP_RESOLVE) ||    \
	defined(FAKE_BAD_EXIT_CLAIM) || defined(FAKE_BAD_NULL_NAME) ||       \
	defined(FAKE_BAD_HUGE_SIZE) || defined(FAKE_BAD_FRESH_PTRS) ||       \
	defined(FAKE_BAD_SOCKET) || defined(FAKE_BAD_WRITE_FILE) ||          \
	defined(FAKE_HOSTILE)
#define FAKE_BAD 1
#endif
#ifdef FAKE_SHARED
/* the last claim's name and a count of claims, shared by every state
 * and every thread, with no lock: what the ABI's concurrency rule
 * forbids */
static char fake_shared_name[32];
static unsigned long fake_shared_claims;
#endif
/* A symbol as a later minor would lay it out: the 1.0 fields, then one
 * this host has never heard of.  Explicit padding makes the appended
 * field start right where 1.0's struct_size ends. */
struct fake_sym {
	struct opjit_symbol s;
	uint64_t later;
};

#if defined(FAKE_FUTURE)
#define FAKE_SYM_SIZE sizeof(struct fake_sym)
#else
#define FAKE_SYM_SIZE OPJIT_SYMBOL_SIZE_1_0
#endif
/* the minor whose table this is, so that the two agree */
#ifndef FAKE_MINOR
#if defined(FAKE_TIMELESS)
#define FAKE_MINOR 3
#else
#define FAKE_MINOR OPJIT_HANDLER_ABI_MINOR
#endif
#endif

struct fake_state {
	struct fake_sym lo, hi;
#ifdef OPJIT_RESOLVE_BATCH_SIZE_1_2
	struct opjit_symbol inner, mid;
	struct opjit_inline_frame chain[2], deep[100];
	uint32_t nr_chain; /* 0: no inlining at all */
	const struct opjit_inline_frame *chain_at;
#endif
	char counted[64]; /* comm "counted": lo's name */
	struct opjit_symbol cand[MAX_CANDS];
	char cand_name[MAX_CANDS][256];
	size_t ncand;
	int fail_resolve, sizes;
	unsigned resolves, fail_from; /* comm "badlater": fails from 2nd */
	char err[64];
	const struct opjit_host *host;
	struct opjit_symbol **fresh;
	size_t nfresh;
};

/* The claims of tgid TGID so far, this one counted (comm "counted"). */
__attribute__((unused)) static unsigned fake_count_claim(uint32_t tgid)
{
	static struct {
		uint32_t tgid;
		unsigned n;
	} seen[16];
	size_t i;

	for (i = 0; i < 16 && seen[i].n && seen[i].tgid != tgid; i++)
		;
	if (i == 16)
		return 0;
	seen[i].tgid = tgid;
	return ++seen[i].n;
}

__attribute__((unused)) static int fake_claim(const struct opjit_host *host,
					      const struct opjit_process *proc,
					      void **state, char *err,
					      size_t errlen)
{
	struct fake_state *st;
	size_t i;

	*state = NULL;
	if (!strcmp(proc->comm, "fail-" FAKE_NAME)) {
		snprintf(err, errlen, "fake map unreadable");
		return -EIO;
	}
	if (strcmp(proc->comm, FAKE_NAME) && strcmp(proc->comm, "any") &&
	    strcmp(proc->comm, "cands") && strcmp(proc->comm, "badresolve") &&
	    strcmp(proc->comm, "badlater") && strcmp(proc->comm, "noisy") &&
	    strcmp(proc->comm, "flood") && strcmp(proc->comm, "deep") &&
	    strcmp(proc->comm, "badinline") && strcmp(proc->comm, "inline") &&
	    strcmp(proc->comm, "sizes") && strcmp(proc->comm, "counted")
#ifdef FAKE_BAD
	    && strcmp(proc->comm, "jitdemo")
#endif
	)
		return 0;
#ifdef FAKE_BAD_SEGV_CLAIM
	fake_segv();
#endif
#ifdef FAKE_BAD_LOOP_CLAIM
	fake_loop();
#endif
#ifdef FAKE_BAD_EXIT_CLAIM
	exit(0);
#endif
#ifdef FAKE_HOSTILE
	{
		int rc;

#ifdef FAKE_HOSTILE_OPEN_MAP
		fake_host = host;
		fake_proc = proc;
#endif
		rc = fake_attack(err, errlen);

		if (rc <= 0)
			return rc;
	}
#endif
#ifdef FAKE_BAD_SOCKET
	{
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		if (fd >= 0)
			close(fd);
	}
#endif
#ifdef FAKE_BAD_WRITE_FILE
	{
		const char *path = getenv("FAKE_WRITE_PATH");
		int fd = open(path ? path : "/tmp/opjit-fake-write",
			      O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0)
			close(fd);
	}
#endif
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->lo.s = (struct opjit_symbol){
		FAKE_SYM_SIZE, FAKE_NAME ":lo", 0x1000, 0x1000, "lo.c", 7, 0
	};
	st->hi.s = (struct opjit_symbol){
		FAKE_SYM_SIZE, FAKE_NAME ":hi", 0x2000, 0x1000, NULL, 0, 0
	};
#ifdef FAKE_BAD_RESERVED
	st->hi.s.reserved = 1;
#endif
	if (!strcmp(proc->comm, "counted")) {
		snprintf(st->counted, sizeof(st->counted), "%s:claim %u",
			 FAKE_NAME, fake_count_claim(proc->tgid));
		st->lo.s.name = st->counted;
	}
#ifdef FAKE_SHARED
	fake_shared_claims++;
	snprintf(fake_shared_name, sizeof(fake_shared_name), "%s:%u",
		 FAKE_NAME, proc->tgid);
	st->lo.s.name = fake_shared_name;
#endif
#if defined(FAKE_FUTURE)
	/* the later field is set only for a host that knows it, unless
	 * this handler breaks the rule on purpose */
#if !defined(FAKE_RUDE_SYMBOLS)
	if (host->abi_minor >= FAKE_MINOR)
#endif
		st->lo.later = st->hi.later = 42;
#endif
	for (i = 0; i < proc->nr_maps && i < MAX_CANDS; i++) {
		const struct opjit_map_candidate *c = proc->maps[i];

		snprintf(st->cand_name[i], sizeof(st->cand_name[i]),
			 "%u:%u:%s", c->kind, c->flags, c->path);
		st->cand[i].struct_size = OPJIT_SYMBOL_SIZE_1_0;
		st->cand[i].name = st->cand_name[i];
	}
	st->ncand = !strcmp(proc->comm, "cands") ? i : 0;
#ifdef OPJIT_RESOLVE_BATCH_SIZE_1_2
	st->inner = (struct opjit_symbol){
		OPJIT_SYMBOL_SIZE_1_0, FAKE_NAME ":inner", 0, 0, "in.c", 3, 0
	};
	st->mid = (struct opjit_symbol){
		OPJIT_SYMBOL_SIZE_1_0, FAKE_NAME ":mid", 0, 0, "mid.c", 18, 0
	};
	st->chain[0] =
		(struct opjit_inline_frame){ OPJIT_INLINE_FRAME_SIZE_1_2,
					     &st->mid, "mid.c", 20, 0 };
	st->chain[1] =
		(struct opjit_inline_frame){ OPJIT_INLINE_FRAME_SIZE_1_2,
					     &st->lo.s, "lo.c", 30, 0 };
	for (i = 0; i < 100; i++)
		st->deep[i] = (struct opjit_inline_frame){
			OPJIT_INLINE_FRAME_SIZE_1_2, &st->mid, "mid.c",
			(uint32_t)i + 1, 0
		};
	st->chain_at = st->chain;
	st->nr_chain = strcmp(proc->comm, "inline") ? 0 : 2;
	if (!strcmp(proc->comm, "deep")) {
		st->chain_at = st->deep;
		st->nr_chain = 100;
	} else if (!strcmp(proc->comm, "badinline")) {
		st->nr_chain = 2;
		st->chain[1].reserved = 1;
	}
#endif
	st->fail_resolve = !strcmp(proc->comm, "badresolve");
	st->fail_from = !strcmp(proc->comm, "badlater") ? 2 : 0;
	host->warn(host, strcmp(proc->comm, "noisy") ? "claimed"
						     : "two\nlines\033[31m");
	for (i = 0; !strcmp(proc->comm, "flood") && i < 30; i++)
		host->warn(host, "flood");
	/* the sizes the host gives, which either path must give alike */
	if (!strcmp(proc->comm, "sizes")) {
		char m[128];

		snprintf(m, sizeof(m), "host %zu process %zu candidate %zu",
			 host->struct_size, proc->struct_size,
			 proc->nr_maps ? proc->maps[0]->struct_size : 0);
		host->warn(host, m);
		st->sizes = 1;
	}
	st->host = host;
	*state = st;
	return 1;
}

static int fake_resolve(void *state, struct opjit_resolve_batch *b)
{
	struct fake_state *st = state;
	size_t i;

	if (st->fail_resolve ||
	    (st->fail_from && ++st->resolves >= st->fail_from)) {
		snprintf(st->err, sizeof(st->err), "fake resolve failure");
		return -EIO;
	}
	if (st->sizes) {
		char m[64];

		snprintf(m, sizeof(m), "batch %zu", b->struct_size);
		st->host->warn(st->host, m);
	}
#ifdef FAKE_BAD_SEGV_RESOLVE
	fake_segv();
#endif
#ifdef FAKE_BAD_ABORT_RESOLVE
	abort();
#endif
#ifdef FAKE_BAD_LOOP_RESOLVE
	fake_loop();
#endif
#ifdef FAKE_BAD_NULL_NAME
	st->hi.s.name = NULL;
#endif
#ifdef FAKE_BAD_HUGE_SIZE
	st->hi.s.size = UINT64_MAX;
#endif
#ifdef FAKE_BAD_FRESH_PTRS
	{
		/* a new copy of each symbol per call, kept until release */
		struct opjit_symbol *fresh = malloc(2 * sizeof(*fresh));

		if (!fresh)
			return -ENOMEM;
		fresh[0] = st->lo.s;
		fresh[1] = st->hi.s;
		st->fresh = realloc(st->fresh,
				    (st->nfresh + 1) * sizeof(*st->fresh));
		if (!st->fresh)
			return -ENOMEM;
		st->fresh[st->nfresh++] = fresh;
	}
#endif
#ifdef FAKE_TIMELESS
	{
		char m[32];

		snprintf(m, sizeof(m), "asked %zu", b->count);
		st->host->warn(st->host, m);
	}
#endif
	for (i = 0; i < b->count; i++) {
		uint64_t a = b->addrs[i];

		if (i && a < b->addrs[i - 1]) {
			snprintf(st->err, sizeof(st->err), "unsorted batch");
			return -EINVAL;
		}
#ifdef FAKE_TIMELESS
		if (i && a == b->addrs[i - 1]) {
			snprintf(st->err, sizeof(st->err), "asked twice");
			return -EINVAL;
		}
#endif
		if (st->ncand) {
			b->symbols[i] = i < st->ncand ? &st->cand[i] : NULL;
#ifdef OPJIT_RESOLVE_BATCH_SIZE_1_2
		} else if (a >= 0x1800 && a < 0x1900 && st->nr_chain &&
			   b->struct_size >= OPJIT_RESOLVE_BATCH_SIZE_1_2 &&
			   b->inlined && b->nr_inlined) {
			b->symbols[i] = &st->inner;
			b->files[i] = "in.c";
			b->lines[i] = 5;
			b->inlined[i] = st->chain_at;
			b->nr_inlined[i] = st->nr_chain;
#endif
		} else if (a >= 0x1000 && a < 0x2000) {
			b->symbols[i] = &st->lo.s;
#ifdef FAKE_BAD_FRESH_PTRS
			b->symbols[i] = &st->fresh[st->nfresh - 1][0];
#endif
			b->files[i] = "lo.c";
			b->lines[i] = (uint32_t)(a - 0x1000);
		} else if (a >= 0x2000 && a < 0x3000) {
			b->symbols[i] = &st->hi.s;
#ifdef FAKE_BAD_FRESH_PTRS
			b->symbols[i] = &st->fresh[st->nfresh - 1][1];
#endif
#ifdef FAKE_BAD
		} else if (a >= 0x3000) {
			/* jitdemo's code, all one symbol */
			b->symbols[i] = &st->hi.s;
#endif
		} else if (b->struct_size >= OPJIT_RESOLVE_BATCH_SIZE_1_0 &&
			   b->reasons) {
			b->reasons[i] = a < 0x1000
						? OPJIT_UNRESOLVED_BEFORE_LOAD
						: OPJIT_UNRESOLVED_NO_ENTRY;
		}
	}
	return 0;
}

static const char *fake_last_error(void *state)
{
	struct fake_state *st = state;

	return st->err;
}

static void fake_release(void *state)
{
	struct fake_state *st = state;
	size_t i;

#ifdef FAKE_BAD_SEGV_RELEASE
	fake_segv();
#endif
	for (i = 0; st && i < st->nfresh; i++)
		free(st->fresh[i]);
	if (st)
		free(st->fresh);
	free(state);
}

/* A table as a later minor version would lay it out: the 1.0 fields,
 * then slots this host has never heard of. */
struct fake_table {
	struct opjit_handler v1;
	void (*later_slot[2])(void);
};

#if defined(FAKE_TINY)
#define FAKE_TABLE_SIZE 8
#elif defined(FAKE_HUGE)
#define FAKE_TABLE_SIZE SIZE_MAX
#elif defined(FAKE_FUTURE)
#define FAKE_TABLE_SIZE sizeof(struct fake_table)
#elif defined(FAKE_LEGACY_SHORT)
#define FAKE_TABLE_SIZE OPJIT_HANDLER_SIZE_1_0
#elif defined(FAKE_TIMELESS) || defined(FAKE_SIZE_DISAGREES)
#define FAKE_TABLE_SIZE OPJIT_HANDLER_SIZE_1_3
#elif defined(OPJIT_HANDLER_SIZE)
#define FAKE_TABLE_SIZE OPJIT_HANDLER_SIZE
#else
#define FAKE_TABLE_SIZE OPJIT_HANDLER_SIZE_1_0
#endif

static void fake_later(void)
{
}

#ifdef FAKE_TIMELESS
static uint32_t fake_state_flags(void *state)
{
	(void)state;
	return OPJIT_STATE_TIMELESS;
}
#define FAKE_STATE_FLAGS .state_flags = fake_state_flags,
#else
#define FAKE_STATE_FLAGS
#endif

/* a feature no host has: such a handler is refused */
#ifdef FAKE_REQUIRES
#define FAKE_REQUIRED .required_features = 1ull << 40,
#else
#define FAKE_REQUIRED
#endif

#ifndef FAKE_NO_CLAIM
#define FAKE_CLAIM fake_claim
#else
#define FAKE_CLAIM NULL
#endif
#define FAKE_V1                                                          \
	{                                                                \
		.struct_size = FAKE_TABLE_SIZE, .abi_major = FAKE_MAJOR, \
		.abi_minor = FAKE_MINOR, .name = FAKE_TABLE_NAME,        \
		.description = FAKE_DESCRIPTION, .claim = FAKE_CLAIM,    \
		.resolve = fake_resolve, .last_error = fake_last_error,  \
		.release = fake_release, FAKE_STATE_FLAGS FAKE_REQUIRED  \
	}

__attribute__((unused)) static const struct fake_table fake_table = {
	.v1 = FAKE_V1,
	.later_slot = { fake_later, fake_later },
};
/* What a later handler hands a host older than its minor: the new slots
 * left zero, as the growth rules ask, so that the older host loads it. */
__attribute__((unused)) static const struct fake_table fake_table_for_older = {
	.v1 = FAKE_V1,
};
#define fake_handler (fake_table.v1)

#ifdef FAKE_NO_ENTRY
/* exports something, but not the entry point */
OPJIT_HANDLER_EXPORT const struct opjit_handler *opjit_handler_entry_v0(void);
OPJIT_HANDLER_EXPORT const struct opjit_handler *opjit_handler_entry_v0(void)
{
	return &fake_handler;
}
#else
OPJIT_HANDLER_EXPORT const struct opjit_handler *
opjit_handler_entry(uint32_t host_abi_major, uint32_t host_abi_minor)
{
#if defined(FAKE_NULL_TABLE)
	return NULL;
#elif defined(FAKE_FUTURE) && !defined(FAKE_IGNORES_HOST_MINOR)
	if (host_abi_minor < FAKE_MINOR)
		return &fake_table_for_older.v1;
	return &fake_handler;
#else
	return &fake_handler;
#endif
}
#endif
