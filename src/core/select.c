// SPDX-License-Identifier: MIT
/* Queue selection: the application's hook, the driver's select_queue, or the default picker
 * (the flow's cached queue, else XPS, else the flow hash scaled onto the queue range, as
 * Linux's netdev_pick_tx()), always capped. */
#include <errno.h>

#include "core/core.h"

void mqtx__dev_swap_hasher(struct mqtx_dev *dev, struct mqtx_hasher *h)
{
	struct mqtx_hasher *old;

	mqtx__config_lock(dev);
	old = atomic_exchange_explicit(&dev->hasher, h, memory_order_acq_rel);
	mqtx__config_unlock(dev);
	if (old) {
		mqtx__rcu_synchronize();
		mqtx_hasher_free(old);
	}
}

int mqtx_dev_set_hash(struct mqtx_dev *dev, const struct mqtx_hash_cfg *cfg)
{
	struct mqtx_hasher *h;
	int err;

	if (!cfg)
		return -EINVAL;
	err = mqtx_hasher_new(cfg, &h);
	if (err)
		return err;
	mqtx__dev_swap_hasher(dev, h);
	return 0;
}

void mqtx_dev_hash_cfg(struct mqtx_dev *dev, struct mqtx_hash_cfg *cfg)
{
	mqtx__config_lock(dev);
	*cfg = *mqtx_hasher_cfg(atomic_load(&dev->hasher));
	mqtx__config_unlock(dev);
}

int mqtx_dev_set_select_queue(struct mqtx_dev *dev, mqtx_select_fn fn, void *arg)
{
	struct mqtx_select_hook *h = NULL, *old;

	if (fn) {
		h = mqtx__alloc(sizeof(*h));
		if (!h)
			return -ENOMEM;
		h->fn = fn;
		h->arg = arg;
	}
	mqtx__config_lock(dev);
	old = atomic_exchange_explicit(&dev->select_hook, h, memory_order_acq_rel);
	mqtx__config_unlock(dev);
	mqtx__rcu_retire(old);
	return 0;
}

/* The queue range of @pkt's traffic class: [*qoffset, *qoffset + *qcount). */
static void tc_range(const struct mqtx_tc_map *tc, const struct mqtx_pkt *pkt, uint32_t *qoffset,
		     uint32_t *qcount)
{
	uint8_t c = tc->prio_tc_map[pkt->priority & 15];

	/* An empty class falls back to every queue, as Linux does. */
	if (tc->tc_to_txq[c].count) {
		*qoffset = tc->tc_to_txq[c].offset;
		*qcount = tc->tc_to_txq[c].count;
	}
}

/* Non-IP frames (no flow) use the first queue of their range (simple_tx_hash). */
static uint16_t hash_queue(struct mqtx_dev *dev, struct mqtx_pkt *pkt, uint32_t qoffset,
			   uint32_t qcount)
{
	if (qcount <= 1 || !mqtx__pkt_hash(dev, pkt))
		return (uint16_t)qoffset;
	return (uint16_t)(mqtx_reciprocal_scale(pkt->hash, qcount) + qoffset);
}

/* With a flow cache or XPS: the flow's cached queue, else XPS, else the hash. */
static uint16_t pick_steered(struct mqtx_dev *dev, struct mqtx_pkt *pkt, uint32_t real,
			     const struct mqtx_tc_map *tc)
{
	uint32_t qoffset = 0, qcount = real;
	int q, cached;

	/* A flow keeps the queue it was given until it may move (netdev_pick_tx()). */
	cached = mqtx__flow_cached(dev, pkt, real);
	if (cached >= 0)
		return (uint16_t)cached;
	if (tc)
		tc_range(tc, pkt, &qoffset, &qcount);
	/* XPS depends on the sending CPU: a flow the cache cannot hold does without it. */
	q = cached == MQTX_FLOW_TAKEN ? -1 : mqtx__xps_queue(dev, pkt, qoffset, qcount);
	if (q < 0)
		q = hash_queue(dev, pkt, qoffset, qcount);
	if (cached == MQTX_FLOW_NEW)
		return mqtx__flow_claim(dev, pkt, (uint16_t)q);
	return (uint16_t)q;
}

