/* SPDX-License-Identifier: MIT */
/* Senders sharing TX queues: each sender is one flow with sequence numbers, a driver checks
 * every flow's order as it takes the packets, and the books are checked once traffic stops. */
#ifndef MQTX_TEST_CONTEND_H
#define MQTX_TEST_CONTEND_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <mqtx/sim.h>

#include "helpers.h"

#define CT_MAX_FLOWS 64
#define CT_MAX_Q     4
#define CT_WAIT_NS   (60ull * 1000000000ull) /* a bound on failure, never a speed */

static inline uint64_t ct_now(void)
{
	return mqtx_clock_now(mqtx_clock_real());
}

/* pkt->user of a sender's packet: its flow (the sender) above, its sequence number below. */
static inline uint64_t ct_tag(unsigned flow, uint32_t seq)
{
	return (uint64_t)flow << 32 | seq;
}

/*
 * The order of every flow on every queue. A queue's packets are taken one driver call at a
 * time (its xmit lock, or one completion thread), so each column has one writer at a time.
 * A sequence number below the next expected one is a reorder (or a packet handed over twice);
 * one above it is a gap: a drop, which some cases allow.
 */
struct ct_order {
	uint32_t next[CT_MAX_FLOWS][CT_MAX_Q];
	atomic_ullong per_flow[CT_MAX_FLOWS];
	atomic_ullong seen, reordered, gaps;
};

static inline void ct_order_see(struct ct_order *o, const struct mqtx_pkt *pkt, unsigned q)
{
	unsigned f = (unsigned)(pkt->user >> 32 & 0x7fffffff) % CT_MAX_FLOWS;
	uint32_t seq = (uint32_t)pkt->user, *next = &o->next[f][q % CT_MAX_Q];

	if (seq < *next)
		atomic_fetch_add(&o->reordered, 1);
	else if (seq > *next)
		atomic_fetch_add(&o->gaps, 1);
	*next = seq + 1;
	atomic_fetch_add_explicit(&o->per_flow[f], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&o->seen, 1, memory_order_relaxed);
}

/* ---- the checking driver: a null driver that checks order (it never stops its queue) ---- */

/* In pkt->user: the driver has sent this packet into its own device once already. */
#define CT_AGAIN (1ull << 63)

struct ct_drv {
	struct ct_order order;
	/* Re-entry: every packet is sent into the same device once more, from xmit_burst, under
	 * the queue lock the direct transmit holds (its second passes are checked in @again). */
	bool resend;
	bool cross; /* ...into the other of two queues */
	struct ct_order again;
	atomic_ullong resent;
};

static inline unsigned ct_xmit(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			       unsigned n, bool more)
{
	struct ct_drv *d = mqtx_dev_priv(dev);

	(void)more;
	for (unsigned i = 0; i < n; i++) {
		struct mqtx_pkt *pkt = pkts[i];

		if (pkt->user & CT_AGAIN) {
			ct_order_see(&d->again, pkt, mqtx_txq_index(txq));
		} else {
			ct_order_see(&d->order, pkt, mqtx_txq_index(txq));
			if (d->resend) {
				pkt->user |= CT_AGAIN;
				if (d->cross) {
					pkt->queue_mapping = (uint16_t)(1 - mqtx_txq_index(txq));
					pkt->flags |= MQTX_PKT_F_QMAP_SET;
				}
				atomic_fetch_add(&d->resent, 1);
				mqtx_dev_xmit(dev, pkt);
				continue;
			}
		}
		mqtx_pkt_free(pkt);
	}
	return n;
}

static const struct mqtx_dev_ops ct_ops = {
	.kind = "ordered",
	.priv_size = sizeof(struct ct_drv),
	.xmit_burst = ct_xmit,
};

/* ---- the receiving end of a cable (sim's peer): checks order as frames arrive ---- */

struct ct_rx {
	pthread_mutex_t lock; /* frames arrive on completion threads */
	struct ct_order order;
};

