// SPDX-License-Identifier: MIT
/*
 * The map file: created safely in a world-writable directory, written
 * through one buffer under one lock so that the common path costs no
 * system call, and flushed by a helper thread at least once a second.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "../jm_format.h"

#define OUT_BUF_SIZE (256 * 1024)
#define OUT_FLUSH_MS 500

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t out_cond;
static pthread_t out_thread;
static int out_thread_running;
static int out_stopping;
static int out_fd = -1;
static const char *out_path;
static unsigned char out_buf[OUT_BUF_SIZE];
static size_t out_used;

uint64_t agent_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void agent_lock(void)
{
	pthread_mutex_lock(&out_lock);
}

void agent_unlock(void)
{
	pthread_mutex_unlock(&out_lock);
}

/* Called with the lock held.  A failed write stops the map for good:
 * a map with a hole in the middle would mislead more than a short one. */
static void out_write(const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n && out_fd >= 0) {
		ssize_t w = write(out_fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			fprintf(stderr,
				"javamap-agent: cannot write %s: %s; "
				"the map stops here\n",
				out_path,
				w < 0 ? strerror(errno) : "short write");
			close(out_fd);
			out_fd = -1;
			return;
		}
		c += w;
		n -= (size_t)w;
	}
}

static void out_flush_locked(void)
{
	if (out_used)
		out_write(out_buf, out_used);
	out_used = 0;
}

static void out_append(const void *p, size_t n)
{
	if (!n)
		return;
	if (out_used + n > sizeof(out_buf))
		out_flush_locked();
	if (n > sizeof(out_buf)) {
		out_write(p, n);
		return;
	}
	memcpy(out_buf + out_used, p, n);
	out_used += n;
}

void agent_out_record(unsigned kind, unsigned flags, const void *p1, size_t n1,
		      const void *p2, size_t n2, const void *p3, size_t n3)
{
	unsigned char hdr[JM_REC_HEADER_SIZE];
	size_t total = sizeof(hdr) + n1 + n2 + n3;

	if (total > UINT32_MAX)
		return;
	agent_put16(hdr, (uint16_t)kind);
	agent_put16(hdr + 2, (uint16_t)flags);
	agent_put32(hdr + 4, (uint32_t)total);
	agent_put64(hdr + 8, agent_now_ns());
	agent_lock();
	if (out_fd >= 0) {
		/* each write holds whole records, so a JVM killed between
		 * two writes leaves no torn record */
		if (out_used + total > sizeof(out_buf))
			out_flush_locked();
		out_append(hdr, sizeof(hdr));
		out_append(p1, n1);
		out_append(p2, n2);
		out_append(p3, n3);
	}
	agent_unlock();
}

/* Whether PATH is a map an earlier agent wrote: a regular file that
 * starts with our magic.  Anything else (file=PATH naming a user's
 * document) is not ours to replace. */
static int out_is_our_map(const char *path)
{
	char magic[JM_MAGIC_LEN];
	struct stat st;
	int fd, ours;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ours = !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	       pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
	       !memcmp(magic, JM_MAGIC, JM_MAGIC_LEN);
	close(fd);
	return ours;
}

/* Remove a map we own that an earlier process with our pid left, and
 * refuse to touch anything else: a file of someone else's, or one of
 * ours that is not a map. */
static int out_clear_stale(const char *path)
{
	struct stat st;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr,
			"javamap-agent: cannot check %s: %s; "
			"not recording\n",
			path, strerror(errno));
		return -errno;
	}
	if (st.st_uid != geteuid()) {
		fprintf(stderr,
			"javamap-agent: %s exists and is owned by uid "
			"%u, not %u; not recording\n",
			path, (unsigned)st.st_uid, (unsigned)geteuid());
		return -EEXIST;
	}
	/* removing a symbolic link of ours touches nothing it points at */
	if (!S_ISLNK(st.st_mode) && !out_is_our_map(path)) {
		fprintf(stderr,
			"javamap-agent: %s exists and is not a javamap "
			"map; leaving it alone and not recording\n",
			path);
		return -EEXIST;
	}
	if (unlink(path)) {
		fprintf(stderr,
			"javamap-agent: cannot remove stale %s: %s; "
			"not recording\n",
			path, strerror(errno));
		return -errno;
	}
	return 0;
}

int agent_out_open(const char *path, FILE *log)
{
	unsigned char hdr[JM_HEADER_SIZE] = { 0 };
	int ret;

	ret = out_clear_stale(path);
	if (ret)
		return ret;
	/* O_EXCL and O_NOFOLLOW: whatever appeared since the check above is
	 * refused, never followed or appended to */
	out_fd = open(path,
		      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		      0644);
	if (out_fd < 0) {
		ret = -errno;
		fprintf(stderr,
			"javamap-agent: cannot create %s: %s; "
			"not recording\n",
			path, strerror(errno));
		return ret;
	}
	out_path = path;
	out_stopping = 0;
	out_used = 0;
	memcpy(hdr, JM_MAGIC, JM_MAGIC_LEN);
	agent_put16(hdr + 8, JM_VERSION_RECORDS);
	agent_put16(hdr + 10, JM_VERSION_MINOR);
	agent_put32(hdr + 12, JM_HEADER_SIZE);
	agent_put32(hdr + 16, (uint32_t)getpid());
	agent_put32(hdr + 20, agent_inline ? JM_HDR_INLINE : 0);
	agent_put64(hdr + 24, agent_now_ns());
	agent_lock();
	out_append(hdr, sizeof(hdr));
	agent_unlock();
	if (log)
		fprintf(log, "javamap-agent: writing %s\n", path);
	return 0;
}

static void *out_flusher(void *arg)
{
	struct timespec ts;

	agent_lock();
	while (!out_stopping) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += OUT_FLUSH_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&out_cond, &out_lock, &ts);
		out_flush_locked();
	}
	agent_unlock();
	return NULL;
}

int agent_out_start_flusher(void)
{
	pthread_condattr_t ca;
	int err;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&out_cond, &ca);
	pthread_condattr_destroy(&ca);
	err = pthread_create(&out_thread, NULL, out_flusher, NULL);
	if (err) {
		fprintf(stderr,
			"javamap-agent: cannot start the flush "
			"thread: %s; flushing only when the buffer fills\n",
			strerror(err));
		return -err;
	}
	out_thread_running = 1;
	return 0;
}

void agent_out_flush(void)
{
	agent_lock();
	out_flush_locked();
	agent_unlock();
}

void agent_out_close(void)
{
	agent_lock();
	out_stopping = 1;
	out_flush_locked();
	pthread_cond_signal(&out_cond);
	agent_unlock();
	if (out_thread_running) {
		pthread_join(out_thread, NULL);
		pthread_cond_destroy(&out_cond);
		out_thread_running = 0;
	}
	agent_lock();
	if (out_fd >= 0)
		close(out_fd);
	out_fd = -1;
	agent_unlock();
}
