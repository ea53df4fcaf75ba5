// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * oprofiled: records samples with perf_event into a session directory.
 * One thread polls one ring buffer per CPU and a signalfd, with a
 * timeout for the next flush.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <opjit/samples.h>
#include <oputil/clock.h>

#include "counters.h"
#include "counters_pid.h"
#include "diag.h"
#include "evname.h"
#include "ksymcache.h"
#include "launch.h"
#include "options.h"
#include "procinfo.h"
#include "record.h"
#include "recorder.h"

#include <oputil/escape.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/*
 * A wake-up costs this VM-hosted loop as much as three thousand
 * samples (35 to 50 us of CPU), and a flush about as much again, so the
 * loop wakes as seldom as it can: a busy recording wakes every two
 * seconds, reads every buffer, then flushes (perf record writes when a
 * buffer is half full, every 1.6 s at 4 kHz, and loses what its buffers
 * hold when killed), and a buffer wakes it sooner only when it would
 * fill before that (counters.c sets how full).  A buffer's wake-up also
 * flushes what it read and puts the next flush two seconds later, so
 * that it and the timer do not both come.  While something waits on
 * time (held samples, processes starting or ending, attaches to make)
 * the loop also drains every 100 ms.  A second that reads nothing
 * leaves no flush due: an idle recording sleeps until a buffer fills or
 * it ends, as perf record does.
 */
#define TICK_NS 100000000ull   /* drain and retry while busy */
#define FLUSH_NS 2000000000ull /* durable two seconds after records arrive */

struct daemon {
	struct options *o;
	struct counters c;
	struct ring_merge merge; /* the CPUs' rings, oldest first */
	struct recorder r;
	struct ops_writer *w;
	struct launch child;
	bool recording;
	bool stop;
	bool interrupted; /* by SIGINT or SIGTERM */
	int sigfd, pidfd;
	uint64_t flush_ns;		   /* when the next flush is due */
	uint64_t tick_ns;		   /* the next drain while busy */
	uint64_t records, records_flushed; /* read; read by the last flush */
	bool idle; /* nothing read since the last flush: none due */
	uint64_t deadline_ns;
};

static void daemon_record(void *arg, const struct perf_event_header *h)
{
	struct daemon *d = arg;

	d->records++;
	d->r.event = d->merge.ring->event;
	recorder_record(&d->r, h);
}

/* Read every buffer up to what the kernel has published, oldest record
 * first across CPUs, so that a mapping is known before its samples. */
static void daemon_drain(struct daemon *d)
{
	ring_merge_drain(&d->merge, d->c.rings, d->c.nr_rings, daemon_record,
			 d);
	recorder_end_round(&d->r);
}

/* Make what was read durable; the next flush is due FLUSH_NS later. */
static void daemon_flush(struct daemon *d)
{
	recorder_flush(&d->r);
	d->records_flushed = d->records;
	d->flush_ns = oputil_clock_ns(CLOCK_MONOTONIC) + FLUSH_NS;
	d->idle = false;
}

/* The command ended: recording stops.  It is reaped only once its last
 * records are read (daemon_wait_child()), so that its /proc entry, a
 * zombie's, still gives the owner and start time of a short run whose
 * records are all read at its end. */
static void daemon_child_ended(struct daemon *d)
{
	siginfo_t si = { 0 };

	if (d->o->mode == MODE_COMMAND &&
	    !waitid(P_PID, (id_t)d->child.pid, &si,
		    WEXITED | WNOHANG | WNOWAIT) &&
	    si.si_pid == d->child.pid)
		d->stop = true;
}

static void daemon_signal(struct daemon *d)
{
	struct signalfd_siginfo si;

	while (read(d->sigfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGINT:
		case SIGTERM:
			d->stop = true;
			d->interrupted = true;
			break;
		case SIGUSR1:
			if (d->recording) {
				daemon_drain(d);
				daemon_flush(d);
			}
			break;
		case SIGCHLD:
			daemon_child_ended(d);
			break;
		}
	}
}