static inline void ct_rx_fn(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg)
{
	struct ct_rx *r = arg;

	(void)dev;
	pthread_mutex_lock(&r->lock);
	ct_order_see(&r->order, pkt, pkt->queue_mapping);
	pthread_mutex_unlock(&r->lock);
	mqtx_pkt_free(pkt);
}

/* A sim device of config @c with a @ring-descriptor ring, cabled to a null *@peer whose
 * receive handler @rx checks the order of what arrives. */
static inline void ct_sim_create(struct mqtx_dev_cfg *c, unsigned ring, struct ct_rx *rx,
				 struct mqtx_dev **peer, struct mqtx_dev **dev)
{
	struct mqtx_dev_cfg pcfg = { .name = "peer", .ops = &mqtx_null_ops, .num_txq = 1 };
	struct mqtx_sim_cfg sc = { .ring = ring };

	pthread_mutex_init(&rx->lock, NULL);
	assert_int_equal(mqtx_dev_create(&pcfg, peer), 0);
	mqtx_dev_set_rx_handler(*peer, ct_rx_fn, rx);
	sc.peer = *peer;
	assert_int_equal(mqtx_sim_dev_create(c, &sc, dev), 0);
}

/* ---- senders ---- */

struct ct_run {
	struct mqtx_dev *dev;
	struct mqtx_pkt_pool *pool;
	unsigned senders;
	unsigned per_sender; /* packets each; 0: until @stop */
	unsigned burst;	     /* 1: mqtx_dev_xmit(); more: bursts of 1..burst (or exactly) */
	bool burst_varies;
	unsigned nq;	  /* sender i sends on queue i % nq; 0: the device selects */
	uint32_t len;	  /* frame length (0: 64) */
	atomic_bool stop; /* the senders of an open-ended run end */
	atomic_uint running;
	atomic_ullong sent, nomem;
};

struct ct_sender {
	struct ct_run *run;
	unsigned id;
	uint32_t seq;
	pthread_t th;
};

static inline struct mqtx_pkt *ct_pkt(struct ct_run *run, unsigned id, uint32_t seq)
{
	struct mqtx_pkt *p =
		test_udp_pkt(run->pool, 0x0a100000 + id, (uint16_t)(1000 + id), 80, seq);

	if (!p)
		return NULL;
	if (run->len > p->len && !mqtx_pkt_put(p, run->len - p->len))
		abort();
	p->user = ct_tag(id, seq);
	if (run->nq) {
		p->queue_mapping = (uint16_t)(id % run->nq);
		p->flags |= MQTX_PKT_F_QMAP_SET;
	}
	return p;
}

static inline void *ct_sender_main(void *arg)
{
	struct ct_sender *s = arg;
	struct ct_run *run = s->run;
	unsigned rng = s->id * 7919 + 1;

	atomic_fetch_add(&run->running, 1);
	while (atomic_load(&run->running) < run->senders)
		sched_yield(); /* all start together: the queue is shared from the first packet */
	for (;;) {
		struct mqtx_pkt *b[64];
		unsigned n = 0, want = run->burst;

		if (run->per_sender ? s->seq >= run->per_sender : atomic_load(&run->stop))
			break;
		if (run->burst_varies)
			want = 1 + (rng = rng * 1103515245 + 12345) % run->burst;
		while (n < want && (!run->per_sender || s->seq < run->per_sender)) {
			struct mqtx_pkt *p = ct_pkt(run, s->id, s->seq);

			if (!p)
				break;
			b[n++] = p;
			s->seq++;
		}
		if (!n) {
			/* The pool is out: packets come back as the driver completes them. */
			atomic_fetch_add(&run->nomem, 1);
			sched_yield();
			continue;
		}
		atomic_fetch_add(&run->sent, n);
		if (n == 1 && run->burst == 1)
			mqtx_dev_xmit(run->dev, b[0]);
		else
			mqtx_dev_xmit_burst(run->dev, b, n);
	}
	return NULL;
}

