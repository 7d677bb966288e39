/* SPDX-License-Identifier: MIT */
/* Who may use mqtxd's socket: root, the daemon's user and, with -g, members of a group. */
#ifndef MQTX_TOOLS_PEER_H
#define MQTX_TOOLS_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

/**
 * peer_allowed() - whether the peer of the connection @fd may use the daemon: root, the
 * daemon's user or, with @has_group, a process in @group (its effective group or one of its
 * supplementary groups, as the kernel saw them at connect()). *@cr gets its credentials; a
 * refusal (or a failure to read them) is explained in @why, a line for the peer and the log.
 */
bool peer_allowed(int fd, bool has_group, gid_t group, struct ucred *cr, char *why, size_t len);

#endif
