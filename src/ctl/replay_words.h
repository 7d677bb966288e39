/* SPDX-License-Identifier: MIT */
/* The replay command's words: mqtx's, tcpreplay's and tcprewrite's spellings, shared by the
 * command (cmd_replay.c) and by the client that finds its capture (ctl_file.c). */
#ifndef MQTX_CTL_REPLAY_WORDS_H
#define MQTX_CTL_REPLAY_WORDS_H

#include <stdbool.h>
#include <stddef.h>

enum rword {
	R_DEV,
	R_SPEED,
	R_RATE,
	R_PPS,
	R_MBPS,
	R_TOPSPEED,
	R_LOOP,
	R_LOOPDELAY,
	R_LOOPDELAY_MS,
	R_COUNT,
	R_DURATION,
	R_DURATION_S,
	R_MTU_TRUNC,
	R_SMAC,
	R_DMAC,
	R_DETACH,
	R_REPORT, /* the tool's: --stats N (its report interval), -q, -K (mqtx reads ahead) */
	R_STATS,
	R_UNIQUE_IP,
	R_FIXCSUM,
	R_REFUSED, /* tcpreplay's options mqtx has another way for (mqtx__rword_refusals) */
};

struct mqtx_rword {
	const char *word;
	enum rword what;
	bool value;
};

extern const struct mqtx_rword mqtx__rwords[];
extern const size_t mqtx__nrwords;
/* { option, what to do instead } of each R_REFUSED word */
extern const char *const mqtx__rword_refusals[][2];
extern const size_t mqtx__nrword_refusals;

/* The entry of word @w ("--opt=value" by its "--opt") in mqtx__rwords, or -1. */
int mqtx__rword_of(const char *w);

/**
 * mqtx__replay_file_arg() - the index in @argv ("replay" ...) of the capture: the first word
 * that is neither an option nor an option's value, before or after the options, as tcpreplay
 * takes it last. Return: the index, or -1 when there is none.
 */
int mqtx__replay_file_arg(int argc, char **argv);

#endif
