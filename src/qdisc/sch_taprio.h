/* SPDX-License-Identifier: MIT */
/* taprio's private types, shared by its schedule and data path (sch_taprio.c) and its options
 * (sch_taprio_opts.c). */
#ifndef MQTX_QDISC_SCH_TAPRIO_H
#define MQTX_QDISC_SCH_TAPRIO_H

#include <stdatomic.h>

#include <mqtx/qdisc.h>

#define TAPRIO_MAX_ENTRIES 256
#define TAPRIO_ALL_OPEN	   UINT32_MAX
#define TAPRIO_FLAG_TXTIME 0x1u /* TCA_TAPRIO_ATTR_FLAG_TXTIME_ASSIST */
#define TAPRIO_FLAG_FULL   0x2u /* TCA_TAPRIO_ATTR_FLAG_FULL_OFFLOAD */
#define TAPRIO_NO_TIME	   INT64_MAX
#define ETH_ZLEN	   60
#define ETH_HLEN	   14
#define TAPRIO_MAX_MTU	   65535 /* dev->max_mtu: a larger max SDU is no limit */
#define SPEED_10	   10	 /* Mbit/s: Linux's link speed when ethtool has none */
#define PPB_MIN		   17	 /* TAPRIO_PICOS_PER_BYTE_MIN */

struct taprio_opt_entry {
	uint8_t cmd;
	uint32_t mask, interval;
};

/* What tc sends (taprio_parse_opt()). */
struct taprio_opt {
	uint8_t num_tc, map[MQTX_TC_MAX];
	uint16_t count[MQTX_TC_MAX], offset[MQTX_TC_MAX];
	int32_t clockid; /* -1: none */
	uint32_t flags, txtime_delay, n_max_sdu, max_sdu[MQTX_TC_MAX];
	int64_t base_time, cycle_time, cycle_ext;
	uint32_t n;
	struct taprio_opt_entry e[TAPRIO_MAX_ENTRIES];
};

struct taprio_entry {
	uint32_t interval, gate_mask;
	uint8_t cmd;
	int64_t end_time;
	int64_t gate_duration[MQTX_TC_MAX], gate_close[MQTX_TC_MAX], budget[MQTX_TC_MAX];
};

/* One schedule (sched_gate_list). */
struct taprio_sched {
	int64_t base_time, cycle_time, cycle_ext, cycle_end;
	int64_t max_open[MQTX_TC_MAX];
	uint32_t max_frm_len[MQTX_TC_MAX];
	uint32_t n;
	struct taprio_entry e[];
};

struct taprio_priv {
	struct mqtx_qdisc **child; /* one per TX queue */
	uint32_t nchild;
	struct taprio_sched *oper, *admin;
	struct taprio_entry *cur; /* NULL: not started, every gate open (802.1Qbv 8.6.9.4.5) */
	uint8_t num_tc, map[MQTX_TC_MAX];
	uint16_t count[MQTX_TC_MAX], offset[MQTX_TC_MAX];
	uint32_t cur_txq[MQTX_TC_MAX];
	uint32_t max_sdu[MQTX_TC_MAX];
	int32_t clockid;
	uint32_t flags;
	uint64_t ppb; /* picoseconds a byte takes on the wire */
	struct mqtx_timer timer;
	atomic_bool stopping; /* destroy: the timer must not arm itself again */
	bool timer_ready, configured;
};

/* sch_taprio_opts.c: tc's words in, taprio_change()'s checks before the schedule is built and
 * of the clock after it, tc's words out. */
int mqtx__taprio_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack);
int mqtx__taprio_check(struct mqtx_qdisc *q, const struct taprio_opt *o, struct mqtx_extack *ack);
int mqtx__taprio_clock_check(const struct taprio_priv *p, const struct taprio_opt *o,
			     struct mqtx_extack *ack);
void mqtx__taprio_dump(struct mqtx_qdisc *q, struct mqtx_dump *d);

#endif
