// SPDX-License-Identifier: MIT
// mqtxd: hosts devices, qdiscs, generators and replays; serves the control socket.
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <syslog.h>
#include <unistd.h>

#include <mqtx/ctl.h>
#include <mqtx/gen.h>

#include "batch.h"
#include "conn.h"
#include "listen.h"
#include "privs.h"
#include "quota.h"

struct daemon {
	struct server srv;
	struct mqtx_jobs *jobs;			    /* the generators and replays of srv.ctl */
	char path[SOCKPATH_MAX], dir[SOCKPATH_MAX]; /* dir: the private directory, "" with -S */
	struct listener sock;
	bool to_syslog; /* --daemon: the log goes to syslog (standard error goes nowhere) */
};

/* The defaults of --limit (see doc/mqtxd.8). */
static struct daemon D = {
	.sock = { .fd = -1, .lock_fd = -1 },
	.srv.lim = { .idle_ms = 60000,
		     .request_ms = 10000,
		     .reply_ms = 60000,
		     .clients = 16,
		     .jobs = 16,
		     .pools = 64,
		     .memory = (size_t)1 << 30 },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: mqtxd [ -S PATH ] [ -c FILE ] [ -g GROUP ] [ -L NAME=VALUE ]...\n"
		   "             [ --daemon ] [ --keep-caps ] | -V\n"
		   "  -S PATH    control socket (default: $MQTX_SOCKET, else mqtx.sock in a\n"
		   "             private directory: $XDG_RUNTIME_DIR/mqtx, /run/mqtx (root) or\n"
		   "             /tmp/mqtx-UID)\n"
		   "  -c FILE    run the commands of FILE (one per line, # comments) first\n"
		   "  -g GROUP   also allow members of GROUP (socket mode 0660)\n"
		   "  -L, --limit NAME=VALUE  what one user's clients may take (0: no limit):\n"
		   "             idle=SECS (60) request=SECS (10) reply=SECS (60) clients=N (16)\n"
		   "             jobs=N (16) pools=N (64) memory=SIZE[K|M|G] (1G)\n"
		   "  --daemon   detach once ready to serve\n"
		   "  --keep-caps  keep every capability (debugging); by default only\n"
		   "             CAP_NET_ADMIN, CAP_NET_RAW, CAP_BPF and CAP_IPC_LOCK stay\n"
		   "  -V, --version  print the version\n");
}

/* -g GROUP: a name, or a number as chown(1) takes one. */
static int parse_group(const char *arg, gid_t *gid)
{
	struct group *gr = getgrnam(arg);
	char *end;
	unsigned long n;

	if (gr) {
		*gid = gr->gr_gid;
		return 0;
	}
	n = strtoul(arg, &end, 10);
	if (*arg && !*end && n < (gid_t)-1) {
		*gid = (gid_t)n;
		return 0;
	}
	fprintf(stderr, "mqtxd: unknown group \"%s\"\n", arg);
	return -1;
}

/* The names of --limit: 's' seconds (kept in ms), 'n' a count, 'b' bytes (K, M, G). */
static const struct {
	const char *name;
	char kind;
	size_t off;
} limit_names[] = {
	{ "idle", 's', offsetof(struct limits, idle_ms) },
	{ "request", 's', offsetof(struct limits, request_ms) },
	{ "reply", 's', offsetof(struct limits, reply_ms) },
	{ "clients", 'n', offsetof(struct limits, clients) },
	{ "jobs", 'n', offsetof(struct limits, jobs) },
	{ "pools", 'n', offsetof(struct limits, pools) },
	{ "memory", 'b', offsetof(struct limits, memory) },
};

