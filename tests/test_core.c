// SPDX-License-Identifier: MIT
/* Core tests: device lifecycle, private area, queue control, requeue order, freezing, the
 * exact all-empty test, default selection. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "helpers.h"

/* A recording driver: remembers (queue, seq) of what it took; can be told to take at most
 * `accept` packets per call and to stop its queue when it has `ring` packets. */
#define REC_MAX 4096
struct rec_priv {
	unsigned accept; /* per call; UINT32_MAX: all */
	unsigned ring;	 /* stop the queue when held reaches this (0: never) */
	unsigned held[8];
	unsigned n;
	uint16_t q[REC_MAX];
	uint64_t seq[REC_MAX];
	struct mqtx_pkt *keep[8][REC_MAX / 8];
	unsigned calls;
	bool last_more;
	bool stop_on_refuse;
};

static unsigned rec_xmit(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			 unsigned n, bool more)
{
	struct rec_priv *p = mqtx_dev_priv(dev);
	unsigned qi = mqtx_txq_index(txq), take = n < p->accept ? n : p->accept;

	p->calls++;
	p->last_more = more;
	for (unsigned i = 0; i < take; i++) {
		p->q[p->n] = (uint16_t)qi;
		p->seq[p->n++] = pkts[i]->user;
		assert_int_equal(pkts[i]->queue_mapping, qi);
		if (p->ring) {
			p->keep[qi][p->held[qi]++] = pkts[i];
			if (p->held[qi] >= p->ring)
				mqtx_txq_stop(txq);
		} else {
			mqtx_pkt_free(pkts[i]);
		}
	}
	if (take < n && p->stop_on_refuse)
		mqtx_txq_stop(txq);
	return take;
}

static uint32_t rec_inflight(struct mqtx_dev *dev, struct mqtx_txq *txq)
{
	return ((struct rec_priv *)mqtx_dev_priv(dev))->held[mqtx_txq_index(txq)];
}

/* Complete everything queue @qi holds and wake it (what a driver's completion does). */
static void rec_complete(struct mqtx_dev *dev, unsigned qi)
{
	struct rec_priv *p = mqtx_dev_priv(dev);

	for (unsigned i = 0; i < p->held[qi]; i++)
		mqtx_pkt_free(p->keep[qi][i]);
	p->held[qi] = 0;
	mqtx_bh_disable(); /* a completion round: what it wakes runs at its end */
	mqtx_txq_wake(mqtx_dev_txq(dev, qi));
	mqtx_bh_enable();
}

static const struct mqtx_dev_ops rec_ops = {
	.kind = "rec",
	.xmit_burst = rec_xmit,
	.inflight = rec_inflight,
};

struct fixture {
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev;
	struct rec_priv *rec;
};

static struct fixture *make(unsigned nq, const struct mqtx_dev_ops *ops)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct mqtx_dev_cfg cfg = {
		.name = "t0", .ops = ops, .num_txq = nq, .priv_size = sizeof(struct rec_priv)
	};

	assert_int_equal(mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 8192 }, &f->pool), 0);
	assert_int_equal(mqtx_dev_create(&cfg, &f->dev), 0);
	f->rec = mqtx_dev_priv(f->dev);
	f->rec->accept = UINT32_MAX;
	return f;
}

static void unmake(struct fixture *f)
{
	mqtx_dev_destroy(f->dev);
	assert_int_equal(mqtx_pool_in_use(f->pool), 0);
	mqtx_pool_destroy(f->pool);
	free(f);
}

static void test_create_rules(void **state)
{
	struct mqtx_dev *dev;
	struct mqtx_dev_cfg cfg = { .name = "x", .ops = &rec_ops, .num_txq = 0 };

	(void)state;
	assert_int_equal(mqtx_dev_create(&cfg, &dev), -EINVAL);
	cfg.num_txq = MQTX_MAX_TXQ + 1;
	assert_int_equal(mqtx_dev_create(&cfg, &dev), -EINVAL);
	cfg.num_txq = 4;
	cfg.real_num_txq = 5;
	assert_int_equal(mqtx_dev_create(&cfg, &dev), -EINVAL);
	cfg.real_num_txq = 0;
	cfg.name = "";
	assert_int_equal(mqtx_dev_create(&cfg, &dev), -EINVAL);
	cfg.name = "a-name-that-is-far-too-long-for-a-device";
	assert_int_equal(mqtx_dev_create(&cfg, &dev), -EINVAL);
	cfg.name = "ok";
	cfg.num_txq = MQTX_MAX_TXQ;
	cfg.priv_size = 100;
	assert_int_equal(mqtx_dev_create(&cfg, &dev), 0);
	assert_int_equal(mqtx_dev_num_txq(dev), MQTX_MAX_TXQ);
	assert_int_equal(mqtx_dev_real_num_txq(dev), MQTX_MAX_TXQ);
	assert_null(mqtx_dev_txq(dev, MQTX_MAX_TXQ));
	assert_int_equal(mqtx_txq_index(mqtx_dev_txq(dev, 4095)), 4095);
	mqtx_dev_destroy(dev);
}

