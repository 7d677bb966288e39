/* SPDX-License-Identifier: MIT */
/* The statistics of the built-in qdiscs beyond the common counters: tc's xstats, typed. */
#ifndef MQTX_XSTATS_H
#define MQTX_XSTATS_H

#include <mqtx/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mqtx_qdisc;

/**
 * struct mqtx_codel_xstats - what codel reports besides its counters (Linux's struct
 * tc_codel_xstats, which `tc -s qdisc show` prints).
 * @maxpacket: the largest packet dequeued so far, in bytes.
 * @count: packets dropped or marked since the dropping state was last entered.
 * @lastcount: @count when the dropping state was last entered.
 * @ldelay_us: the sojourn time of the last packet dequeued, in microseconds.
 * @drop_next_us: while dropping, the microseconds until the next drop (negative: overdue);
 *        0 otherwise.
 * @drop_overlimit: packets dropped because the queue was at its limit.
 * @ecn_mark: packets marked Congestion Experienced instead of dropped.
 * @ce_mark: packets marked for a sojourn above ce_threshold.
 * @dropping: codel is in its dropping state.
 */
struct mqtx_codel_xstats {
	uint32_t maxpacket, count, lastcount, ldelay_us;
	int32_t drop_next_us;
	uint64_t drop_overlimit, ecn_mark, ce_mark;
	bool dropping;
};

/**
 * mqtx_codel_get_xstats() - a consistent snapshot of codel qdisc @q's statistics into *@st
 * (takes @q's lock).
 * Return: 0; -EINVAL (@q is not a codel qdisc).
 */
MQTX_API int mqtx_codel_get_xstats(struct mqtx_qdisc *q, struct mqtx_codel_xstats *st);

/**
 * struct mqtx_fq_codel_xstats - what fq_codel reports besides its counters (Linux's struct
 * tc_fq_codel_qd_stats).
 * @maxpacket: the largest packet dequeued so far, in bytes.
 * @new_flow_count: the times a packet found its flow idle and made it a new flow.
 * @new_flows_len: flows on the new-flows list now.
 * @old_flows_len: flows on the old-flows list now.
 * @drop_overlimit: packets dropped because the qdisc was over its limit or memory_limit.
 * @drop_overmemory: of those, the ones dropped while over memory_limit.
 * @ecn_mark: packets marked Congestion Experienced instead of dropped.
 * @ce_mark: packets marked for a sojourn above ce_threshold.
 * @memory_usage: the memory the queued packets are charged for, in bytes.
 */
struct mqtx_fq_codel_xstats {
	uint32_t maxpacket, new_flow_count, new_flows_len, old_flows_len;
	uint64_t drop_overlimit, drop_overmemory, ecn_mark, ce_mark, memory_usage;
};

/**
 * mqtx_fq_codel_get_xstats() - a consistent snapshot of fq_codel qdisc @q's statistics into
 * *@st (takes @q's lock).
 * Return: 0; -EINVAL (@q is not an fq_codel qdisc).
 */
MQTX_API int mqtx_fq_codel_get_xstats(struct mqtx_qdisc *q, struct mqtx_fq_codel_xstats *st);

/**
 * struct mqtx_fq_codel_flow_xstats - one flow of fq_codel, its class X:minor in tc (Linux's
 * struct tc_fq_codel_cl_stats and the flow's queue).
 * @deficit: the bytes the flow may still send in this round (negative: overdrawn).
 * @count: its CoDel state, as in struct mqtx_codel_xstats: drops since dropping began,
 * @lastcount: @count when it last began,
 * @ldelay_us: the sojourn time of its last packet dequeued,
 * @drop_next_us: while dropping, the time until its next drop (negative: overdue),
 * @dropping: it is in the dropping state.
 * @qlen: packets queued in the flow.
 * @backlog: bytes queued in the flow.
 * @active: the flow is on the new or the old flows list (tc lists only those as classes).
 */
struct mqtx_fq_codel_flow_xstats {
	int32_t deficit;
	uint32_t count, lastcount, ldelay_us;
	int32_t drop_next_us;
	bool dropping, active;
	uint32_t qlen;
	uint64_t backlog;
};

/**
 * mqtx_fq_codel_get_flow_xstats() - a snapshot of flow @minor - 1 of fq_codel qdisc @q (class
 * X:@minor) into *@st (takes @q's lock).
 * Return: 0; -EINVAL (@q is not an fq_codel qdisc); -ENOENT (@minor is not in 1..flows).
 */
MQTX_API int mqtx_fq_codel_get_flow_xstats(struct mqtx_qdisc *q, uint32_t minor,
					   struct mqtx_fq_codel_flow_xstats *st);

#ifdef __cplusplus
}
#endif
#endif
