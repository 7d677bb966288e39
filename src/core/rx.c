// SPDX-License-Identifier: MIT
/* The receive side: the device's rx_queue, whose lock the ingress qdisc runs
 * under, and delivery to the registered handler. */
#include "core/core.h"

void mqtx_dev_set_rx_handler(struct mqtx_dev *dev, mqtx_rx_fn fn, void *arg)
{
	mqtx_spin_lock(&dev->rxq.lock);
	dev->rxq.fn = fn;
	dev->rxq.arg = arg;
	mqtx_spin_unlock(&dev->rxq.lock);
}

struct mqtx_qdisc *mqtx_dev_graft_ingress(struct mqtx_dev *dev, struct mqtx_qdisc *q)
{
	struct mqtx_qdisc *old;

	mqtx_spin_lock(&dev->rxq.lock);
	old = dev->rxq.qdisc;
	dev->rxq.qdisc = q;
	mqtx_spin_unlock(&dev->rxq.lock);
	return old;
}

struct mqtx_qdisc *mqtx_dev_ingress_qdisc(struct mqtx_dev *dev)
{
	return dev->rxq.qdisc;
}

MQTX_TLS bool mqtx__tc_at_ingress;

int mqtx_dev_receive(struct mqtx_dev *dev, struct mqtx_pkt *pkt)
{
	struct mqtx_pkt *to_free = NULL;
	struct mqtx_qdisc *q;
	mqtx_rx_fn fn;
	void *arg;
	uint32_t len = pkt->len;
	int rc = MQTX_XMIT_SUCCESS;

	/* What the filters send elsewhere goes in this read section, before the handler runs:
	 * a device they found (a block's port) cannot be freed before it has the packet, and
	 * the copies leave before the packet is delivered, as Linux's mirred sends them at once. */
	mqtx__rcu_read_lock();
	mqtx__fwd_enter();
	mqtx_spin_lock(&dev->rxq.lock);
	q = dev->rxq.qdisc;
	/* The ingress qdisc classifies or polices; it keeps nothing: accepted packets are taken
	 * straight back out. */
	if (q && q->ops->enqueue) {
		/* What a filter redirects leaves at the end (mqtx__fwd_leave()): every
		 * classification until then is of this packet, on the receive side. */
		mqtx__tc_at_ingress = true;
		rc = q->ops->enqueue(q, pkt, &to_free);
		mqtx__tc_at_ingress = false;
		if (rc != MQTX_XMIT_DROP)
			pkt = q->ops->dequeue(q);
		else
			pkt = NULL;
	}
	fn = dev->rxq.fn;
	arg = dev->rxq.arg;
	mqtx_spin_unlock(&dev->rxq.lock);
	/* Dropped by the ingress qdisc: counted on the receive side with its reason. */
	mqtx__drops_free(dev, to_free, MQTX_DROP_KEEP);
	mqtx__fwd_leave(); /* what its filters sent to other devices goes now */
	mqtx__rcu_read_unlock();
	if (!pkt) { /* dropped, or taken by a filter (a redirect, counted as such) */
		rc = rc == MQTX_XMIT_DROP ? MQTX_XMIT_DROP : MQTX_XMIT_SUCCESS;
	} else if (!fn) {
		MQTX_CNT_INC_SHARED(dev->rxq.drops[MQTX_DROP_NO_HANDLER], 1u);
		mqtx_pkt_free(pkt);
		rc = MQTX_XMIT_DROP;
	} else {
		MQTX_CNT_INC_SHARED(dev->rxq.packets, 1u);
		MQTX_CNT_INC_SHARED(dev->rxq.bytes, len);
		fn(dev, pkt, arg);
		rc = MQTX_XMIT_SUCCESS;
	}
	return rc;
}
