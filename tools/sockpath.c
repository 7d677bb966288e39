// SPDX-License-Identifier: MIT
// Where mqtxd's control socket lives, for the daemon and for mqtx.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "sockpath.h"

int sockpath_default(char *buf, size_t len, int server)
{
	const char *env = getenv("MQTX_SOCKET"), *xdg = getenv("XDG_RUNTIME_DIR");
	char dir[256];
	struct stat st;

	if (env && *env)
		return snprintf(buf, len, "%s", env) < (int)len ? 0 : -1;
	if (xdg && *xdg)
		return snprintf(buf, len, "%s/%s", xdg, MQTX_SOCK_NAME) < (int)len ? 0 : -1;
	if (server && geteuid() == 0) {
		mkdir("/run/mqtx", 0755);
		if (stat("/run/mqtx", &st) == 0 && S_ISDIR(st.st_mode))
			return snprintf(buf, len, "/run/mqtx/%s", MQTX_SOCK_NAME) < (int)len ? 0 : -1;
	}
	if (!server && stat("/run/mqtx/" MQTX_SOCK_NAME, &st) == 0)
		return snprintf(buf, len, "/run/mqtx/%s", MQTX_SOCK_NAME) < (int)len ? 0 : -1;
	snprintf(dir, sizeof(dir), "/tmp/mqtx-%u", (unsigned)geteuid());
	/* A private directory: nobody else can plant or replace the socket. */
	if (server && mkdir(dir, 0700) && errno != EEXIST)
		return -1;
	if (server && (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())) {
		errno = EPERM;
		return -1;
	}
	return snprintf(buf, len, "%s/%s", dir, MQTX_SOCK_NAME) < (int)len ? 0 : -1;
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
