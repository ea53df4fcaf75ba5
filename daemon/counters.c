// SPDX-License-Identifier: GPL-3.0-or-later
#include "counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record.h"

/* 512 KiB a CPU, as perf record takes (perf_event_mlock_kb): three
 * seconds of samples at 4 kHz, while the loop reads every two seconds */
#define COUNTERS_DATA_PAGES 128
/* 2 MiB a CPU with call chains or stack copies: a chain makes a sample
 * ten times larger (330 bytes for node's 37 frames), and at 512 KiB its
 * half-full mark woke the loop, and so flushed, four times a second.
 * What an unprivileged user may lock (perf_event_mlock_kb a CPU, then
 * RLIMIT_MEMLOCK) may not hold it: then every ring is 512 KiB again. */
#define COUNTERS_STACK_PAGES 512

static int counters_online_cpus(struct counters *c)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	char buf[4096];
	char *p, *save = NULL;
	int err = 0;

	if (f && fgets(buf, sizeof(buf), f)) {
		for (p = strtok_r(buf, ",\n", &save); p;
		     p = strtok_r(NULL, ",\n", &save)) {
			int lo, hi, n = sscanf(p, "%d-%d", &lo, &hi);

			if (n == 1)
				hi = lo;
			if (n < 1 || lo < 0 || hi < lo || hi > 65535)
				continue;
			for (int cpu = lo; cpu <= hi; cpu++) {
				int *v = realloc(c->cpus, (c->nr_cpus + 1) *
								  sizeof(*v));

				if (!v) {
					err = -ENOMEM;
					goto out;
				}
				c->cpus = v;
				c->cpus[c->nr_cpus++] = cpu;
			}
		}
	}
	if (!c->nr_cpus) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		c->cpus = calloc(n > 0 ? n : 1, sizeof(*c->cpus));
		if (!c->cpus) {
			err = -ENOMEM;
			goto out;
		}
		for (c->nr_cpus = 0; c->nr_cpus < (n > 0 ? n : 1);
		     c->nr_cpus++)
			c->cpus[c->nr_cpus] = c->nr_cpus;
	}
out:
	if (f)
		fclose(f);
	return err;
}

int counters_init(struct counters *c, const struct counters_config *cfg)
{
	int err;

	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	c->build_id = true;
	c->data_pages = cfg->callgraph_depth || cfg->stack_copy
				? COUNTERS_STACK_PAGES
				: COUNTERS_DATA_PAGES;
	err = counters_online_cpus(c);
	if (err)
		return err;
	if (!c->cfg.nr_events) {
		c->cfg.events[0] = (struct counters_event){
			.type = cfg->type,
			.config = cfg->config,
		};
		c->cfg.nr_events = 1;
	}
	if (c->cfg.nr_events > COUNTERS_MAX_EVENTS)
		return -EINVAL;
	c->nr_events = c->cfg.nr_events;
	c->nr_rings = (size_t)c->nr_cpus * c->nr_events;
	c->rings = calloc(c->nr_rings, sizeof(*c->rings));
	if (!c->rings)
		return -ENOMEM;
	for (size_t i = 0; i < c->nr_rings; i++) {
		c->rings[i].fd = -1;
		c->rings[i].event = (uint32_t)(i / (size_t)c->nr_cpus);
	}
	return 0;
}

/*
 * How many bytes a buffer of BYTES takes before it wakes the loop.  The
 * kernel wakes each time that many more are written, however much the
 * loop read meanwhile, and the loop reads every buffer every two seconds
 * anyway: a wake-up it did not need costs it as much as three thousand
 * samples.  So the buffer wakes it late, keeping room for a quarter
 * second of samples at the frequency asked (an eighth of the buffer at
 * least, half at most): 7/8 full at 4 kHz, once in 2.8 s, not every
 * 1.6 s.  Call chains make a sample up to a kilobyte (at the default
 * depth, half full, as perf), and a period (not a frequency) says
 * nothing of the rate: half full.
 */
static uint32_t counters_watermark(const struct counters *c, uint64_t bytes)
{
	uint64_t sample = sizeof(struct record_sample), room;

	if (!c->cfg.frequency)
		return (uint32_t)(bytes / 2);
	if (c->cfg.callgraph_depth) /* nr, the frames, a few markers */
		sample += 8 * (1 + (uint64_t)c->cfg.callgraph_depth + 4);
	if (c->cfg.stack_copy) /* abi, three registers, size, dyn_size */
		sample += 8 * 6 + (uint64_t)c->cfg.stack_copy;
	/* a quarter second: the time the loop has to come and read */
	room = c->cfg.frequency < bytes ? c->cfg.frequency * sample / 4
					: bytes;
	if (room < bytes / 8)
		room = bytes / 8;
	if (room > bytes / 2)
		room = bytes / 2;
	return (uint32_t)(bytes - room);
}

