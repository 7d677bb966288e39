// SPDX-License-Identifier: MIT
/* The end of qdiscs: drops, reset and destroy, and freeing a device's qdiscs. Bringing a
 * device down and destroying it need these (dev.c); the machinery above that makes and grafts
 * qdiscs (sched/) builds on them. */
#include "core/core.h"

int mqtx_qdisc_drop(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, enum mqtx_drop_reason reason,
		    struct mqtx_pkt **to_free)
{
	q->drops++;
	/* A receive drop belongs to the receive side (and a received packet's queue_mapping is
	 * the sender's, which may be beyond this device's queues). */
	pkt->drop_reason = (uint8_t)reason | ((q->flags & MQTX_QF_INGRESS) ? MQTX_PKT_DROP_RX : 0);
	mqtx_pkt_link(pkt, to_free);
	return MQTX_XMIT_DROP;
}

/* Lock held. Drop everything @q holds (requeue list and queue) for @r onto *@to_free. */
void mqtx_qdisc_reset(struct mqtx_qdisc *q, enum mqtx_drop_reason r, struct mqtx_pkt **to_free)
{
	struct mqtx_pkt *pkt, *reset_list = NULL;

	if (!q->ops->enqueue || (q->flags & MQTX_QF_BUILTIN))
		return;
	while ((pkt = mqtx_pkt_list_pop(&q->requeue)))
		mqtx_qdisc_drop(q, pkt, r, to_free);
	if (q->ops->reset) {
		q->ops->reset(q, &reset_list);
		while ((pkt = reset_list)) {
			reset_list = pkt->next;
			mqtx_qdisc_drop(q, pkt, r, to_free);
		}
	} else {
		while ((pkt = q->ops->dequeue(q)))
			mqtx_qdisc_drop(q, pkt, r, to_free);
	}
	q->qlen = 0;
	q->backlog = 0;
}

void mqtx_qdisc_destroy(struct mqtx_qdisc *q)
{
	struct mqtx_pkt *to_free = NULL;

	if (!q || (q->flags & MQTX_QF_BUILTIN))
		return;
	/* No lock: nothing on the data path can reach @q any more (the caller's contract), and
	 * the caller may hold the lock @q was rooted at (a qdisc freeing a child). */
	mqtx_qdisc_reset(q, MQTX_DROP_RESET, &to_free);
	mqtx__drops_free(q->dev, to_free, MQTX_DROP_KEEP);
	if (q->ops->destroy)
		q->ops->destroy(q);
	mqtx__free(q);
}

void mqtx__qtree_release(struct mqtx_dev *dev)
{
	struct mqtx_qdisc *root = dev->qtree.root;

	dev->qtree.root = NULL;
	if (root && root->ops->detach)
		root->ops->detach(root);
	mqtx_qdisc_destroy(root);
}

void mqtx__qtree_clear(struct mqtx_dev *dev)
{
	for (uint32_t i = 0; i < dev->num_txq; i++) {
		struct mqtx_qdisc *q = dev->txq[i].qdisc_sleeping;

		if (!q)
			continue;
		/* A shared qdisc is attached to several queues: destroy it once. */
		for (uint32_t j = i; j < dev->num_txq; j++)
			if (dev->txq[j].qdisc_sleeping == q)
				dev->txq[j].qdisc_sleeping = NULL;
		mqtx_qdisc_destroy(q);
	}
	mqtx__qtree_release(dev);
}