static inline void ct_start(struct ct_run *run, struct ct_sender *s)
{
	for (unsigned i = 0; i < run->senders; i++) {
		s[i] = (struct ct_sender){ .run = run, .id = i };
		assert_int_equal(pthread_create(&s[i].th, NULL, ct_sender_main, &s[i]), 0);
	}
}

/* Join @th, or fail if it has not ended within the bound: a deadlock, reported as one. */
static inline void ct_join(pthread_t th, const char *what)
{
	struct timespec until;
	int err;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)(CT_WAIT_NS / 1000000000ull);
	err = pthread_timedjoin_np(th, NULL, &until);
	if (err == ETIMEDOUT)
		fail_msg("%s did not finish: deadlock", what);
	assert_int_equal(err, 0);
}

static inline void ct_join_senders(struct ct_run *run, struct ct_sender *s)
{
	for (unsigned i = 0; i < run->senders; i++)
		ct_join(s[i].th, "a sender");
}

/* Until the stack holds nothing of @dev and @done(@arg) reaches what its driver took. */
static inline void ct_drain(struct mqtx_dev *dev, uint64_t (*done)(void *arg), void *arg)
{
	uint64_t until = ct_now() + CT_WAIT_NS;
	struct timespec ts = { 0, 200000 };
	struct mqtx_dev_stats st;

	for (;;) {
		mqtx_dev_get_stats(dev, &st);
		if (!st.txq.qlen && mqtx_dev_all_tx_empty(dev) &&
		    (!done || done(arg) == st.txq.packets))
			return;
		if (ct_now() > until)
			fail_msg("stranded on %s: %llu queued, %llu transmitted of %llu",
				 mqtx_dev_name(dev), (unsigned long long)st.txq.qlen,
				 (unsigned long long)st.txq.packets, (unsigned long long)st.xmit);
		nanosleep(&ts, NULL);
	}
}

#define CT_DROP(r) (1u << (r))

/* The books once traffic stopped: everything handed to the device was taken by its driver or
 * dropped, only for the reasons in @allowed, and nothing is queued. Returns the stats. */
static inline struct mqtx_dev_stats ct_books(struct mqtx_dev *dev, uint64_t sent, unsigned allowed)
{
	struct mqtx_dev_stats st;

	mqtx_dev_get_stats(dev, &st);
	assert_int_equal(st.xmit, sent);
	assert_int_equal(st.xmit, st.txq.packets + test_drops(&st) + st.txq.qlen);
	assert_int_equal(st.txq.qlen, 0);
	assert_int_equal(st.txq.backlog, 0);
	for (int r = 0; r < MQTX_DROP_REASON_MAX; r++)
		if (st.txq.drops[r] && !(allowed & CT_DROP(r)))
			fail_msg("%llu dropped as %s", (unsigned long long)st.txq.drops[r],
				 mqtx_drop_reason_name((enum mqtx_drop_reason)r));
	return st;
}

/* One line of what happened, for the log: sent, transmitted, each drop reason, bypassed. */
static inline void ct_print(const char *what, const struct mqtx_dev_stats *st)
{
	printf("%s: sent=%llu transmitted=%llu bypass=%llu", what, (unsigned long long)st->xmit,
	       (unsigned long long)st->txq.packets, (unsigned long long)st->txq.bypass);
	for (int r = 0; r < MQTX_DROP_REASON_MAX; r++)
		if (st->txq.drops[r])
			printf(" %s=%llu", mqtx_drop_reason_name((enum mqtx_drop_reason)r),
			       (unsigned long long)st->txq.drops[r]);
	printf(" requeues=%llu stops=%llu\n", (unsigned long long)st->txq.requeues,
	       (unsigned long long)st->txq.stops);
}

/* Senders: @n, but four per CPU when @n is 0 (more threads than cores), at most 32. */
static inline unsigned ct_senders(unsigned n)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (n)
		return n;
	return cpus < 1 ? 8 : cpus >= 8 ? 32 : 4 * (unsigned)cpus;
}

#endif
