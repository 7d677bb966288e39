// SPDX-License-Identifier: MIT
// The mqtxd control-socket protocol: framing, encoding and strict decoding (see proto.h).
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <mqtx/ctl.h>

#include "proto.h"

int64_t proto_deadline(int ms)
{
	struct timespec ts;

	if (ms < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + ms;
}

/* Wait until @fd is ready for @events within @w: 0, or -1 with errno ETIMEDOUT or EINTR. A
 * signal that does not concern the wait (no @w->sigs, or the count unchanged) is waited out. */
static int wait_fd(int fd, short events, const struct proto_wait *w)
{
	struct pollfd p = { .fd = fd, .events = events };

	for (;;) {
		int64_t left = -1;
		int rc;

		if (w && w->sigs && *w->sigs != w->seen) {
			errno = EINTR;
			return -1;
		}
		if (w && w->deadline >= 0) {
			left = w->deadline - proto_deadline(0);
			if (left <= 0) {
				errno = ETIMEDOUT;
				return -1;
			}
		}
		rc = poll(&p, 1, left < 0 ? -1 : left > 60000 ? 60000 : (int)left);
		if (rc > 0)
			return 0; /* ready, or an error/hang-up that the next call reports */
		if (rc < 0 && errno != EINTR)
			return -1;
	}
}

void proto_fds_close(struct proto_fds *f)
{
	for (unsigned i = 0; i < f->n; i++)
		close(f->fd[i]);
	f->n = 0;
}

/* Keep the descriptors of @m's SCM_RIGHTS messages in @fds; close those that do not fit. */
static void take_fds(struct msghdr *m, struct proto_fds *fds)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < n; i++) {
			int d;

			memcpy(&d, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (fds->n < PROTO_FDS_MAX) {
				fds->fd[fds->n++] = d;
			} else {
				close(d);
				fds->excess = true;
			}
		}
	}
	if (m->msg_flags & MSG_CTRUNC)
		fds->excess = true; /* the kernel closed what did not fit */
}

