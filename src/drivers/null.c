// SPDX-License-Identifier: MIT
/* The null driver: takes every packet, counts it and frees it; can refuse every Nth burst
 * (returning 0 without stopping, like NETDEV_TX_BUSY) to exercise requeueing. */
#include "core.h"

struct null_priv {
	atomic_uint refuse_every;
	atomic_ullong calls;
	atomic_ullong packets, bytes;
};

static unsigned null_xmit_burst(struct mqtx_dev *dev, struct mqtx_txq *txq,
				struct mqtx_pkt **pkts, unsigned n, bool more)
{
	struct null_priv *p = mqtx_dev_priv(dev);
	unsigned every = atomic_load_explicit(&p->refuse_every, memory_order_relaxed);
	uint64_t bytes = 0;

	(void)txq;
	(void)more;
	if (every && (atomic_fetch_add_explicit(&p->calls, 1, memory_order_relaxed) + 1) % every == 0)
		return 0;
	for (unsigned i = 0; i < n; i++)
		bytes += pkts[i]->len;
	mqtx_pkt_free_bulk(pkts, n);
	/* Queues transmit concurrently: shared counters (the cost is the driver's, not the path's). */
	atomic_fetch_add_explicit(&p->packets, n, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->bytes, bytes, memory_order_relaxed);
	return n;
}

const struct mqtx_dev_ops mqtx_null_ops = {
	.kind = "null",
	.xmit_burst = null_xmit_burst,
};

void mqtx_null_set_refuse_every(struct mqtx_dev *dev, uint32_t n)
{
	atomic_store(&((struct null_priv *)mqtx_dev_priv(dev))->refuse_every, n);
}

void mqtx_null_counts(struct mqtx_dev *dev, uint64_t *packets, uint64_t *bytes)
{
	struct null_priv *p = mqtx_dev_priv(dev);

	*packets = atomic_load(&p->packets);
	*bytes = atomic_load(&p->bytes);
}
