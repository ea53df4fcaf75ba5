// SPDX-License-Identifier: GPL-3.0-or-later
#include "procinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <oputil/clock.h>

/* starttime counts from boot including suspend (CLOCK_BOOTTIME); the
 * session's clock is CLOCK_MONOTONIC, which stops during suspend, so
 * the time spent suspended so far is subtracted.  Ticks truncate, so the
 * result is never later than the true start. */
void procinfo_convert_start(uint64_t ticks, long hz, uint64_t boot_now,
			    uint64_t mono_now, int64_t real_now,
			    uint64_t *mono_ns, int64_t *unix_ns)
{
	uint64_t boot_ns = ticks / (uint64_t)hz * 1000000000u +
			   ticks % (uint64_t)hz * 1000000000u / (uint64_t)hz;
	uint64_t suspended = boot_now > mono_now ? boot_now - mono_now : 0;

	*mono_ns = boot_ns > suspended ? boot_ns - suspended : 0;
	*unix_ns = real_now - (int64_t)(boot_now - boot_ns);
}

/* Field N (from 1, as proc(5) counts) of /proc/PID/stat's text. */
static int procinfo_stat_field(const char *stat, int n, uint64_t *out)
{
	/* comm may hold spaces and parentheses: fields follow the last ')' */
	const char *p = strrchr(stat, ')');
	unsigned long long v;
	int field = 2;

	if (!p)
		return -EINVAL;
	p++;
	while (*p && field < n) {
		if (*p == ' ') {
			field++;
			while (*p == ' ')
				p++;
			continue;
		}
		p++;
	}
	if (field != n)
		return -EINVAL;
	if (*p < '0' || *p > '9' || sscanf(p, "%llu", &v) != 1)
		return -EINVAL;
	*out = v;
	return 0;
}

int procinfo_parse_starttime(const char *stat, uint64_t *ticks)
{
	return procinfo_stat_field(stat, 22, ticks);
}

#define PROCINFO_PF_KTHREAD 0x00200000u /* include/linux/sched.h */

bool procinfo_parse_kthread(const char *stat)
{
	uint64_t flags;

	return !procinfo_stat_field(stat, 9, &flags) &&
	       (flags & PROCINFO_PF_KTHREAD);
}

/* PATH is under /proc, where no user makes a FIFO; O_NONBLOCK and the
 * type check say so on the descriptor rather than trust the name. */
static int procinfo_slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENODATA;
	}
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int procinfo_comm_at(const char *path, char comm[PROC_COMM_MAX])
{
	char buf[64];
	int err;

	err = procinfo_slurp(path, buf, sizeof(buf));
	if (err)
		return err;
	buf[strcspn(buf, "\n")] = '\0';
	buf[PROC_COMM_MAX - 1] = '\0';
	memcpy(comm, buf, PROC_COMM_MAX);
	return 0;
}

int procinfo_comm(pid_t pid, char comm[PROC_COMM_MAX])
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	return procinfo_comm_at(path, comm);
}

int procinfo_thread_comm(pid_t pid, pid_t tid, char comm[PROC_COMM_MAX])
{
	char path[80];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid,
		 (int)tid);
	return procinfo_comm_at(path, comm);
}

int procinfo_exe(pid_t pid, char **exe)
{
	char path[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	*exe = strdup(buf);
	return *exe ? 0 : -ENOMEM;
}

static void procinfo_status(struct proc *p, const char *status)
{
	const char *line;

	line = strstr(status, "\nUid:");
	if (line) {
		unsigned long uid;

		if (sscanf(line + 5, "%lu", &uid) == 1)
			p->ident.uid = (uint32_t)uid;
	}
	/* NSpid lists the pid in each nested namespace, innermost last */
	line = strstr(status, "\nNSpid:");
	if (line) {
		const char *end = strchr(line + 1, '\n');
		const char *last = NULL;

		for (const char *s = line + 7; *s && (!end || s < end); s++)
			if ((*s >= '0' && *s <= '9') &&
			    (s[-1] == ' ' || s[-1] == '\t'))
				last = s;
		if (last)
			p->ident.nspid = (uint32_t)strtoul(last, NULL, 10);
	}
}

static void procinfo_mntns(struct proc *p)
{
	char path[64];
	struct stat self, other;

	snprintf(path, sizeof(path), "/proc/%u/ns/mnt", p->tgid);
	if (stat("/proc/self/ns/mnt", &self) || stat(path, &other))
		return;
	if (self.st_ino == other.st_ino && self.st_dev == other.st_dev)
		return;
	p->ident.flags |= OPS_PROC_OTHER_MNTNS;
	/* its /tmp is reachable only through /proc/PID/root, gone once
	 * it has exited, and its mounts may go with its namespace: an
	 * open directory keeps even a detached /tmp readable */
	snprintf(path, sizeof(path), "/proc/%u/root/tmp", p->tgid);
	if (p->tmpfd < 0)
		p->tmpfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

void procinfo_defaults(struct proc *p)
{
	p->ident_read = true;
	p->ident.tgid = p->tgid;
	p->ident.nspid = p->tgid;
	p->ident.uid = UINT32_MAX;
}

int procinfo_read(struct proc *p)
{
	char path[64], buf[4096], *exe;
	uint64_t ticks;
	int err;

	procinfo_defaults(p);
	snprintf(path, sizeof(path), "/proc/%u/status", p->tgid);
	err = procinfo_slurp(path, buf, sizeof(buf));
	if (err)
		return err;
	procinfo_status(p, buf);
	snprintf(path, sizeof(path), "/proc/%u/stat", p->tgid);
	if (!procinfo_slurp(path, buf, sizeof(buf)) &&
	    !procinfo_parse_starttime(buf, &ticks))
		procinfo_convert_start(
			ticks, sysconf(_SC_CLK_TCK),
			oputil_clock_ns(CLOCK_BOOTTIME),
			oputil_clock_ns(CLOCK_MONOTONIC),
			(int64_t)oputil_clock_ns(CLOCK_REALTIME),
			&p->ident.start_ns, &p->ident.start_unix_ns);
	/* the link, while there is one, over the path the exec mapped */
	if (!procinfo_exe((pid_t)p->tgid, &exe)) {
		free(p->exe);
		p->exe = exe;
	}
	procinfo_mntns(p);
	return 0;
}

bool procinfo_is_kthread(pid_t pid)
{
	char path[64], buf[1024];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return procinfo_slurp(path, buf, sizeof(buf)) >= 0 &&
	       procinfo_parse_kthread(buf);
}