static void test_priv_offset(void **state)
{
	struct mqtx_dev *a, *b;
	struct mqtx_dev_cfg cfg = { .name = "p", .ops = &rec_ops, .num_txq = 1, .priv_size = 1 };

	(void)state;
	assert_int_equal(mqtx_dev_create(&cfg, &a), 0);
	cfg.num_txq = 64;
	cfg.priv_size = 5000;
	assert_int_equal(mqtx_dev_create(&cfg, &b), 0);
	/* Fixed offset (independent of queue count and size), cache-line aligned, invertible. */
	assert_int_equal((char *)mqtx_dev_priv(a) - (char *)a,
			 (char *)mqtx_dev_priv(b) - (char *)b);
	assert_int_equal((uintptr_t)mqtx_dev_priv(b) % MQTX_CACHE_LINE, 0);
	assert_ptr_equal(mqtx_dev_from_priv(mqtx_dev_priv(b)), b);
	/* Zeroed, and writable to its end. */
	assert_int_equal(((unsigned char *)mqtx_dev_priv(b))[4999], 0);
	memset(mqtx_dev_priv(b), 0xab, 5000);
	assert_null(mqtx_dev_ml_priv(b));
	mqtx_dev_set_ml_priv(b, a);
	assert_ptr_equal(mqtx_dev_ml_priv(b), a);
	mqtx_dev_destroy(a);
	mqtx_dev_destroy(b);
}

static void test_real_num_txq(void **state)
{
	struct fixture *f = make(8, &rec_ops);

	(void)state;
	assert_int_equal(mqtx_dev_set_real_num_txq(f->dev, 0), -EINVAL);
	assert_int_equal(mqtx_dev_set_real_num_txq(f->dev, 9), -EINVAL);
	assert_int_equal(mqtx_dev_set_real_num_txq(f->dev, 3), 0);
	assert_int_equal(mqtx_dev_real_num_txq(f->dev), 3);
	assert_int_equal(mqtx_dev_open(f->dev), 0);
	assert_int_equal(mqtx_dev_open(f->dev), -EALREADY);
	assert_int_equal(mqtx_dev_set_real_num_txq(f->dev, 9), -EINVAL);
	assert_int_equal(mqtx_dev_real_num_txq(f->dev), 3);
	/* Every selection lands inside the real range... */
	for (unsigned i = 0; i < 500; i++)
		mqtx_dev_xmit(f->dev, test_udp_pkt(f->pool, 0x0b000000 + i, (uint16_t)i, 9, i));
	for (unsigned i = 0; i < f->rec->n; i++)
		assert_true(f->rec->q[i] < 3);
	assert_int_equal(f->rec->n, 500);
	/* ...also after a change while up, which keeps the device up. */
	assert_int_equal(mqtx_dev_set_real_num_txq(f->dev, 2), 0);
	assert_true(mqtx_dev_is_up(f->dev));
	assert_int_equal(mqtx_dev_real_num_txq(f->dev), 2);
	for (unsigned i = 0; i < 500; i++)
		mqtx_dev_xmit(f->dev, test_udp_pkt(f->pool, 0x0b000000 + i, (uint16_t)i, 9, i));
	assert_int_equal(f->rec->n, 1000);
	for (unsigned i = 500; i < f->rec->n; i++)
		assert_true(f->rec->q[i] < 2);
	assert_int_equal(mqtx_dev_close(f->dev), 0);
	assert_int_equal(mqtx_dev_close(f->dev), -EALREADY);
	assert_int_equal(mqtx_dev_set_real_num_txq(f->dev, 8), 0);
	unmake(f);
}

