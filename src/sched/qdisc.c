// SPDX-License-Identifier: MIT
/* Qdisc objects: creation and destruction, drops and purges. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "core/core.h"
#include "sched/qtree.h"

/* ---- helpers ---- */

int mqtx_qdisc_stolen(struct mqtx_qdisc *q, struct mqtx_pkt *pkt)
{
	if (q->flags & MQTX_QF_INGRESS)
		MQTX_CNT_INC_SHARED(q->dev->rxq.drops[MQTX_DROP_REDIRECT], 1u);
	else
		mqtx__count_drop(&q->dev->txq[pkt->queue_mapping], MQTX_DROP_REDIRECT, 1);
	return MQTX_XMIT_SUCCESS;
}

uint64_t mqtx_qdisc_now(const struct mqtx_qdisc *q)
{
	return mqtx_clock_now(q->dev->clock);
}

/*
 * Dequeue alone does not empty a shaper out of tokens (tbf answers NULL and keeps its packets),
 * so what it holds back comes through its reset, which hands over its queue in its own order.
 */
void mqtx__qdisc_drain(struct mqtx_qdisc *q, struct mqtx_pkt_list *l)
{
	struct mqtx_pkt *pkt, *rest = NULL;

	while ((pkt = mqtx_pkt_list_pop(&q->requeue)))
		mqtx_pkt_list_add_tail(l, pkt);
	if (!q->ops->enqueue || (q->flags & MQTX_QF_BUILTIN))
		return;
	while ((pkt = q->ops->dequeue(q)))
		mqtx_pkt_list_add_tail(l, pkt);
	if (q->qlen && q->ops->reset)
		q->ops->reset(q, &rest);
	while ((pkt = rest)) {
		rest = pkt->next;
		mqtx_pkt_list_add_tail(l, pkt);
	}
	q->qlen = 0;
	q->backlog = 0;
}

/* ---- create / destroy ---- */

static _Atomic uint64_t qdisc_seq;

int mqtx__qdisc_new(struct mqtx_dev *dev, struct mqtx_txq *dev_queue,
		    const struct mqtx_qdisc_ops *ops, uint32_t handle, uint32_t parent,
		    const void *opt, uint32_t ingress_block, uint32_t egress_block,
		    struct mqtx_extack *ack, struct mqtx_qdisc **out)
{
	size_t head = ALIGN_UP(sizeof(struct mqtx_qdisc), MQTX_CACHE_LINE);
	struct mqtx_qdisc *q;
	int err;

	if (!dev || !dev_queue || !ops || dev_queue->dev != dev)
		return -EINVAL;
	q = mqtx__alloc_aligned(head + ALIGN_UP(ops->priv_size, MQTX_CACHE_LINE), MQTX_CACHE_LINE);
	if (!q)
		return -ENOMEM;
	memset(q, 0, head + ops->priv_size);
	q->ops = ops;
	q->dev = dev;
	q->dev_queue = dev_queue;
	q->handle = handle;
	q->parent = parent; /* qdisc_create(): init may ask where it goes (htb's offload) */
	q->flags = ops->static_flags;
	q->ingress_block = ingress_block;
	q->egress_block = egress_block;
	/* Linux hashes a qdisc when it is created, and tc dumps a hash bucket newest first. */
	q->seq = atomic_fetch_add(&qdisc_seq, 1);
	mqtx_pkt_list_init(&q->requeue);
	if (ops->init) {
		err = ops->init(q, opt, ack);
		if (err) {
			if (ops->destroy)
				ops->destroy(q);
			mqtx__free(q);
			return err;
		}
	}
	*out = q;
	return 0;
}

int mqtx_qdisc_create(struct mqtx_dev *dev, struct mqtx_txq *dev_queue,
		      const struct mqtx_qdisc_ops *ops, uint32_t handle, const void *opt,
		      struct mqtx_extack *ack, struct mqtx_qdisc **out)
{
	return mqtx__qdisc_new(dev, dev_queue, ops, handle, 0, opt, 0, 0, ack, out);
}

struct mqtx_qdisc *mqtx_txq_qdisc(struct mqtx_txq *txq)
{
	return txq->qdisc_sleeping;
}
