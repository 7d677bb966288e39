/* SPDX-License-Identifier: MIT */
/* Commands of the mqtx tool that the ctl dispatcher calls (dev, hash, gen, replay), and the
 * few context hooks they need from src/ctl/ctl.c. */
#ifndef MQTX_CTL_CMD_TOOL_H
#define MQTX_CTL_CMD_TOOL_H

#include <mqtx/ctl.h>

#include "ctl/ctl_int.h"

/*
 * The command functions of the dispatcher's table (mqtx_ctl_fn): a->argv holds the words after
 * the command's name; the dispatcher holds the context's lock, so they must not call the
 * locking mqtx_ctl_dev()/mqtx_ctl_add_dev() but the helpers below.
 * Return: MQTX_CTL_OK, MQTX_CTL_EPARSE, MQTX_CTL_EREFUSED.
 */
int mqtx__cmd_dev(struct mqtx_ctl_args *a);
int mqtx__cmd_hash(struct mqtx_ctl_args *a);
int mqtx__cmd_gen(struct mqtx_ctl_args *a);
int mqtx__cmd_replay(struct mqtx_ctl_args *a);

/**
 * typedef mqtx_tool_fn - a tool command on its own words: @argv[0] is the command's full name
 * (as the messages spell it), the words after it follow. Returns an MQTX_CTL_* exit code.
 */
typedef int (*mqtx_tool_fn)(struct mqtx_ctl *ctl, int argc, char **argv, unsigned flags,
			    struct mqtx_buf *out, struct mqtx_buf *err);

/** mqtx__tool_call() - run @fn on the words of @a with @name in front of them. */
int mqtx__tool_call(struct mqtx_ctl_args *a, const char *name, mqtx_tool_fn fn);

#define MQTX_CMD_DEV_HELP                                                                      \
	"dev add NAME type { null | sim | loopback } [ txqueues N ] ... [ up ]\n"               \
	"dev set NAME { up | down | txqueues N | hash ALGO }\ndev del NAME\n"                    \
	"dev show [ NAME ]\ndev stats [ NAME ]"
#define MQTX_CMD_GEN_HELP                                                                      \
	"gen dev NAME [ flows N ] [ size S | size imix ] [ rate R ] [ count C | duration T ] ...\n" \
	"gen { show [ ID ] | stop { ID | all } }"
#define MQTX_CMD_REPLAY_HELP                                                                   \
	"replay FILE dev NAME [ speed X | rate R | topspeed ] [ loop N ]\n"                      \
	"replay { show [ ID ] | stop { ID | all } }"
#define MQTX_CMD_HASH_HELP                                                                     \
	"hash [ --algo ALGO ] [ --seed S ] [ --key HEX ] --src A[:P] --dst A[:P] [ dev NAME ]"

/**
 * mqtx__tool_ctl_free() - stop every generator and replay of @ctl, bring its devices down and
 * release the packet pools they used. mqtx_ctl_free() calls it first, before it destroys the
 * devices (the command lock need not be held: nothing else runs on a context being freed).
 */
void mqtx__tool_ctl_free(struct mqtx_ctl *ctl);

/**
 * mqtx__tool_dev_gone() - @dev is about to be destroyed: stop its jobs, bring it down and
 * release its pool. Called by the dev del command; exposed for any other remover.
 */
void mqtx__tool_dev_gone(struct mqtx_ctl *ctl, struct mqtx_dev *dev);

/**
 * mqtx__parse_hash_words() - "hash ALGO [seed S] [key HEX80] [l4]" starting at @argv[0] into
 * @h (algo, seed, key, l4 only). Returns the words used, or -1 after a message in @err.
 */
int mqtx__parse_hash_words(int argc, char **argv, struct mqtx_hash_cfg *h, struct mqtx_buf *err);

/* ---- the context's device list, with the command lock held (in ctl.c) ---- */

/** mqtx__tool_find_dev() - the device @name of @ctl, or NULL. */
struct mqtx_dev *mqtx__tool_find_dev(struct mqtx_ctl *ctl, const char *name);

/** mqtx__tool_add_dev() - append @dev. Return: 0, -EEXIST, -ENOMEM. */
int mqtx__tool_add_dev(struct mqtx_ctl *ctl, struct mqtx_dev *dev);

/** mqtx__ctl_detach_dev() - take device @name out of @ctl without destroying it; NULL if none. */
struct mqtx_dev *mqtx__ctl_detach_dev(struct mqtx_ctl *ctl, const char *name);

/**
 * mqtx__ctl_dev_at() - device @i of @ctl in the order they were added, NULL past the last:
 * walk them all with for (i = 0; (dev = mqtx__ctl_dev_at(ctl, i)); i++), no array to size.
 */
struct mqtx_dev *mqtx__ctl_dev_at(struct mqtx_ctl *ctl, unsigned i);

#endif
