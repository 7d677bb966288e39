// SPDX-License-Identifier: MIT
/* The sim driver: per TX queue a ring of descriptors drained by a wire at a configured rate. */
#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <mqtx/sim.h>

#include "drivers/wire_clock.h"

struct sim_desc {
	struct mqtx_pkt *pkt;
	uint64_t due; /* when the wire finishes this frame */
};

/* One TX queue: its ring, its wire, its counters; written by xmit_burst and by completion. */
struct sim_q {
	pthread_mutex_t lock;
	struct sim_desc *ring;
	uint32_t head, count;
	uint64_t wire_free; /* when the wire finishes the last frame on the ring */
	bool stopped;	    /* this driver set DRV_XOFF and has not woken it yet */
	struct mqtx_sim_txq_stats st;
} __attribute__((aligned(MQTX_CACHE_LINE)));

struct sim_priv {
	struct mqtx_sim_cfg cfg; /* as configured; resolved into run at open */
	struct mqtx_sim_cfg run;
	struct sim_q *q;
	struct sim_desc *rings;
	uint32_t nq;
	struct mqtx_clock *clock;
	atomic_bool up;
	struct wire_clock wire; /* when the next completion round runs */
};

static struct sim_priv *sim_priv(struct mqtx_dev *dev)
{
	return mqtx_dev_priv(dev);
}

static bool is_sim(struct mqtx_dev *dev)
{
	return dev && mqtx_dev_ops(dev) == &mqtx_sim_ops;
}

/* Time a frame of @len bytes occupies the wire, rounded up to whole ns. */
static uint64_t sim_wire_ns(const struct mqtx_sim_cfg *c, uint32_t len)
{
	uint64_t t = 0;

	if (c->rate_pps)
		t = (MQTX_NSEC_PER_SEC + c->rate_pps - 1) / c->rate_pps;
	if (c->rate_bps) {
		unsigned __int128 bits = ((unsigned __int128)len + MQTX_SIM_WIRE_OVERHEAD) * 8;
		unsigned __int128 ns = (bits * MQTX_NSEC_PER_SEC + c->rate_bps - 1) / c->rate_bps;

		if (ns > t)
			t = ns > UINT64_MAX / 2 ? UINT64_MAX / 2 : (uint64_t)ns;
	}
	return t;
}

/* ---- completion ---- */

/* Complete what the wire of queue @i finished by @now; returns the next due time. */
static uint64_t sim_complete_q(struct sim_priv *s, struct mqtx_dev *dev, uint32_t i, uint64_t now,
			       struct mqtx_pkt_list *done)
{
	struct sim_q *q = &s->q[i];
	struct mqtx_txq *txq = mqtx_dev_txq(dev, i);
	uint32_t ring = s->run.ring, pkts = 0, bytes = 0;
	uint64_t next = UINT64_MAX;

	pthread_mutex_lock(&q->lock);
	while (q->count && q->ring[q->head].due <= now) {
		struct mqtx_pkt *pkt = q->ring[q->head].pkt;

		bytes += pkt->len;
		pkts++;
		mqtx_pkt_list_add_tail(done, pkt);
		if (++q->head == ring)
			q->head = 0;
		q->count--;
	}
	if (q->count)
		next = q->ring[q->head].due;
	if (pkts) {
		q->st.completed_pkts += pkts;
		q->st.completed_bytes += bytes;
		q->st.rounds++;
	}
	/* Woken under the ring lock so that a concurrent xmit_burst cannot stop the queue in
	 * between and be overridden by a stale wake. */
	if (q->stopped && ring - q->count >= s->run.wake_thresh && atomic_load(&s->up)) {
		q->stopped = false;
		q->st.wakes++;
		mqtx_txq_wake(txq);
	}
	pthread_mutex_unlock(&q->lock);
	if (pkts)
		mqtx_txq_completed(txq, pkts, bytes);
	return next;
}

/* One completion round ("interrupt"): every queue, then hand the frames on. The round is a
 * section: the queues that the wakes and BQL scheduled run at its end, with no ring lock held. */
static void sim_round(void *arg, uint64_t now)
{
	struct sim_priv *s = arg;
	struct mqtx_dev *dev = mqtx_dev_from_priv(s);
	struct mqtx_pkt_list done;
	uint64_t next = UINT64_MAX;

	mqtx_bh_disable();
	mqtx_pkt_list_init(&done);
	for (uint32_t i = 0; i < s->nq; i++) {
		uint64_t t = sim_complete_q(s, dev, i, now, &done);

		if (t < next)
			next = t;
	}
	mqtx__wire_clock_arm(&s->wire, next);
	if (s->run.peer) {
		struct mqtx_pkt *pkt;

		while ((pkt = mqtx_pkt_list_pop(&done)))
			mqtx_dev_receive(s->run.peer, pkt);
	} else {
		mqtx_pkt_free_list(done.head);
	}
	mqtx_bh_enable();
}

