/* SPDX-License-Identifier: MIT */
/* fq's private types, shared by its data path (sch_fq.c) and its options (sch_fq_opts.c). */
#ifndef MQTX_QDISC_SCH_FQ_H
#define MQTX_QDISC_SCH_FQ_H

#include <mqtx/qdisc.h>

#define FQ_BANDS	3
#define FQ_PRIOS	16
#define FQ_MIN_WEIGHT	16384
#define FQ_GC_MAX	8
#define FQ_GC_AGE	(3 * MQTX_NSEC_PER_SEC)
#define FQ_NO_TIME	UINT64_MAX
#define FQ_UNLIMITED	UINT32_MAX /* maxrate: none (~0U as tc sends it) */
#define FQ_MAX_LOG	18	   /* buckets up to 256k (fq_change) */
#define FQ_INTERNAL_MAX 8	   /* fq_fastpath_check(): the fast path holds fewer than 8 */

/* Linux's sch_default_prio2band and band weights: fq's defaults (sch_fq_opts.c). */
extern const uint8_t mqtx__fq_default_prio2band[FQ_PRIOS];
extern const uint32_t mqtx__fq_default_weights[FQ_BANDS];

/* Which options a command gave (tc sends only those). */
enum {
	FQ_SET_LIMIT = 1u << 0,
	FQ_SET_FLOW_LIMIT = 1u << 1,
	FQ_SET_BUCKETS = 1u << 2,
	FQ_SET_QUANTUM = 1u << 3,
	FQ_SET_IQUANTUM = 1u << 4,
	FQ_SET_PACING = 1u << 5,
	FQ_SET_MAXRATE = 1u << 6,
	FQ_SET_LOWRATE = 1u << 7,
	FQ_SET_REFILL = 1u << 8,
	FQ_SET_ORPHAN = 1u << 9,
	FQ_SET_CE = 1u << 10,
	FQ_SET_SLACK = 1u << 11,
	FQ_SET_HORIZON = 1u << 12,
	FQ_SET_HDROP = 1u << 13,
	FQ_SET_PRIOMAP = 1u << 14,
	FQ_SET_WEIGHTS = 1u << 15,
};

/* The options as tc sends them: times in microseconds, timer_slack in ns, rates in bytes/s. */
struct fq_opt {
	uint32_t set;
	uint32_t limit, flow_limit, buckets_log, quantum, initial_quantum, pacing;
	uint32_t maxrate, low_rate_threshold, refill_delay, orphan_mask, ce_threshold;
	uint32_t timer_slack, horizon;
	uint8_t horizon_drop;
	uint8_t priomap[FQ_PRIOS];
	uint32_t weights[FQ_BANDS];
};

/* One configuration, as the data path reads it (fq_sched_data's read-mostly part). */
struct fq_cfg {
	uint32_t limit, flow_limit, quantum, initial_quantum, orphan_mask;
	uint64_t maxrate; /* bytes/s, FQ_UNLIMITED: none */
	uint64_t low_rate_threshold;
	uint64_t refill_delay, ce_threshold, horizon, timer_slack; /* ns */
	uint8_t buckets_log, pacing, horizon_drop;
	uint8_t prio2band[FQ_PRIOS];
	uint32_t weights[FQ_BANDS];
};

enum fq_state { FQ_DETACHED, FQ_LISTED, FQ_THROTTLED };

/* A flow: the packets of one hash (under orphan_mask), in departure-time order. */
struct fq_flow {
	struct fq_flow *hnext; /* bucket chain */
	struct fq_flow *next;  /* new/old list, or the throttled list */
	struct mqtx_pkt_list q;
	uint32_t key;
	int32_t credit;
	uint8_t band;
	uint8_t state;
	uint64_t age; /* when it became detached, for the refill and the gc */
	uint64_t time_next_packet;
};

struct fq_flow_head {
	struct fq_flow *first, *last;
};

struct fq_band {
	struct fq_flow_head new_flows, old_flows;
	int32_t credit;
};

/* What each packet carries while queued (in its control block). */
struct fq_cb {
	uint64_t time_to_send;
	uint8_t band;
};

struct fq_priv {
	struct fq_cfg cfg;
	struct fq_flow **buckets;
	struct fq_flow internal; /* the fast path queue */
	struct fq_band bands[FQ_BANDS];
	unsigned band_nr;
	struct fq_flow *throttled; /* by time_next_packet, earliest first (Linux's rbtree) */
	uint64_t time_next_delayed_flow, unthrottle_latency_ns;
	uint32_t band_pkt_count[FQ_BANDS];
	uint32_t flows, inactive_flows, throttled_flows;
	uint64_t stat_throttled, stat_gc_flows, stat_ce_mark, stat_horizon_drops;
	uint64_t stat_horizon_caps, stat_flows_plimit, stat_pkts_too_long, stat_alloc_errors;
	uint64_t stat_fastpath;
	struct mqtx_pkt *peeked; /* dequeued by a peek, sent by the next dequeue */
	struct mqtx_timer watchdog;
	bool watchdog_ready;
};

/* sch_fq_opts.c: tc's words in (parse), the kernel's checks (resolve into @c), tc's words out. */
int mqtx__fq_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack);
int mqtx__fq_resolve(const struct fq_opt *o, struct fq_cfg *c, struct mqtx_extack *ack);
void mqtx__fq_dump(struct mqtx_qdisc *q, struct mqtx_dump *d);
void mqtx__fq_dump_stats(struct mqtx_qdisc *q, struct mqtx_dump *d);

#endif
