// SPDX-License-Identifier: MIT
/*
 * Re-entry under the held queue lock. A direct transmit calls the driver with the queue lock
 * held; what that driver sends back into the same qdisc is queued there and sent once the call
 * returns, and what it sends to a queue whose lock another thread holds waits until the end of
 * the thread's outermost transmit: a thread holding a queue lock never waits for another.
 * Loopback replies, a driver that sends into its own device (same queue and the other one), a
 * mirred filter sending to its own device, and two devices whose drivers send into each other
 * from two threads at once: no deadlock, every packet accounted for, every flow in order.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <mqtx/loopback.h>

#include "cls_fixture.h"
#include "contend.h"
#include "core/core.h" /* two cases wait for states of the core: a graft, a queue lock */

#define FLOWS		  32
#define HOPS		  8	 /* kinds of packet a flow has: its hop, or request/reply */
#define LONGQ		  100000 /* a qdisc longer than the pool: it never overflows */
#define SEQ(u)		  ((uint32_t)((u)&0xffffffu))
#define HOP(u)		  ((unsigned)((u) >> 24) & 0xffu)
#define FLOW(u)		  ((unsigned)((u) >> 32) % FLOWS)
#define TAG(f, h, s)	  ((uint64_t)(f) << 32 | (uint64_t)(h) << 24 | (s))
#define MIRRED_PER_SENDER 400

/* MQTX_CONTEND_PACKETS: packets per sender (20000 here divided by 4). */
static unsigned per_sender(void)
{
	const char *v = getenv("MQTX_CONTEND_PACKETS");
	unsigned long n = v && *v ? strtoul(v, NULL, 10) : 20000;

	return n < 4 ? 1 : n > 10000000 ? 2500000 : (unsigned)(n / 4);
}

/* ---- every flow's order, per kind of packet (a hop, request or reply) ---- */

struct order {
	pthread_mutex_t lock; /* seen from any thread that runs a driver or a handler */
	uint32_t next[FLOWS][HOPS];
	uint64_t count[FLOWS][HOPS];
	uint64_t reordered[HOPS], gaps[HOPS]; /* a packet overtaken makes one of each */
};

static void order_init(struct order *o)
{
	memset(o, 0, sizeof(*o));
	pthread_mutex_init(&o->lock, NULL);
}

static void order_see(struct order *o, uint64_t user)
{
	unsigned f = FLOW(user), h = HOP(user) % HOPS;
	uint32_t seq = SEQ(user);

	pthread_mutex_lock(&o->lock);
	if (seq < o->next[f][h])
		o->reordered[h]++;
	else if (seq > o->next[f][h])
		o->gaps[h]++;
	o->next[f][h] = seq + 1;
	o->count[f][h]++;
	pthread_mutex_unlock(&o->lock);
}

static uint64_t order_total(struct order *o, unsigned hop)
{
	uint64_t n = 0;

	pthread_mutex_lock(&o->lock);
	for (unsigned f = 0; f < FLOWS; f++)
		n += o->count[f][hop];
	pthread_mutex_unlock(&o->lock);
	return n;
}

/* ---- senders: flow i sends hop-0 packets TAG(i, 0, seq) on queue i % nq ---- */

struct senders;

struct sender {
	struct senders *s;
	unsigned id;
	pthread_t th;
};

struct senders {
	struct mqtx_dev *dev[2]; /* sender i sends into dev[i % ndev] */
	unsigned ndev, nq, n, per, burst;
	struct mqtx_pkt_pool *pool;
	atomic_uint ready;
	atomic_ullong sent[2];
	struct sender one[FLOWS];
};

static void *sender_main(void *arg)
{
	struct senders *s = ((struct sender *)arg)->s;
	unsigned id = ((struct sender *)arg)->id;
	struct mqtx_dev *dev = s->dev[id % s->ndev];
	uint32_t seq = 0;

	atomic_fetch_add(&s->ready, 1);
	while (atomic_load(&s->ready) < s->n)
		sched_yield();
	while (seq < s->per) {
		struct mqtx_pkt *b[32];
		unsigned k = 0;

		while (k < s->burst && seq < s->per) {
			struct mqtx_pkt *p = test_udp_pkt(s->pool, 0x0a100000 + id,
							  (uint16_t)(1000 + id), 80, seq);

			if (!p)
				break;
			p->user = TAG(id, 0, seq);
			p->queue_mapping = (uint16_t)(id % s->nq);
			p->flags |= MQTX_PKT_F_QMAP_SET;
			b[k++] = p;
			seq++;
		}
		if (!k) {
			sched_yield(); /* the pool is out: packets come back as they are sent */
			continue;
		}
		atomic_fetch_add(&s->sent[id % s->ndev], k);
		if (s->burst == 1)
			mqtx_dev_xmit(dev, b[0]);
		else
			mqtx_dev_xmit_burst(dev, b, k);
	}
	return NULL;
}

