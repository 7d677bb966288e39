// SPDX-License-Identifier: MIT
/* pfifo_head_drop: a packet FIFO that, when full, drops its oldest packet (Linux sch_fifo.c). */
#include <errno.h>
#include <inttypes.h>

#include "qdisc/fifo_common.h"
#include "qdisc/kinds.h"
#include "qdisc/tcunits.h"

static bool phd_over(struct mqtx_qdisc *q)
{
	struct mqtx_fifo_priv *p = mqtx_qdisc_priv(q);

	return q->qlen > p->limit;
}

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

static void phd_set_limit(struct mqtx_qdisc *q, uint64_t limit)
{
	struct mqtx_fifo_priv *p = mqtx_qdisc_priv(q);

	p->limit = limit;
	if (limit >= 1)
		q->flags |= MQTX_QF_CAN_BYPASS;
	else
		q->flags &= ~MQTX_QF_CAN_BYPASS;
}

static int phd_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	const struct mqtx_fifo_opt *o = opt;
	struct mqtx_fifo_priv *p = mqtx_qdisc_priv(q);

	(void)ack;
	mqtx_pkt_list_init(&p->list);
	phd_set_limit(q, o && o->has_limit ? o->limit : mqtx_dev_tx_queue_len(q->dev));
	return 0;
}

static int phd_change(struct mqtx_qdisc *q, const void *opt, struct mqtx_pkt **to_free,
		      struct mqtx_extack *ack)
{
	const struct mqtx_fifo_opt *o = opt;

	(void)ack;
	if (o && o->has_limit) {
		phd_set_limit(q, o->limit);
		mqtx__fifo_trim(q, &((struct mqtx_fifo_priv *)mqtx_qdisc_priv(q))->list, phd_over,
				to_free);
	}
	return 0;
}

static void phd_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	struct mqtx_fifo_priv *p = mqtx_qdisc_priv(q);

	mqtx_dump_uint(d, "limit", "limit %" PRIu64 "p", p->limit);
}

const struct mqtx_qdisc_ops mqtx_pfifo_head_drop_qdisc_ops = {
	.id = "pfifo_head_drop",
	.priv_size = sizeof(struct mqtx_fifo_priv),
	.opt_size = sizeof(struct mqtx_fifo_opt),
	.enqueue = phd_enqueue,
	.dequeue = mqtx__fifo_dequeue,
	.peek = mqtx__fifo_peek,
	.parse = phd_parse,
	.init = phd_init,
	.change = phd_change,
	.reset = mqtx__fifo_reset,
	.dump = phd_dump,
};
