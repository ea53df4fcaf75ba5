// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The helper channel's bytes.  opreport's end never blocks past the
 * deadline of the call in progress, so a helper that stops reading or
 * answering cannot hang the report.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "handler_wire.h"

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void wire_init(struct wire *w, int fd, bool host)
{
	w->fd = fd;
	w->host = host;
	w->deadline = 0;
	w->err = 0;
	w->out = NULL;
	w->olen = w->ocap = 0;
	w->ipos = w->ilen = 0;
}

void wire_free(struct wire *w)
{
	free(w->out);
	w->out = NULL;
	w->olen = w->ocap = 0;
}

void wire_deadline(struct wire *w, unsigned timeout_ms)
{
	w->deadline = now_ms() + timeout_ms;
}

/* Wait until FD is ready for EVENTS or the deadline passes. */
static int wire_wait(struct wire *w, short events)
{
	struct pollfd pfd = { .fd = w->fd, .events = events };
	int rc, timeout = -1;

	for (;;) {
		if (w->deadline) {
			int64_t left = w->deadline - now_ms();

			if (left <= 0)
				return -ETIMEDOUT;
			timeout = left > 1000000 ? 1000000 : (int)left;
		}
		rc = poll(&pfd, 1, timeout);
		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR)
			return -errno;
	}
}

void wire_put(struct wire *w, const void *p, size_t n)
{
	/* an empty array may have no storage at all */
	if (w->err || !n)
		return;
	if (w->olen + n > w->ocap) {
		size_t cap = w->ocap ? w->ocap : 4096;
		char *o;

		while (cap < w->olen + n)
			cap *= 2;
		o = realloc(w->out, cap);
		if (!o) {
			w->err = -ENOMEM;
			return;
		}
		w->out = o;
		w->ocap = cap;
	}
	memcpy(w->out + w->olen, p, n);
	w->olen += n;
}

void wire_put_u32(struct wire *w, uint32_t v)
{
	wire_put(w, &v, sizeof(v));
}

void wire_put_u64(struct wire *w, uint64_t v)
{
	wire_put(w, &v, sizeof(v));
}

void wire_put_str(struct wire *w, const char *s)
{
	size_t len = s ? strlen(s) : 0;

	if (!s || len >= WIRE_NULL_STR) {
		wire_put_u32(w, WIRE_NULL_STR);
		return;
	}
	wire_put_u32(w, (uint32_t)len);
	wire_put(w, s, len);
}

int wire_flush(struct wire *w)
{
	size_t off = 0;

	while (!w->err && off < w->olen) {
		ssize_t r;

		if (w->host)
			r = send(w->fd, w->out + off, w->olen - off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		else
			r = write(w->fd, w->out + off, w->olen - off);
		if (r > 0) {
			off += (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			w->err = wire_wait(w, POLLOUT);
			continue;
		}
		w->err = -EPIPE;
	}
	w->olen = 0;
	return w->err;
}

int wire_get(struct wire *w, void *p, size_t n)
{
	char *d = p;

	while (!w->err && n) {
		ssize_t r;

		if (w->ipos < w->ilen) {
			size_t k = w->ilen - w->ipos < n ? w->ilen - w->ipos
							 : n;

			memcpy(d, w->in + w->ipos, k);
			w->ipos += k;
			d += k;
			n -= k;
			continue;
		}
		/* big arrays go straight to their place */
		if (n >= sizeof(w->in))
			r = w->host ? recv(w->fd, d, n, MSG_DONTWAIT)
				    : read(w->fd, d, n);
		else
			r = w->host ? recv(w->fd, w->in, sizeof(w->in),
					   MSG_DONTWAIT)
				    : read(w->fd, w->in, sizeof(w->in));
		if (r > 0 && n >= sizeof(w->in)) {
			d += r;
			n -= (size_t)r;
		} else if (r > 0) {
			w->ipos = 0;
			w->ilen = (size_t)r;
		} else if (r == 0) {
			w->err = -EPIPE;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			w->err = wire_wait(w, POLLIN);
		} else if (errno != EINTR) {
			w->err = -EPIPE;
		}
	}
	if (w->err)
		memset(d, 0, n);
	return w->err;
}

int wire_send_fd(struct wire *w, int32_t rc, int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { .iov_base = &rc, .iov_len = sizeof(rc) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t r;

	if (w->err || wire_flush(w) < 0)
		return w->err;
	if (fd >= 0) {
		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		u.h.cmsg_level = SOL_SOCKET;
		u.h.cmsg_type = SCM_RIGHTS;
		u.h.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&u.h), &fd, sizeof(int));
	}
	/* four bytes into an empty channel: all or nothing */
	for (;;) {
		r = sendmsg(w->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (r == (ssize_t)sizeof(rc))
			return 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			w->err = wire_wait(w, POLLOUT);
			if (!w->err)
				continue;
		} else {
			w->err = r < 0 ? -EPIPE : -EPROTO;
		}
		return w->err;
	}
}

int wire_get_fd(struct wire *w, int *fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { .iov_base = w->in, .iov_len = sizeof(w->in) };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	ssize_t r;

	*fd = -1;
	/* the answer is the first thing after the question */
	if (!w->err && w->ipos != w->ilen)
		w->err = -EPROTO;
	if (w->err)
		return w->err;
	do
		r = recvmsg(w->fd, &msg, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r <= 0) {
		w->err = -EPIPE;
		return w->err;
	}
	w->ipos = 0;
	w->ilen = (size_t)r;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		int got;

		if (cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_RIGHTS ||
		    cm->cmsg_len != CMSG_LEN(sizeof(int)))
			continue;
		memcpy(&got, CMSG_DATA(cm), sizeof(int));
		if (*fd < 0)
			*fd = got;
		else
			close(got);
	}
	if (msg.msg_flags & MSG_CTRUNC)
		w->err = -EPROTO;
	if (w->err && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	return w->err;
}

uint32_t wire_get_u32(struct wire *w)
{
	uint32_t v = 0;

	wire_get(w, &v, sizeof(v));
	return v;
}

uint64_t wire_get_u64(struct wire *w)
{
	uint64_t v = 0;

	wire_get(w, &v, sizeof(v));
	return v;
}

static void *plain_alloc(void *ctx, size_t n)
{
	(void)ctx;
	return malloc(n);
}

int wire_get_str(struct wire *w, char **s, size_t max,
		 void *(*alloc)(void *ctx, size_t n), void *ctx)
{
	uint32_t len = wire_get_u32(w);
	char *p;

	*s = NULL;
	if (w->err || len == WIRE_NULL_STR)
		return w->err;
	if (len > max) {
		w->err = -EPROTO;
		return w->err;
	}
	p = (alloc ? alloc : plain_alloc)(ctx, (size_t)len + 1);
	if (!p) {
		w->err = -ENOMEM;
		return w->err;
	}
	p[len] = '\0';
	if (wire_get(w, p, len) == 0 && memchr(p, '\0', len))
		w->err = -EPROTO;
	if (!w->err)
		*s = p;
	else if (!alloc)
		free(p);
	return w->err;
}