static void senders_run(struct senders *s)
{
	for (unsigned i = 0; i < s->n; i++) {
		s->one[i] = (struct sender){ .s = s, .id = i };
		assert_int_equal(pthread_create(&s->one[i].th, NULL, sender_main, &s->one[i]), 0);
	}
	for (unsigned i = 0; i < s->n; i++)
		ct_join(s->one[i].th, "a sender");
}

static struct mqtx_pkt_pool *mkpool(void)
{
	struct mqtx_pkt_pool *pool;

	assert_int_equal(
		mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 4096, .cache_size = 16 }, &pool),
		0);
	return pool;
}

static void free_pool(struct mqtx_pkt_pool *pool)
{
	assert_int_equal(mqtx_pool_in_use(pool), 0);
	mqtx_pool_destroy(pool);
}

/* ---- loopback: the receive handler answers every request on the same device ---- */

struct lo_state {
	struct order order; /* kind 0: requests, 1: replies */
	uint64_t trace[64]; /* the first tags received, in order (one sender) */
	atomic_uint ntrace;
	atomic_ullong reply_rc[3];
};

static void lo_rx(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg)
{
	struct lo_state *s = arg;
	unsigned t = atomic_fetch_add(&s->ntrace, 1);

	if (t < 64)
		s->trace[t] = pkt->user;
	order_see(&s->order, pkt->user);
	if (HOP(pkt->user)) {
		mqtx_pkt_free(pkt);
		return;
	}
	/* The request comes back as its own reply: a transmit into the device whose queue lock
	 * the direct transmit that delivered it holds. */
	pkt->user = TAG(FLOW(pkt->user), 1, SEQ(pkt->user));
	atomic_fetch_add(&s->reply_rc[mqtx_dev_xmit(dev, pkt)], 1);
}

static struct mqtx_dev *mklo(struct lo_state *s)
{
	struct mqtx_dev_cfg c = {
		.name = "lo", .ops = &mqtx_loopback_ops, .num_txq = 1, .tx_queue_len = LONGQ
	};
	struct mqtx_dev *dev;

	memset(s, 0, sizeof(*s));
	order_init(&s->order);
	assert_int_equal(mqtx_dev_create(&c, &dev), 0);
	mqtx_dev_set_rx_handler(dev, lo_rx, s);
	assert_int_equal(mqtx_dev_open(dev), 0);
	assert_string_equal(mqtx_txq_active_qdisc(mqtx_dev_txq(dev, 0))->ops->id, "pfifo_fast");
	return dev;
}

/* Every request came back and was answered, every reply came back; nothing dropped. */
static void lo_books(struct mqtx_dev *dev, struct lo_state *s, uint64_t requests)
{
	struct mqtx_loopback_stats ls;
	struct mqtx_dev_stats st;

	ct_drain(dev, NULL, NULL);
	st = ct_books(dev, 2 * requests, 0);
	assert_int_equal(order_total(&s->order, 0), requests);
	assert_int_equal(order_total(&s->order, 1), requests);
	assert_int_equal(atomic_load(&s->reply_rc[MQTX_XMIT_SUCCESS]), requests);
	for (unsigned h = 0; h < 2; h++) {
		assert_int_equal(s->order.reordered[h], 0);
		assert_int_equal(s->order.gaps[h], 0);
	}
	assert_int_equal(mqtx_loopback_get_stats(dev, &ls), 0);
	assert_int_equal(ls.packets, 2 * requests);
	assert_int_equal(st.rx_packets, 2 * requests);
	assert_int_equal(st.rx_drops, 0);
}

/*
 * One sender: each request goes straight to the driver with the lock held, its reply is queued
 * in that qdisc and sent by the same call right after: request 0, reply 0, request 1, reply 1;
 * a burst's replies follow the whole burst.
 */
