// SPDX-License-Identifier: MIT
// Where mqtxd's control socket lives: by default in a directory private to its user, which
// both sides check before they use it.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "sockpath.h"

/* The private directories, most specific first; returns how many were filled in. */
static int candidates(char dirs[3][SOCKPATH_MAX], bool server)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n = 0;

	if (xdg && *xdg && snprintf(dirs[n], SOCKPATH_MAX, "%s/mqtx", xdg) < SOCKPATH_MAX)
		n++;
	if (!server || geteuid() == 0)
		snprintf(dirs[n++], SOCKPATH_MAX, "/run/mqtx");
	snprintf(dirs[n++], SOCKPATH_MAX, "/tmp/mqtx-%u", (unsigned)geteuid());
	return n;
}

int sockpath_default(char *path, char *dir, size_t dirlen, bool server)
{
	const char *env = getenv("MQTX_SOCKET");
	char dirs[3][SOCKPATH_MAX];
	int n, pick = 0;

	if (env && *env) {
		dir[0] = '\0';
		return snprintf(path, SOCKPATH_MAX, "%s", env) < SOCKPATH_MAX ? 0 : -1;
	}
	n = candidates(dirs, server);
	for (int i = 0; !server && i < n; i++) {
		struct stat st;
		char p[SOCKPATH_MAX + 16];

		snprintf(p, sizeof(p), "%.*s/%s", SOCKPATH_MAX, dirs[i], MQTX_SOCK_NAME);
		if (lstat(p, &st) == 0) {
			pick = i;
			break;
		}
	}
	if (snprintf(dir, dirlen, "%s", dirs[pick]) >= (int)dirlen)
		return -1;
	return snprintf(path, SOCKPATH_MAX, "%s/%s", dirs[pick], MQTX_SOCK_NAME) < SOCKPATH_MAX
		       ? 0
		       : -1;
}

/* What makes @st, a directory's status, unfit to hold a socket for @uid; NULL if nothing. */
static const char *unfit(const struct stat *st, uid_t uid, bool root_ok, char *buf, size_t len)
{
	if (S_ISLNK(st->st_mode))
		return "is a symbolic link";
	if (!S_ISDIR(st->st_mode))
		return "is not a directory";
	if (st->st_uid != uid && !(root_ok && st->st_uid == 0)) {
		snprintf(buf, len, "is owned by uid %u, not by uid %u%s", (unsigned)st->st_uid,
			 (unsigned)uid, root_ok ? " or root" : "");
		return buf;
	}
	if (st->st_mode & 022) {
		snprintf(buf, len, "has mode %04o: others may write to it",
			 (unsigned)st->st_mode & 07777);
		return buf;
	}
	return NULL;
}

int sockpath_prepare_dir(const char *dir, bool has_group, gid_t group, char *why, size_t len)
{
	const char *bad;
	char buf[96];
	struct stat st;
	int fd, rc = 0;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		snprintf(why, len, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	/* Opened without following a link, then checked and changed through the descriptor:
	 * what is checked is what is changed. */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		bool link = errno == ELOOP || errno == ENOTDIR;

		snprintf(why, len, "%s %s", dir,
			 link ? "is a symbolic link or not a directory" : strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	bad = unfit(&st, geteuid(), false, buf, sizeof(buf));
	if (bad) {
		snprintf(why, len, "%s %s; not a private directory", dir, bad);
		rc = -1;
	} else if (has_group ? fchown(fd, (uid_t)-1, group) || fchmod(fd, 0710)
			     : fchmod(fd, 0700)) {
		snprintf(why, len, "%s: %s", dir, strerror(errno));
		rc = -1;
	}
	close(fd);
	return rc;
}

int sockpath_check_dir(const char *dir, char *why, size_t len)
{
	const char *bad;
	char buf[96];
	struct stat st;

	if (lstat(dir, &st))
		return 0; /* nothing there: connect() will say so */
	bad = unfit(&st, geteuid(), true, buf, sizeof(buf));
	if (!bad)
		return 0;
	snprintf(why, len, "%s %s; not a private directory, not using it", dir, bad);
	return -1;
}

int sockpath_connect(const char *path, int timeout_ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	/* A Unix connect() waits on a full listen queue for as long as the send timeout says. */
	if ((timeout_ms >= 0 && setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv))) ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;

		close(fd);
		errno = e == EAGAIN ? ETIMEDOUT : e;
		return -1;
	}
	return fd;
}
