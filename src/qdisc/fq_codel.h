/* SPDX-License-Identifier: MIT */
/* fq_codel internals exposed for tests. Internal to mqtx. */
#ifndef MQTX_QDISC_FQ_CODEL_H
#define MQTX_QDISC_FQ_CODEL_H

#include <mqtx/qdisc.h>

/**
 * mqtx__fq_codel_flow_index() - the flow (0..flows-1) @q puts @pkt in: the minor of
 * pkt->priority when its major is @q's handle and the minor is 1..flows (flow minor - 1),
 * else reciprocal_scale(5-tuple jhash, flows). Non-IP frames share one flow.
 */
uint32_t mqtx__fq_codel_flow_index(struct mqtx_qdisc *q, const struct mqtx_pkt *pkt);

/** mqtx_fq_codel_truesize() - the memory a queued packet is charged for memory_limit. */
static inline uint32_t mqtx_fq_codel_truesize(const struct mqtx_pkt *pkt)
{
	return (uint32_t)sizeof(struct mqtx_pkt) + pkt->buf_size;
}

/** mqtx__fq_codel_flow_backlog() - bytes queued in flow @idx (0 if out of range). */
uint32_t mqtx__fq_codel_flow_backlog(struct mqtx_qdisc *q, uint32_t idx);

#endif