static void counters_attr(const struct counters *c, struct perf_event_attr *a,
			  uint32_t event, bool inherit, bool enable_on_exec)
{
	const struct counters_event *ev = &c->cfg.events[event];
	long page = sysconf(_SC_PAGESIZE);

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->type;
	a->config = ev->config;
	if (ev->period) {
		a->sample_period = ev->period;
	} else if (c->cfg.frequency) {
		a->freq = 1;
		a->sample_freq = c->cfg.frequency;
	} else {
		a->sample_period = c->cfg.period;
	}
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU;
	if (c->cfg.callgraph_depth) {
		/* the kernel walks frame pointers; the chain follows CPU */
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->sample_max_stack = c->cfg.callgraph_depth;
	}
	if (c->cfg.stack_copy) {
		/* what unwinding by CFI starts from; the report does it */
		a->sample_type |= PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = RING_STACK_REGS;
		a->sample_stack_user = c->cfg.stack_copy;
	}
	a->disabled = 1;
	a->inherit = inherit;
	a->enable_on_exec = enable_on_exec;
	a->exclude_kernel = c->cfg.exclude_kernel || c->kernel_refused;
	a->exclude_hv = 1;
	/* the first event's buffers tell of mappings and tasks: the
	 * others' would repeat them */
	a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = !event;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = counters_watermark(c, (uint64_t)c->data_pages *
							    (uint64_t)page);
	a->build_id = c->build_id && !event;
}

static int counters_syscall(struct counters *c, uint32_t event, pid_t pid,
			    int cpu, bool inherit, bool enable_on_exec)
{
	struct perf_event_attr a;

	for (;;) {
		int fd;

		counters_attr(c, &a, event, inherit, enable_on_exec);
		fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1,
				  PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			return fd;
		/* kernels before 5.12 know no build_id bit */
		if (errno == EINVAL && c->build_id && !event) {
			c->build_id = false;
			continue;
		}
		if ((errno == EACCES || errno == EPERM) &&
		    c->cfg.kernel_fallback && !c->cfg.exclude_kernel &&
		    !c->kernel_refused) {
			c->kernel_refused = true;
			continue;
		}
		return -errno;
	}
}

static int counters_keep_fd(struct counters *c, int fd)
{
	if (c->nr_fds == c->cap_fds) {
		size_t cap = c->cap_fds ? c->cap_fds * 2 : 16;
		int *v = realloc(c->fds, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->fds = v;
		c->cap_fds = cap;
	}
	c->fds[c->nr_fds++] = fd;
	return 0;
}

/* Close every counter and ring opened so far, as before the first
 * counters_open_task. */
static void counters_close_all(struct counters *c)
{
	for (size_t i = 0; i < c->nr_rings; i++)
		if (c->rings[i].fd >= 0) {
			ring_close(&c->rings[i]);
			c->rings[i].fd = -1;
		}
	for (size_t i = 0; i < c->nr_fds; i++)
		close(c->fds[i]);
	c->nr_fds = 0;
}

/* Open the counters following PID, and the rings when they are not
 * yet; *REFUSED says the kernel would not map a ring (EPERM). */
static int counters_open_rings(struct counters *c, pid_t pid, bool inherit,
			       bool enable_on_exec, bool *refused)
{
	int err = 0;

	for (size_t k = 0; k < c->nr_rings; k++) {
		struct ring *r = &c->rings[k];
		uint32_t ev = r->event;
		int i = (int)(k % (size_t)c->nr_cpus);
		int fd = counters_syscall(c, ev, pid, c->cpus[i], inherit,
					  enable_on_exec);

		if (fd < 0) {
			c->failed_event = (int)ev;
			return fd;
		}
		err = counters_keep_fd(c, fd);
		if (err) {
			close(fd);
			return err;
		}
		if (r->fd < 0) {
			err = ring_open(r, fd, c->cpus[i], c->data_pages);
			r->event = ev; /* ring_open starts it afresh */
			*refused = err == -EPERM;
			if (err)
				r->fd = -1; /* closed with c->fds */
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0)
			err = -errno;
		if (err)
			return err;
	}
	return 0;
}

int counters_open_task(struct counters *c, pid_t pid, bool inherit,
		       bool enable_on_exec)
{
	bool refused = false;
	int err =
		counters_open_rings(c, pid, inherit, enable_on_exec, &refused);

	/* the kernel would not lock that much: the rings are made in the
	 * first call, so all of them go back to perf's size (the ones
	 * mapped already would leave the others too little), each counter
	 * opened again for the watermark of that size */
	if (refused && c->data_pages > COUNTERS_DATA_PAGES) {
		counters_close_all(c);
		c->data_pages = COUNTERS_DATA_PAGES;
		err = counters_open_rings(c, pid, inherit, enable_on_exec,
					  &refused);
	}
	return err;
}

int counters_enable(struct counters *c)
{
	for (size_t i = 0; i < c->nr_fds; i++)
		if (ioctl(c->fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0)
			return -errno;
	return 0;
}

void counters_disable(struct counters *c)
{
	for (size_t i = 0; i < c->nr_fds; i++)
		ioctl(c->fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

void counters_free(struct counters *c)
{
	for (size_t i = 0; i < c->nr_rings && c->rings; i++)
		if (c->rings[i].fd >= 0)
			ring_close(&c->rings[i]);
	for (size_t i = 0; i < c->nr_fds; i++)
		close(c->fds[i]);
	free(c->rings);
	free(c->cpus);
	free(c->fds);
	memset(c, 0, sizeof(*c));
}
