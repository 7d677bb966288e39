/* SPDX-License-Identifier: MIT */
/* mqtxd's control socket: taken with a lock file so that one daemon serves a path, published
 * without replacing anything, and removed at exit only while it is still this daemon's. */
#ifndef MQTX_TOOLS_LISTEN_H
#define MQTX_TOOLS_LISTEN_H

#include <stdbool.h>
#include <sys/types.h>

#include "sockpath.h"

/** struct listener - the socket a daemon serves, and what proves the files are its own. */
struct listener {
	char path[SOCKPATH_MAX], lock[SOCKPATH_MAX + 8];
	int fd, lock_fd;
	dev_t dev, lock_dev;
	ino_t ino, lock_ino;
};

/**
 * listen_lock() - claim @path for this daemon: lock PATH.lock (flock), which holds the pid of
 * its holder, so that a second daemon is refused and told who serves the path. Errors are
 * printed. Return: 0, or -1.
 */
int listen_lock(struct listener *l, const char *path);

/**
 * listen_publish() - with the lock held: refuse to replace anything at the path but a dead
 * socket of this user; bind under PATH.new with mode 0600 (0660 and group @group with
 * @has_group), listen, and link it into place. Errors are printed. Return: 0, or -1.
 */
int listen_publish(struct listener *l, bool has_group, gid_t group);

/**
 * listen_close() - stop listening and give the path up: unlink the socket and the lock file
 * only if they are still the ones this daemon made (same device and inode), and say so when
 * the socket was not. Also after a failed listen_lock() or listen_publish().
 */
void listen_close(struct listener *l);

#endif
