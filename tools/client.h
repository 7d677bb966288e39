/* SPDX-License-Identifier: MIT */
/* What the parts of the mqtx tool share: a backend that runs a command in-process (-batch) or
 * in mqtxd over the control socket. */
#ifndef MQTX_TOOLS_CLIENT_H
#define MQTX_TOOLS_CLIENT_H

#include <signal.h>
#include <stdbool.h>

#include <mqtx/ctl.h>

struct backend {
	struct mqtx_ctl *ctl; /* in-process, or NULL */
	int fd;		      /* connected to mqtxd, or -1 */
	const char *path;
};

/** A command's result: exit code, output and error text (malloc'd, NUL-terminated). */
struct result {
	int code;
	char *out, *err;
};

/** backend_exec() - run one command; a transport failure is exit code 2 with a message. */
void backend_exec(struct backend *b, int argc, char **argv, unsigned flags, struct result *r);

void result_free(struct result *r);

/** interrupted - set by SIGINT/SIGTERM while the tool waits (gen, replay, top). */
extern volatile sig_atomic_t interrupted;

/** top_main() - mqtx top [dev NAME] [interval SECS] [count N]. Returns the exit code. */
int top_main(struct backend *b, int argc, char **argv);

#endif
