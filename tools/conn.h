/* SPDX-License-Identifier: MIT */
/* mqtxd's client connections: a thread per client, requests read within deadlines and run
 * with the client's limits, replies sent within a deadline. */
#ifndef MQTX_TOOLS_CONN_H
#define MQTX_TOOLS_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <mqtx/ctl.h>

#define CONN_MAX 64 /* connections at once, all users together */

/**
 * struct limits - what one user's clients may take (mqtxd --limit NAME=VALUE); 0: no limit.
 * @idle_ms: a connection with no request begun for this long is closed.
 * @request_ms: a request, its header included, must arrive whole within this of its first byte.
 * @reply_ms: a reply must be taken whole within this.
 * @clients: connections of one user at once.
 * @jobs: generators and replays of one user running at once.
 * @pools: packet pools that one user's jobs created (one per device).
 * @memory: library memory that one user's commands hold, in bytes.
 */
struct limits {
	unsigned idle_ms, request_ms, reply_ms;
	unsigned clients, jobs, pools;
	size_t memory;
};

/** struct server - what the connections serve, and to whom. */
struct server {
	struct mqtx_ctl *ctl;
	struct limits lim;
	bool has_group;
	gid_t group;
};

/**
 * conn_in_command - this thread runs a command whose errors go back to whoever sent it (a
 * client, or the configuration file): the library's error messages logged meanwhile are that
 * command's, which it reports itself, not the daemon's log's.
 */
extern _Thread_local bool conn_in_command;

/**
 * conn_accept() - take one connection from the listening socket @lfd; serve it on a thread of
 * its own if its peer is allowed and within its limits, else tell it why and close it.
 */
void conn_accept(const struct server *srv, int lfd);

/** conn_drain() - stop serving: wake every client thread and wait until the last has left. */
void conn_drain(void);

#endif
