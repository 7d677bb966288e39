// SPDX-License-Identifier: MIT
/* bfifo: a FIFO limited in bytes (Linux sch_fifo.c semantics). */
#include <errno.h>
#include <inttypes.h>

#include "qdisc/fifo_common.h"
#include "qdisc/kinds.h"
#include <mqtx/tc.h>

static int bfifo_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	struct mqtx_fifo_priv *p = mqtx_qdisc_priv(q);

	/* Linux: accept while backlog + len <= limit, else drop the newcomer. */
	if (q->backlog + pkt->len <= p->limit)
		return mqtx_qdisc_enqueue_tail(q, &p->list, pkt);
	return mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
}

static int bfifo_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack)
{
	return mqtx__fifo_parse("bfifo", argc, argv, opt, ack);
}

static void bfifo_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	struct mqtx_fifo_priv *p = mqtx_qdisc_priv(q);

	mqtx_dump_size(d, "limit", "limit %s", p->limit);
}

const struct mqtx_qdisc_ops mqtx__bfifo_qdisc_ops = {
	.id = "bfifo",
	.usage = MQTX_FIFO_USAGE,
	.priv_size = sizeof(struct mqtx_fifo_priv),
	.opt_size = sizeof(struct mqtx_fifo_opt),
	.enqueue = bfifo_enqueue,
	.dequeue = mqtx__fifo_dequeue,
	.peek = mqtx__fifo_peek,
	.parse = bfifo_parse,
	.init = mqtx__fifo_init,
	.change = mqtx__fifo_change,
	.reset = mqtx__fifo_reset,
	.dump = bfifo_dump,
};