/* After a round: flush when records were read and either FLUSH_NS
 * has passed since the last flush or a buffer woke the loop (its
 * records are flushed at once, and the next flush is FLUSH_NS later);
 * stop at the deadline or when the process followed by pid is gone. */
static void daemon_after_round(struct daemon *d, bool ring_woke)
{
	uint64_t now = oputil_clock_ns(CLOCK_MONOTONIC);

	if (d->records != d->records_flushed) {
		if (d->idle || ring_woke || now >= d->flush_ns)
			daemon_flush(d);
	} else if (now >= d->flush_ns) {
		d->idle = true;
	}
	if (d->deadline_ns && now >= d->deadline_ns)
		d->stop = true;
	if (now >= d->tick_ns) {
		d->tick_ns = now + TICK_NS;
		if (d->o->mode == MODE_PID && d->pidfd < 0 &&
		    kill(d->o->pid, 0) < 0 && errno == ESRCH)
			d->stop = true;
	}
}

/* How long to sleep: until the next flush (none while idle) or the
 * deadline, or the next 100 ms tick while busy; NULL, with none of
 * them: until a buffer fills or a signal. */
static struct timespec *daemon_timeout(struct daemon *d, struct timespec *ts)
{
	uint64_t now = oputil_clock_ns(CLOCK_MONOTONIC);
	uint64_t next = d->idle ? UINT64_MAX : d->flush_ns;

	/* the first round comes soon too: the start's records */
	if (recorder_busy(&d->r) || !d->r.round ||
	    (d->o->mode == MODE_PID && d->pidfd < 0))
		next = d->tick_ns < next ? d->tick_ns : next;
	if (d->deadline_ns && d->deadline_ns < next)
		next = d->deadline_ns;
	if (next == UINT64_MAX)
		return NULL;
	next = next > now ? next - now : 0;
	ts->tv_sec = (time_t)(next / 1000000000ull);
	ts->tv_nsec = (long)(next % 1000000000ull);
	return ts;
}

static void daemon_loop(struct daemon *d)
{
	int nr = 2 + (int)d->c.nr_rings;
	struct pollfd *pfd = calloc(nr, sizeof(*pfd));
	struct timespec ts;

	if (!pfd) {
		recorder_fail(&d->r, -ENOMEM, false);
		return;
	}
	pfd[0] = (struct pollfd){ .fd = d->sigfd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = d->pidfd, .events = POLLIN };
	for (int i = 0; i < (int)d->c.nr_rings; i++)
		pfd[2 + i] = (struct pollfd){
			.fd = d->c.rings[i].base ? d->c.rings[i].fd : -1,
			.events = POLLIN,
		};
	while (!d->stop && !d->r.err) {
		bool ring_woke = false;

		if (ppoll(pfd, nr, daemon_timeout(d, &ts), NULL) < 0 &&
		    errno != EINTR)
			break;
		if (pfd[0].revents)
			daemon_signal(d);
		if (pfd[1].revents)
			d->stop = true;
		for (int i = 2; i < nr; i++) {
			ring_woke |= pfd[i].revents & POLLIN;
			/* a buffer whose tasks are all gone hangs up for
			 * good */
			if (pfd[i].revents & (POLLHUP | POLLERR))
				pfd[i].fd = -1;
		}
		daemon_drain(d);
		daemon_after_round(d, ring_woke);
	}
	free(pfd);
}

/* The kernel's symbol table and module list into the session: the
 * table from the user's cache of this boot's when it holds it, or read
 * from /proc/kallsyms and kept there for the next recording. */
