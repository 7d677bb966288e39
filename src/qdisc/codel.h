/* SPDX-License-Identifier: MIT */
/* The CoDel AQM as Linux computes it (include/net/codel*.h): time in 1024 ns units, 1/sqrt(count)
 * in Q0.16 refined by one Newton step per count change. Shared by codel and fq_codel. */
#ifndef MQTX_QDISC_CODEL_H
#define MQTX_QDISC_CODEL_H

#include <mqtx/qdisc.h>
#include <string.h>

#define MQTX_CODEL_SHIFT 10 /* one unit is 1024 ns */

/* CoDel time arithmetic: u32 units compared through signed differences (wraps every ~73 min). */
static inline uint32_t mqtx_codel_ns2time(uint64_t ns)
{
	return (uint32_t)(ns >> MQTX_CODEL_SHIFT);
}

static inline uint64_t mqtx_codel_time2ns(uint32_t t)
{
	return (uint64_t)t << MQTX_CODEL_SHIFT;
}

/* codel_time_to_us(): whole microseconds, as Linux reports CoDel times. */
static inline uint32_t mqtx_codel_time2us(uint32_t t)
{
	return (uint32_t)(mqtx_codel_time2ns(t) / 1000);
}

static inline bool mqtx_codel_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

/* The enqueue time lives in the packet's control block while a CoDel queue holds it. */
static inline void mqtx_codel_stamp(struct mqtx_pkt *pkt, uint32_t now)
{
	memcpy(pkt->cb, &now, sizeof(now));
}

static inline uint32_t mqtx_codel_stamp_of(const struct mqtx_pkt *pkt)
{
	uint32_t t;

	memcpy(&t, pkt->cb, sizeof(t));
	return t;
}

/**
 * struct mqtx_codel_params - configuration (times in CoDel units).
 * @mtu: below this backlog (bytes) CoDel never drops.
 * @ce_threshold: with @ce_threshold_on, CE-mark packets whose sojourn exceeds it.
 */
struct mqtx_codel_params {
	uint32_t target, interval, ce_threshold;
	uint32_t mtu;
	bool ecn, ce_threshold_on;
};

/** struct mqtx_codel_vars - the state of one CoDel queue (per flow in fq_codel). */
struct mqtx_codel_vars {
	uint32_t count, lastcount;
	bool dropping;
	uint16_t rec_inv_sqrt;
	uint32_t first_above_time, drop_next, ldelay;
};

/** struct mqtx_codel_stats - counters the caller reads (and may clear between calls). */
struct mqtx_codel_stats {
	uint32_t maxpacket;
	uint32_t drop_count; /* packets dropped by the last calls; the caller clears it */
	uint64_t drop_len;
	uint64_t ecn_mark, ce_mark;
};

/** Take the head packet of the queue, updating its backlog; NULL when empty. */
typedef struct mqtx_pkt *(*mqtx_codel_dequeue_fn)(struct mqtx_codel_vars *vars, void *ctx);
/** Drop @pkt (count it, free it). */
typedef void (*mqtx_codel_drop_fn)(struct mqtx_pkt *pkt, void *ctx);

void mqtx__codel_params_init(struct mqtx_codel_params *p, uint32_t mtu);

/* codel and fq_codel dumps: "target T [ce_threshold T] interval T", as tc prints them. */
void mqtx__codel_dump_times(const struct mqtx_codel_params *p, struct mqtx_dump *d);

/**
 * mqtx__codel_arg_time() - the time after option argv[*i] (mqtx_tc_arg_time), in the whole
 * microseconds tc sends, at most what it can carry (u32). Return: 0, -EINVAL with a message
 * naming the value, or MQTX_TC_EFATAL (no value).
 */
int mqtx__codel_arg_time(int argc, char **argv, int *i, uint64_t *ns, struct mqtx_extack *ack);

/*
 * CoDel may drop the head when it is dequeued, so peek dequeues ahead and keeps the survivor
 * in *@peeked, still counted in @q's qlen/backlog; dequeue hands it out first. @deq is the
 * qdisc's own dequeue (through CoDel). Lock held.
 */
struct mqtx_pkt *mqtx__codel_peeked_dequeue(struct mqtx_qdisc *q, struct mqtx_pkt **peeked,
					    struct mqtx_pkt *(*deq)(struct mqtx_qdisc *q));
struct mqtx_pkt *mqtx__codel_peeked_peek(struct mqtx_qdisc *q, struct mqtx_pkt **peeked,
					 struct mqtx_pkt *(*deq)(struct mqtx_qdisc *q));
void mqtx__codel_vars_init(struct mqtx_codel_vars *v);

/**
 * mqtx__codel_drop_next_us() - while @v is dropping, the microseconds from @now to its next
 * drop (negative: overdue), as codel_dump_stats() reports drop_next; 0 otherwise.
 */
int32_t mqtx__codel_drop_next_us(const struct mqtx_codel_vars *v, uint32_t now);

/** mqtx__codel_newton_step() - refine rec_inv_sqrt toward 1/sqrt(count) (Q0.16). */
void mqtx__codel_newton_step(struct mqtx_codel_vars *v);

/** mqtx__codel_control_law() - t + interval / sqrt(count), via reciprocal_scale. */
uint32_t mqtx__codel_control_law(uint32_t t, uint32_t interval, uint16_t rec_inv_sqrt);

/**
 * mqtx__codel_dequeue() - the next packet to send, after the drops (or CE marks) CoDel decides.
 * @backlog: the backlog CoDel compares with params->mtu, read after each @deq.
 * @now: the current time in CoDel units.
 */
struct mqtx_pkt *mqtx__codel_dequeue(void *ctx, const uint64_t *backlog,
				     const struct mqtx_codel_params *params,
				     struct mqtx_codel_vars *vars, struct mqtx_codel_stats *stats,
				     mqtx_codel_dequeue_fn deq, mqtx_codel_drop_fn drop,
				     uint32_t now);

/**
 * mqtx__ecn_set_ce() - INET_ECN_set_ce(): mark an ECN-capable IPv4/IPv6 packet Congestion
 * Experienced (fixing the IPv4 header checksum). Returns true if the packet now carries CE
 * (it was ECT(0), ECT(1) or already CE), false for Not-ECT and non-IP frames.
 */
bool mqtx__ecn_set_ce(struct mqtx_pkt *pkt);

#endif
