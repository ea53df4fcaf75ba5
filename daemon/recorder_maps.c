// SPDX-License-Identifier: GPL-3.0-or-later
/* What the recorder learns about a process's mappings outside the sample
 * path: its images and executable mappings, from MMAP2 records or from
 * /proc for processes already running. */
#include "recorder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "buildid.h"
#include "jitlog_attach.h"
#include "procinfo.h"
#include "procmaps.h"
#include "userfile.h"

struct proc *recorder_proc_new(struct recorder *r, uint32_t tgid)
{
	struct proc *p = proctab_add(&r->procs, tgid);

	if (!p)
		recorder_fail(r, -ENOMEM, false);
	return p;
}

/* Open PATH as the process sees it: through its root when the file we
 * see under that name is not the one it mapped.  The name is the
 * process's to change: only a regular file is read (userfile.h). */
static int recorder_open_image(struct proc *p, const char *path, uint64_t ino,
			       struct stat *st)
{
	char alt[4200];
	int fd = userfile_open(path, st);

	/* the inode alone: overlay file systems show another device */
	if (fd >= 0 && (!ino || st->st_ino == ino))
		return fd;
	if (fd >= 0)
		close(fd);
	if (!ino)
		return -ENOENT;
	snprintf(alt, sizeof(alt), "/proc/%u/root%s", p->tgid, path);
	fd = userfile_open(alt, st);
	if (fd >= 0 && st->st_ino == ino)
		return fd;
	if (fd >= 0)
		close(fd);
	/* neither is provably the mapped file: the name is all we have */
	fd = userfile_open(path, st);
	return fd >= 0 ? fd : -ENOENT;
}

/* A new image: registered with the writer, *ID cached under KEY. */
static int recorder_image_add(struct recorder *r, const struct ops_image *img,
			      const struct imgcache_key *key, uint32_t *id)
{
	int err = ops_writer_image(r->w, img, id);

	if (err) {
		recorder_fail(r, err, true);
		return err;
	}
	err = imgcache_put(&r->images, key, *id);
	if (err)
		recorder_fail(r, err, false);
	return err;
}

int recorder_image_file(struct recorder *r, struct proc *p, const char *path,
			uint64_t dev, uint64_t ino, const uint8_t *build_id,
			uint8_t build_id_size, uint32_t *id)
{
	struct imgcache_key key = { .path = path, .dev = dev, .ino = ino };
	struct ops_image img = { .kind = OPS_IMAGE_FILE, .path = path };
	struct stat st;
	int fd;

	if (build_id_size > OPS_BUILD_ID_MAX)
		build_id_size = OPS_BUILD_ID_MAX;
	if (build_id_size) {
		memcpy(key.build_id, build_id, build_id_size);
		key.build_id_size = build_id_size;
	}
	if (!imgcache_get(&r->images, &key, id))
		return 0;
	/* new image: the only time the file itself is looked at */
	fd = recorder_open_image(p, path, ino, &st);
	if (fd >= 0) {
		img.size = (uint64_t)st.st_size;
		img.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
			       st.st_mtim.tv_nsec;
	}
	if (build_id_size) {
		memcpy(img.build_id, build_id, build_id_size);
		img.build_id_size = build_id_size;
	} else if (fd >= 0) {
		buildid_read(fd, img.build_id, &img.build_id_size);
	}
	if (fd >= 0)
		close(fd);
	return recorder_image_add(r, &img, &key, id);
}

int recorder_image_special(struct recorder *r, const char *name, uint32_t *id)
{
	struct ops_image img = { .kind = OPS_IMAGE_FILE, .path = name };
	struct imgcache_key key = { .path = name };

	if (!imgcache_get(&r->images, &key, id))
		return 0;
	return recorder_image_add(r, &img, &key, id);
}

/* A runtime that writes a jitdump maps it executable only so that the
 * profiler learns where it is: note the path with the process, and
 * take the mapping for the data it is, never for code or an image. */
