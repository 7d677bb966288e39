/* SPDX-License-Identifier: MIT */
/* Control language internals: the context, the command table and helpers for commands. */
#ifndef MQTX_CTL_INT_H
#define MQTX_CTL_INT_H

#include <pthread.h>

#include <mqtx/ctl.h>

struct mqtx_tool_state;

struct mqtx_ctl {
	pthread_mutex_t lock; /* serialises commands */
	struct mqtx_dev **devs;
	unsigned ndevs, cap;
	struct mqtx_tool_state *tool; /* jobs and pools of the gen/replay commands (cmd_gen.c) */
};

/** One command's arguments: the words after its name, the -s/-j/-d flags, where to write. */
struct mqtx_ctl_args {
	struct mqtx_ctl *ctl;
	int argc;
	char **argv;
	unsigned flags;
	struct mqtx_buf *out, *err;
};

/** A command: returns an MQTX_CTL_* exit code. */
typedef int (*mqtx_ctl_fn)(struct mqtx_ctl_args *a);

struct mqtx_ctl_cmd {
	const char *name;
	mqtx_ctl_fn fn;
	const char *help;
};

/* cmd_qdisc.c */
int mqtx__ctl_qdisc(struct mqtx_ctl_args *a);
int mqtx__ctl_class(struct mqtx_ctl_args *a);

/** mqtx__ctl_matches() - tc's matches(): @word is a non-empty prefix of @cmd. */
bool mqtx__ctl_matches(const char *word, const char *cmd);

/**
 * mqtx__buf_reserve() - make room for @need more bytes in @b, so that appending up to that
 * much cannot fail: a command that changes something does this before its commit.
 * Return: 0, or -ENOMEM (and @b->nomem is set).
 */
int mqtx__buf_reserve(struct mqtx_buf *b, size_t need);

/** mqtx__ctl_find_dev() - the device @name, or NULL after writing tc's error to a->err. */
struct mqtx_dev *mqtx__ctl_find_dev(struct mqtx_ctl_args *a, const char *name);

#endif
