// SPDX-License-Identifier: MIT
// mqtx's side of the control socket: connect, send a command, wait for its reply within the
// timeout or until a signal, and turn every failure into an exit code and a message.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mqtx/gen.h>
#include <mqtx/whatif.h>

#include "client.h"
#include "proto.h"
#include "sockpath.h"

volatile sig_atomic_t interrupted, nsignals;

void on_signal(int sig)
{
	interrupted = sig;
	nsignals++;
}

int backend_local(struct backend *b)
{
	if (mqtx_ctl_new(&b->ctl))
		return -1;
	if (mqtx_jobs_new(&b->jobs) || mqtx_jobs_attach(b->jobs, b->ctl) ||
	    mqtx_whatif_attach(b->ctl)) {
		backend_local_free(b);
		return -1;
	}
	return 0;
}

void backend_local_free(struct backend *b)
{
	mqtx_jobs_free(b->jobs);
	mqtx_ctl_free(b->ctl);
	b->jobs = NULL;
	b->ctl = NULL;
}

void result_free(struct result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

static void set_result(struct result *r, int code, const char *out, size_t outlen, const char *err,
		       size_t errlen)
{
	r->code = code;
	r->out = strndup(out ? out : "", outlen);
	r->err = strndup(err ? err : "", errlen);
	r->signo = 0;
}

static void fail(struct result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct result *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	set_result(r, MQTX_TC_EXIT_REFUSED, NULL, 0, msg, strlen(msg));
}

/* The daemon closes a connection that stayed idle too long: seen as readable (EOF) here. */
static bool peer_closed(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) != 0;
}

/* Whoever listens on the path gets the user's commands and files, so it must be root or the
 * user: a socket that another user planted (in a directory anyone may write) is refused. */
static int check_server(struct backend *b, struct result *r)
{
	struct ucred cr;
	socklen_t l = sizeof(cr);

	if (getsockopt(b->fd, SOL_SOCKET, SO_PEERCRED, &cr, &l)) {
		fail(r, "mqtx: %s: cannot read the server's credentials: %s\n", b->path,
		     strerror(errno));
		return -1;
	}
	if (cr.uid == 0 || cr.uid == geteuid() || cr.uid == getuid())
		return 0;
	fail(r,
	     "mqtx: %s is served by uid %u (pid %d), which is neither root nor you (uid %u); "
	     "not talking to it\n",
	     b->path, (unsigned)cr.uid, (int)cr.pid, (unsigned)getuid());
	return -1;
}

/* The wait ended without a reply: say why; the connection is out of step, so drop it. */
static void lost_reply(struct backend *b, struct result *r, int e)
{
	if (e == EINTR) {
		fail(r,
		     "mqtx: interrupted (%s) while waiting for mqtxd's reply; the command may "
		     "still complete in mqtxd\n",
		     interrupted == SIGINT ? "SIGINT" : "SIGTERM");
		r->signo = interrupted;
	} else if (e == ETIMEDOUT) {
		fail(r,
		     "mqtx: %s: no reply from mqtxd within %g s (-timeout SECS waits longer); "
		     "the command may still complete in mqtxd\n",
		     b->path, b->timeout_ms / 1000.0);
	} else {
		fail(r, "mqtx: %s: %s\n", b->path, e ? strerror(e) : "mqtxd closed the connection");
	}
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}

static int remote_connect(struct backend *b, struct result *r)
{
	b->fd = sockpath_connect(b->path, b->timeout_ms);
	if (b->fd < 0 && errno == EINTR) { /* a full listen queue, and then a signal */
		lost_reply(b, r, EINTR);
		return -1;
	}
	if (b->fd < 0) {
		fail(r, "mqtx: cannot reach mqtxd at %s: %s%s\n", b->path, strerror(errno),
		     errno == ENOENT || errno == ECONNREFUSED
			     ? " (is mqtxd running? use -S PATH or -batch)"
			     : "");
		return -1;
	}
	if (check_server(b, r) == 0)
		return 0;
	close(b->fd);
	b->fd = -1;
	return -1;
}

/*
 * The file a command reads ("replay FILE") or writes (a pcap device's "file PATH") is opened
 * here, by the user, relative to the user's directory and with the user's permissions, and
 * sent open: mqtxd opens no name for a client. Neither open blocks on a FIFO (the daemon then
 * refuses it). 0, or -1 after setting @r as the command itself would fail.
 */
static int open_file(int argc, char **argv, struct mqtx_ctl_file *f, struct result *r)
{
	struct mqtx_buf err;
	int code;

	mqtx_buf_init(&err);
	code = mqtx_ctl_file_open(argc, argv, f, &err);
	if (code)
		set_result(r, code, NULL, 0, err.data, err.len);
	mqtx_buf_free(&err);
	return code ? -1 : 0;
}

static void exec_remote(struct backend *b, int argc, char **argv, unsigned flags, struct result *r)
{
	struct proto_wait w = { .sigs = &nsignals, .seen = b->handled };
	struct mqtx_ctl_file file;
	struct proto_reply rep;
	size_t len;
	char *m;
	int e = 0;

	if (b->fd >= 0 && peer_closed(b->fd)) {
		close(b->fd);
		b->fd = -1;
	}
	if (b->fd < 0 && remote_connect(b, r))
		return;
	if (open_file(argc, argv, &file, r))
		return;
	m = proto_encode_req(flags | (file.fd >= 0 ? PROTO_REQ_FILE : 0), argc, argv, &len);
	if (!m) {
		fail(r, "mqtx: out of memory\n");
	} else {
		w.deadline = proto_deadline(b->timeout_ms);
		/* A refused peer gets its reply before the daemon reads anything: even when our
		 * write fails, the reply may be waiting. */
		if (proto_write(b->fd, m, len, file.fd, &w) &&
		    (errno == EINTR || errno == ETIMEDOUT))
			e = errno;
	}
	free(m);
	/* Without a reply the command may still complete: a file made for it stays. */
	if (!m || e || proto_recv_reply(b->fd, &w, b->timeout_ms, &rep)) {
		e = e ? e : errno;
		mqtx_ctl_file_close(&file, !m);
		if (m)
			lost_reply(b, r, e);
		return;
	}
	/* A command that failed leaves nothing: not the file its open created either. */
	mqtx_ctl_file_close(&file, rep.code != 0);
	r->code = rep.code;
	r->out = rep.out;
	r->err = rep.err;
	r->signo = 0;
}

void backend_exec(struct backend *b, int argc, char **argv, unsigned flags, struct result *r)
{
	struct mqtx_buf out, err;

	if (!b->ctl) {
		exec_remote(b, argc, argv, flags, r);
		return;
	}
	mqtx_buf_init(&out);
	mqtx_buf_init(&err);
	r->code = mqtx_ctl_exec(b->ctl, argc, argv, flags, &out, &err);
	set_result(r, r->code, out.data, out.len, err.data, err.len);
	mqtx_buf_free(&out);
	mqtx_buf_free(&err);
}