static void test_loopback_reply_one_sender(void **state)
{
	struct mqtx_pkt_pool *pool = mkpool();
	struct mqtx_pkt *b[8];
	struct mqtx_dev_stats st;
	struct lo_state s;
	struct mqtx_dev *dev = mklo(&s);

	(void)state;
	for (uint32_t i = 0; i < 3; i++) {
		struct mqtx_pkt *p = test_udp_pkt(pool, 1, 1, 1, i);

		p->user = TAG(0, 0, i);
		assert_int_equal(mqtx_dev_xmit(dev, p), MQTX_XMIT_SUCCESS);
	}
	for (uint32_t i = 0; i < 8; i++) {
		b[i] = test_udp_pkt(pool, 1, 1, 1, i);
		b[i]->user = TAG(0, 0, 3 + i);
	}
	assert_int_equal(mqtx_dev_xmit_burst(dev, b, 8), 8);
	assert_int_equal(atomic_load(&s.ntrace), 22);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(s.trace[2 * i], TAG(0, 0, i));
		assert_int_equal(s.trace[2 * i + 1], TAG(0, 1, i));
	}
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(s.trace[6 + i], TAG(0, 0, 3 + i));
		assert_int_equal(s.trace[14 + i], TAG(0, 1, 3 + i));
	}
	lo_books(dev, &s, 11);
	/* The requests went straight to the driver; the replies through the qdisc. */
	mqtx_dev_get_stats(dev, &st);
	assert_int_equal(st.txq.bypass, 11);
	mqtx_dev_destroy(dev);
	free_pool(pool);
}

/* Several senders on the one queue: each reply re-enters whichever thread delivered it. */
static void loopback_reply(unsigned n, unsigned burst)
{
	struct senders snd = { .ndev = 1, .nq = 1, .n = n, .per = per_sender(), .burst = burst };
	struct lo_state s;
	struct mqtx_dev *dev = mklo(&s);

	snd.dev[0] = dev;
	snd.pool = mkpool();
	senders_run(&snd);
	lo_books(dev, &s, (uint64_t)n * snd.per);
	mqtx_dev_destroy(dev);
	free_pool(snd.pool);
}

static void test_loopback_reply_4_burst1(void **state)
{
	(void)state;
	loopback_reply(4, 1);
}

static void test_loopback_reply_8_burst32(void **state)
{
	(void)state;
	loopback_reply(8, 32);
}

/* ---- a driver that sends what it takes into its own device once more ---- */

struct self_priv {
	struct order order; /* kind 0: first pass, 1: second */
	bool cross;	    /* the second pass goes to the other queue */
	atomic_ullong rc[3], deferred;
};

static unsigned self_xmit(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			  unsigned n, bool more)
{
	struct self_priv *p = mqtx_dev_priv(dev);

	(void)more;
	for (unsigned i = 0; i < n; i++) {
		struct mqtx_pkt *pkt = pkts[i];

		order_see(&p->order, pkt->user);
		if (pkt->redirects)
			atomic_fetch_add(&p->deferred, 1);
		if (HOP(pkt->user)) {
			mqtx_pkt_free(pkt);
			continue;
		}
		pkt->user = TAG(FLOW(pkt->user), 1, SEQ(pkt->user));
		if (p->cross)
			pkt->queue_mapping = (uint16_t)(1 - mqtx_txq_index(txq));
		atomic_fetch_add(&p->rc[mqtx_dev_xmit(dev, pkt)], 1);
	}
	return n;
}

static const struct mqtx_dev_ops self_ops = {
	.kind = "selfsend",
	.priv_size = sizeof(struct self_priv),
	.xmit_burst = self_xmit,
};

/*
 * Same queue: the second pass enters the qdisc whose lock its own thread holds. Other queue
 * (two queues, senders on both): it takes the other queue's lock if it is free, and waits for
 * the end of the outermost transmit when another thread holds it (two threads each holding one
 * queue's lock and sending into the other's must not wait for each other).
 */
static void self_send(unsigned n, unsigned burst, bool cross)
{
	struct mqtx_dev_cfg c = {
		.name = "self0", .ops = &self_ops, .num_txq = cross ? 2 : 1, .tx_queue_len = LONGQ
	};
	struct senders snd = {
		.ndev = 1, .nq = c.num_txq, .n = n, .per = per_sender(), .burst = burst
	};
	struct mqtx_dev_stats st;
	struct self_priv *p;
	uint64_t sent;

	assert_int_equal(mqtx_dev_create(&c, &snd.dev[0]), 0);
	p = mqtx_dev_priv(snd.dev[0]);
	order_init(&p->order);
	p->cross = cross;
	assert_int_equal(mqtx_dev_open(snd.dev[0]), 0);
	snd.pool = mkpool();
	senders_run(&snd);
	sent = atomic_load(&snd.sent[0]);
	ct_drain(snd.dev[0], NULL, NULL);
	st = ct_books(snd.dev[0], 2 * sent, 0);
	assert_int_equal(st.txq.packets, 2 * sent);
	assert_int_equal(atomic_load(&p->rc[MQTX_XMIT_SUCCESS]), sent);
	assert_int_equal(order_total(&p->order, 0), sent);
	assert_int_equal(order_total(&p->order, 1), sent);
	printf("self0 %s: second passes deferred %llu\n", cross ? "other queue" : "same queue",
	       (unsigned long long)atomic_load(&p->deferred));
	assert_true(st.txq.bypass > 0); /* the direct path was taken */
	/* Whole flows, first passes in order. A second pass into the same queue enters that
	 * queue's qdisc in the driver's order; into the other queue, a deferred one can be
	 * overtaken by one another thread sends later (see ping_pong()). */
	for (unsigned f = 0; f < n; f++)
		assert_int_equal(p->order.next[f][0], snd.per);
	assert_int_equal(p->order.reordered[0], 0);
	assert_int_equal(p->order.gaps[0], 0);
	if (!cross) {
		assert_int_equal(p->order.reordered[1], 0);
		assert_int_equal(p->order.gaps[1], 0);
		assert_int_equal(atomic_load(&p->deferred), 0);
	}
	mqtx_dev_destroy(snd.dev[0]);
	free_pool(snd.pool);
}

