// SPDX-License-Identifier: MIT
// mqtxd: hosts devices, qdiscs, generators and replays; serves the control socket.
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <mqtx/ctl.h>

#include "batch.h"
#include "ctl/cmd_tool.h"
#include "proto.h"
#include "sockpath.h"

#define MAX_CLIENTS	64
#define BODY_TIMEOUT_MS 5000 /* the rest of a request must follow its header within this */

struct daemon {
	struct mqtx_ctl *ctl;
	char path[108];
	int lfd;
	gid_t group;
	bool has_group;
	pthread_mutex_t lock;
	pthread_cond_t idle;
	int clients[MAX_CLIENTS]; /* -1: free slot */
	unsigned nclients;
	bool quitting;
};

static struct daemon D = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.idle = PTHREAD_COND_INITIALIZER,
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: mqtxd [ -S PATH ] [ -c FILE ] [ -g GROUP ] [ --daemon ]\n"
		   "  -S PATH    control socket (default: $MQTX_SOCKET, else under the runtime\n"
		   "             directory: $XDG_RUNTIME_DIR, /run/mqtx or /tmp/mqtx-UID)\n"
		   "  -c FILE    run the commands of FILE (one per line, # comments) first\n"
		   "  -g GROUP   also allow members of GROUP (socket mode 0660)\n"
		   "  --daemon   detach once ready to serve\n");
}

/* Members of the allowed group: the primary group or a supplementary one of the user. */
static bool in_group(uid_t uid, gid_t gid, gid_t want)
{
	struct passwd *pw;
	gid_t *groups = NULL;
	int n = 64;
	bool found = false;

	if (gid == want)
		return true;
	pw = getpwuid(uid);
	if (!pw)
		return false;
	/* getgrouplist() says how many groups there are when the array is too small. */
	for (int tries = 0; tries < 2 && !found; tries++) {
		gid_t *g = realloc(groups, (size_t)n * sizeof(*groups));
		int want_n = n;

		if (!g)
			break;
		groups = g;
		if (getgrouplist(pw->pw_name, gid, groups, &want_n) >= 0) {
			for (int i = 0; i < want_n; i++)
				found |= groups[i] == want;
			break;
		}
		n = want_n;
	}
	free(groups);
	return found;
}

static bool peer_allowed(int fd, char *why, size_t len)
{
	struct ucred cr;
	socklen_t l = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l)) {
		snprintf(why, len, "cannot read peer credentials: %s", strerror(errno));
		return false;
	}
	if (cr.uid == 0 || cr.uid == geteuid() ||
	    (D.has_group && in_group(cr.uid, cr.gid, D.group)))
		return true;
	snprintf(why, len, "mqtxd: permission denied: uid %u (pid %d) may not use this socket "
		 "(allowed: uid %u%s)\n", (unsigned)cr.uid, (int)cr.pid, (unsigned)geteuid(),
		 D.has_group ? " and its group" : "");
	return false;
}

/* Wait for @fd to be readable; -1 on timeout or error. */
static int wait_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int rc;

	do
		rc = poll(&p, 1, ms);
	while (rc < 0 && errno == EINTR);
	return rc == 1 ? 0 : -1;
}

static void reply_err(int fd, int code, const char *msg)
{
	proto_send_reply(fd, code, NULL, 0, msg, strlen(msg), NULL);
}

/* Run a request for the peer of @fd; @file (or -1) is the file it reads, closed here. */
static int run_request(int fd, int argc, char **argv, unsigned flags, int file)
{
	struct mqtx_ctl_req req = { .fd = file };
	struct mqtx_buf out, err;
	char who[32];
	struct ucred cr;
	socklen_t l = sizeof(cr);
	int code, rc;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l)) {
		if (file >= 0)
			close(file);
		return -1;
	}
	snprintf(who, sizeof(who), "uid %u", (unsigned)cr.uid);
	req.owner = cr.uid;
	req.who = who;
	mqtx_buf_init(&out);
	mqtx_buf_init(&err);
	code = mqtx_ctl_exec_req(D.ctl, argc, argv, flags, &req, &out, &err);
	rc = proto_send_reply(fd, code, out.data, out.len, err.data, err.len, NULL);
	mqtx_buf_free(&out);
	mqtx_buf_free(&err);
	return rc;
}

