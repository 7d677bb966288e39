// SPDX-License-Identifier: MIT
// mqtxd's client connections: a thread per client, requests read within deadlines and run
// with the client's limits, replies sent within a deadline.
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "peer.h"
#include "proto.h"
#include "quota.h"

struct conn {
	const struct server *srv;
	int fd, slot;
	struct ucred cr;
	struct account *acct;
	char who[32]; /* "uid N", as messages name the client */
};

_Thread_local bool conn_in_command;

/* Every connection, so that the shutdown can wake them. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t idle;
	int fd[CONN_MAX]; /* 0: a free slot (a connection is never descriptor 0) */
	unsigned n;
	bool quitting;
} C = { .lock = PTHREAD_MUTEX_INITIALIZER, .idle = PTHREAD_COND_INITIALIZER };

static int64_t deadline(unsigned ms)
{
	return ms ? proto_deadline((int)ms) : -1;
}

static void reply_err(int fd, int code, const char *msg, unsigned ms)
{
	struct proto_wait w = { .deadline = deadline(ms) };

	proto_send_reply(fd, code, NULL, 0, msg, strlen(msg), &w);
}

/* A request the client began but did not finish in time is dropped, and said so in the log:
 * nothing was run for it. */
static void dropped(const struct conn *c, const char *what)
{
	fprintf(stderr, "mqtxd: %s (pid %d): %s; connection closed\n", c->who, (int)c->cr.pid,
		what);
}

/* The limit hit during a command is the command's failure, whatever the library made of the
 * allocation it could not get (a refusal, or output that did not fit). Whatever output there
 * is goes too: past the limit a listing is withheld, never sent cut. */
static int over_memory(const struct conn *c, struct mqtx_buf *out, struct mqtx_buf *err)
{
	mqtx_buf_printf(err,
			"mqtxd: %s is at its memory limit (%zu MiB, mqtxd --limit memory): "
			"%s\n",
			c->who, quota_max() >> 20,
			out->nomem ? "its output did not fit and was withheld"
				   : "the command was refused");
	out->len = 0;
	return MQTX_TC_EXIT_REFUSED;
}

/* Run a request of @c; @file (or -1) is the file it reads, closed here. */
static int run_request(struct conn *c, int argc, char **argv, unsigned flags, int file)
{
	const struct limits *l = &c->srv->lim;
	struct mqtx_ctl_req req = { .fd = file,
				    .owner = c->cr.uid,
				    .who = c->who,
				    .max_jobs = l->jobs,
				    .max_pools = l->pools };
	struct proto_wait w = { .deadline = -1 };
	struct mqtx_buf out, err;
	int code, rc;

	mqtx_buf_init(&out);
	mqtx_buf_init(&err);
	quota_charge(c->acct);
	conn_in_command = true;
	code = mqtx_ctl_exec_req(c->srv->ctl, argc, argv, flags, &req, &out, &err);
	conn_in_command = false;
	if (quota_charge(NULL))
		code = over_memory(c, &out, &err);
	w.deadline = deadline(l->reply_ms);
	rc = proto_send_reply(c->fd, code, out.data, out.len, err.data, err.len, &w);
	if (rc && errno == ETIMEDOUT)
		dropped(c, "took too long to read its reply");
	mqtx_buf_free(&out);
	mqtx_buf_free(&err);
	return rc;
}

/* The rest of a request whose @n-byte body follows; 0 to go on, -1 to close. */
static int read_body(struct conn *c, uint32_t n, struct proto_wait *w, struct proto_fds *fds)
{
	char *body, *argv[MQTX_ARGC_MAX + 1];
	unsigned flags;
	int argc, rc;

	body = malloc(n ? n : 1);
	if (!body) {
		reply_err(c->fd, MQTX_TC_EXIT_REFUSED, "mqtxd: out of memory\n", 1000);
		return -1;
	}
	if (proto_read(c->fd, body, n, w, fds)) {
		if (errno == ETIMEDOUT)
			dropped(c, "its request did not arrive in time");
		free(body);
		return -1;
	}
	/* One descriptor exactly when the request says so. */
	if (proto_decode_req(body, n, &flags, &argc, argv) || fds->excess ||
	    fds->n != ((flags & PROTO_REQ_FILE) ? 1u : 0u)) {
		free(body);
		reply_err(c->fd, MQTX_TC_EXIT_PARSE, "mqtxd: malformed request\n", 1000);
		return -1;
	}
	rc = run_request(c, argc, argv, flags & ~PROTO_REQ_FILE, fds->n ? fds->fd[0] : -1);
	fds->n = 0; /* run_request() closed it */
	free(body);
	return rc;
}

