// SPDX-License-Identifier: MIT
/* XPS (steering by the sending CPU, Linux's xps_cpus) and the per-flow queue cache of the
 * default picker (the queue Linux remembers in a socket, changed on ooo_okay). */
#include <errno.h>
#include <sched.h>

#include "core/core.h"

/*
 * One XPS map, built anew on every change and published under RCU: for each queue the CPUs
 * that may use it (what mqtx_dev_xps() reports), and for each CPU its queues in ascending
 * order (what the picker reads), in one allocation.
 */
struct mqtx_xps {
	unsigned words; /* 64-bit words per queue's CPU mask */
	unsigned ncpus; /* CPUs 0..ncpus-1 may have queues */
	uint32_t *off;	/* CPU c's queues are q[off[c]] .. q[off[c + 1] - 1] */
	uint16_t *q;
	uint64_t mask[]; /* num_txq masks of @words words */
};

/* A flow's queue: the flow hash in the high half, queue + 1 in the low (0: empty). An entry
 * belongs to the first flow that takes it until the table is set again; a flow whose entry
 * another holds is not cached and follows the plain flow hash, which is the same on every
 * CPU, so it is never split either. */
struct mqtx_flow_cache {
	uint32_t mask;
	_Atomic uint64_t e[];
};

static uint64_t *txq_mask(struct mqtx_xps *x, uint32_t txq)
{
	return x->mask + (size_t)txq * x->words;
}

static bool has_cpu(const uint64_t *mask, unsigned cpu)
{
	return mask[cpu / 64] >> (cpu % 64) & 1;
}

/* Config lock held: tell the picker whether it must look at XPS and the flow cache. */
static void steered_update(struct mqtx_dev *dev)
{
	atomic_store_explicit(&dev->steered,
			      atomic_load(&dev->xps) != NULL || atomic_load(&dev->flows) != NULL,
			      memory_order_relaxed);
}

/* A map equal to @old (NULL: empty) but for queue @txq, which gets the @n CPUs of @cpus. */
static struct mqtx_xps *xps_build(struct mqtx_dev *dev, const struct mqtx_xps *old, uint32_t txq,
				  const unsigned *cpus, unsigned n)
{
	unsigned words = old ? old->words : 1, ncpus = 0, total = 0;
	size_t masks, size;
	struct mqtx_xps *x;

	for (unsigned i = 0; i < n; i++)
		if (cpus[i] / 64 + 1 > words)
			words = cpus[i] / 64 + 1;
	masks = (size_t)dev->num_txq * words;
	size = sizeof(*x) + masks * sizeof(uint64_t) + (words * 64 + 1) * sizeof(uint32_t) +
	       (size_t)dev->num_txq * words * 64 * sizeof(uint16_t);
	x = mqtx__zalloc(size);
	if (!x)
		return NULL;
	x->words = words;
	x->off = (uint32_t *)(x->mask + masks);
	x->q = (uint16_t *)(x->off + words * 64 + 1);
	for (uint32_t i = 0; old && i < dev->num_txq; i++)
		memcpy(txq_mask(x, i), txq_mask((struct mqtx_xps *)old, i),
		       old->words * sizeof(uint64_t));
	memset(txq_mask(x, txq), 0, words * sizeof(uint64_t));
	for (unsigned i = 0; i < n; i++)
		txq_mask(x, txq)[cpus[i] / 64] |= 1ull << (cpus[i] % 64);
	/* The per-CPU lists, queues ascending. */
	for (unsigned c = 0; c < words * 64; c++) {
		x->off[c] = total;
		for (uint32_t i = 0; i < dev->num_txq; i++)
			if (has_cpu(txq_mask(x, i), c))
				x->q[total++] = (uint16_t)i;
		if (total > x->off[c])
			ncpus = c + 1;
	}
	x->off[words * 64] = total;
	x->ncpus = ncpus;
	return x;
}

int mqtx_dev_set_xps(struct mqtx_dev *dev, uint32_t txq, const unsigned *cpus, unsigned n)
{
	struct mqtx_xps *old, *x;

	if (txq >= dev->num_txq || (n && !cpus))
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		if (cpus[i] >= MQTX_XPS_CPUS_MAX)
			return -EINVAL;
	mqtx__config_lock(dev);
	old = atomic_load(&dev->xps);
	x = xps_build(dev, old, txq, cpus, n);
	if (!x) {
		mqtx__config_unlock(dev);
		return -ENOMEM; /* the old map stays in use */
	}
	if (!x->ncpus) { /* an empty map costs the picker nothing */
		mqtx__free(x);
		x = NULL;
	}
	atomic_store_explicit(&dev->xps, x, memory_order_release);
	steered_update(dev);
	mqtx__config_unlock(dev);
	mqtx__rcu_retire(old); /* x is a new map, never old */
	return 0;
}

int mqtx_dev_xps(struct mqtx_dev *dev, uint32_t txq, unsigned *cpus, unsigned max)
{
	struct mqtx_xps *x;
	unsigned n = 0;

	if (txq >= dev->num_txq)
		return -EINVAL;
	mqtx__config_lock(dev);
	x = atomic_load(&dev->xps);
	for (unsigned c = 0; x && c < x->words * 64; c++) {
		if (!has_cpu(txq_mask(x, txq), c))
			continue;
		if (n < max)
			cpus[n] = c;
		n++;
	}
	mqtx__config_unlock(dev);
	return (int)n;
}

