/* SPDX-License-Identifier: MIT */
/* fq_codel internals exposed for tests and the config layer's class view. Internal to mqtx. */
#ifndef MQTX_QDISC_FQ_CODEL_H
#define MQTX_QDISC_FQ_CODEL_H

#include <mqtx/qdisc.h>

/**
 * mqtx_fq_codel_flow_index() - the flow (0..flows-1) @q puts @pkt in: the minor of
 * pkt->priority when its major is @q's handle and the minor is 1..flows (flow minor - 1),
 * else reciprocal_scale(5-tuple jhash, flows). Non-IP frames share one flow.
 */
uint32_t mqtx_fq_codel_flow_index(struct mqtx_qdisc *q, const struct mqtx_pkt *pkt);

/** mqtx_fq_codel_truesize() - the memory a queued packet is charged for memory_limit. */
static inline uint32_t mqtx_fq_codel_truesize(const struct mqtx_pkt *pkt)
{
	return (uint32_t)sizeof(struct mqtx_pkt) + pkt->buf_size;
}

/** struct mqtx_fq_codel_xstats - tc's fq_codel qdisc xstats. */
struct mqtx_fq_codel_xstats {
	uint32_t maxpacket, new_flow_count, new_flows_len, old_flows_len;
	uint64_t drop_overlimit, drop_overmemory, ecn_mark, ce_mark, memory_usage;
};

/** mqtx_fq_codel_get_xstats() - the counters above (lock held). */
void mqtx_fq_codel_get_xstats(struct mqtx_qdisc *q, struct mqtx_fq_codel_xstats *st);

/** mqtx_fq_codel_flow_backlog() - bytes queued in flow @idx (0 if out of range). */
uint32_t mqtx_fq_codel_flow_backlog(struct mqtx_qdisc *q, uint32_t idx);

#endif
