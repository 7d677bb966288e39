// SPDX-License-Identifier: MIT
/* A packet's flow hash, computed on demand by the device's hasher and kept in the packet. */
#include "core/core.h"

/*
 * The flow hash of @pkt, computed the first time something needs it and kept in the packet (as
 * Linux's skb_get_hash()): selection computes it only where it chooses among several queues,
 * so a sender whose XPS map names one queue, or a range of one, pays nothing for it. False for
 * a frame without a flow (not IP).
 */
bool mqtx__pkt_hash(struct mqtx_dev *dev, struct mqtx_pkt *pkt)
{
	if (!(pkt->flags & (MQTX_PKT_F_HASH_VALID | MQTX_PKT_F_NO_HASH))) {
		struct mqtx_hasher *h = atomic_load_explicit(&dev->hasher, memory_order_acquire);

		if (mqtx_hasher_hash(h, pkt->data, pkt->len, &pkt->hash, NULL))
			pkt->flags |= MQTX_PKT_F_HASH_VALID;
		else
			pkt->flags |= MQTX_PKT_F_NO_HASH;
	}
	return pkt->flags & MQTX_PKT_F_HASH_VALID;
}

bool mqtx_dev_flow_hash(struct mqtx_dev *dev, struct mqtx_pkt *pkt)
{
	bool valid;

	mqtx__rcu_read_lock();
	valid = mqtx__pkt_hash(dev, pkt);
	mqtx__rcu_read_unlock();
	return valid;
}
