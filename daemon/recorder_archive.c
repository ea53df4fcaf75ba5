// SPDX-License-Identifier: GPL-3.0-or-later
/* Copying a process's JIT map files into the session, as it saw them,
 * when it exits, execs, or recording stops. */
#include "recorder.h"

#include <errno.h>
#include <stdio.h>

#include <oputil/escape.h>

#include "diag.h"

static void recorder_archive_one(struct recorder *r, struct proc *p,
				 const char *src)
{
	int err = ops_writer_archive_map(r->w, p->proc_id, src,
					 r->cfg.archive_max_bytes);

	if (!err || err == -ENOENT)
		return;
	if (err == -EFBIG) {
		char name[512];

		diag("not archiving %s: larger than "
		     "%llu MiB",
		     oputil_escape(name, sizeof(name), src),
		     (unsigned long long)(r->cfg.archive_max_bytes >> 20));
		return;
	}
	if (err == -ENOSPC || err == -EDQUOT || err == -EIO) {
		recorder_fail(r, err, true);
		return;
	}
	diag("%s", ops_writer_error(r->w));
}

/* Copy the JIT's map files into the session, as the process saw them. */
void recorder_archive(struct recorder *r, struct proc *p)
{
	static const enum ops_jit_map_kind kinds[] = { OPS_JIT_MAP_ANON,
						       OPS_JIT_MAP_PERF };
	char dir[64], src[128], dump[4200];
	uint32_t pid = p->tgid;
	size_t i;

	if (!r->cfg.archive_maps || p->archived || p->proc_id == PROC_NO_ID)
		return;
	p->archived = true;
	/* a dump may live anywhere; in another mount namespace it is
	 * reached through the process's root while it runs */
	if (p->jitdump &&
	    !ops_jit_map_dump_path(dump, sizeof(dump), p->tgid,
				   p->ident.flags & OPS_PROC_OTHER_MNTNS,
				   p->jitdump))
		recorder_archive_one(r, p, dump);
	/* its own /tmp, held open since it was first seen */
	if (p->tmpfd >= 0) {
		snprintf(dir, sizeof(dir), "/proc/self/fd/%d", p->tmpfd);
		pid = p->ident.nspid;
	} else {
		snprintf(dir, sizeof(dir), "/tmp");
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!ops_jit_map_path(src, sizeof(src), dir, kinds[i], pid))
			recorder_archive_one(r, p, src);
}