static void test_self_same_queue_4_burst1(void **state)
{
	(void)state;
	self_send(4, 1, false);
}

static void test_self_same_queue_4_burst32(void **state)
{
	(void)state;
	self_send(4, 32, false);
}

static void test_self_other_queue_4_burst1(void **state)
{
	(void)state;
	self_send(4, 1, true);
}

static void test_self_other_queue_8_burst32(void **state)
{
	(void)state;
	self_send(8, 32, true);
}

/* ---- a mirred filter on the device a driver sends into under its held lock ---- */

struct mir_priv {
	struct mqtx_pkt_pool *pool;
	atomic_ullong outer, inner, nomem;
};

/* Each packet from a sender (UDP port 1000 + flow) makes the driver send one of its own
 * (port 2) into the same device; those it only takes. */
static unsigned mir_xmit(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			 unsigned n, bool more)
{
	struct mir_priv *p = mqtx_dev_priv(dev);

	(void)txq;
	(void)more;
	for (unsigned i = 0; i < n; i++) {
		uint64_t user = pkts[i]->user;
		struct mqtx_pkt *inner;

		mqtx_pkt_free(pkts[i]);
		if (HOP(user)) {
			atomic_fetch_add(&p->inner, 1);
			continue;
		}
		atomic_fetch_add(&p->outer, 1);
		inner = test_udp_pkt(p->pool, 0x0a200000, 2, 2, SEQ(user));
		if (!inner) {
			atomic_fetch_add(&p->nomem, 1);
			continue;
		}
		inner->user = TAG(FLOW(user), 1, SEQ(user));
		mqtx_dev_xmit(dev, inner);
	}
	return n;
}

static const struct mqtx_dev_ops mir_ops = {
	.kind = "mirself",
	.priv_size = sizeof(struct mir_priv),
	.xmit_burst = mir_xmit,
};

/*
 * The driver's packet goes through m0's egress filter while the thread holds m0's queue lock:
 * the filter mirrors it (or redirects it) to m0 itself, which mirred defers to the end of the
 * transmit, and the packet itself enters the qdisc the thread holds. A copy is mirrored again
 * each time it is sent, until the redirect limit: past MQTX_XMIT_RECURSION_MAX the filter
 * drops it. Per sender packet, mirror: 1 + 1 + 8 transmits (the sender's, the driver's, eight
 * copies), 9 taken, the last copy dropped as recursion; redirect: the driver's packet is stolen
 * and sent again eight times (8 redirect counts), then dropped as recursion: 10 transmits, 1
 * taken. With one sender or several, the totals are exact.
 */