/*
 * One request: 0 to keep the connection, -1 to close it. A client may stay idle between
 * requests for idle_ms; once a request begins, all of it (header included) must arrive within
 * request_ms, so that a client dribbling a byte now and then cannot hold its slot.
 */
static int serve_one(struct conn *c)
{
	const struct limits *l = &c->srv->lim;
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	struct proto_wait w = { .deadline = -1 };
	struct proto_fds fds = { .n = 0 };
	char hdr[4];
	uint32_t n;
	int rc;

	do
		rc = poll(&p, 1, l->idle_ms ? (int)l->idle_ms : -1);
	while (rc < 0 && errno == EINTR);
	if (rc <= 0)
		return -1; /* idle too long: the client reconnects when it has something to say */
	w.deadline = deadline(l->request_ms);
	if (proto_read(c->fd, hdr, 4, &w, &fds)) {
		if (errno == ETIMEDOUT)
			dropped(c, "its request did not arrive in time");
		proto_fds_close(&fds);
		return -1;
	}
	memcpy(&n, hdr, 4);
	n = ntohl(n);
	if (n > MQTX_REQ_MAX) {
		char msg[128];

		snprintf(msg, sizeof(msg), "mqtxd: request too large (%u bytes, at most %u)\n", n,
			 MQTX_REQ_MAX);
		reply_err(c->fd, MQTX_TC_EXIT_PARSE, msg, 1000);
		proto_fds_close(&fds);
		return -1; /* the stream cannot be resynchronised */
	}
	rc = read_body(c, n, &w, &fds);
	proto_fds_close(&fds);
	return rc;
}

static void *client_thread(void *arg)
{
	struct conn *c = arg;

	while (serve_one(c) == 0)
		;
	quota_disconnect(c->acct);
	pthread_mutex_lock(&C.lock);
	C.fd[c->slot] = 0;
	close(c->fd);
	if (--C.n == 0)
		pthread_cond_broadcast(&C.idle);
	pthread_mutex_unlock(&C.lock);
	free(c);
	return NULL;
}

/* A slot for @c and a thread to serve it; false when there is none. */
static bool start_client(struct conn *c)
{
	pthread_t t;

	pthread_mutex_lock(&C.lock);
	for (c->slot = 0; c->slot < CONN_MAX && C.fd[c->slot]; c->slot++)
		;
	if (c->slot == CONN_MAX || C.quitting) {
		pthread_mutex_unlock(&C.lock);
		return false;
	}
	C.fd[c->slot] = c->fd;
	C.n++;
	if (pthread_create(&t, NULL, client_thread, c) == 0) {
		pthread_detach(t);
		pthread_mutex_unlock(&C.lock);
		return true;
	}
	C.fd[c->slot] = 0;
	C.n--;
	pthread_mutex_unlock(&C.lock);
	return false;
}

/* Whether @c's user may open one more connection; if not, @why says so. */
static bool within_clients(struct conn *c, char *why, size_t len)
{
	unsigned open;

	c->acct = quota_get(c->cr.uid);
	if (!c->acct) {
		snprintf(why, len, "mqtxd: out of memory\n");
		return false;
	}
	if (quota_connect(c->acct, c->srv->lim.clients, &open) == 0)
		return true;
	snprintf(why, len,
		 "mqtxd: %s has %u connections open, its limit (mqtxd --limit clients); "
		 "try again when one has closed\n",
		 c->who, open);
	c->acct = NULL;
	return false;
}

void conn_accept(const struct server *srv, int lfd)
{
	struct conn *c = calloc(1, sizeof(*c));
	char why[256];
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0 || !c) {
		if (fd >= 0)
			close(fd);
		free(c);
		return;
	}
	*c = (struct conn){ .srv = srv, .fd = fd };
	if (!peer_allowed(fd, srv->has_group, srv->group, &c->cr, why, sizeof(why))) {
		fprintf(stderr, "%s", why);
	} else {
		snprintf(c->who, sizeof(c->who), "uid %u", (unsigned)c->cr.uid);
		if (within_clients(c, why, sizeof(why))) {
			if (start_client(c))
				return;
			quota_disconnect(c->acct);
			snprintf(why, sizeof(why), "mqtxd: too many clients, try again\n");
		}
	}
	reply_err(fd, MQTX_TC_EXIT_REFUSED, why, 1000);
	close(fd);
	free(c);
}

void conn_drain(void)
{
	pthread_mutex_lock(&C.lock);
	C.quitting = true;
	for (int i = 0; i < CONN_MAX; i++)
		if (C.fd[i])
			shutdown(C.fd[i], SHUT_RDWR);
	while (C.n)
		pthread_cond_wait(&C.idle, &C.lock);
	pthread_mutex_unlock(&C.lock);
}