static uint16_t pick_tx(struct mqtx_dev *dev, struct mqtx_pkt *pkt, uint32_t real)
{
	struct mqtx_tc_map *tc = atomic_load_explicit(&dev->tc, memory_order_acquire);
	uint32_t qoffset = 0, qcount = real;

	if (unlikely(atomic_load_explicit(&dev->steered, memory_order_relaxed)))
		return pick_steered(dev, pkt, real, tc);
	if (tc)
		tc_range(tc, pkt, &qoffset, &qcount);
	return hash_queue(dev, pkt, qoffset, qcount);
}

/* Inside an RCU read section (the transmit path holds one). */
uint16_t mqtx__select_queue(struct mqtx_dev *dev, struct mqtx_pkt *pkt)
{
	/* One count for the whole selection: it may change under us (never past num_txq). */
	uint32_t real = atomic_load_explicit(&dev->real_num_txq, memory_order_relaxed);
	struct mqtx_select_hook *hook;
	uint32_t q;

	if (pkt->flags & MQTX_PKT_F_QMAP_SET) {
		q = pkt->queue_mapping;
	} else if (real == 1) {
		q = 0;
	} else {
		hook = atomic_load_explicit(&dev->select_hook, memory_order_acquire);
		if (hook)
			q = hook->fn(dev, pkt, hook->arg);
		else if (dev->ops->select_queue)
			q = dev->ops->select_queue(dev, pkt);
		else
			q = pick_tx(dev, pkt, real);
	}
	if (unlikely(q == MQTX_TXQ_DROP)) {
		/* The selector chose the queue that counts the drop; keep it in range. */
		if (pkt->queue_mapping >= real)
			pkt->queue_mapping = 0;
		return MQTX_TXQ_DROP;
	}
	if (unlikely(q >= real)) {
		/* Linux's netdev_cap_txqueue: out of range goes to queue 0, and is counted. */
		MQTX_DEV_PCPU_ADD(dev, capped, 1u);
		mqtx_dbg("%s selects TX queue %u, but real number of TX queues is %u", dev->name, q,
			 real);
		q = 0;
	}
	pkt->queue_mapping = (uint16_t)q;
	return (uint16_t)q;
}

uint16_t mqtx_dev_pick_tx_tc(struct mqtx_dev *dev, struct mqtx_pkt *pkt, unsigned tc)
{
	uint32_t real = atomic_load_explicit(&dev->real_num_txq, memory_order_relaxed);
	const struct mqtx_tc_map *tcm;
	uint16_t q;

	mqtx__rcu_read_lock();
	tcm = atomic_load_explicit(&dev->tc, memory_order_acquire);
	if (!tcm || tc >= tcm->num_tc || !tcm->tc_to_txq[tc].count) {
		q = pick_tx(dev, pkt, real);
	} else {
		q = hash_queue(dev, pkt, tcm->tc_to_txq[tc].offset, tcm->tc_to_txq[tc].count);
	}
	mqtx__rcu_read_unlock();
	return q < real ? q : 0;
}

uint16_t mqtx_dev_pick_tx(struct mqtx_dev *dev, struct mqtx_pkt *pkt)
{
	uint16_t q;

	mqtx__rcu_read_lock();
	q = pick_tx(dev, pkt, atomic_load_explicit(&dev->real_num_txq, memory_order_relaxed));
	mqtx__rcu_read_unlock();
	return q;
}

uint16_t mqtx_dev_select_queue(struct mqtx_dev *dev, struct mqtx_pkt *pkt)
{
	uint16_t q;

	mqtx__rcu_read_lock();
	q = mqtx__select_queue(dev, pkt);
	mqtx__rcu_read_unlock();
	return q;
}