static void mirred_self(unsigned n, unsigned burst, bool redirect)
{
	/* Few enough that every copy mirred makes finds a packet in the pool (a copy that
	 * finds none is not made: the totals would depend on timing). */
	struct senders snd = {
		.ndev = 1, .nq = 1, .n = n, .per = MIRRED_PER_SENDER, .burst = burst
	};
	struct mqtx_pool_cfg pc = { .count = 10 * 4 * MIRRED_PER_SENDER, .cache_size = 16 };
	struct mqtx_dev_cfg c = {
		.name = "m0", .ops = &mir_ops, .num_txq = 1, .tx_queue_len = LONGQ
	};
	struct mqtx_dev_stats st;
	struct mir_priv *p;
	uint64_t sent;
	struct cx cx;

	cx_setup(&cx);
	assert_int_equal(mqtx_pool_create(&pc, &snd.pool), 0);
	assert_int_equal(mqtx_dev_create(&c, &snd.dev[0]), 0);
	p = mqtx_dev_priv(snd.dev[0]);
	p->pool = snd.pool;
	assert_int_equal(mqtx_dev_open(snd.dev[0]), 0);
	assert_int_equal(mqtx_ctl_add_dev(cx.ctl, snd.dev[0]), 0);
	cx_ok(&cx, "qdisc add dev m0 clsact");
	cx_ok(&cx,
	      "filter add dev m0 egress protocol ip prio 1 u32 match ip sport 2 0xffff action "
	      "mirred egress %s dev m0",
	      redirect ? "redirect" : "mirror");
	senders_run(&snd);
	sent = atomic_load(&snd.sent[0]);
	ct_drain(snd.dev[0], NULL, NULL);
	assert_int_equal(atomic_load(&p->nomem), 0);
	assert_int_equal(atomic_load(&p->outer), sent);
	if (redirect) {
		st = ct_books(snd.dev[0], 10 * sent,
			      CT_DROP(MQTX_DROP_REDIRECT) | CT_DROP(MQTX_DROP_RECURSION));
		assert_int_equal(st.txq.packets, sent);
		assert_int_equal(st.txq.drops[MQTX_DROP_REDIRECT], 8 * sent);
		assert_int_equal(atomic_load(&p->inner), 0);
	} else {
		st = ct_books(snd.dev[0], 10 * sent, CT_DROP(MQTX_DROP_RECURSION));
		assert_int_equal(st.txq.packets, 9 * sent);
		assert_int_equal(atomic_load(&p->inner), 8 * sent);
	}
	assert_int_equal(st.txq.drops[MQTX_DROP_RECURSION], sent);
	assert_true(st.txq.bypass > 0);
	cx_teardown(&cx); /* destroys m0 */
	free_pool(snd.pool);
}

static void test_mirred_mirror_self_1(void **state)
{
	(void)state;
	mirred_self(1, 1, false);
}

static void test_mirred_mirror_self_4_burst16(void **state)
{
	(void)state;
	mirred_self(4, 16, false);
}

static void test_mirred_redirect_self_1_burst8(void **state)
{
	(void)state;
	mirred_self(1, 8, true);
}

static void test_mirred_redirect_self_4(void **state)
{
	(void)state;
	mirred_self(4, 1, true);
}

/* ---- a driver sends into its own device while a graft waits for the qdisc's runner ---- */

struct gr_priv {
	atomic_int in_driver; /* the runner's first call has started */
	uint64_t seen[4];     /* tags in the order taken (one call at a time) */
	atomic_uint nseen;
	atomic_ullong rc[3];
};

/* The first pass waits, inside the call, until a graft has taken the qdisc out of service,
 * then sends the packet into the same device again. */
static unsigned gr_xmit(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			unsigned n, bool more)
{
	struct gr_priv *p = mqtx_dev_priv(dev);

	(void)more;
	for (unsigned i = 0; i < n; i++) {
		struct mqtx_pkt *pkt = pkts[i];
		unsigned k = atomic_fetch_add(&p->nseen, 1);
		struct mqtx_qdisc *q = mqtx_txq_active_qdisc(txq);
		bool grafting = false;

		if (k < 4)
			p->seen[k] = pkt->user;
		if (HOP(pkt->user)) {
			mqtx_pkt_free(pkt);
			continue;
		}
		atomic_store(&p->in_driver, 1);
		while (!grafting) {
			sched_yield();
			mqtx_spin_lock(mqtx__qdisc_lock(q));
			grafting = q->flags & MQTX_QF_GRAFTING;
			mqtx_spin_unlock(mqtx__qdisc_lock(q));
		}
		pkt->user = TAG(FLOW(pkt->user), 1, SEQ(pkt->user));
		atomic_fetch_add(&p->rc[mqtx_dev_xmit(dev, pkt)], 1);
	}
	return n;
}

static const struct mqtx_dev_ops gr_ops = {
	.kind = "graftsend",
	.priv_size = sizeof(struct gr_priv),
	.xmit_burst = gr_xmit,
};

struct gr_run {
	struct mqtx_dev *dev;
	struct mqtx_ctl *ctl;
	struct mqtx_pkt *pkt;
	int graft_rc;
};

static void *gr_send_main(void *arg)
{
	struct gr_run *r = arg;

	mqtx_dev_xmit(r->dev, r->pkt);
	return NULL;
}

static void *gr_graft_main(void *arg)
{
	struct gr_run *r = arg;
	struct gr_priv *p = mqtx_dev_priv(r->dev);

	while (!atomic_load(&p->in_driver))
		sched_yield();
	r->graft_rc = fixture_run(r->ctl, "qdisc replace dev g0 root pfifo", NULL, NULL);
	return NULL;
}

