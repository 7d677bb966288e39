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

/* An empty bfifo may be bypassed only if it could hold a full-sized frame (fifo_init). */
static void bfifo_set_limit(struct mqtx_qdisc *q, uint64_t limit)
{
	struct mqtx_fifo_priv *p = mqtx_qdisc_priv(q);

	p->limit = limit;
	if (limit >= mqtx__psched_mtu(q))
		q->flags |= MQTX_QF_CAN_BYPASS;
	else
		q->flags &= ~MQTX_QF_CAN_BYPASS;
}

static int bfifo_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	const struct mqtx_fifo_opt *o = opt;
	struct mqtx_fifo_priv *p = mqtx_qdisc_priv(q);

	(void)ack;
	mqtx_pkt_list_init(&p->list);
	/* Default: tx_queue_len full-sized frames. */
	bfifo_set_limit(q, o && o->has_limit
				   ? o->limit
				   : (uint64_t)mqtx_dev_tx_queue_len(q->dev) * mqtx__psched_mtu(q));
	return 0;
}

/* A lowered limit keeps what is queued: it drains, and newcomers wait for room (fifo_init). */
static int bfifo_change(struct mqtx_qdisc *q, const void *opt, struct mqtx_pkt **to_free,
			struct mqtx_extack *ack)
{
	const struct mqtx_fifo_opt *o = opt;

	(void)to_free;
	(void)ack;
	if (o && o->has_limit) {
		mqtx_qdisc_lock(q);
		bfifo_set_limit(q, o->limit);
		mqtx_qdisc_unlock(q);
	}
	return 0;
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
	.init = bfifo_init,
	.change = bfifo_change,
	.reset = mqtx__fifo_reset,
	.dump = bfifo_dump,
};