/* @v as a value of @kind into @f (a field of struct limits); 0 or -1. */
static int set_limit(char kind, const char *v, void *f)
{
	char *end;
	double x = strtod(v, &end);
	const char *u;

	if (end == v || !(x >= 0))
		return -1;
	if (kind == 'b' && *end && (u = strchr("KMG", *end))) {
		x *= (double)(1ull << (10 * (u - "KMG" + 1)));
		end++;
	}
	if (*end)
		return -1;
	if (kind == 's' && x <= 86400)
		*(unsigned *)f = x > 0 && x < 0.001 ? 1 : (unsigned)(x * 1000 + 0.5);
	else if (kind == 'n' && x <= 1000000 && x == (unsigned)x)
		*(unsigned *)f = (unsigned)x;
	else if (kind == 'b' && x <= (double)(1ull << 50))
		*(size_t *)f = (size_t)x;
	else
		return -1;
	return 0;
}

/* -L NAME=VALUE */
static int parse_limit(const char *arg, struct limits *l)
{
	const char *eq = strchr(arg, '=');

	for (size_t i = 0; eq && i < sizeof(limit_names) / sizeof(limit_names[0]); i++) {
		if (strlen(limit_names[i].name) != (size_t)(eq - arg) ||
		    strncmp(arg, limit_names[i].name, (size_t)(eq - arg)))
			continue;
		if (set_limit(limit_names[i].kind, eq + 1, (char *)l + limit_names[i].off))
			break;
		return 0;
	}
	fprintf(stderr, "mqtxd: invalid limit \"%s\" (NAME=VALUE; see mqtxd -h)\n", arg);
	return -1;
}

/*
 * The library's warnings and errors (a capture's file system refused frames, a kernel interface
 * went away) go to the daemon's log: standard error, or syslog once detached. A command's own
 * errors are not among them: it reports them to whoever sent it, and a client could otherwise
 * fill the log.
 */
static void log_sink(enum mqtx_log_level level, const char *msg, void *arg)
{
	(void)arg;
	if (level == MQTX_LOG_ERR && conn_in_command)
		return;
	if (D.to_syslog)
		syslog(level == MQTX_LOG_ERR ? LOG_ERR : LOG_WARNING, "%s", msg);
	else
		fprintf(stderr, "mqtxd: %s\n", msg);
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
		conn_in_command = true;
		rc = mqtx_ctl_exec(D.srv.ctl, lines[i].argc, lines[i].argv, 0, &out, &err);
		conn_in_command = false;
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

/* The path is claimed before the configuration runs, so that a second daemon gives up at
 * once; the default path's private directory first (-S PATH's is the user's choice). */
static int claim_socket(void)
{
	char why[256];

	if (*D.dir && sockpath_prepare_dir(D.dir, D.srv.has_group, D.srv.group, why, sizeof(why))) {
		fprintf(stderr, "mqtxd: %s\n", why);
		return -1;
	}
	return listen_lock(&D.sock, D.path);
}

static void exec_print(int argc, char **argv, unsigned flags)
{
	struct mqtx_buf out, err;

	mqtx_buf_init(&out);
	mqtx_buf_init(&err);
	conn_in_command = true;
	mqtx_ctl_exec(D.srv.ctl, argc, argv, flags, &out, &err);
	conn_in_command = false;
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
	stop[0] = "replay";
	exec_print(3, stop, 0);
	/* Every device, however many: bringing one down leaves the list as it is. */
	for (dev = mqtx_ctl_dev_next(D.srv.ctl, NULL); dev;
	     dev = mqtx_ctl_dev_next(D.srv.ctl, dev)) {
		char *down[] = { "dev", "set", (char *)mqtx_dev_name(dev), "down" };

		exec_print(4, down, 0);
	}
	exec_print(2, show, MQTX_CTL_F_STATS);
	fflush(stdout);
}

static void serve(int sfd)
{
	struct pollfd p[2] = { { .fd = D.sock.fd, .events = POLLIN },
			       { .fd = sfd, .events = POLLIN } };

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break; /* SIGTERM or SIGINT */
		if (p[0].revents & POLLIN)
			conn_accept(&D.srv, D.sock.fd);
	}
}

/* Keep only the backends' capabilities (tools/privs.h), before the configuration runs: the
 * process has one thread yet, and every thread it starts inherits the smaller sets. */