static ssize_t recv_some(int fd, void *buf, size_t len, struct proto_fds *fds)
{
	union {
		char b[CMSG_SPACE(PROTO_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (!fds)
		return recv(fd, buf, len, MSG_DONTWAIT);
	m.msg_control = cbuf.b;
	m.msg_controllen = sizeof(cbuf.b);
	n = recvmsg(fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n >= 0)
		take_fds(&m, fds);
	return n;
}

int proto_read(int fd, void *buf, size_t len, const struct proto_wait *w, struct proto_fds *fds)
{
	char *p = buf;

	while (len) {
		ssize_t n;

		if (wait_fd(fd, POLLIN, w))
			return -1;
		n = recv_some(fd, p, len, fds);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = 0;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static ssize_t send_some(int fd, const void *buf, size_t len, int file)
{
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (file < 0)
		return send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	memset(&cbuf, 0, sizeof(cbuf));
	m.msg_control = cbuf.b;
	m.msg_controllen = sizeof(cbuf.b);
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &file, sizeof(int));
	return sendmsg(fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
}

int proto_write(int fd, const void *buf, size_t len, int file, const struct proto_wait *w)
{
	const char *p = buf;

	while (len) {
		ssize_t n;

		if (wait_fd(fd, POLLOUT, w))
			return -1;
		n = send_some(fd, p, len, file);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -1;
		file = -1; /* it went with the first bytes */
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void put32(char *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static uint32_t get32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

char *proto_encode_req(unsigned flags, int argc, char **argv, size_t *len)
{
	size_t n = 12;
	char *m, *p;

	for (int i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	m = malloc(n);
	if (!m)
		return NULL;
	put32(m, (uint32_t)(n - 4));
	put32(m + 4, flags);
	put32(m + 8, (uint32_t)argc);
	p = m + 12;
	for (int i = 0; i < argc; i++) {
		size_t l = strlen(argv[i]) + 1;

		memcpy(p, argv[i], l);
		p += l;
	}
	*len = n;
	return m;
}

int proto_decode_req(char *p, size_t len, unsigned *flags, int *argc, char **argv)
{
	const uint32_t known = MQTX_CTL_F_STATS | MQTX_CTL_F_JSON | MQTX_CTL_F_DETAILS |
			       MQTX_CTL_F_BRIEF | PROTO_REQ_FILE;
	uint32_t n;
	size_t off = 8;

	if (len < 8)
		return -1;
	*flags = get32(p);
	n = get32(p + 4);
	if (n > MQTX_ARGC_MAX || (*flags & ~known))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		char *nul = off < len ? memchr(p + off, '\0', len - off) : NULL;

		if (!nul)
			return -1;
		argv[i] = p + off;
		off = (size_t)(nul - p) + 1;
	}
	if (off != len)
		return -1; /* trailing bytes: not what a client sends */
	*argc = (int)n;
	argv[n] = NULL;
	return 0;
}

/* One frame: the length, the type, then @len bytes of @data (none for END: @data is the code). */
static int send_frame(int fd, uint32_t type, const char *data, size_t len,
		      const struct proto_wait *w)
{
	char h[12];

	put32(h, (uint32_t)(4 + len));
	put32(h + 4, type);
	if (type == PROTO_END)
		memcpy(h + 8, data, 4);
	if (proto_write(fd, h, type == PROTO_END ? 12 : 8, -1, w))
		return -1;
	return type == PROTO_END ? 0 : proto_write(fd, data, len, -1, w);
}

static int send_text(int fd, uint32_t type, const char *p, size_t len, const struct proto_wait *w)
{
	while (len) {
		size_t n = len < PROTO_CHUNK_MAX ? len : PROTO_CHUNK_MAX;

		if (send_frame(fd, type, p, n, w))
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

int proto_send_reply(int fd, int code, const char *out, size_t outlen, const char *err,
		     size_t errlen, const struct proto_wait *w)
{
	char c[4];

	put32(c, (uint32_t)code & 0xff);
	if (send_text(fd, PROTO_OUT, out, outlen, w) || send_text(fd, PROTO_ERR, err, errlen, w))
		return -1;
	return send_frame(fd, PROTO_END, c, 4, w);
}

/* Append @n bytes to *@buf (length *@len), keeping it NUL-terminated. */
static int append(char **buf, size_t *len, const char *p, size_t n)
{
	char *b = realloc(*buf, *len + n + 1);

	if (!b)
		return -1;
	memcpy(b + *len, p, n);
	*len += n;
	b[*len] = '\0';
	*buf = b;
	return 0;
}

/* Read one frame of a reply into @r; 1 after END, 0 after a text chunk, -1 on failure. */
static int recv_frame(int fd, const struct proto_wait *w, struct proto_reply *r, char *chunk)
{
	char h[8];
	uint32_t n, type;

	if (proto_read(fd, h, 8, w, NULL))
		return -1;
	n = get32(h);
	type = get32(h + 4);
	if (n < 4 || (type == PROTO_END && n != 8) ||
	    ((type == PROTO_OUT || type == PROTO_ERR) && (n == 4 || n - 4 > PROTO_CHUNK_MAX)) ||
	    (type != PROTO_OUT && type != PROTO_ERR && type != PROTO_END)) {
		errno = EPROTO;
		return -1;
	}
	if (proto_read(fd, chunk, n - 4, w, NULL))
		return -1;
	if (type == PROTO_END) {
		if (get32(chunk) > 255) {
			errno = EPROTO;
			return -1;
		}
		r->code = (int)get32(chunk);
		return 1;
	}
	if (type == PROTO_OUT ? append(&r->out, &r->outlen, chunk, n - 4)
			      : append(&r->err, &r->errlen, chunk, n - 4)) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

int proto_recv_reply(int fd, struct proto_wait *w, int frame_ms, struct proto_reply *r)
{
	char *chunk = malloc(PROTO_CHUNK_MAX);
	int rc = 0, e;

	*r = (struct proto_reply){ 0 };
	if (!chunk || append(&r->out, &r->outlen, "", 0) || append(&r->err, &r->errlen, "", 0)) {
		rc = -1;
		errno = ENOMEM;
	}
	while (rc == 0) {
		w->deadline = proto_deadline(frame_ms);
		rc = recv_frame(fd, w, r, chunk);
	}
	e = errno;
	free(chunk);
	if (rc < 0) {
		proto_reply_free(r);
		errno = e;
		return -1;
	}
	return 0;
}

void proto_reply_free(struct proto_reply *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
	r->outlen = r->errlen = 0;
}