static uint16_t select_fixed(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg)
{
	(void)dev;
	(void)pkt;
	return (uint16_t)(uintptr_t)arg;
}

static uint16_t select_by_user(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg)
{
	(void)dev;
	(void)arg;
	return (uint16_t)(pkt->user % 4);
}

/* A live shrink purges what the queues going out of use hold, and only that; a live grow
 * loses nothing. */
static void test_real_num_txq_live(void **state)
{
	struct fixture *f = make(4, &rec_ops);
	struct mqtx_txq_stats st[4];

	(void)state;
	assert_int_equal(mqtx_dev_open(f->dev), 0);
	mqtx_dev_set_select_queue(f->dev, select_by_user, NULL);
	mqtx_dev_stop_all_queues(f->dev);
	for (unsigned i = 0; i < 40; i++)
		mqtx_dev_xmit(f->dev, test_udp_pkt(f->pool, 1, 1, 9, i));
	assert_int_equal(mqtx_dev_set_real_num_txq(f->dev, 2), 0);
	for (uint32_t i = 0; i < 4; i++)
		mqtx_txq_get_stats(mqtx_dev_txq(f->dev, i), &st[i]);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(st[i].qlen, i < 2 ? 10 : 0);
		assert_int_equal(st[i].drops[MQTX_DROP_RESET], i < 2 ? 0 : 10);
		assert_int_equal(mqtx_txq_stats_drops(&st[i]), i < 2 ? 0 : 10);
	}
	assert_int_equal(mqtx_dev_set_real_num_txq(f->dev, 4), 0);
	mqtx_bh_disable();
	mqtx_dev_wake_all_queues(f->dev);
	mqtx_bh_enable(); /* the woken queues run here */
	assert_int_equal(f->rec->n, 20);
	for (unsigned i = 0; i < f->rec->n; i++)
		assert_true(f->rec->q[i] < 2);
	unmake(f);
}

static void test_select_cap_and_hook(void **state)
{
	struct fixture *f = make(4, &rec_ops);
	struct mqtx_dev_stats st;

	(void)state;
	mqtx_dev_open(f->dev);
	assert_int_equal(mqtx_dev_set_select_queue(f->dev, select_fixed, (void *)(uintptr_t)2), 0);
	mqtx_dev_xmit(f->dev, test_udp_pkt(f->pool, 1, 1, 1, 1));
	assert_int_equal(mqtx_dev_set_select_queue(f->dev, select_fixed, (void *)(uintptr_t)7), 0);
	mqtx_dev_xmit(f->dev, test_udp_pkt(f->pool, 1, 1, 1, 2));
	assert_int_equal(f->rec->q[0], 2);
	assert_int_equal(f->rec->q[1], 0); /* capped */
	mqtx_dev_get_stats(f->dev, &st);
	assert_int_equal(st.select_capped, 1);
	assert_int_equal(st.xmit, 2);
	/* Back to the default picker: a non-IP frame goes to queue 0. */
	mqtx_dev_set_select_queue(f->dev, NULL, NULL);
	struct mqtx_pkt *arp = test_udp_pkt(f->pool, 1, 1, 1, 3);
	arp->data[12] = 0x08;
	arp->data[13] = 0x06;
	assert_int_equal(mqtx_dev_select_queue(f->dev, arp), 0);
	mqtx_pkt_free(arp);
	unmake(f);
}

static void *no_memory(size_t size, size_t align, void *arg)
{
	(void)size;
	(void)align;
	(void)arg;
	return NULL;
}

/* Out of memory, setting a selector fails and the one in place keeps choosing. */
static void test_select_hook_no_memory(void **state)
{
	static const struct mqtx_allocator none = { no_memory, mqtx_default_free, NULL };
	struct fixture *f = make(4, &rec_ops);
	int err;

	(void)state;
	mqtx_dev_open(f->dev);
	assert_int_equal(mqtx_dev_set_select_queue(f->dev, select_fixed, (void *)(uintptr_t)2), 0);
	mqtx_set_allocator(&none);
	err = mqtx_dev_set_select_queue(f->dev, select_fixed, (void *)(uintptr_t)3);
	mqtx_set_allocator(NULL);
	assert_int_equal(err, -ENOMEM);
	mqtx_dev_xmit(f->dev, test_udp_pkt(f->pool, 1, 1, 1, 1));
	assert_int_equal(f->rec->q[0], 2);
	unmake(f);
}