static int drop_privileges(bool keep_caps)
{
	char why[256];

	if (!keep_caps && privs_drop(D.srv.has_group, D.srv.group, why, sizeof(why))) {
		fprintf(stderr, "mqtxd: %s\n", why);
		return -1;
	}
	return 0;
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

static int parse_args(int argc, char **argv, const char **cfg, bool *daemonize, bool *keep_caps)
{
	static const struct option lo[] = {
		{ "daemon", no_argument, NULL, 'D' },	   { "keep-caps", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },	   { "version", no_argument, NULL, 'V' },
		{ "limit", required_argument, NULL, 'L' }, { NULL, 0, NULL, 0 }
	};
	const char *sock = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "S:c:g:L:hV", lo, NULL)) != -1) {
		switch (c) {
		case 'S':
			sock = optarg;
			break;
		case 'c':
			*cfg = optarg;
			break;
		case 'D':
			*daemonize = true;
			break;
		case 'K':
			*keep_caps = true;
			break;
		case 'L':
			if (parse_limit(optarg, &D.srv.lim))
				return 1;
			break;
		case 'g':
			if (parse_group(optarg, &D.srv.group))
				return 1;
			D.srv.has_group = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("mqtxd, libmqtx %s\n", MQTX_VERSION);
			exit(0);
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "mqtxd: what is \"%s\"?\n", argv[optind]);
		return 1;
	}
	if (sock ? snprintf(D.path, sizeof(D.path), "%s", sock) >= (int)sizeof(D.path)
		 : sockpath_default(D.path, D.dir, sizeof(D.dir), true)) {
		fprintf(stderr, "mqtxd: no usable socket path (too long)\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cfg = NULL;
	bool daemonize = false, keep_caps = false;
	int sfd, ready_fd = -1;
	sigset_t mask;

	if (parse_args(argc, argv, &cfg, &daemonize, &keep_caps))
		return 1;
	quota_init(D.srv.lim.memory); /* before the library makes anything */
	if (daemonize && detach(&ready_fd)) {
		perror("mqtxd: fork");
		return 1;
	}
	if (daemonize) {
		openlog("mqtxd", LOG_PID, LOG_DAEMON);
		D.to_syslog = true;
	}
	mqtx_set_log(log_sink, NULL, MQTX_LOG_WARN);
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
	/* Past a file-size limit (RLIMIT_FSIZE), a capture's write fails and its frames are
	 * counted as dropped; the signal's default would kill the daemon. */
	signal(SIGXFSZ, SIG_IGN);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0 || mqtx_ctl_new(&D.srv.ctl) || mqtx_jobs_new(&D.jobs) ||
	    mqtx_jobs_attach(D.jobs, D.srv.ctl)) {
		fprintf(stderr, "mqtxd: cannot start: %s\n", strerror(errno ? errno : ENOMEM));
		return 1;
	}
	/* Root's clients may change everything, and so may the daemon's own user (a daemon of
	 * one user serves its configuration to that user): the rest only what they made. */
	mqtx_ctl_set_admin(D.srv.ctl, (unsigned)geteuid());
	if (claim_socket() || drop_privileges(keep_caps) || (cfg && run_config(cfg)) ||
	    listen_publish(&D.sock, D.srv.has_group, D.srv.group)) {
		listen_close(&D.sock);
		mqtx_jobs_free(D.jobs);
		mqtx_ctl_free(D.srv.ctl);
		return 1;
	}
	{
		char caps[512];

		privs_describe(caps, sizeof(caps));
		fprintf(stderr, "mqtxd: serving %s, capabilities: %s%s\n", D.path, caps,
			keep_caps ? " (--keep-caps)" : "");
	}
	announce_ready(ready_fd);
	serve(sfd);
	listen_close(&D.sock);
	conn_drain();
	shutdown_ctl();
	mqtx_jobs_free(D.jobs);
	mqtx_ctl_free(D.srv.ctl);
	return 0;
}
