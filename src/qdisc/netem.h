/* SPDX-License-Identifier: MIT */
/* netem's options as tc sends them (netem_opt.c parses them, sch_netem.c applies them). */
#ifndef MQTX_QDISC_NETEM_H
#define MQTX_QDISC_NETEM_H

#include <stdbool.h>
#include <stdint.h>

#include "qdisc/netem_rand.h"
#include <mqtx/tc.h>

/* The loss models (TCA_NETEM_LOSS): none sent means the random one. */
enum netem_loss_model { NETEM_LOSS_RANDOM, NETEM_LOSS_GI, NETEM_LOSS_GE };

/* A distribution given: none (the table is kept), or one of enum netem_dist + 1. */
#define NETEM_DIST_KEEP 0

/*
 * What "tc qdisc add|change ... netem" sends. tc always sends the base options (limit, delay
 * and jitter in psched ticks of 64 ns, loss, gap, duplicate); the rest only when given, and a
 * change keeps what was not sent (netem_change), except the loss model, which falls back to
 * the random one. Probabilities are fractions of UINT32_MAX.
 */
struct netem_opt {
	uint32_t limit, loss, gap, duplicate;
	uint32_t latency, jitter; /* ticks */
	bool has_corr, has_reorder, has_corrupt, has_rate, has_slot, has_seed, ecn;
	uint32_t delay_corr, loss_corr, dup_corr;
	uint32_t reorder, reorder_corr, corrupt, corrupt_corr;
	uint64_t rate; /* bytes/s */
	int32_t packet_overhead, cell_overhead;
	uint32_t cell_size;
	uint8_t loss_model;	 /* enum netem_loss_model */
	uint32_t clg[5];	 /* GI: p13 p31 p32 p23 p14; GE: p r h k1 */
	uint8_t dist, slot_dist; /* NETEM_DIST_KEEP or 1 + enum netem_dist */
	int64_t slot_min, slot_max, slot_dist_delay, slot_dist_jitter; /* ns */
	int32_t slot_packets, slot_bytes;
	uint64_t seed;
};

/* tc's netem_parse_opt(): 0, -EINVAL, MQTX_TC_EUSAGE or MQTX_TC_EFATAL (ops->parse). */
int mqtx__netem_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack);

#endif
