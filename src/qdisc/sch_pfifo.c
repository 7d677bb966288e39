// SPDX-License-Identifier: MIT
/* pfifo: a FIFO limited in packets that drops the newcomer when full (Linux sch_fifo.c); the
 * limit defaults to the device's tx_queue_len. */
#include <mqtx/qdisc.h>
#include "qdisc/fifo_common.h"

static int pfifo_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	struct mqtx_fifo_priv *p = mqtx_qdisc_priv(q);

	if (likely(q->qlen < p->limit))
		return mqtx_qdisc_enqueue_tail(q, &p->list, pkt);
	return mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
}

static int pfifo_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack)
{
	return mqtx__fifo_parse("pfifo", argc, argv, opt, ack);
}

const struct mqtx_qdisc_ops mqtx__pfifo_qdisc_ops = {
	.id = "pfifo",
	.usage = MQTX_FIFO_USAGE,
	.priv_size = sizeof(struct mqtx_fifo_priv),
	.opt_size = sizeof(struct mqtx_fifo_opt),
	.enqueue = pfifo_enqueue,
	.dequeue = mqtx__fifo_dequeue,
	.peek = mqtx__fifo_peek,
	.parse = pfifo_parse,
	.init = mqtx__fifo_init,
	.change = mqtx__fifo_change,
	.reset = mqtx__fifo_reset,
	.dump = mqtx__pfifo_dump,
};
