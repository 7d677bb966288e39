// SPDX-License-Identifier: MIT
/* The null driver: takes every packet, counts it and frees it; can refuse every Nth burst
 * (returning 0 without stopping, like NETDEV_TX_BUSY) to exercise requeueing. */
#include <errno.h>

#include <stdatomic.h>
#include <string.h>

#include <mqtx/driver.h>

/* Written under the queue's xmit lock only: one writer per queue, no shared cache line. */
struct null_queue {
	atomic_ullong calls, packets, bytes;
} __attribute__((aligned(MQTX_CACHE_LINE)));

/* One writer: a relaxed load and store, which readers may sample without a data race. */
static inline void cnt_add(atomic_ullong *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

struct null_priv {
	atomic_uint refuse_every;
	struct null_queue *q;
};

static int null_init(struct mqtx_dev *dev)
{
	struct null_priv *p = mqtx_dev_priv(dev);
	size_t size = sizeof(*p->q) * mqtx_dev_num_txq(dev);

	p->q = mqtx_alloc(size, MQTX_CACHE_LINE);
	if (!p->q)
		return -ENOMEM;
	memset(p->q, 0, size);
	return 0;
}

static void null_uninit(struct mqtx_dev *dev)
{
	mqtx_free(((struct null_priv *)mqtx_dev_priv(dev))->q);
}

static unsigned null_xmit_burst(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
				unsigned n, bool more)
{
	struct null_priv *p = mqtx_dev_priv(dev);
	struct null_queue *nq = &p->q[mqtx_txq_index(txq)];
	unsigned every = atomic_load_explicit(&p->refuse_every, memory_order_relaxed);
	uint64_t bytes = 0;

	(void)more;
	cnt_add(&nq->calls, 1);
	if (every && atomic_load_explicit(&nq->calls, memory_order_relaxed) % every == 0)
		return 0;
	for (unsigned i = 0; i < n; i++)
		bytes += pkts[i]->len;
	mqtx_pkt_free_bulk(pkts, n);
	cnt_add(&nq->packets, n);
	cnt_add(&nq->bytes, bytes);
	return n;
}

const struct mqtx_dev_ops mqtx_null_ops = {
	.kind = "null",
	.priv_size = sizeof(struct null_priv),
	.init = null_init,
	.uninit = null_uninit,
	.xmit_burst = null_xmit_burst,
};

void mqtx_null_set_refuse_every(struct mqtx_dev *dev, uint32_t n)
{
	atomic_store(&((struct null_priv *)mqtx_dev_priv(dev))->refuse_every, n);
}

void mqtx_null_counts(struct mqtx_dev *dev, uint64_t *packets, uint64_t *bytes)
{
	struct null_priv *p = mqtx_dev_priv(dev);

	*packets = *bytes = 0;
	for (uint32_t i = 0; i < mqtx_dev_num_txq(dev); i++) {
		*packets += atomic_load_explicit(&p->q[i].packets, memory_order_relaxed);
		*bytes += atomic_load_explicit(&p->q[i].bytes, memory_order_relaxed);
	}
}