/* ---- data path ---- */

static unsigned sim_xmit_burst(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			       unsigned n, bool more)
{
	struct sim_priv *s = sim_priv(dev);
	struct sim_q *q = &s->q[mqtx_txq_index(txq)];
	uint32_t ring = s->run.ring;
	uint64_t now = mqtx_clock_now(s->clock), first_due = 0;
	unsigned take, free_;
	bool was_empty;

	(void)more; /* no doorbell to defer: the wire sees a frame when it is on the ring */

	pthread_mutex_lock(&q->lock);
	was_empty = q->count == 0;
	free_ = ring - q->count;
	/* Take what fits; the queue is stopped below while stop_thresh descriptors are still free,
	 * so with stop_thresh at least the stack's largest burst a running queue always has room
	 * and nothing is refused (as a Linux driver stops while MAX_SKB_FRAGS + 1 still fit).
	 * A smaller threshold models a driver that refuses the tail (NETDEV_TX_BUSY). */
	take = n < free_ ? n : free_;
	for (unsigned i = 0; i < take; i++) {
		struct mqtx_pkt *pkt = pkts[i];
		uint32_t tail = q->head + q->count;
		uint64_t start = now > q->wire_free ? now : q->wire_free;

		if (tail >= ring)
			tail -= ring;
		q->wire_free = start + sim_wire_ns(&s->run, pkt->len);
		q->ring[tail].pkt = pkt;
		q->ring[tail].due = q->wire_free;
		q->count++;
		/* Accounted before the completer can see the frame, as a driver does before its
		 * doorbell: BQL must never see a completion before the matching send. The limit
		 * is checked on the last frame of this burst, not deferred by @more (the qdisc
		 * backlog): Linux's xmit_more means "another skb in this bulk list". */
		mqtx_txq_sent(txq, pkt->len, i + 1 < take);
	}
	if (take)
		first_due = q->ring[q->head].due;
	if (!take)
		q->st.refused += n;
	if (q->count > q->st.ring_max)
		q->st.ring_max = q->count;
	/* Re-asserted every time so that a wake by someone else cannot make the stack spin on a
	 * full ring. */
	if (ring - q->count < s->run.stop_thresh) {
		if (!q->stopped) {
			q->stopped = true;
			q->st.stops++;
		}
		mqtx_txq_stop(txq);
	}
	pthread_mutex_unlock(&q->lock);
	if (was_empty && take)
		mqtx__wire_clock_arm(&s->wire, first_due);
	return take;
}

static uint32_t sim_inflight(struct mqtx_dev *dev, struct mqtx_txq *txq)
{
	struct sim_priv *s = sim_priv(dev);
	struct sim_q *q = &s->q[mqtx_txq_index(txq)];
	uint32_t n;

	pthread_mutex_lock(&q->lock);
	n = q->count;
	pthread_mutex_unlock(&q->lock);
	return n;
}

/* ---- control path ---- */

/* Fill the defaults of @c in place and check it; 0 or -EINVAL. */
static int sim_resolve(struct mqtx_dev *dev, struct mqtx_sim_cfg *c)
{
	if (!c->ring)
		c->ring = MQTX_SIM_RING_DEFAULT;
	if (c->ring > MQTX_SIM_RING_MAX) {
		mqtx_log(MQTX_LOG_ERR, "sim: ring %u out of range 1..%u", c->ring,
			 MQTX_SIM_RING_MAX);
		return -EINVAL;
	}
	/* Default: room for the largest burst the stack hands over (64), at most a quarter ring. */
	if (!c->stop_thresh)
		c->stop_thresh = c->ring / 4 > 64 ? 64 : (c->ring / 4 ? c->ring / 4 : 1);
	if (c->stop_thresh > c->ring) {
		mqtx_log(MQTX_LOG_ERR, "sim: stop_thresh %u above ring %u", c->stop_thresh,
			 c->ring);
		return -EINVAL;
	}
	if (!c->wake_thresh)
		c->wake_thresh = c->ring / 4 > c->stop_thresh ? c->ring / 4 : c->stop_thresh;
	if (c->wake_thresh < c->stop_thresh || c->wake_thresh > c->ring) {
		mqtx_log(MQTX_LOG_ERR, "sim: wake_thresh %u outside stop_thresh..ring (%u..%u)",
			 c->wake_thresh, c->stop_thresh, c->ring);
		return -EINVAL;
	}
	if (c->peer && c->peer == dev) {
		mqtx_log(MQTX_LOG_ERR, "sim: peer is the device itself");
		return -EINVAL;
	}
	/* Real time needs rounds: without coalescing the completer would spin. */
	if (dev && !c->coalesce_ns && !mqtx_clock_is_virtual(mqtx_dev_clock(dev)))
		c->coalesce_ns = MQTX_SIM_REAL_COALESCE_NS;
	return 0;
}