/* The readers of counters under the caller's own config lock: they do not take it again
 * (before, this deadlocked), and they read what is there. */
static void test_stats_under_config_lock(void **state)
{
	struct fixture *f = make(4, &rec_ops);
	struct mqtx_dev_stats ds;
	struct mqtx_txq_stats ts;

	(void)state;
	mqtx_dev_open(f->dev);
	assert_int_equal(mqtx_dev_set_select_queue(f->dev, select_fixed, (void *)(uintptr_t)1), 0);
	mqtx_dev_xmit(f->dev, test_udp_pkt(f->pool, 1, 1, 1, 1));
	mqtx_dev_config_lock(f->dev);
	mqtx_dev_get_stats(f->dev, &ds);
	mqtx_txq_get_stats(mqtx_dev_txq(f->dev, 1), &ts);
	assert_true(mqtx_dev_all_tx_empty(f->dev));
	mqtx_dev_config_unlock(f->dev);
	assert_int_equal(ds.xmit, 1);
	assert_int_equal(ds.txq.packets, 1);
	assert_int_equal(ts.packets, 1);
	assert_true(mqtx_dev_config_trylock(f->dev));
	mqtx_dev_get_stats(f->dev, &ds);
	mqtx_dev_config_unlock(f->dev);
	assert_int_equal(ds.txq.packets, 1);
	/* Released: the next reader takes the lock itself, and lets it go. */
	mqtx_dev_get_stats(f->dev, &ds);
	assert_true(mqtx_dev_config_trylock(f->dev));
	mqtx_dev_config_unlock(f->dev);
	unmake(f);
}

static void test_same_flow_same_queue(void **state)
{
	struct fixture *f = make(8, &rec_ops);

	(void)state;
	mqtx_dev_open(f->dev);
	for (unsigned flow = 0; flow < 64; flow++) {
		int first = -1;

		for (unsigned k = 0; k < 5; k++) {
			struct mqtx_pkt *p = test_udp_pkt(f->pool, 0x0c000000 + flow, 1000, 53, k);
			int qi = mqtx_dev_select_queue(f->dev, p);

			if (first < 0)
				first = qi;
			assert_int_equal(qi, first);
			/* The cached hash is the jhash of simple_tx_hash, scaled by (h * n) >> 32. */
			assert_true(p->flags & MQTX_PKT_F_HASH_VALID);
			assert_int_equal(qi, mqtx_reciprocal_scale(p->hash, 8));
			mqtx_pkt_free(p);
		}
	}
	unmake(f);
}

static void test_stop_start_wake(void **state)
{
	struct fixture *f = make(2, &rec_ops);
	struct mqtx_txq *t0;
	struct mqtx_txq_stats st;

	(void)state;
	t0 = mqtx_dev_txq(f->dev, 0);
	/* Down: every queue is stopped. */
	assert_true(mqtx_txq_stopped(t0));
	mqtx_dev_open(f->dev);
	assert_false(mqtx_txq_stopped(t0));
	mqtx_dev_set_select_queue(f->dev, select_fixed, (void *)(uintptr_t)0);
	mqtx_txq_stop(t0);
	assert_int_equal(mqtx_txq_state(t0), MQTX_TXQ_DRV_XOFF);
	for (unsigned i = 0; i < 10; i++)
		assert_int_equal(mqtx_dev_xmit(f->dev, test_udp_pkt(f->pool, 1, 1, 1, i)),
				 MQTX_XMIT_SUCCESS);
	assert_int_equal(f->rec->n, 0); /* a stopped queue is not dequeued */
	mqtx_txq_get_stats(t0, &st);
	assert_int_equal(st.qlen, 10);
	/* start clears XOFF but does not run the queue (as Linux) */
	mqtx_txq_start(t0);
	mqtx_tx_action();
	assert_int_equal(f->rec->n, 0);
	/* wake on a running queue does nothing either */
	mqtx_txq_wake(t0);
	mqtx_tx_action();
	assert_int_equal(f->rec->n, 0);
	/* stop, then wake: it was stopped, so the queue is scheduled and runs */
	mqtx_txq_stop(t0);
	mqtx_bh_disable();
	mqtx_txq_wake(t0);
	assert_int_equal(mqtx_tx_action(), 1);
	mqtx_bh_enable();
	assert_int_equal(f->rec->n, 10);
	for (unsigned i = 0; i < 10; i++)
		assert_int_equal(f->rec->seq[i], i);
	mqtx_txq_get_stats(t0, &st);
	assert_int_equal(st.stops, 2);
	assert_int_equal(st.wakes, 1);
	assert_int_equal(st.qlen, 0);
	assert_int_equal(st.packets, 10);
	/* all queues */
	mqtx_dev_stop_all_queues(f->dev);
	assert_true(mqtx_txq_stopped(mqtx_dev_txq(f->dev, 1)));
	mqtx_dev_wake_all_queues(f->dev);
	assert_false(mqtx_txq_stopped(mqtx_dev_txq(f->dev, 1)));
	unmake(f);
}

