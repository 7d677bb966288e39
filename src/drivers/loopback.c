// SPDX-License-Identifier: MIT
/* The loopback driver: transmit is receive on the same device, with per-thread statistics. */
#include <errno.h>
#include <stdatomic.h>

#include <mqtx/loopback.h>

/* One thread's counters, on its own cache line so that senders never share a line. */
struct lb_slot {
	_Atomic uint64_t packets;
	_Atomic uint64_t bytes;
} __attribute__((aligned(MQTX_CACHE_LINE)));

static atomic_uint lb_next_slot;
static _Thread_local int lb_my_slot = -1;

/* The calling thread's slot index, assigned on first use (what per_cpu_ptr() gives Linux). */
static unsigned lb_slot_index(void)
{
	if (__builtin_expect(lb_my_slot < 0, 0))
		lb_my_slot =
			(int)(atomic_fetch_add_explicit(&lb_next_slot, 1, memory_order_relaxed) %
			      MQTX_LOOPBACK_STAT_SLOTS);
	return (unsigned)lb_my_slot;
}

static unsigned lb_xmit_burst(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			      unsigned n, bool more)
{
	struct lb_slot *slot = (struct lb_slot *)mqtx_dev_ml_priv(dev) + lb_slot_index();

	(void)txq;
	(void)more;
	for (unsigned i = 0; i < n; i++) {
		uint32_t len = pkts[i]->len;

		/* As Linux today: count only what the receive path accepted; its drops are
		 * counted there. Slots may be shared by threads, hence atomic adds. */
		if (mqtx_dev_receive(dev, pkts[i]) == MQTX_XMIT_SUCCESS) {
			atomic_fetch_add_explicit(&slot->packets, 1, memory_order_relaxed);
			atomic_fetch_add_explicit(&slot->bytes, len, memory_order_relaxed);
		}
	}
	return n;
}

static int lb_init(struct mqtx_dev *dev)
{
	size_t size = MQTX_LOOPBACK_STAT_SLOTS * sizeof(struct lb_slot);
	struct lb_slot *slots = mqtx_alloc(size, MQTX_CACHE_LINE);

	if (!slots)
		return -ENOMEM;
	for (unsigned i = 0; i < MQTX_LOOPBACK_STAT_SLOTS; i++) {
		atomic_init(&slots[i].packets, 0);
		atomic_init(&slots[i].bytes, 0);
	}
	/* ml_priv, not the private area, as Linux's loopback keeps its per-CPU stats. */
	mqtx_dev_set_ml_priv(dev, slots);
	return 0;
}

static void lb_uninit(struct mqtx_dev *dev)
{
	mqtx_free(mqtx_dev_ml_priv(dev));
	mqtx_dev_set_ml_priv(dev, NULL);
}

int mqtx_loopback_get_stats(struct mqtx_dev *dev, struct mqtx_loopback_stats *st)
{
	const struct lb_slot *slots;

	if (!dev || mqtx_dev_ops(dev) != &mqtx_loopback_ops)
		return -EINVAL;
	slots = mqtx_dev_ml_priv(dev);
	st->packets = st->bytes = 0;
	for (unsigned i = 0; i < MQTX_LOOPBACK_STAT_SLOTS; i++) {
		st->packets += atomic_load_explicit(&slots[i].packets, memory_order_relaxed);
		st->bytes += atomic_load_explicit(&slots[i].bytes, memory_order_relaxed);
	}
	return 0;
}

const struct mqtx_dev_ops mqtx_loopback_ops = {
	.kind = "loopback",
	.init = lb_init,
	.uninit = lb_uninit,
	.xmit_burst = lb_xmit_burst,
};
