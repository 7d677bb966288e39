// SPDX-License-Identifier: MIT
// mqtxd's control socket: taken with a lock file so that one daemon serves a path, published
// without replacing anything, and removed at exit only while it is still this daemon's.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "listen.h"

static bool same_file(const char *path, dev_t dev, ino_t ino)
{
	struct stat st;

	return lstat(path, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

/* The holder's pid, as it writes it in the lock file right after it took the lock: a daemon
 * that lost a race by a hair waits (2 s at most) for the line to be there. "?" if it never
 * comes (a holder that is not an mqtxd). */
static void say_held(const struct listener *l, int fd)
{
	struct timespec tick = { 0, 10000000 };
	char pid[16] = "";

	for (int i = 0; i < 200; i++) {
		ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);

		pid[n > 0 ? n : 0] = '\0';
		if (strchr(pid, '\n'))
			break;
		pid[0] = '\0';
		nanosleep(&tick, NULL);
	}
	pid[strcspn(pid, "\n")] = '\0';
	fprintf(stderr, "mqtxd: %s: another mqtxd (pid %s) serves it: it holds %s\n", l->path,
		*pid ? pid : "?", l->lock);
}

/* Open and flock PATH.lock. A holder that exits unlinks the file while it still holds it, so
 * a lock won on a file no longer at the path is no lock: then try again. */
static int take_lock(struct listener *l)
{
	for (int tries = 0; tries < 10; tries++) {
		int fd = open(l->lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
		struct stat st;

		if (fd < 0 || fstat(fd, &st)) {
			fprintf(stderr, "mqtxd: %s: %s\n", l->lock,
				errno == ELOOP ? "a symbolic link" : strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
			fprintf(stderr, "mqtxd: %s: not a lock file of uid %u; not using it\n",
				l->lock, (unsigned)geteuid());
			close(fd);
			return -1;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			if (errno == EWOULDBLOCK)
				say_held(l, fd);
			else
				fprintf(stderr, "mqtxd: %s: %s\n", l->lock, strerror(errno));
			close(fd);
			return -1;
		}
		if (same_file(l->lock, st.st_dev, st.st_ino)) {
			char pid[16];
			int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());

			/* The line first, then the length: never an empty file meanwhile. */
			if (pwrite(fd, pid, (size_t)n, 0) != n || ftruncate(fd, n))
				fprintf(stderr, "mqtxd: %s: %s\n", l->lock, strerror(errno));
			l->lock_fd = fd;
			l->lock_dev = st.st_dev;
			l->lock_ino = st.st_ino;
			return 0;
		}
		close(fd);
	}
	fprintf(stderr, "mqtxd: %s: keeps changing; not using it\n", l->lock);
	return -1;
}

/* With the lock held, only a socket of this user that nobody answers on (a daemon that died)
 * may go from @path; anything else there is somebody's, and stays. */
static int clear_path(const char *path)
{
	struct stat st;
	int fd;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "mqtxd: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		fprintf(stderr, "mqtxd: %s exists and is not a socket; not replacing it\n", path);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		fprintf(stderr, "mqtxd: %s is a socket of uid %u; not replacing it\n", path,
			(unsigned)st.st_uid);
		return -1;
	}
	fd = sockpath_connect(path, 1000);
	if (fd >= 0) {
		close(fd);
		fprintf(stderr,
			"mqtxd: %s: something that does not hold %s.lock answers on it; "
			"not replacing it\n",
			path, path);
		return -1;
	}
	if (unlink(path) && errno != ENOENT) {
		fprintf(stderr, "mqtxd: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(stderr, "mqtxd: %s: removed the socket of a daemon that is gone\n", path);
	return 0;
}

/* Bind and listen on PATH.new, then link it to @path: link() never replaces what appeared
 * there meanwhile, and the socket shows only once it accepts. */
static int publish(struct listener *l, bool has_group, gid_t group)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	int rc;

	if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s.new", l->path) >=
	    (int)sizeof(sa.sun_path)) {
		fprintf(stderr, "mqtxd: %s: path too long\n", l->path);
		return -1;
	}
	if (clear_path(sa.sun_path))
		return -1;
	l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	old = umask(0177);
	rc = l->fd < 0 || bind(l->fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc) {
		fprintf(stderr, "mqtxd: %s: %s\n", sa.sun_path, strerror(errno));
		return -1;
	}
	rc = (has_group && (chown(sa.sun_path, geteuid(), group) || chmod(sa.sun_path, 0660))) ||
	     listen(l->fd, 64) || link(sa.sun_path, l->path) || lstat(l->path, &st);
	if (rc) {
		fprintf(stderr, "mqtxd: %s: %s\n", l->path, strerror(errno));
	} else {
		l->dev = st.st_dev;
		l->ino = st.st_ino;
	}
	unlink(sa.sun_path);
	return rc ? -1 : 0;
}

int listen_lock(struct listener *l, const char *path)
{
	*l = (struct listener){ .fd = -1, .lock_fd = -1 };
	if (snprintf(l->path, sizeof(l->path), "%s", path) >= (int)sizeof(l->path) ||
	    snprintf(l->lock, sizeof(l->lock), "%s.lock", path) >= (int)sizeof(l->lock)) {
		fprintf(stderr, "mqtxd: %s: path too long\n", path);
		return -1;
	}
	return take_lock(l);
}

int listen_publish(struct listener *l, bool has_group, gid_t group)
{
	return clear_path(l->path) || publish(l, has_group, group) ? -1 : 0;
}

void listen_close(struct listener *l)
{
	if (l->fd >= 0) {
		close(l->fd);
		if (l->ino && !same_file(l->path, l->dev, l->ino))
			fprintf(stderr,
				"mqtxd: %s is no longer this daemon's socket; left as it "
				"is\n",
				l->path);
		else if (l->ino)
			unlink(l->path);
		l->fd = -1;
	}
	if (l->lock_fd >= 0) {
		/* Unlinked while still held: a daemon that opened it meanwhile sees it gone. */
		if (same_file(l->lock, l->lock_dev, l->lock_ino))
			unlink(l->lock);
		close(l->lock_fd);
		l->lock_fd = -1;
	}
}