/* The driver takes 3 per call: the rest is requeued at the head and keeps its order, and
 * packets sent later never overtake it. */
static void test_requeue_order(void **state)
{
	struct fixture *f = make(1, &rec_ops);
	struct mqtx_txq_stats st;
	struct mqtx_pkt *pkts[20];

	(void)state;
	mqtx_dev_open(f->dev);
	f->rec->accept = 3;
	for (unsigned i = 0; i < 20; i++)
		pkts[i] = test_udp_pkt(f->pool, 1, 1, 1, i);
	/* Held in a section: each refusal reschedules the busy queue on this thread's list, which
	 * drains in rounds here (without the section, rounds beyond a few go to the TX thread). */
	mqtx_bh_disable();
	assert_int_equal(mqtx_dev_xmit_burst(f->dev, pkts, 20), 20);
	for (int i = 0; i < 20 && f->rec->n < 20; i++)
		mqtx_tx_action();
	mqtx_bh_enable();
	assert_int_equal(f->rec->n, 20);
	for (unsigned i = 0; i < 20; i++)
		assert_int_equal(f->rec->seq[i], i);
	mqtx_txq_get_stats(mqtx_dev_txq(f->dev, 0), &st);
	assert_true(st.requeues > 0);
	assert_int_equal(st.packets, 20);
	unmake(f);
}

static void test_null_refuse_conserves(void **state)
{
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev;
	struct mqtx_dev_stats st;
	uint64_t np, nb;
	struct mqtx_dev_cfg cfg = { .name = "n", .ops = &mqtx_null_ops, .num_txq = 4 };

	(void)state;
	assert_int_equal(mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 4096 }, &pool), 0);
	assert_int_equal(mqtx_dev_create(&cfg, &dev), 0);
	mqtx_dev_open(dev);
	mqtx_null_set_refuse_every(dev, 3);
	/* One section: the refused bursts are retried on this thread only, so the counters below
	 * are at rest when read. */
	mqtx_bh_disable();
	for (unsigned i = 0; i < 3000; i++) {
		struct mqtx_pkt *b[4];

		for (unsigned k = 0; k < 4; k++)
			b[k] = test_udp_pkt(pool, i, (uint16_t)(k * 77), 7, i);
		mqtx_dev_xmit_burst(dev, b, 4);
	}
	while (mqtx_tx_action())
		;
	mqtx_bh_enable();
	mqtx_dev_get_stats(dev, &st);
	mqtx_null_counts(dev, &np, &nb);
	assert_int_equal(st.xmit, 12000);
	assert_int_equal(np, st.txq.packets);
	assert_true(st.txq.requeues > 0);
	assert_int_equal(st.xmit, st.txq.packets + test_drops(&st) + st.txq.qlen);
	assert_int_equal(mqtx_dev_close(dev), 0);
	mqtx_dev_get_stats(dev, &st);
	assert_int_equal(st.txq.qlen, 0);
	assert_int_equal(st.xmit, st.txq.packets + test_drops(&st));
	assert_int_equal(st.txq.drops[MQTX_DROP_DOWN], 12000 - np);
	mqtx_dev_destroy(dev);
	assert_int_equal(mqtx_pool_in_use(pool), 0);
	mqtx_pool_destroy(pool);
}