/*
 * The sender runs the prio qdisc and is in the driver when a graft replaces prio: the graft
 * waits for that runner to finish, and the driver, still in its call, sends into the device.
 * That transmit cannot wait for the new qdisc (it would wait for itself): it goes into prio,
 * whose backlog the graft moves into pfifo, which sends it.
 */
static void test_self_send_during_graft(void **state)
{
	struct mqtx_dev_cfg c = {
		.name = "g0", .ops = &gr_ops, .num_txq = 1, .tx_queue_len = LONGQ
	};
	struct mqtx_pkt_pool *pool = mkpool();
	struct gr_run r = { 0 };
	struct mqtx_dev_stats st;
	pthread_t snd, gr;
	struct gr_priv *p;

	(void)state;
	assert_int_equal(mqtx_dev_create(&c, &r.dev), 0);
	p = mqtx_dev_priv(r.dev);
	assert_int_equal(mqtx_dev_open(r.dev), 0);
	assert_int_equal(mqtx_ctl_new(&r.ctl), 0);
	assert_int_equal(mqtx_ctl_add_dev(r.ctl, r.dev), 0);
	assert_int_equal(fixture_run(r.ctl, "qdisc replace dev g0 root prio", NULL, NULL), 0);
	r.pkt = test_udp_pkt(pool, 1, 1, 1, 0);
	r.pkt->user = TAG(0, 0, 7);
	assert_int_equal(pthread_create(&gr, NULL, gr_graft_main, &r), 0);
	assert_int_equal(pthread_create(&snd, NULL, gr_send_main, &r), 0);
	ct_join(snd, "the sender (in the driver)");
	ct_join(gr, "the graft");
	assert_int_equal(r.graft_rc, 0);
	ct_drain(r.dev, NULL, NULL);
	assert_int_equal(atomic_load(&p->nseen), 2);
	assert_int_equal(p->seen[0], TAG(0, 0, 7));
	assert_int_equal(p->seen[1], TAG(0, 1, 7));
	assert_int_equal(atomic_load(&p->rc[MQTX_XMIT_SUCCESS]), 1);
	st = ct_books(r.dev, 2, 0);
	assert_int_equal(st.txq.packets, 2);
	assert_string_equal(mqtx_txq_active_qdisc(mqtx_dev_txq(r.dev, 0))->ops->id, "pfifo");
	mqtx_ctl_free(r.ctl); /* destroys g0 */
	free_pool(pool);
}

/* ---- holding one queue's lock, a thread never waits for another's ---- */

static _Thread_local bool in_q1_call; /* this thread is in queue 1's driver call */

struct ab_priv {
	atomic_int nested; /* queue 0's driver was called inside queue 1's */
	atomic_ullong taken[2];
};

/* Queue 1's driver sends every packet on into queue 0; a call of queue 0's driver made from
 * inside it waits until another thread holds queue 0's lock and waits for queue 1's. */
static unsigned ab_xmit(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			unsigned n, bool more)
{
	struct ab_priv *p = mqtx_dev_priv(dev);
	unsigned qi = mqtx_txq_index(txq);

	(void)more;
	if (qi == 0 && in_q1_call) {
		struct mqtx_txq *t0 = mqtx_dev_txq(dev, 0), *t1 = mqtx_dev_txq(dev, 1);
		uint64_t until = ct_now() + CT_WAIT_NS;

		atomic_store(&p->nested, 1);
		while (!(atomic_load(&t0->lock.v) & MQTX_LOCK_HELD) ||
		       atomic_load(&t1->lock.v) < MQTX_LOCK_PARKED)
			if (ct_now() > until)
				break;
			else
				sched_yield();
	}
	for (unsigned i = 0; i < n; i++) {
		struct mqtx_pkt *pkt = pkts[i];

		if (qi == 1 && !HOP(pkt->user)) {
			pkt->user = TAG(FLOW(pkt->user), 1, SEQ(pkt->user));
			pkt->queue_mapping = 0;
			in_q1_call = true;
			mqtx_dev_xmit(dev, pkt);
			in_q1_call = false;
			continue;
		}
		atomic_fetch_add(&p->taken[qi], 1);
		mqtx_pkt_free(pkt);
	}
	return n;
}

static const struct mqtx_dev_ops ab_ops = {
	.kind = "abba",
	.priv_size = sizeof(struct ab_priv),
	.xmit_burst = ab_xmit,
};

struct ab_run {
	struct mqtx_dev *dev;
	struct mqtx_pkt *pkt;
	atomic_bool sent, frozen;
};

static void *ab_send_main(void *arg)
{
	struct ab_run *r = arg;

	mqtx_dev_xmit(r->dev, r->pkt);
	atomic_store(&r->sent, true);
	return NULL;
}

