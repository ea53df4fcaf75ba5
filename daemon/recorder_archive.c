// SPDX-License-Identifier: GPL-3.0-or-later
/* Copying a process's JIT map files into the session, as it saw them,
 * when it exits, execs, or recording stops. */
#include "recorder.h"

#include <errno.h>
#include <stdio.h>

#include <oputil/escape.h>

static void recorder_archive_one(struct recorder *r, struct proc *p,
				 const char *src)
{
	int err = ops_writer_archive_map(r->w, p->proc_id, src,
					 r->cfg.archive_max_bytes);

	if (!err || err == -ENOENT)
		return;
	if (err == -EFBIG) {
		char name[512];

		fprintf(stderr,
			"oprofiled: not archiving %s: larger than "
			"%llu MiB\n",
			oputil_escape(name, sizeof(name), src),
			(unsigned long long)(r->cfg.archive_max_bytes >> 20));
		return;
	}
	if (err == -ENOSPC || err == -EDQUOT || err == -EIO) {
		recorder_fail(r, err, true);
		return;
	}
	fprintf(stderr, "oprofiled: %s\n", ops_writer_error(r->w));
}

/* Copy the JIT's map files into the session, as the process saw them. */
void recorder_archive(struct recorder *r, struct proc *p)
{
	char src[128], dump[4200];

	if (!r->cfg.archive_maps || p->archived || p->proc_id == PROC_NO_ID)
		return;
	p->archived = true;
	if (p->jitdump) {
		/* a dump may live anywhere; in another mount namespace it
		 * is reached through the process's root while it runs */
		if (p->ident.flags & OPS_PROC_OTHER_MNTNS)
			snprintf(dump, sizeof(dump), "/proc/%u/root%s",
				 p->tgid, p->jitdump);
		else
			snprintf(dump, sizeof(dump), "%s", p->jitdump);
		recorder_archive_one(r, p, dump);
	}
	if (p->tmpfd >= 0) {
		snprintf(src, sizeof(src), "/proc/self/fd/%d/anon.%u",
			 p->tmpfd, p->ident.nspid);
		recorder_archive_one(r, p, src);
		snprintf(src, sizeof(src), "/proc/self/fd/%d/perf-%u.map",
			 p->tmpfd, p->ident.nspid);
		recorder_archive_one(r, p, src);
		return;
	}
	snprintf(src, sizeof(src), "/tmp/anon.%u", p->tgid);
	recorder_archive_one(r, p, src);
	snprintf(src, sizeof(src), "/tmp/perf-%u.map", p->tgid);
	recorder_archive_one(r, p, src);
}
