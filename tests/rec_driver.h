/* SPDX-License-Identifier: MIT */
/* A driver that takes every packet and checks where each flow went: one queue per flow, and
 * the flow's packets in the order sent. pkt->user is (flow << 32 | sequence). */
#ifndef MQTX_TEST_REC_DRIVER_H
#define MQTX_TEST_REC_DRIVER_H

#include <pthread.h>
#include <stdatomic.h>

#include <mqtx/driver.h>

#define REC_FLOWS 256
#define REC_NQ	  4

struct rec_flow {
	int queue; /* -1: not seen */
	uint64_t last;
	uint64_t count;
};

/* A check the packets of one flow must pass besides their order (NULL: none). */
typedef bool (*rec_check_fn)(const struct mqtx_pkt *pkt, unsigned queue);

struct rec_priv {
	pthread_mutex_t lock; /* the driver's own lock (xmit_burst of several queues at once) */
	struct rec_flow flow[REC_FLOWS];
	uint64_t per_queue[REC_NQ];
	atomic_ullong taken, moved, bad_order, bad_check;
	bool moves_ok; /* a flow may change queue (a rule changed under traffic) */
	rec_check_fn check;
};

static inline struct rec_priv *rec(struct mqtx_dev *dev)
{
	return mqtx_dev_priv(dev);
}

static unsigned rec_xmit(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			 unsigned n, bool more)
{
	struct rec_priv *r = rec(dev);
	unsigned q = mqtx_txq_index(txq);

	(void)more;
	pthread_mutex_lock(&r->lock);
	for (unsigned i = 0; i < n; i++) {
		struct mqtx_pkt *p = pkts[i];
		struct rec_flow *f = &r->flow[(p->user >> 32) % REC_FLOWS];
		uint64_t seq = p->user & 0xFFFFFFFFu;

		if (f->queue >= 0 && (unsigned)f->queue != q) {
			atomic_fetch_add(&r->moved, 1);
			if (!r->moves_ok)
				atomic_fetch_add(&r->bad_order, 1);
		}
		/* within one queue a flow is never reordered */
		if (f->count && (unsigned)f->queue == q && seq <= f->last)
			atomic_fetch_add(&r->bad_order, 1);
		if (r->check && !r->check(p, q))
			atomic_fetch_add(&r->bad_check, 1);
		f->queue = (int)q;
		f->last = seq;
		f->count++;
		r->per_queue[q]++;
	}
	pthread_mutex_unlock(&r->lock);
	atomic_fetch_add(&r->taken, n);
	mqtx_pkt_free_bulk(pkts, n);
	return n;
}

static const struct mqtx_dev_ops rec_ops = {
	.kind = "rec",
	.xmit_burst = rec_xmit,
};

/* A 4-queue recording device named @name, up, added to @ctl. */
static inline struct mqtx_dev *rec_dev(struct mqtx_ctl *ctl, const char *name)
{
	struct mqtx_dev_cfg cfg = { .name = name,
				    .ops = &rec_ops,
				    .num_txq = REC_NQ,
				    .priv_size = sizeof(struct rec_priv) };
	struct mqtx_dev *dev;
	struct rec_priv *r;

	if (mqtx_dev_create(&cfg, &dev) || mqtx_dev_open(dev) || mqtx_ctl_add_dev(ctl, dev))
		abort();
	r = rec(dev);
	pthread_mutex_init(&r->lock, NULL);
	for (unsigned i = 0; i < REC_FLOWS; i++)
		r->flow[i].queue = -1;
	return dev;
}

#endif
