/* SPDX-License-Identifier: MIT */
/* Commands of the mqtx tool that the ctl dispatcher calls (dev, hash, gen, replay), and the
 * few context hooks they need from src/ctl/ctl.c. */
#ifndef MQTX_CTL_CMD_TOOL_H
#define MQTX_CTL_CMD_TOOL_H

#include <mqtx/ctl.h>

/*
 * Every command function: @argv[0] is the command word itself ("dev", "hash", ...), the
 * dispatcher holds the context's command lock, text goes to @out, messages naming the bad
 * token to @err. Return: MQTX_CTL_OK, MQTX_CTL_EPARSE, MQTX_CTL_EREFUSED.
 */
int mqtx__cmd_dev(struct mqtx_ctl *ctl, int argc, char **argv, unsigned flags,
		  struct mqtx_buf *out, struct mqtx_buf *err);
int mqtx__cmd_hash(struct mqtx_ctl *ctl, int argc, char **argv, unsigned flags,
		   struct mqtx_buf *out, struct mqtx_buf *err);
int mqtx__cmd_gen(struct mqtx_ctl *ctl, int argc, char **argv, unsigned flags,
		  struct mqtx_buf *out, struct mqtx_buf *err);
int mqtx__cmd_replay(struct mqtx_ctl *ctl, int argc, char **argv, unsigned flags,
		     struct mqtx_buf *out, struct mqtx_buf *err);

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

/* ---- what the commands need from ctl.c (command lock held) ---- */

/** mqtx__ctl_detach_dev() - take device @name out of @ctl without destroying it; NULL if none. */
struct mqtx_dev *mqtx__ctl_detach_dev(struct mqtx_ctl *ctl, const char *name);

/**
 * mqtx__ctl_devs() - the devices of @ctl in the order they were added: fills up to @max
 * pointers into @devs and returns how many devices there are (may exceed @max).
 */
unsigned mqtx__ctl_devs(struct mqtx_ctl *ctl, struct mqtx_dev **devs, unsigned max);

#endif