static int sim_init(struct mqtx_dev *dev)
{
	struct sim_priv *s = sim_priv(dev);
	uint32_t nq = mqtx_dev_num_txq(dev);

	s->q = mqtx_alloc(nq * sizeof(*s->q), MQTX_CACHE_LINE);
	if (!s->q)
		return -ENOMEM;
	memset(s->q, 0, nq * sizeof(*s->q));
	s->nq = nq;
	for (uint32_t i = 0; i < nq; i++)
		pthread_mutex_init(&s->q[i].lock, NULL);
	s->clock = mqtx_dev_clock(dev);
	mqtx__wire_clock_init(&s->wire, s->clock, sim_round, s);
	return 0;
}

static void sim_uninit(struct mqtx_dev *dev)
{
	struct sim_priv *s = sim_priv(dev);

	for (uint32_t i = 0; i < s->nq; i++)
		pthread_mutex_destroy(&s->q[i].lock);
	mqtx__wire_clock_destroy(&s->wire);
	mqtx_free(s->q);
}

static int sim_open(struct mqtx_dev *dev)
{
	struct sim_priv *s = sim_priv(dev);
	struct mqtx_sim_cfg run = s->cfg;
	int err = sim_resolve(dev, &run);

	if (err)
		return err;
	s->rings = mqtx_alloc((size_t)s->nq * run.ring * sizeof(struct sim_desc), 0);
	if (!s->rings)
		return -ENOMEM;
	s->run = run;
	for (uint32_t i = 0; i < s->nq; i++) {
		struct sim_q *q = &s->q[i];

		q->ring = s->rings + (size_t)i * run.ring;
		q->head = q->count = 0;
		q->wire_free = 0;
		q->stopped = false;
	}
	atomic_store(&s->up, true);
	err = mqtx__wire_clock_start(&s->wire, run.coalesce_ns);
	if (err) {
		atomic_store(&s->up, false);
		mqtx_free(s->rings);
		s->rings = NULL;
		mqtx_log(MQTX_LOG_ERR, "sim: %s: cannot start the completion thread",
			 mqtx_dev_name(dev));
		return err;
	}
	return 0;
}

/* The device is down: stop completing, drop what is still on the rings (counted). */
static void sim_stop(struct mqtx_dev *dev)
{
	struct sim_priv *s = sim_priv(dev);

	atomic_store(&s->up, false);
	mqtx__wire_clock_stop(&s->wire);
	for (uint32_t i = 0; i < s->nq; i++) {
		struct sim_q *q = &s->q[i];

		pthread_mutex_lock(&q->lock);
		q->st.flushed += q->count;
		while (q->count) {
			mqtx_pkt_free(q->ring[q->head].pkt);
			if (++q->head == s->run.ring)
				q->head = 0;
			q->count--;
		}
		q->stopped = false;
		q->ring = NULL;
		pthread_mutex_unlock(&q->lock);
		mqtx_txq_bql_reset(mqtx_dev_txq(dev, i));
	}
	mqtx_free(s->rings);
	s->rings = NULL;
}

int mqtx_sim_configure(struct mqtx_dev *dev, const struct mqtx_sim_cfg *cfg)
{
	struct mqtx_sim_cfg c = *cfg;
	int err;

	if (!is_sim(dev))
		return -EINVAL;
	err = sim_resolve(dev, &c);
	if (err)
		return err;
	mqtx_dev_config_lock(dev);
	if (mqtx_dev_is_up(dev)) {
		mqtx_dev_config_unlock(dev);
		return -EBUSY;
	}
	/* Keep the caller's zeroes: defaults depend on the clock and are resolved at open. */
	sim_priv(dev)->cfg = *cfg;
	mqtx_dev_config_unlock(dev);
	return 0;
}

int mqtx_sim_get_cfg(struct mqtx_dev *dev, struct mqtx_sim_cfg *cfg)
{
	if (!is_sim(dev))
		return -EINVAL;
	mqtx_dev_config_lock(dev);
	*cfg = sim_priv(dev)->cfg;
	mqtx_dev_config_unlock(dev);
	/* What was configured was checked then, so resolving it again cannot fail. */
	return sim_resolve(dev, cfg);
}