static int recorder_jitdump(struct recorder *r, struct proc *p,
			    const char *name, size_t len, uint64_t start,
			    uint64_t end)
{
	int err;

	if (!p->jitdump || strlen(p->jitdump) != len ||
	    strncmp(p->jitdump, name, len)) {
		char *s = strndup(name, len);

		if (!s) {
			recorder_fail(r, -ENOMEM, false);
			return -ENOMEM;
		}
		free(p->jitdump);
		p->jitdump = s;
		p->ident.jitdump = s;
		p->dirty = true;
	}
	/* identity now, while the process surely exists */
	if (!p->ident_read)
		procinfo_read(p);
	err = maptab_remove(&p->maps, start, end);
	if (err == -ENOMEM)
		recorder_fail(r, err, false);
	return err;
}

int recorder_map(struct recorder *r, struct proc *p, uint64_t start,
		 uint64_t end, uint64_t pgoff, const char *name, uint64_t dev,
		 uint64_t ino, const uint8_t *build_id, uint8_t build_id_size)
{
	uint32_t image = MAPTAB_ANON;
	size_t len;
	int err = 0;

	if (mapname_is_jitdump(name, &len))
		return recorder_jitdump(r, p, name, len, start, end);
	switch (mapname_classify(name)) {
	case MAPKIND_ANON:
		/* identity now, while the process surely exists */
		if (!p->ident_read)
			procinfo_read(p);
		break;
	case MAPKIND_SPECIAL:
		err = recorder_image_special(r, name, &image);
		break;
	case MAPKIND_FILE:
		err = recorder_image_file(r, p, name, dev, ino, build_id,
					  build_id_size, &image);
		if (!err && jitlog_attach_is_library(name))
			jitlog_attach_found(r, p, name, start, pgoff);
		/* after exec the executable is mapped first: its path
		 * stands for /proc/PID/exe, which a process that ended
		 * before its records were read (a short run, a ring read
		 * at its end) no longer has */
		if (!err && !p->has_app) {
			p->app = image;
			p->has_app = true;
			if (p->exec_seen && !p->exe)
				p->exe = strdup(name);
		}
		break;
	}
	if (err)
		return err;
	err = maptab_insert(&p->maps, start, end, pgoff, image);
	if (err == -ENOMEM)
		recorder_fail(r, err, false);
	return err;
}

int recorder_scan_pid(struct recorder *r, pid_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	struct proc *p;
	FILE *f;
	uint32_t app;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	p = proctab_get(&r->procs, (uint32_t)pid);
	if (!p)
		p = recorder_proc_new(r, (uint32_t)pid);
	if (!p) {
		fclose(f);
		return -ENOMEM;
	}
	procinfo_comm(pid, p->comm);
	recorder_scan_threads(r, pid);
	if (!p->exe)
		procinfo_exe(pid, &p->exe);
	if (p->exe && !p->has_app &&
	    mapname_classify(p->exe) == MAPKIND_FILE &&
	    !recorder_image_file(r, p, p->exe, 0, 0, NULL, 0, &app)) {
		p->app = app;
		p->has_app = true;
	}
	while (getline(&line, &cap, f) > 0 && !r->err) {
		struct procmaps_line m;

		if (procmaps_parse_line(line, &m) || !m.exec)
			continue;
		recorder_map(r, p, m.start, m.end, m.pgoff, m.path,
			     makedev(m.dev_major, m.dev_minor), m.inode, NULL,
			     0);
	}
	free(line);
	fclose(f);
	return r->err;
}

int recorder_scan_all(struct recorder *r)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	if (!d)
		return -errno;
	while ((de = readdir(d)) && !r->err) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		/* it may have exited since readdir: nothing to learn */
		recorder_scan_pid(r, (pid_t)pid);
	}
	closedir(d);
	return r->err;
}