static void test_all_tx_empty(void **state)
{
	struct fixture *f = make(4, &rec_ops);
	struct mqtx_qdisc *q;

	(void)state;
	mqtx_dev_open(f->dev);
	assert_true(mqtx_dev_all_tx_empty(f->dev));
	/* The driver takes 1 of 2 and refuses the other, stopping its queue (NETDEV_TX_BUSY
	 * with the queue stopped): the refused packet sits in queue 3's requeue list only. */
	mqtx_dev_set_select_queue(f->dev, select_fixed, (void *)(uintptr_t)3);
	f->rec->accept = 1;
	f->rec->stop_on_refuse = true;
	struct mqtx_pkt *b[2] = { test_udp_pkt(f->pool, 1, 1, 1, 0),
				  test_udp_pkt(f->pool, 1, 1, 1, 1) };
	mqtx_dev_xmit_burst(f->dev, b, 2);
	q = mqtx_txq_qdisc(mqtx_dev_txq(f->dev, 3));
	assert_int_equal(f->rec->n, 1);
	assert_int_equal(q->requeue.len, 1);
	assert_int_equal(q->qlen, 0);
	assert_false(mqtx_dev_all_tx_empty(f->dev));
	f->rec->accept = UINT32_MAX;
	mqtx_bh_disable();
	mqtx_txq_wake(mqtx_dev_txq(f->dev, 3));
	mqtx_bh_enable();
	assert_int_equal(f->rec->n, 2);
	assert_int_equal(f->rec->seq[1], 1);
	assert_true(mqtx_dev_all_tx_empty(f->dev));
	/* Held by the driver (in flight) is not empty. */
	f->rec->ring = 100;
	mqtx_dev_xmit(f->dev, test_udp_pkt(f->pool, 1, 1, 1, 9));
	assert_false(mqtx_dev_all_tx_empty(f->dev));
	rec_complete(f->dev, 3);
	assert_true(mqtx_dev_all_tx_empty(f->dev));
	unmake(f);
}

static void test_lock_all_blocks(void **state)
{
	struct fixture *f = make(4, &rec_ops);
	unsigned before;

	(void)state;
	mqtx_dev_open(f->dev);
	mqtx_dev_lock_all(f->dev);
	for (unsigned i = 0; i < 4; i++)
		assert_true(mqtx_txq_state(mqtx_dev_txq(f->dev, i)) & MQTX_TXQ_FROZEN);
	for (unsigned i = 0; i < 200; i++)
		mqtx_dev_xmit(f->dev, test_udp_pkt(f->pool, 0x0d000000 + i, (uint16_t)i, 2, i));
	mqtx_tx_action();
	before = f->rec->n;
	assert_int_equal(before, 0); /* nothing reaches the driver on any queue */
	assert_false(mqtx_dev_all_tx_empty(f->dev));
	mqtx_dev_unlock_all(f->dev);
	assert_int_equal(f->rec->n, 200);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(mqtx_txq_state(mqtx_dev_txq(f->dev, i)), 0);
	unmake(f);
}

static void test_close_purges_counted(void **state)
{
	struct fixture *f = make(2, &rec_ops);
	struct mqtx_dev_stats st;

	(void)state;
	mqtx_dev_open(f->dev);
	mqtx_dev_stop_all_queues(f->dev);
	for (unsigned i = 0; i < 50; i++)
		mqtx_dev_xmit(f->dev, test_udp_pkt(f->pool, i, (uint16_t)i, 2, i));
	mqtx_dev_close(f->dev);
	/* Down: transmit drops with reason "down". */
	assert_int_equal(mqtx_dev_xmit(f->dev, test_udp_pkt(f->pool, 1, 1, 1, 1)), MQTX_XMIT_DROP);
	mqtx_dev_get_stats(f->dev, &st);
	assert_int_equal(st.txq.drops[MQTX_DROP_DOWN], 51);
	assert_int_equal(st.xmit, 51);
	assert_string_equal(mqtx_drop_reason_name(MQTX_DROP_DOWN), "down");
	/* Up again: fresh default qdiscs work. */
	assert_int_equal(mqtx_dev_open(f->dev), 0);
	assert_int_equal(mqtx_dev_xmit(f->dev, test_udp_pkt(f->pool, 1, 1, 1, 1)),
			 MQTX_XMIT_SUCCESS);
	assert_int_equal(f->rec->n, 1);
	unmake(f);
}

/* A queue woken while its device is down (before the first open, after a close: a driver's
 * late completion) is scheduled and run, and there is nothing to run: no crash, no packet. */
