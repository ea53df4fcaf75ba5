// SPDX-License-Identifier: GPL-3.0-or-later
#include "counters_pid.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h"

int counters_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

static long counters_max_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static int counters_has_tid(const pid_t *tids, size_t n, pid_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (tids[i] == tid)
			return 1;
	return 0;
}

int counters_open_pid(struct counters *c, pid_t pid)
{
	char path[64];
	pid_t *tids = NULL;
	size_t n = 0, cap = 0;
	int added, err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	/* threads created after their creator's counter exists inherit
	 * it; only those born while we list need another look */
	do {
		DIR *d = opendir(path);
		struct dirent *de;

		if (!d) {
			err = errno == ENOENT ? -ESRCH : -errno;
			goto out;
		}
		added = 0;
		while ((de = readdir(d))) {
			char *end;
			long tid = strtol(de->d_name, &end, 10);

			if (*end || tid <= 0 || counters_has_tid(tids, n, tid))
				continue;
			if (n == cap) {
				pid_t *v;

				cap = cap ? cap * 2 : 64;
				v = realloc(tids, cap * sizeof(*v));
				if (!v) {
					err = -ENOMEM;
					closedir(d);
					goto out;
				}
				tids = v;
			}
			tids[n++] = (pid_t)tid;
			added++;
			err = counters_open_task(c, (pid_t)tid, true, false);
			/* a thread that ended meanwhile has nothing to give */
			if (err == -ESRCH && tid != pid)
				err = 0;
			if (err) {
				closedir(d);
				goto out;
			}
		}
		closedir(d);
	} while (added);
out:
	free(tids);
	return err;
}

void counters_report_open_error(const struct options *o,
				const struct counters *c, int err)
{
	const char *ev = o->events[c->failed_event]->name;
	long max;

	switch (-err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		diag("event '%s' is not supported on "
		     "this machine",
		     ev);
		return;
	case EACCES:
	case EPERM:
		if (o->mode == MODE_SYSTEM)
			diag("--system-wide needs root "
			     "or CAP_PERFMON (perf_event_paranoid is %d)",
			     counters_paranoid());
		else if (o->mode == MODE_PID)
			diag("not allowed to profile "
			     "pid %d (perf_event_paranoid is %d)",
			     (int)o->pid, counters_paranoid());
		else
			diag("not allowed to open "
			     "perf events (perf_event_paranoid is %d)",
			     counters_paranoid());
		return;
	case ESRCH:
		diag("no process with pid %d", (int)o->pid);
		return;
	case EOVERFLOW:
		diag("--callgraph-depth=%u is above the "
		     "kernel's limit (kernel.perf_event_max_stack)",
		     o->callgraph_depth);
		return;
	case EINVAL:
		max = counters_max_rate();
		if (o->frequency && max > 0 && o->frequency > (uint64_t)max) {
			diag("--frequency=%llu is above "
			     "the kernel's limit of %ld "
			     "(kernel.perf_event_max_sample_rate)",
			     (unsigned long long)o->frequency, max);
			return;
		}
		break;
	}
	diag("cannot open event '%s': %s", ev, strerror(-err));
}
