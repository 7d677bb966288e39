/* SPDX-License-Identifier: MIT */
/* What the parts of the mqtx tool share: a backend that runs a command in-process (-batch) or
 * in mqtxd over the control socket. */
#ifndef MQTX_TOOLS_CLIENT_H
#define MQTX_TOOLS_CLIENT_H

#include <signal.h>
#include <stdbool.h>

#include <mqtx/ctl.h>

#define CLIENT_TIMEOUT_S 60 /* default wait for each part of mqtxd's reply (-timeout) */

struct backend {
	struct mqtx_ctl *ctl;	/* in-process, or NULL */
	struct mqtx_jobs *jobs; /* the generators and replays of @ctl */
	int fd;			/* connected to mqtxd, or -1: connect on the next command */
	const char *path;
	int timeout_ms;	      /* wait for each part of a reply; negative: no limit */
	sig_atomic_t handled; /* signals the caller has acted on: only a later one ends a wait */
	unsigned flags;	      /* the command line's -s, -j, -d, for a job's final counters */
};

/** A command's result: exit code, output and error text (malloc'd, NUL-terminated). */
struct result {
	int code;
	char *out, *err;
	int signo; /* non-zero: this signal ended the wait for the reply (code 2, err says so) */
};

/**
 * backend_exec() - run one command. With a daemon, connect first if need be (again after the
 * daemon closed an idle connection); a transport failure, a timeout or a signal during the wait
 * is exit code 2 with a message, and the connection is dropped (the next command reconnects).
 */
void backend_exec(struct backend *b, int argc, char **argv, unsigned flags, struct result *r);

void result_free(struct result *r);

/**
 * backend_local() - run commands in this process (-batch): a context of its own with a job
 * table attached. Return: 0, or -1 (out of memory). backend_local_free() - stop its jobs, free
 * it.
 */
int backend_local(struct backend *b);
void backend_local_free(struct backend *b);

/** on_signal() - the SIGINT/SIGTERM handler: records the signal for the waits below. */
void on_signal(int sig);

/** interrupted - the last SIGINT/SIGTERM taken (0: none); nsignals - how many were taken. */
extern volatile sig_atomic_t interrupted, nsignals;

/** top_main() - mqtx top [dev NAME] [interval SECS] [count N]; @flags: MQTX_CTL_F_JSON prints
 *  JSON Lines. Returns the exit code. */
int top_main(struct backend *b, int argc, char **argv, unsigned flags);

#endif