static void *ab_freeze_main(void *arg)
{
	struct ab_run *r = arg;

	mqtx_dev_lock_all_queues(r->dev); /* queue locks in index order */
	mqtx_dev_unlock_all_queues(r->dev);
	atomic_store(&r->frozen, true);
	return NULL;
}

/*
 * A sender goes straight to queue 1's driver, holding queue 1's lock; the driver sends into
 * queue 0, whose lock is free, and whose qdisc (prio) cannot be bypassed. Running that qdisc
 * there would mean dropping queue 0's lock around its driver call and waiting to take it back,
 * with queue 1's still held: mqtx_dev_lock_all_queues() on another thread takes queue 0's lock
 * meanwhile and waits for queue 1's, and neither thread moves again. The packet must be queued
 * and its queue run once the sender's transmit ends, with no lock held.
 */
static void test_nested_run_vs_lock_all_queues(void **state)
{
	struct mqtx_dev_cfg c = {
		.name = "ab0", .ops = &ab_ops, .num_txq = 2, .tx_queue_len = LONGQ
	};
	struct mqtx_pkt_pool *pool = mkpool();
	struct ab_run r = { 0 };
	struct mqtx_dev_stats st;
	struct mqtx_ctl *ctl;
	pthread_t snd, frz;
	struct ab_priv *p;
	bool freezer;

	(void)state;
	assert_int_equal(mqtx_dev_create(&c, &r.dev), 0);
	p = mqtx_dev_priv(r.dev);
	assert_int_equal(mqtx_dev_open(r.dev), 0);
	assert_int_equal(mqtx_ctl_new(&ctl), 0);
	assert_int_equal(mqtx_ctl_add_dev(ctl, r.dev), 0);
	assert_int_equal(fixture_run(ctl, "qdisc replace dev ab0 root handle 1: mq", NULL, NULL),
			 0);
	assert_int_equal(fixture_run(ctl, "qdisc replace dev ab0 parent 1:1 prio", NULL, NULL), 0);
	r.pkt = test_udp_pkt(pool, 1, 1, 1, 0);
	r.pkt->user = TAG(0, 0, 3);
	r.pkt->queue_mapping = 1;
	r.pkt->flags |= MQTX_PKT_F_QMAP_SET;
	assert_int_equal(pthread_create(&snd, NULL, ab_send_main, &r), 0);
	/* The freeze starts once queue 0's driver is called inside queue 1's, if it ever is. */
	while (!atomic_load(&r.sent) && !atomic_load(&p->nested))
		sched_yield();
	freezer = atomic_load(&p->nested);
	if (freezer)
		assert_int_equal(pthread_create(&frz, NULL, ab_freeze_main, &r), 0);
	ct_join(snd, "the sender");
	if (freezer)
		ct_join(frz, "the freeze");
	else
		ab_freeze_main(&r);
	assert_true(atomic_load(&r.frozen));
	ct_drain(r.dev, NULL, NULL);
	assert_int_equal(atomic_load(&p->taken[0]), 1);
	assert_int_equal(atomic_load(&p->taken[1]), 0);
	st = ct_books(r.dev, 2, 0);
	assert_int_equal(st.txq.packets, 2);
	mqtx_ctl_free(ctl); /* destroys ab0 */
	free_pool(pool);
}

/* ---- two devices whose drivers send into each other ---- */

struct pp_priv {
	struct mqtx_dev *peer;
	struct order order; /* kind: the hop */
	atomic_ullong finals, deferred;
};

static unsigned pp_xmit(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			unsigned n, bool more)
{
	struct pp_priv *p = mqtx_dev_priv(dev);

	(void)txq;
	(void)more;
	for (unsigned i = 0; i < n; i++) {
		struct mqtx_pkt *pkt = pkts[i];
		unsigned hop = HOP(pkt->user);

		order_see(&p->order, pkt->user);
		if (pkt->redirects)
			atomic_fetch_add(&p->deferred, 1);
		if (hop + 1 == HOPS) {
			atomic_fetch_add(&p->finals, 1);
			mqtx_pkt_free(pkt);
			continue;
		}
		pkt->user = TAG(FLOW(pkt->user), hop + 1, SEQ(pkt->user));
		mqtx_dev_xmit(p->peer, pkt);
	}
	return n;
}

static const struct mqtx_dev_ops pp_ops = {
	.kind = "pingpong",
	.priv_size = sizeof(struct pp_priv),
	.xmit_burst = pp_xmit,
};