static void test_wake_while_down(void **state)
{
	struct fixture *f = make(2, &rec_ops);
	struct mqtx_dev_stats st;

	(void)state;
	mqtx_bh_disable();
	mqtx_txq_wake(mqtx_dev_txq(f->dev, 0));
	assert_int_equal(mqtx_tx_action(), 1);
	assert_int_equal(mqtx_dev_open(f->dev), 0);
	assert_int_equal(mqtx_dev_close(f->dev), 0);
	mqtx_txq_wake(mqtx_dev_txq(f->dev, 1));
	assert_int_equal(mqtx_tx_action(), 1);
	mqtx_bh_enable();
	assert_int_equal(mqtx_dev_xmit(f->dev, test_udp_pkt(f->pool, 1, 1, 1, 0)), MQTX_XMIT_DROP);
	mqtx_dev_get_stats(f->dev, &st);
	assert_int_equal(f->rec->n, 0);
	assert_int_equal(st.xmit, 1);
	assert_int_equal(st.txq.drops[MQTX_DROP_DOWN], 1);
	unmake(f);
}

static void test_pfifo_fast_bands(void **state)
{
	struct fixture *f = make(1, &rec_ops);
	static const uint32_t prio[6] = { 0, 1, 6, 2, 7, 4 }; /* bands 1 2 0 2 0 1 */
	char text[256], json[256];

	(void)state;
	mqtx_dev_open(f->dev);
	mqtx_txq_stop(mqtx_dev_txq(f->dev, 0));
	for (unsigned i = 0; i < 6; i++) {
		struct mqtx_pkt *p = test_udp_pkt(f->pool, 1, 1, 1, i);

		p->priority = prio[i];
		mqtx_dev_xmit(f->dev, p);
	}
	mqtx_bh_disable();
	mqtx_txq_wake(mqtx_dev_txq(f->dev, 0));
	mqtx_bh_enable();
	static const uint64_t want[6] = { 2, 4, 0, 5, 1, 3 };
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(f->rec->seq[i], want[i]);
	struct mqtx_qdisc *q = mqtx_txq_qdisc(mqtx_dev_txq(f->dev, 0));
	assert_string_equal(q->ops->id, "pfifo_fast");
	assert_true(mqtx_qdisc_dump_opts(q, text, sizeof(text), json, sizeof(json)) > 0);
	assert_string_equal(text, "bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1");
	assert_string_equal(json, "\"bands\":3,\"priomap\":[1,2,2,2,1,2,0,0,1,1,1,1,1,1,1,1],"
				  "\"multiqueue\":false");
	unmake(f);
}

static void *take_and_return_all(void *arg)
{
	struct mqtx_pkt_pool *pool = arg;
	struct mqtx_pkt *p[64];

	assert_int_equal(mqtx_pkt_alloc_bulk(pool, p, 64), 64);
	mqtx_pkt_free_bulk(p, 64); /* into this thread's cache */
	return NULL;
}

/* A thread that exits gives its cached packets back: another thread can take them all. */
static void test_pool_cache_returned_at_exit(void **state)
{
	struct mqtx_pkt_pool *pool;
	struct mqtx_pkt *p[64];
	pthread_t t;

	(void)state;
	assert_int_equal(mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 64 }, &pool), 0);
	assert_int_equal(pthread_create(&t, NULL, take_and_return_all, pool), 0);
	pthread_join(t, NULL);
	assert_int_equal(mqtx_pool_in_use(pool), 0);
	assert_int_equal(mqtx_pkt_alloc_bulk(pool, p, 64), 64);
	assert_int_equal(mqtx_pool_failures(pool), 0);
	mqtx_pkt_free_bulk(p, 64);
	mqtx_pool_destroy(pool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_rules),
		cmocka_unit_test(test_priv_offset),
		cmocka_unit_test(test_real_num_txq),
		cmocka_unit_test(test_real_num_txq_live),
		cmocka_unit_test(test_select_cap_and_hook),
		cmocka_unit_test(test_select_hook_no_memory),
		cmocka_unit_test(test_stats_under_config_lock),
		cmocka_unit_test(test_same_flow_same_queue),
		cmocka_unit_test(test_stop_start_wake),
		cmocka_unit_test(test_requeue_order),
		cmocka_unit_test(test_null_refuse_conserves),
		cmocka_unit_test(test_all_tx_empty),
		cmocka_unit_test(test_lock_all_blocks),
		cmocka_unit_test(test_close_purges_counted),
		cmocka_unit_test(test_wake_while_down),
		cmocka_unit_test(test_pfifo_fast_bands),
		cmocka_unit_test(test_pool_cache_returned_at_exit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
