// SPDX-License-Identifier: MIT
/* pfifo_head_drop: a packet FIFO that, when full, drops its oldest packet (Linux sch_fifo.c). */
#include "qdisc/fifo_common.h"
#include "qdisc/kinds.h"
#include <mqtx/tc.h>

static int phd_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	struct mqtx_fifo_priv *p = mqtx_qdisc_priv(q);

	if (q->qlen < p->limit)
		return mqtx_qdisc_enqueue_tail(q, &p->list, pkt);
	if (p->limit == 0)
		return mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
	/* Full: the head goes, the newcomer stays; CN tells the sender something was lost. */
	mqtx_qdisc_drop(q, mqtx_qdisc_dequeue_head(q, &p->list), MQTX_DROP_QDISC, to_free);
	mqtx_qdisc_enqueue_tail(q, &p->list, pkt);
	return MQTX_XMIT_CN;
}

static int phd_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack)
{
	return mqtx__fifo_parse("pfifo_head_drop", argc, argv, opt, ack);
}

const struct mqtx_qdisc_ops mqtx__pfifo_head_drop_qdisc_ops = {
	.id = "pfifo_head_drop",
	.usage = MQTX_FIFO_USAGE,
	.priv_size = sizeof(struct mqtx_fifo_priv),
	.opt_size = sizeof(struct mqtx_fifo_opt),
	.enqueue = phd_enqueue,
	.dequeue = mqtx__fifo_dequeue,
	.peek = mqtx__fifo_peek,
	.parse = phd_parse,
	.init = mqtx__fifo_init,
	.change = mqtx__fifo_change,
	.reset = mqtx__fifo_reset,
	.dump = mqtx__pfifo_dump,
};