/*
 * A's driver sends every packet it takes on to B, B's back to A, HOPS - 1 times; senders drive
 * both at once. A thread in A's driver holds A's queue lock and wants B's, one in B's driver
 * holds B's and wants A's: neither waits, the packet goes when its thread's transmit ends.
 * Each packet ends at its last hop: finals = sent, each device's books balance, and a flow's
 * packets reach their first driver in order. Later hops are not checked for order: a forward
 * deferred by one thread can be overtaken by the flow's next packet, which another thread's
 * call of the same driver forwards at once (counted, for the log).
 */
static void ping_pong(unsigned n, unsigned burst)
{
	struct senders snd = { .ndev = 2, .nq = 1, .n = n, .per = per_sender(), .burst = burst };
	uint64_t sent, finals = 0, overtaken = 0;
	struct mqtx_dev_stats st[2];

	for (unsigned d = 0; d < 2; d++) {
		struct mqtx_dev_cfg c = { .name = d ? "pp1" : "pp0",
					  .ops = &pp_ops,
					  .num_txq = 1,
					  .tx_queue_len = LONGQ };

		assert_int_equal(mqtx_dev_create(&c, &snd.dev[d]), 0);
		order_init(&((struct pp_priv *)mqtx_dev_priv(snd.dev[d]))->order);
	}
	for (unsigned d = 0; d < 2; d++) {
		((struct pp_priv *)mqtx_dev_priv(snd.dev[d]))->peer = snd.dev[1 - d];
		assert_int_equal(mqtx_dev_open(snd.dev[d]), 0);
	}
	snd.pool = mkpool();
	senders_run(&snd);
	sent = atomic_load(&snd.sent[0]) + atomic_load(&snd.sent[1]);
	for (unsigned d = 0; d < 2; d++)
		ct_drain(snd.dev[d], NULL, NULL);
	for (unsigned d = 0; d < 2; d++) {
		struct pp_priv *p = mqtx_dev_priv(snd.dev[d]);

		mqtx_dev_get_stats(snd.dev[d], &st[d]);
		/* Handed to it: its own senders' packets and the other's forwards. */
		assert_int_equal(st[d].xmit, st[d].txq.packets + test_drops(&st[d]));
		assert_int_equal(test_drops(&st[d]), 0);
		assert_int_equal(st[d].txq.qlen, 0);
		assert_int_equal(order_total(&p->order, 0), atomic_load(&snd.sent[d]));
		finals += atomic_load(&p->finals);
		for (unsigned h = 1; h < HOPS; h++)
			overtaken += p->order.reordered[h];
		printf("pp%u: forwards deferred %llu, overtaken so far %llu\n", d,
		       (unsigned long long)atomic_load(&p->deferred),
		       (unsigned long long)overtaken);
		for (unsigned f = 0; f < FLOWS; f++)
			assert_int_equal(p->order.next[f][0], f % 2 == d && f < n ? snd.per : 0);
		assert_int_equal(p->order.reordered[0], 0);
		assert_int_equal(p->order.gaps[0], 0);
	}
	assert_int_equal(finals, sent);
	assert_int_equal(st[0].txq.packets + st[1].txq.packets, sent * HOPS);
	assert_int_equal(st[0].xmit + st[1].xmit, sent * HOPS);
	for (unsigned d = 0; d < 2; d++)
		mqtx_dev_destroy(snd.dev[d]);
	free_pool(snd.pool);
}

static void test_ping_pong_2_burst1(void **state)
{
	(void)state;
	ping_pong(2, 1);
}

static void test_ping_pong_2_burst32(void **state)
{
	(void)state;
	ping_pong(2, 32);
}

static void test_ping_pong_8_burst8(void **state)
{
	(void)state;
	ping_pong(8, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loopback_reply_one_sender),
		cmocka_unit_test(test_loopback_reply_4_burst1),
		cmocka_unit_test(test_loopback_reply_8_burst32),
		cmocka_unit_test(test_self_same_queue_4_burst1),
		cmocka_unit_test(test_self_same_queue_4_burst32),
		cmocka_unit_test(test_self_other_queue_4_burst1),
		cmocka_unit_test(test_self_other_queue_8_burst32),
		cmocka_unit_test(test_mirred_mirror_self_1),
		cmocka_unit_test(test_mirred_mirror_self_4_burst16),
		cmocka_unit_test(test_mirred_redirect_self_1_burst8),
		cmocka_unit_test(test_mirred_redirect_self_4),
		cmocka_unit_test(test_self_send_during_graft),
		cmocka_unit_test(test_nested_run_vs_lock_all_queues),
		cmocka_unit_test(test_ping_pong_2_burst1),
		cmocka_unit_test(test_ping_pong_2_burst32),
		cmocka_unit_test(test_ping_pong_8_burst8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