int mqtx_sim_dev_create(const struct mqtx_dev_cfg *base, const struct mqtx_sim_cfg *sim,
			struct mqtx_dev **out)
{
	struct mqtx_dev_cfg c = *base;
	struct mqtx_sim_cfg sc = sim ? *sim : (struct mqtx_sim_cfg){ 0 };
	struct mqtx_dev *dev;
	int err;

	/* Checked before anything exists, so that a bad model creates nothing. */
	err = sim_resolve(NULL, &sc);
	if (err)
		return err;
	c.ops = &mqtx_sim_ops;
	c.priv_size = 0;
	err = mqtx_dev_create(&c, &dev);
	if (err)
		return err;
	if (sim)
		sim_priv(dev)->cfg = *sim;
	*out = dev;
	return 0;
}

int mqtx_sim_txq_stats(struct mqtx_dev *dev, uint32_t i, struct mqtx_sim_txq_stats *st)
{
	struct sim_q *q;

	if (!is_sim(dev) || i >= mqtx_dev_num_txq(dev))
		return -EINVAL;
	q = &sim_priv(dev)->q[i];
	pthread_mutex_lock(&q->lock);
	*st = q->st;
	st->ring = q->count;
	pthread_mutex_unlock(&q->lock);
	return 0;
}

int mqtx_sim_stats(struct mqtx_dev *dev, struct mqtx_sim_txq_stats *st)
{
	if (!is_sim(dev))
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	for (uint32_t i = 0; i < mqtx_dev_num_txq(dev); i++) {
		struct mqtx_sim_txq_stats q;

		mqtx_sim_txq_stats(dev, i, &q);
		st->completed_pkts += q.completed_pkts;
		st->completed_bytes += q.completed_bytes;
		st->ring += q.ring;
		if (q.ring_max > st->ring_max)
			st->ring_max = q.ring_max;
		st->refused += q.refused;
		st->flushed += q.flushed;
		st->stops += q.stops;
		st->wakes += q.wakes;
		st->rounds += q.rounds;
	}
	return 0;
}

/*
 * ethtool -G (ring), -C (coalesce) and the wire's rate: a NIC applies them when it resets its
 * rings, so they change only while the device is down (the next open resets). mtu and
 * txqueuelen are the core's. Config lock held.
 */
static int sim_change(struct mqtx_dev *dev, const struct mqtx_dev_settings *set, char *msg,
		      size_t msglen)
{
	struct sim_priv *s = sim_priv(dev);
	struct mqtx_sim_cfg c = s->cfg, check;

	if (!(set->mask & (MQTX_DEV_SET_RING | MQTX_DEV_SET_COALESCE | MQTX_DEV_SET_RATE)))
		return 0;
	if (mqtx_dev_is_up(dev)) {
		snprintf(msg, msglen,
			 "%s: ring, coalesce and rate change only while the device is "
			 "down (the NIC resets to apply them)",
			 mqtx_dev_name(dev));
		return -EBUSY;
	}
	if (set->mask & MQTX_DEV_SET_RING) {
		if (!set->ring || set->ring > MQTX_SIM_RING_MAX) {
			snprintf(msg, msglen, "%s: ring %u out of range 1..%u", mqtx_dev_name(dev),
				 set->ring, MQTX_SIM_RING_MAX);
			return -EINVAL;
		}
		c.ring = set->ring;
	}
	if (set->mask & MQTX_DEV_SET_COALESCE)
		c.coalesce_ns = set->coalesce_ns;
	if (set->mask & MQTX_DEV_SET_RATE) {
		c.rate_bps = set->rate_bps; /* the wire's new rate replaces a packet rate too */
		c.rate_pps = 0;
	}
	check = c;
	if (sim_resolve(dev, &check)) {
		snprintf(msg, msglen, "%s: ring %u is below the stop or wake threshold (%u, %u)",
			 mqtx_dev_name(dev), c.ring, c.stop_thresh, c.wake_thresh);
		return -EINVAL;
	}
	s->cfg = c; /* the caller's zeroes stay: defaults are resolved at open */
	return 0;
}

/* Config lock held: the wire's rate as configured (0: a packet rate or none). */
static uint64_t sim_link_rate(struct mqtx_dev *dev)
{
	return sim_priv(dev)->cfg.rate_bps;
}

const struct mqtx_dev_ops mqtx_sim_ops = {
	.kind = "sim",
	.priv_size = sizeof(struct sim_priv),
	.init = sim_init,
	.uninit = sim_uninit,
	.open = sim_open,
	.stop = sim_stop,
	.xmit_burst = sim_xmit_burst,
	.inflight = sim_inflight,
	.change = sim_change,
	.link_rate = sim_link_rate,
};