static int daemon_kernel_symbols(struct daemon *d, const char *modules)
{
	const struct ksymcache_sources src = {
		.kallsyms = "/proc/kallsyms",
		.modules = modules,
		.notes = "/sys/kernel/notes",
		.boot_id = "/proc/sys/kernel/random/boot_id",
	};
	struct ksymcache c;
	bool cached = d->o->kallsyms_cache && !ksymcache_open(&c, NULL, &src);
	int fd = cached ? ksymcache_lookup(&c) : -1, err;
	char *copy = NULL;
	uint8_t *index;
	size_t index_len;

	if (fd >= 0) {
		err = ops_writer_kernel_symbols_kept(d->w, fd, c.name,
						     src.kallsyms, modules);
		/* the trim at the stop searches the table's index */
		if (!err && !ksymcache_index(&c, fd, &index, &index_len) &&
		    ops_writer_kallsyms_index(d->w, index, index_len))
			diag("the kernel symbol cache %s/%s.idx is no index: "
			     "the stop reads the session's whole table",
			     c.dir, c.name);
		close(fd);
	} else {
		err = ops_writer_kernel_symbols(d->w, src.kallsyms, modules);
		/* the session's fresh copy, read back from the page cache */
		if (!err && cached &&
		    asprintf(&copy, "%s/kallsyms", d->o->session_dir) < 0)
			copy = NULL;
		fd = copy ? open(copy, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
		if (fd >= 0) {
			ksymcache_fill(&c, fd);
			close(fd);
		}
		free(copy);
	}
	if (cached)
		ksymcache_close(&c);
	return err;
}

static int daemon_writer_open(struct daemon *d)
{
	struct utsname u;
	struct ops_session_info info = {
		.event = d->o->event_list,
		.period = d->o->period,
		.frequency = d->o->frequency,
		.clock = "CLOCK_MONOTONIC",
		.start_ns = oputil_clock_ns(CLOCK_MONOTONIC),
		.start_unix_ns = (int64_t)oputil_clock_ns(CLOCK_REALTIME),
		.command_line = d->o->command_line,
		.separate = d->o->separate,
		.kernel_excluded = d->o->no_kernel || d->c.kernel_refused,
		.callgraph_depth = d->o->callgraph_depth,
		/* -g: the JIT samples' stacks as deltas, which the report
		 * interns (a table of a deep recursion's nodes was most of
		 * the recorder's time); --callgraph=dwarf's copies name
		 * their stacks by id, interned as before */
		.stack_deltas = !d->o->stack_copy,
	};
	char periods[COUNTERS_MAX_EVENTS * 21 + 1] = "";
	int err;

	/* several events: each one's period, for the report's header (an
	 * event that counts is sampled at every one beside a clock) */
	for (uint32_t i = 0; d->c.nr_events > 1 && i < d->c.nr_events; i++) {
		uint64_t p = d->c.cfg.events[i].period;
		size_t n = strlen(periods);

		if (!p && !d->o->frequency)
			p = d->o->period;
		snprintf(periods + n, sizeof(periods) - n, "%s%" PRIu64,
			 i ? "," : "", p);
	}
	info.event_periods = periods;
	if (!uname(&u)) {
		info.host = u.nodename;
		info.kernel_release = u.release;
	}
	err = ops_writer_open(&d->w, d->o->session_dir, &info);
	if (err) {
		const char *why = d->w ? ops_writer_error(d->w) : "";

		if (*why)
			diag("%s", why);
		else
			diag("cannot create session "
			     "%s: %s",
			     d->o->session_dir, strerror(-err));
		ops_writer_free(d->w);
		d->w = NULL;
		return err;
	}
	/* a dwarf session's stack copies are many times the JVM agent's
	 * map, whose compression was a fifth of the recorder's CPU */
	ops_writer_archive_stored(d->w, d->o->stack_copy != 0);
	if (ops_writer_previous(d->w))
		diag("previous session kept in %s", ops_writer_previous(d->w));
	if (!info.kernel_excluded) {
		/* a kernel built without modules has no list of them */
		const char *modules =
			access("/proc/modules", R_OK) ? NULL : "/proc/modules";

		err = daemon_kernel_symbols(d, modules);
		if (err == -ENOSPC || err == -EDQUOT) {
			diag("%s", ops_writer_error(d->w));
			return err;
		}
		if (err)
			diag("%s; kernel samples will "
			     "have no symbols",
			     ops_writer_error(d->w));
	}
	return 0;
}

static int daemon_open_counters(struct daemon *d)
{
	struct counters_config cfg = {
		.type = d->o->event->type,
		.config = d->o->event->config,
		.frequency = d->o->frequency,
		.period = d->o->period,
		.exclude_kernel = d->o->no_kernel,
		.kernel_fallback = true,
		.callgraph_depth = (uint16_t)d->o->callgraph_depth,
		.stack_copy = d->o->stack_copy,
	};
	struct rlimit rl;
	int err;

	for (unsigned i = 0; i < d->o->nr_events; i++) {
		const struct evname *ev = d->o->events[i];
		/* a count of faults or switches has no rate to aim at: with
		 * a clock beside it, every one is a sample (FORMAT.md) */
		bool clock = ev->type == PERF_TYPE_SOFTWARE &&
			     (ev->config == PERF_COUNT_SW_CPU_CLOCK ||
			      ev->config == PERF_COUNT_SW_TASK_CLOCK);

		cfg.events[i] = (struct counters_event){
			.type = ev->type,
			.config = ev->config,
			.period = d->o->nr_events > 1 && d->o->frequency &&
						  !clock
					  ? 1
					  : 0,
		};
	}
	cfg.nr_events = d->o->nr_events;
	err = counters_init(&d->c, &cfg);
	if (!err)
		err = ring_merge_init(&d->merge, d->c.nr_rings);
	if (err) {
		diag("%s", strerror(-err));
		return err;
	}
	switch (d->o->mode) {
	case MODE_COMMAND:
		err = counters_open_task(&d->c, d->child.pid, true, true);
		break;
	case MODE_PID:
		/* a counter per thread and CPU: a big process needs many
		 * descriptors (a command keeps the limits it was given) */
		if (!getrlimit(RLIMIT_NOFILE, &rl) &&
		    rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		err = counters_open_pid(&d->c, d->o->pid);
		break;
	case MODE_SYSTEM:
		err = counters_open_task(&d->c, -1, false, false);
		break;
	}
	if (err) {
		counters_report_open_error(d->o, &d->c, err);
		return err;
	}
	if (d->c.kernel_refused)
		diag("kernel samples excluded: "
		     "perf_event_paranoid is %d",
		     counters_paranoid());
	return 0;
}

static int daemon_setup_fds(struct daemon *d, const sigset_t *mask)
{
	uint64_t now = oputil_clock_ns(CLOCK_MONOTONIC);

	d->flush_ns = now + FLUSH_NS;
	d->tick_ns = now + TICK_NS;
	d->sigfd = signalfd(-1, mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (d->sigfd < 0) {
		diag("cannot set up the event loop: "
		     "%s",
		     strerror(errno));
		return -errno;
	}
	if (d->o->mode == MODE_PID)
		d->pidfd = (int)syscall(SYS_pidfd_open, d->o->pid, 0);
	return 0;
}

/* --duration counts from when counting starts: on a busy machine the
 * setup before it (the session, /proc) can take longer than a short
 * duration. */
static void daemon_arm_deadline(struct daemon *d)
{
	if (d->o->duration > 0)
		d->deadline_ns = oputil_clock_ns(CLOCK_MONOTONIC) +
				 (uint64_t)(d->o->duration * 1e9);
}

static int daemon_start(struct daemon *d)
{
	int err = 0;

	if (d->o->mode == MODE_COMMAND) {
		daemon_arm_deadline(d);
		return 0;
	}
	if (d->o->mode == MODE_PID && procinfo_is_kthread(d->o->pid)) {
		diag("pid %d is a kernel thread: it runs no user code; use --system-wide to see the kernel's share",
		     (int)d->o->pid);
		return -EINVAL;
	}
	/* counting first, /proc second: a mapping made in between is in
	 * one or the other, never in neither */
	err = counters_enable(&d->c);
	if (err) {
		counters_report_open_error(d->o, &d->c, err);
		return err;
	}
	daemon_arm_deadline(d);
	if (d->o->mode == MODE_SYSTEM)
		err = recorder_scan_all(&d->r);
	else
		err = recorder_scan_pid(&d->r, d->o->pid);
	if (d->o->mode == MODE_PID && (err == -ENOENT || err == -ESRCH)) {
		diag("no process with pid %d", (int)d->o->pid);
		return err;
	}
	if (d->o->mode == MODE_PID && (err == -EACCES || err == -EPERM)) {
		diag("cannot read /proc/%d/maps: %s; profile the process as its owner, or as root where /proc is not restricted (hidepid, a container's masked /proc)",
		     (int)d->o->pid, strerror(-err));
		return err;
	}
	if (err && !d->r.err) {
		diag("cannot read /proc: %s", strerror(-err));
		return err;
	}
	return 0;
}

static void daemon_report_failure(struct daemon *d)
{
	if (d->r.err_from_writer)
		diag("%s; recording stopped", ops_writer_error(d->w));
	else
		diag("%s; recording stopped", strerror(-d->r.err));
}

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Stop the counters, read what they left, and close the session. */
static int daemon_finish(struct daemon *d)
{
	struct ops_session_info t;
	uint64_t dropped;
	int failed = 0, err;

	counters_disable(&d->c);
	if (!d->r.err) {
		daemon_drain(d);
		recorder_finish(&d->r);
	}
	if (d->r.err) {
		daemon_report_failure(d);
		failed = 1;
	}
	recorder_totals(&d->r, &t);
	ops_writer_set_totals(d->w, &t);
	if (!d->r.err || !d->r.err_from_writer)
		recorder_flush(&d->r);
	err = ops_writer_finish(d->w, oputil_clock_ns(CLOCK_MONOTONIC));
	if (err && !failed) {
		/* the recording was whole: its end is what failed */
		diag("%s; the session keeps what was written before",
		     ops_writer_error(d->w));
		failed = 1;
	}
	t.samples_lost += ops_writer_unwritten(d->w);
	dropped = ops_writer_copies_dropped(d->w);
	ops_writer_free(d->w);
	d->w = NULL;
	if (d->r.throttles)
		diag("the kernel throttled sampling "
		     "%llu times; a lower --frequency would be steadier",
		     (unsigned long long)d->r.throttles);
	/* their samples keep frame-pointer stacks: say so, once */
	if (dropped)
		diag("%llu samples kept no stack copy: the session's copies "
		     "reached their memory cap; a smaller "
		     "--callgraph=dwarf,BYTES or a shorter run keeps them all",
		     (unsigned long long)dropped);
	diag("%llu samples, %llu lost (%.1f%%), "
	     "%llu unattributed (%.1f%%), %u process%s, session %s",
	     (unsigned long long)t.samples, (unsigned long long)t.samples_lost,
	     percent(t.samples_lost, t.samples + t.samples_lost),
	     (unsigned long long)t.samples_unattributed,
	     percent(t.samples_unattributed, t.samples), t.processes,
	     t.processes == 1 ? "" : "es", d->o->session_dir);
	return failed;
}

/* The command's status; after SIGINT/SIGTERM it is asked to stop, as
 * perf record does, so that oprofiled never outlives it unawares. */
static int daemon_wait_child(struct daemon *d, bool interrupted)
{
	int status;

	if (interrupted)
		kill(d->child.pid, SIGTERM);
	while (waitpid(d->child.pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	return launch_exit_code(status);
}

static int daemon_run(struct daemon *d)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGUSR1, SIGCHLD };
	struct launch_signals saved = { .nr = 4 };
	char name[512]; /* a command's name, escaped for a message */
	sigset_t mask;
	bool interrupted;
	int rc = 1, err, failed;

	sigemptyset(&mask);
	/* an ignored signal never reaches a signalfd, and a background job
	 * of a script starts with SIGINT ignored: take them back */
	for (int i = 0; i < saved.nr; i++) {
		saved.sig[i] = sigs[i];
		sigaddset(&mask, sigs[i]);
		sigaction(sigs[i], NULL, &saved.action[i]);
		signal(sigs[i], SIG_DFL);
	}
	sigprocmask(SIG_BLOCK, &mask, &saved.mask);
	/* a full pipe on stderr must not kill the recorder */
	signal(SIGPIPE, SIG_IGN);
	d->child.pid = -1;
	d->sigfd = d->pidfd = -1;
	if (d->o->mode == MODE_PID && kill(d->o->pid, 0) < 0 &&
	    errno == ESRCH) {
		diag("no process with pid %d", (int)d->o->pid);
		return 1;
	}
	if (d->o->mode == MODE_COMMAND) {
		err = launch_find(d->o->command[0]);
		if (err) {
			diag("cannot run %s: %s",
			     oputil_escape(name, sizeof(name),
					   d->o->command[0]),
			     strerror(-err));
			return 127;
		}
		err = launch_prepare(&d->child, d->o->command, &saved);
		if (err) {
			diag("cannot start %s: %s",
			     oputil_escape(name, sizeof(name),
					   d->o->command[0]),
			     strerror(-err));
			return 1;
		}
	}
	if (daemon_open_counters(d) || daemon_setup_fds(d, &mask) ||
	    daemon_writer_open(d))
		goto out_abort;
	err = recorder_init(&d->r, d->w,
			    &(struct recorder_config){
				    .separate = d->o->separate,
				    .archive_maps = d->o->archive_maps,
				    .archive_max_bytes =
					    d->o->archive_max_bytes,
				    .callgraph_depth = d->o->callgraph_depth,
				    .stack_copy = d->o->stack_copy,
			    });
	if (err) {
		diag("%s", strerror(-err));
		goto out_abort;
	}
	if (daemon_start(d))
		goto out_abort;
	if (d->o->mode == MODE_COMMAND) {
		err = launch_go(&d->child);
		if (err) {
			diag("cannot run %s: %s",
			     oputil_escape(name, sizeof(name),
					   d->o->command[0]),
			     strerror(-err));
			daemon_wait_child(d, false);
			ops_writer_free(d->w);
			d->w = NULL;
			rc = 127;
			goto out;
		}
	}
	d->recording = true;
	daemon_loop(d);
	interrupted = d->interrupted;
	failed = daemon_finish(d);
	rc = failed;
	if (d->o->mode == MODE_COMMAND) {
		rc = daemon_wait_child(d, interrupted);
		if (failed)
			rc = 1;
	}
	goto out;
out_abort:
	if (d->child.pid > 0)
		launch_abort(&d->child);
	if (d->w)
		ops_writer_free(d->w);
	d->w = NULL;
	rc = 1;
out:
	recorder_free(&d->r);
	counters_free(&d->c);
	ring_merge_free(&d->merge);
	if (d->sigfd >= 0)
		close(d->sigfd);
	if (d->pidfd >= 0)
		close(d->pidfd);
	return rc;
}

int main(int argc, char **argv)
{
	struct options o;
	struct daemon d;
	int rc;

	oputil_diag_set_program("oprofiled");
	/* each flush deflates the new stack definitions and copies, and
	 * zlib allocates and frees a few hundred KiB of state a block: at
	 * glibc's default the heap's top went back to the kernel after
	 * each, and came back as page faults and zeroing at the next,
	 * most of --callgraph=dwarf's CPU on bench_copies */
	mallopt(M_TRIM_THRESHOLD, 8 << 20);
	rc = options_parse(&o, argc, (const char **)argv);
	if (rc) {
		options_free(&o);
		return rc > 0 ? 0 : 1;
	}
	memset(&d, 0, sizeof(d));
	d.o = &o;
	rc = daemon_run(&d);
	options_free(&o);
	return rc;
}
