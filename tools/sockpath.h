/* SPDX-License-Identifier: MIT */
/* Where mqtxd's control socket lives, for the daemon and for mqtx. */
#ifndef MQTX_TOOLS_SOCKPATH_H
#define MQTX_TOOLS_SOCKPATH_H

#include <stddef.h>

#define MQTX_SOCK_NAME "mqtx.sock"

/** sockpath_default() - $MQTX_SOCKET, else the first of $XDG_RUNTIME_DIR/mqtx.sock,
 *  /run/mqtx/mqtx.sock (root), /tmp/mqtx-UID/mqtx.sock; @server creates the directory. */
int sockpath_default(char *buf, size_t len, int server);

/**
 * sockpath_connect() - connect to the socket @path, waiting at most @timeout_ms (negative: no
 * limit) while its listen queue is full. Return: the descriptor, or -1 with errno.
 */
int sockpath_connect(const char *path, int timeout_ms);

#endif