/* One request: returns 0 to keep the connection, -1 to close it. */
static int serve_one(int fd)
{
	char hdr[4], *body, *argv[MQTX_ARGC_MAX + 1];
	struct proto_wait w = { .deadline = -1 };
	struct proto_fds fds = { .n = 0 };
	unsigned flags;
	uint32_t n;
	int argc, rc;

	if (proto_read(fd, hdr, 4, NULL, &fds)) {
		proto_fds_close(&fds);
		return -1;
	}
	memcpy(&n, hdr, 4);
	n = ntohl(n);
	if (n > MQTX_REQ_MAX) {
		char msg[128];

		snprintf(msg, sizeof(msg), "mqtxd: request too large (%u bytes, at most %u)\n", n,
			 MQTX_REQ_MAX);
		reply_err(fd, MQTX_CTL_EPARSE, msg);
		proto_fds_close(&fds);
		return -1; /* the stream cannot be resynchronised */
	}
	body = malloc(n ? n : 1);
	if (!body) {
		proto_fds_close(&fds);
		return reply_err(fd, MQTX_CTL_EREFUSED, "mqtxd: out of memory\n"), -1;
	}
	/* A client that stops mid-request is dropped: nothing was run for it. */
	w.deadline = proto_deadline(BODY_TIMEOUT_MS);
	if (proto_read(fd, body, n, &w, &fds)) {
		proto_fds_close(&fds);
		free(body);
		return -1;
	}
	/* One descriptor exactly when the request says so. */
	if (proto_decode_req(body, n, &flags, &argc, argv) || fds.excess ||
	    fds.n != ((flags & PROTO_REQ_FILE) ? 1u : 0u)) {
		proto_fds_close(&fds);
		free(body);
		reply_err(fd, MQTX_CTL_EPARSE, "mqtxd: malformed request\n");
		return -1;
	}
	rc = run_request(fd, argc, argv, flags & ~PROTO_REQ_FILE, fds.n ? fds.fd[0] : -1);
	free(body);
	return rc;
}

static void *client_thread(void *arg)
{
	int slot = (int)(intptr_t)arg, fd = D.clients[slot];

	while (wait_readable(fd, -1) == 0 && serve_one(fd) == 0)
		;
	pthread_mutex_lock(&D.lock);
	D.clients[slot] = -1;
	close(fd);
	if (--D.nclients == 0)
		pthread_cond_broadcast(&D.idle);
	pthread_mutex_unlock(&D.lock);
	return NULL;
}

static void accept_one(void)
{
	char why[256];
	pthread_t t;
	int fd = accept4(D.lfd, NULL, NULL, SOCK_CLOEXEC), slot = -1;

	if (fd < 0)
		return;
	if (!peer_allowed(fd, why, sizeof(why))) {
		fprintf(stderr, "%s", why);
		reply_err(fd, MQTX_CTL_EREFUSED, why);
		close(fd);
		return;
	}
	pthread_mutex_lock(&D.lock);
	for (int i = 0; i < MAX_CLIENTS && slot < 0; i++)
		if (D.clients[i] < 0)
			slot = i;
	if (slot >= 0 && !D.quitting) {
		D.clients[slot] = fd;
		D.nclients++;
		if (pthread_create(&t, NULL, client_thread, (void *)(intptr_t)slot) == 0) {
			pthread_detach(t);
			pthread_mutex_unlock(&D.lock);
			return;
		}
		D.clients[slot] = -1;
		D.nclients--;
	}
	pthread_mutex_unlock(&D.lock);
	reply_err(fd, MQTX_CTL_EREFUSED, "mqtxd: too many clients, try again\n");
	close(fd);
}

