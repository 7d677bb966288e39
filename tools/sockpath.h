/* SPDX-License-Identifier: MIT */
/* Where mqtxd's control socket lives: by default in a directory private to its user, which
 * both sides check before they use it. */
#ifndef MQTX_TOOLS_SOCKPATH_H
#define MQTX_TOOLS_SOCKPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define MQTX_SOCK_NAME "mqtx.sock"
#define SOCKPATH_MAX   108 /* sizeof(sockaddr_un.sun_path) */

/**
 * sockpath_default() - the default socket: $MQTX_SOCKET as it is (the user's choice, as -S
 * is), else mqtx.sock in a private directory: $XDG_RUNTIME_DIR/mqtx, /run/mqtx (for root),
 * /tmp/mqtx-UID. The daemon (@server) takes the first of these that applies; a client the
 * first whose socket exists (else the first). @dir gets the directory to check, "" for
 * $MQTX_SOCKET. Return: 0, or -1 when a name does not fit.
 */
int sockpath_default(char *path, char *dir, size_t dirlen, bool server);

/**
 * sockpath_prepare_dir() - the daemon's side: create @dir (mode 0700) if need be, and make
 * sure that it is a directory, not a symbolic link, owned by this user and writable by nobody
 * else; then give it mode 0700, or 0710 and group @group with @has_group (so that the group's
 * members reach the socket and nothing else). Return: 0, or -1 with why in @why.
 */
int sockpath_prepare_dir(const char *dir, bool has_group, gid_t group, char *why, size_t len);

/**
 * sockpath_check_dir() - a client's side: @dir must be a directory (not a symbolic link) owned
 * by root or by this user and writable by nobody else, or whoever could write it could plant a
 * socket. Return: 0, or -1 with why in @why.
 */
int sockpath_check_dir(const char *dir, char *why, size_t len);

/**
 * sockpath_connect() - connect to the socket @path, waiting at most @timeout_ms (negative: no
 * limit) while its listen queue is full. Return: the descriptor, or -1 with errno.
 */
int sockpath_connect(const char *path, int timeout_ms);

#endif