/* RCU read section held. Among this CPU's queues that lie in [qoffset, qoffset + qcount), the
 * one the flow hash picks (the first for a packet without a flow); -1 when there is none. */
int mqtx__xps_queue(struct mqtx_dev *dev, struct mqtx_pkt *pkt, uint32_t qoffset, uint32_t qcount)
{
	struct mqtx_xps *x = atomic_load_explicit(&dev->xps, memory_order_acquire);
	const uint16_t *q;
	unsigned cpu, lo, hi, k;
	int c;

	if (likely(!x))
		return -1;
	c = sched_getcpu();
	if (c < 0 || (unsigned)c >= x->ncpus)
		return -1;
	cpu = (unsigned)c;
	q = x->q + x->off[cpu];
	/* A CPU's queues ascend: those of the range are one run (all of them without classes). */
	lo = 0;
	hi = x->off[cpu + 1] - x->off[cpu];
	while (lo < hi && q[lo] < qoffset)
		lo++;
	while (hi > lo && q[hi - 1] >= qoffset + qcount)
		hi--;
	if (lo == hi)
		return -1;
	/* The hash only to choose among several (get_xps_queue() hashes only then). */
	k = hi - lo > 1 && mqtx__pkt_hash(dev, pkt) ? mqtx_reciprocal_scale(pkt->hash, hi - lo) : 0;
	return q[lo + k];
}

int mqtx_dev_set_flow_cache(struct mqtx_dev *dev, uint32_t entries)
{
	struct mqtx_flow_cache *fc = NULL, *old;

	if (entries & (entries - 1) || entries > (1u << 20))
		return -EINVAL;
	if (entries) {
		fc = mqtx__zalloc(sizeof(*fc) + entries * sizeof(fc->e[0]));
		if (!fc)
			return -ENOMEM;
		fc->mask = entries - 1;
	}
	mqtx__config_lock(dev);
	old = atomic_exchange_explicit(&dev->flows, fc, memory_order_acq_rel);
	steered_update(dev);
	mqtx__config_unlock(dev);
	mqtx__rcu_retire(old);
	return 0;
}

uint32_t mqtx_dev_flow_cache(struct mqtx_dev *dev)
{
	struct mqtx_flow_cache *fc;
	uint32_t n;

	mqtx__config_lock(dev);
	fc = atomic_load_explicit(&dev->flows, memory_order_acquire);
	n = fc ? fc->mask + 1 : 0;
	mqtx__config_unlock(dev);
	return n;
}

/*
 * RCU read section held. The flow's entry: the queue it was given (>= 0); MQTX_FLOW_NEW when
 * the entry is free for it (or it may move, MQTX_PKT_F_OOO_OKAY); MQTX_FLOW_TAKEN when another
 * flow holds the entry; MQTX_FLOW_NONE without a table or a flow hash.
 */
int mqtx__flow_cached(struct mqtx_dev *dev, struct mqtx_pkt *pkt, uint32_t real)
{
	struct mqtx_flow_cache *fc = atomic_load_explicit(&dev->flows, memory_order_acquire);
	uint64_t e;

	if (likely(!fc) || !mqtx__pkt_hash(dev, pkt))
		return MQTX_FLOW_NONE;
	e = atomic_load_explicit(&fc->e[pkt->hash & fc->mask], memory_order_relaxed);
	if (!e)
		return MQTX_FLOW_NEW;
	if ((uint32_t)(e >> 32) != pkt->hash)
		return MQTX_FLOW_TAKEN;
	if ((pkt->flags & MQTX_PKT_F_OOO_OKAY) || (e & 0xffff) - 1 >= real)
		return MQTX_FLOW_NEW;
	return (int)(e & 0xffff) - 1;
}

/*
 * Give the flow of @pkt queue @q, unless another sender gave it one first: the queue to use.
 * The entry is claimed with a compare-and-swap, so senders on two CPUs (two XPS answers) agree
 * on one queue and a flow is never split over two queues, which would reorder it.
 */
uint16_t mqtx__flow_claim(struct mqtx_dev *dev, const struct mqtx_pkt *pkt, uint16_t q)
{
	struct mqtx_flow_cache *fc = atomic_load_explicit(&dev->flows, memory_order_acquire);
	_Atomic uint64_t *slot = &fc->e[pkt->hash & fc->mask];
	uint64_t want = (uint64_t)pkt->hash << 32 | (q + 1u);
	uint64_t e = atomic_load_explicit(slot, memory_order_relaxed);

	for (;;) {
		bool mine = e && (uint32_t)(e >> 32) == pkt->hash;

		/* Taken by another flow meanwhile: no entry for us, the caller's queue stands. */
		if (e && !mine)
			return q;
		/* Ours already, from another sender, and no reason to move: follow it. */
		if (mine && e != want && !(pkt->flags & MQTX_PKT_F_OOO_OKAY))
			return (uint16_t)((e & 0xffff) - 1);
		if (e == want ||
		    atomic_compare_exchange_weak_explicit(slot, &e, want, memory_order_relaxed,
							  memory_order_relaxed))
			return q;
	}
}

void mqtx__xps_release(struct mqtx_dev *dev)
{
	mqtx__free(atomic_load(&dev->xps));
	mqtx__free(atomic_load(&dev->flows));
}