/* Run the commands of @file; a line that cannot be split stops the start-up before any
 * command ran, and so does the first failing command. */
static int run_config(const char *file)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	struct batch_line *lines;
	size_t n;
	int bad, rc = 0;

	if (!f) {
		fprintf(stderr, "mqtxd: %s: %s\n", file, strerror(errno));
		return -1;
	}
	bad = batch_read(f, "mqtxd", file, &lines, &n);
	if (f != stdin)
		fclose(f);
	if (bad < 0)
		return -1;
	for (size_t i = 0; i < n && !rc && !bad; i++) {
		struct mqtx_buf out, err;

		mqtx_buf_init(&out);
		mqtx_buf_init(&err);
		rc = mqtx_ctl_exec(D.ctl, lines[i].argc, lines[i].argv, 0, &out, &err);
		if (out.len)
			fwrite(out.data, 1, out.len, stdout);
		if (rc)
			fprintf(stderr, "mqtxd: %s:%d: %.*s", file, lines[i].lineno, (int)err.len,
				err.data ? err.data : "");
		mqtx_buf_free(&out);
		mqtx_buf_free(&err);
	}
	batch_free(lines, n);
	return rc || bad ? -1 : 0;
}

/* Bind on a temporary name, then rename: the socket appears only once it accepts. */
static int open_socket(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char tmp[sizeof(sa.sun_path)];
	mode_t old;
	int fd;

	fd = sockpath_connect(D.path, -1);
	if (fd >= 0) {
		close(fd);
		fprintf(stderr, "mqtxd: %s: another daemon is serving it\n", D.path);
		return -1;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.%d", D.path, (int)getpid()) >= (int)sizeof(tmp)) {
		fprintf(stderr, "mqtxd: %s: path too long\n", D.path);
		return -1;
	}
	strcpy(sa.sun_path, tmp);
	unlink(tmp);
	D.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	old = umask(0177);
	if (D.lfd < 0 || bind(D.lfd, (struct sockaddr *)&sa, sizeof(sa))) {
		umask(old);
		fprintf(stderr, "mqtxd: %s: %s\n", D.path, strerror(errno));
		return -1;
	}
	umask(old);
	if ((D.has_group && (chown(tmp, geteuid(), D.group) || chmod(tmp, 0660))) ||
	    listen(D.lfd, 64) || rename(tmp, D.path)) {
		fprintf(stderr, "mqtxd: %s: %s\n", D.path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static void exec_print(int argc, char **argv, unsigned flags)
{
	struct mqtx_buf out, err;

	mqtx_buf_init(&out);
	mqtx_buf_init(&err);
	mqtx_ctl_exec(D.ctl, argc, argv, flags, &out, &err);
	if (out.len)
		fwrite(out.data, 1, out.len, stdout);
	if (err.len)
		fwrite(err.data, 1, err.len, stderr);
	mqtx_buf_free(&out);
	mqtx_buf_free(&err);
}

/* Shutdown: stop the jobs (their final counters), bring devices down, print device counters.
 * No client is connected any more, so nothing else uses the context. */
static void shutdown_ctl(void)
{
	char *stop[] = { "gen", "stop", "all" }, *show[] = { "dev", "show" };
	struct mqtx_dev *dev;

	exec_print(3, stop, 0);
	/* Every device, however many: bringing one down leaves the list as it is. */
	for (unsigned i = 0; (dev = mqtx__ctl_dev_at(D.ctl, i)); i++) {
		char *down[] = { "dev", "set", (char *)mqtx_dev_name(dev), "down" };

		exec_print(4, down, 0);
	}
	exec_print(2, show, MQTX_CTL_F_STATS);
	fflush(stdout);
}

/* Stop serving: wake every client thread and wait until the last one has left. */
static void drain_clients(void)
{
	pthread_mutex_lock(&D.lock);
	D.quitting = true;
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (D.clients[i] >= 0)
			shutdown(D.clients[i], SHUT_RDWR);
	while (D.nclients)
		pthread_cond_wait(&D.idle, &D.lock);
	pthread_mutex_unlock(&D.lock);
}

static void serve(int sfd)
{
	struct pollfd p[2] = { { .fd = D.lfd, .events = POLLIN }, { .fd = sfd, .events = POLLIN } };

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break; /* SIGTERM or SIGINT */
		if (p[0].revents & POLLIN)
			accept_one();
	}
}

/* --daemon: the parent waits on a pipe until the child is serving (or failed). */
static int detach(int *ready_fd)
{
	int pfd[2];
	pid_t pid;
	char c;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		close(pfd[1]);
		exit(read(pfd[0], &c, 1) == 1 && c == 'k' ? 0 : 1);
	}
	close(pfd[0]);
	setsid();
	*ready_fd = pfd[1];
	return 0;
}

static void announce_ready(int ready_fd)
{
	int nul;

	if (ready_fd < 0)
		return;
	if (write(ready_fd, "k", 1) != 1)
		return;
	close(ready_fd);
	/* Detached: stdio goes nowhere from now on. */
	nul = open("/dev/null", O_RDWR);
	if (nul >= 0) {
		dup2(nul, 0), dup2(nul, 1), dup2(nul, 2);
		close(nul);
	}
}

static int parse_args(int argc, char **argv, const char **cfg, bool *daemonize)
{
	static const struct option lo[] = { { "daemon", no_argument, NULL, 'D' },
					    { "help", no_argument, NULL, 'h' },
					    { NULL, 0, NULL, 0 } };
	const char *sock = NULL;
	struct group *gr;
	int c;

	while ((c = getopt_long(argc, argv, "S:c:g:h", lo, NULL)) != -1) {
		switch (c) {
		case 'S': sock = optarg; break;
		case 'c': *cfg = optarg; break;
		case 'D': *daemonize = true; break;
		case 'g':
			gr = getgrnam(optarg);
			if (!gr) {
				fprintf(stderr, "mqtxd: unknown group \"%s\"\n", optarg);
				return 1;
			}
			D.group = gr->gr_gid;
			D.has_group = true;
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "mqtxd: what is \"%s\"?\n", argv[optind]);
		return 1;
	}
	if (sock ? snprintf(D.path, sizeof(D.path), "%s", sock) >= (int)sizeof(D.path)
		 : sockpath_default(D.path, sizeof(D.path), 1)) {
		fprintf(stderr, "mqtxd: no usable socket path\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cfg = NULL;
	bool daemonize = false;
	int sfd, ready_fd = -1;
	sigset_t mask;

	if (parse_args(argc, argv, &cfg, &daemonize))
		return 1;
	for (int i = 0; i < MAX_CLIENTS; i++)
		D.clients[i] = -1;
	if (daemonize && detach(&ready_fd)) {
		perror("mqtxd: fork");
		return 1;
	}
	/* Block the stop signals in every thread (generators inherit the mask); the main loop
	 * takes them from a signalfd. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* No reload: a half-applied configuration would be worse than none, and SIGHUP's default
	 * (death without the shutdown) would leave the socket and the jobs behind. */
	signal(SIGHUP, SIG_IGN);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0 || mqtx_ctl_new(&D.ctl)) {
		fprintf(stderr, "mqtxd: cannot start: %s\n", strerror(errno));
		return 1;
	}
	if ((cfg && run_config(cfg)) || open_socket()) {
		mqtx_ctl_free(D.ctl);
		return 1;
	}
	fprintf(stderr, "mqtxd: serving %s\n", D.path);
	announce_ready(ready_fd);
	serve(sfd);
	close(D.lfd);
	unlink(D.path);
	drain_clients();
	shutdown_ctl();
	mqtx_ctl_free(D.ctl);
	return 0;
}
