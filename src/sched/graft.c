// SPDX-License-Identifier: MIT
/* Grafting: the commit pass that swaps qdiscs on TX queues and cannot fail. Under traffic the
 * old qdiscs are quiesced, their backlog moved in order into the new ones, then retired. */
#include "core/core.h"
#include "sched/qtree.h"

static bool seen_before(struct mqtx_qdisc *const *v, uint32_t i, struct mqtx_qdisc *q)
{
	for (uint32_t j = 0; j < i; j++)
		if (v[j] == q)
			return true;
	return false;
}

/* Flag the qdiscs attached to exactly one queue: they may bulk-dequeue and test that queue's
 * state before dequeuing (Linux's TCQ_F_ONETXQUEUE). */
static void mark_onetxqueue(struct mqtx_dev *dev, struct mqtx_qdisc *const *qs)
{
	for (uint32_t i = 0; i < dev->num_txq; i++) {
		struct mqtx_qdisc *q = qs[i];
		uint32_t users = 0;

		for (uint32_t j = 0; j < dev->num_txq; j++)
			users += qs[j] == q;
		if (users == 1 && q->dev_queue == &dev->txq[i])
			q->flags |= MQTX_QF_ONETXQUEUE;
		else
			q->flags &= ~MQTX_QF_ONETXQUEUE;
	}
}

/* All queue locks held. Move what @o holds into the new qdisc of each packet's queue; what the
 * new ones refuse comes back on *@to_free, to be counted as MQTX_DROP_REPLACE. */
static void move_backlog(struct mqtx_qdisc *o, struct mqtx_qdisc *const *qs,
			 struct mqtx_pkt **to_free)
{
	struct mqtx_pkt_list all;
	struct mqtx_pkt *pkt;

	mqtx_pkt_list_init(&all);
	mqtx__qdisc_drain(o, &all);
	while ((pkt = mqtx_pkt_list_pop(&all))) {
		struct mqtx_qdisc *nq = qs[pkt->queue_mapping];

		if (nq->ops->enqueue)
			nq->ops->enqueue(nq, pkt, to_free);
		else
			mqtx_qdisc_drop(nq, pkt, MQTX_DROP_REPLACE, to_free);
	}
}

void mqtx_dev_graft_all(struct mqtx_dev *dev, struct mqtx_qdisc *const *qs, struct mqtx_qdisc **old)
{
	uint32_t n = dev->num_txq, i;
	struct mqtx_pkt *to_free = NULL;
	bool up = atomic_load(&dev->up);

	for (i = 0; i < n; i++) {
		struct mqtx_qdisc *o = dev->txq[i].qdisc_sleeping;

		old[i] = (o && o != qs[i] && !seen_before(old, i, o)) ? o : NULL;
	}
	if (up) {
		/* Stop the old ones being run, and wait out a runner inside the driver. */
		for (i = 0; i < n; i++) {
			if (!old[i])
				continue;
			mqtx_spin_lock(mqtx__qdisc_lock(old[i]));
			old[i]->flags |= MQTX_QF_GRAFTING;
			mqtx_spin_unlock(mqtx__qdisc_lock(old[i]));
			mqtx__qdisc_wait_idle(old[i]);
		}
		for (i = 0; i < n; i++)
			mqtx_spin_lock(&dev->txq[i].lock);
		for (i = 0; i < n; i++)
			if (old[i])
				move_backlog(old[i], qs, &to_free);
	}
	mark_onetxqueue(dev, qs);
	for (i = 0; i < n; i++) {
		struct mqtx_txq *txq = &dev->txq[i];

		txq->qdisc_sleeping = qs[i];
		if (up) {
			qs[i]->flags &= ~MQTX_QF_DEACTIVATED;
			atomic_store_explicit(&txq->qdisc, qs[i], memory_order_release);
		}
	}
	if (up) {
		for (i = 0; i < n; i++)
			if (old[i])
				old[i]->flags =
					(old[i]->flags & ~MQTX_QF_GRAFTING) | MQTX_QF_DEACTIVATED;
		for (i = n; i-- > 0;)
			mqtx_spin_unlock(&dev->txq[i].lock);
		/* Enqueuers that still hold an old pointer see DEACTIVATED and follow the new one;
		 * after the grace period none holds it any more. */
		mqtx__rcu_synchronize();
		mqtx__bh_disable(); /* the moved backlogs start at once, on this thread */
		for (i = 0; i < n; i++)
			if (!(atomic_load(&dev->txq[i].state) & MQTX_TXQ_ANY_XOFF))
				mqtx_txq_schedule(&dev->txq[i]);
		mqtx__bh_enable();
	}
	mqtx__drops_free(dev, to_free, MQTX_DROP_REPLACE);
}
