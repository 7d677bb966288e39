// SPDX-License-Identifier: MIT
/* Transmit hooks: what runs on every packet before its TX queue is chosen (clsact's egress
 * filters, as Linux's sch_handle_egress() runs before netdev_core_pick_tx()). */
#include <errno.h>

#include "core/core.h"

int mqtx_dev_set_hook(struct mqtx_dev *dev, unsigned point, struct mqtx_hook *h)
{
	if (point >= MQTX_HOOK_MAX || !h || !h->fn)
		return -EINVAL;
	if (atomic_load_explicit(&dev->hooks[point], memory_order_relaxed))
		return -EBUSY;
	atomic_store_explicit(&dev->hooks[point], h, memory_order_release);
	return 0;
}

void mqtx_dev_clear_hook(struct mqtx_dev *dev, unsigned point, struct mqtx_hook *h)
{
	if (point >= MQTX_HOOK_MAX || !h ||
	    atomic_load_explicit(&dev->hooks[point], memory_order_relaxed) != h)
		return;
	atomic_store_explicit(&dev->hooks[point], NULL, memory_order_release);
	mqtx__rcu_synchronize();
}

/* Inside the transmit path's read section. MQTX_HOOK_PASS, or what a hook did with @pkt:
 * dropped it (freed and counted here) or stole it (counted as redirected; it owns it). */
int mqtx__run_hooks(struct mqtx_dev *dev, struct mqtx_pkt *pkt)
{
	for (unsigned p = 0; p < MQTX_HOOK_MAX; p++) {
		struct mqtx_hook *h = atomic_load_explicit(&dev->hooks[p], memory_order_acquire);
		uint32_t real, q;
		unsigned r;
		int rc;

		if (!h)
			continue;
		rc = h->fn(dev, pkt, h->arg);
		if (rc == MQTX_HOOK_PASS)
			continue;
		/* Before a queue is chosen: counted on the one a filter set, else on queue 0. */
		real = atomic_load_explicit(&dev->real_num_txq, memory_order_relaxed);
		q = pkt->queue_mapping < real ? pkt->queue_mapping : 0;
		if (rc == MQTX_HOOK_STOLEN) {
			mqtx__count_drop(&dev->txq[q], MQTX_DROP_REDIRECT, 1);
			return rc;
		}
		r = pkt->drop_reason;
		mqtx__count_drop(
			&dev->txq[q],
			r < MQTX_DROP_REASON_MAX ? (enum mqtx_drop_reason)r : MQTX_DROP_FILTER, 1);
		mqtx_pkt_free(pkt);
		return MQTX_HOOK_DROP;
	}
	return MQTX_HOOK_PASS;
}
