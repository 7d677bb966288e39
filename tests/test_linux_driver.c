// SPDX-License-Identifier: MIT
/* A driver written in kernel style against <mqtx/linux.h>, and its end-to-end test. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <mqtx/linux.h>

/* ======== the driver: "toynic", a NIC with a TX ring per queue ======== */

#define TOY_NUM_TXQ	4
#define TOY_TX_RING	16
#define TOY_DESC_NEEDED 2 /* stop while a worst-case frame still fits */
#define TOY_TX_WAKE	(TOY_TX_RING / 4)

struct toy_tx_ring {
	spinlock_t lock;
	struct sk_buff *skb[TOY_TX_RING];
	unsigned int head, tail; /* free-running */
	unsigned long doorbells, busy;
};

struct toy_priv {
	struct toy_tx_ring tx[TOY_NUM_TXQ];
	unsigned long flushed;
};

static unsigned int toy_tx_free(const struct toy_tx_ring *r)
{
	return TOY_TX_RING - (r->tail - r->head);
}

static netdev_tx_t toy_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct toy_priv *tp = netdev_priv(dev);
	u16 q = skb_get_queue_mapping(skb);
	struct toy_tx_ring *r = &tp->tx[q];
	struct netdev_queue *txq = netdev_get_tx_queue(dev, q);

	spin_lock(&r->lock);
	if (unlikely(toy_tx_free(r) < TOY_DESC_NEEDED)) {
		/* Only if someone woke us behind our back: a bug worth counting. */
		netif_tx_stop_queue(txq);
		r->busy++;
		spin_unlock(&r->lock);
		return NETDEV_TX_BUSY;
	}
	r->skb[r->tail++ % TOY_TX_RING] = skb;
	netdev_tx_sent_queue(txq, skb->len);
	if (unlikely(toy_tx_free(r) < TOY_DESC_NEEDED))
		netif_tx_stop_queue(txq);
	if (!netdev_xmit_more() || netif_xmit_stopped(txq))
		r->doorbells++;
	spin_unlock(&r->lock);
	return NETDEV_TX_OK;
}

MQTX_LINUX_XMIT_BURST(toy_xmit_burst, toy_start_xmit)

/* The TX completion "interrupt" of queue @q: reclaim up to @budget descriptors. */
static int toy_clean_tx(struct net_device *dev, u16 q, int budget)
{
	struct toy_priv *tp = netdev_priv(dev);
	struct toy_tx_ring *r = &tp->tx[q];
	struct netdev_queue *txq = netdev_get_tx_queue(dev, q);
	unsigned int pkts = 0, bytes = 0;

	spin_lock(&r->lock);
	while (r->head != r->tail && (int)pkts < budget) {
		struct sk_buff *skb = r->skb[r->head++ % TOY_TX_RING];

		bytes += skb->len;
		pkts++;
		dev_kfree_skb_any(skb);
	}
	netdev_tx_completed_queue(txq, pkts, bytes);
	if (netif_tx_queue_stopped(txq) && toy_tx_free(r) >= TOY_TX_WAKE)
		netif_tx_wake_queue(txq);
	spin_unlock(&r->lock);
	return (int)pkts;
}

static u16 toy_select_queue(struct net_device *dev, struct sk_buff *skb)
{
	(void)dev;
	return (u16)(skb->mark % TOY_NUM_TXQ);
}

static int toy_init(struct net_device *dev)
{
	struct toy_priv *tp = netdev_priv(dev);

	for (int i = 0; i < TOY_NUM_TXQ; i++)
		spin_lock_init(&tp->tx[i].lock);
	return 0;
}

static int toy_open(struct net_device *dev)
{
	netif_tx_start_all_queues(dev);
	return 0;
}

static void toy_stop(struct net_device *dev)
{
	struct toy_priv *tp = netdev_priv(dev);

	for (u16 q = 0; q < TOY_NUM_TXQ; q++) {
		struct toy_tx_ring *r = &tp->tx[q];

		spin_lock(&r->lock);
		while (r->head != r->tail) {
			dev_kfree_skb_any(r->skb[r->head++ % TOY_TX_RING]);
			tp->flushed++;
		}
		spin_unlock(&r->lock);
		netdev_tx_reset_queue(netdev_get_tx_queue(dev, q));
	}
}

static uint32_t toy_inflight(struct net_device *dev, struct netdev_queue *txq)
{
	struct toy_priv *tp = netdev_priv(dev);
	struct toy_tx_ring *r = &tp->tx[mqtx_txq_index(txq)];
	uint32_t n;

	spin_lock(&r->lock);
	n = r->tail - r->head;
	spin_unlock(&r->lock);
	return n;
}

static const struct mqtx_dev_ops toy_netdev_ops = {
	.kind = "toynic",
	.init = toy_init,
	.open = toy_open,
	.stop = toy_stop,
	.xmit_burst = toy_xmit_burst,
	.select_queue = toy_select_queue,
	.inflight = toy_inflight,
};

/* ======== the test ======== */

struct env {
	struct mqtx_pkt_pool *pool;
	struct net_device *dev;
	struct toy_priv *tp;
	uint64_t sent;
};

static int setup(void **state)
{
	static struct env e;
	struct mqtx_pool_cfg pc = { .count = 1024, .cache_size = 1 };

	memset(&e, 0, sizeof(e));
	assert_int_equal(mqtx_pool_create(&pc, &e.pool), 0);
	e.dev = alloc_etherdev_mq_ops(&toy_netdev_ops, sizeof(struct toy_priv), TOY_NUM_TXQ);
	assert_non_null(e.dev);
	assert_int_equal(strncmp(netdev_name(e.dev), "eth", 3), 0);
	assert_int_equal(netdev_num_tx_queues(e.dev), TOY_NUM_TXQ);
	assert_int_equal(netif_set_real_num_tx_queues(e.dev, TOY_NUM_TXQ + 1), -EINVAL);
	assert_int_equal(netif_set_real_num_tx_queues(e.dev, TOY_NUM_TXQ), 0);
	assert_int_equal(register_netdev(e.dev), 0);
	assert_int_equal(dev_open(e.dev), 0);
	assert_true(netif_running(e.dev));
	e.tp = netdev_priv(e.dev);
	*state = &e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	if (netif_running(e->dev))
		dev_close(e->dev);
	free_netdev(e->dev);
	assert_int_equal(mqtx_pool_in_use(e->pool), 0);
	mqtx_pool_destroy(e->pool);
	return 0;
}

static void xmit(struct env *e, uint32_t mark)
{
	struct sk_buff *skb = mqtx_pkt_alloc(e->pool);

	assert_non_null(skb);
	memset(skb_put(skb, 100), 0, 100);
	skb->mark = mark;
	skb->user = e->sent++;
	mqtx_dev_xmit(e->dev, skb);
}

static unsigned int ring_len(struct env *e, u16 q)
{
	return e->tp->tx[q].tail - e->tp->tx[q].head;
}

/* sent = completed (by the driver) + on rings + flushed + dropped + queued. */
static void check_conservation(struct env *e, uint64_t completed)
{
	struct mqtx_dev_stats ds;
	uint64_t rings = 0;

	for (u16 q = 0; q < TOY_NUM_TXQ; q++)
		rings += ring_len(e, q);
	mqtx_dev_get_stats(e->dev, &ds);
	assert_int_equal(ds.xmit, e->sent);
	assert_int_equal(ds.txq.packets, completed + rings + e->tp->flushed);
	assert_int_equal(e->sent, ds.txq.packets + mqtx_txq_stats_drops(&ds.txq) + ds.txq.qlen);
}

static uint64_t clean_all(struct env *e)
{
	uint64_t done = 0;
	int n;

	do {
		n = 0;
		/* A NAPI poll runs with bottom halves off: the queues it wakes run at the end. */
		local_bh_disable();
		for (u16 q = 0; q < TOY_NUM_TXQ; q++)
			n += toy_clean_tx(e->dev, q, 64);
		local_bh_enable();
		done += (uint64_t)n;
	} while (n);
	return done;
}

static void test_queues_stop_wake(void **state)
{
	struct env *e = *state;
	struct mqtx_txq_stats ts;
	uint64_t done;

	for (uint32_t i = 0; i < 100; i++)
		xmit(e, i);
	for (u16 q = 0; q < TOY_NUM_TXQ; q++) {
		struct netdev_queue *txq = netdev_get_tx_queue(e->dev, q);
		struct toy_tx_ring *r = &e->tp->tx[q];

		/* 25 each by mark; stopped with TOY_DESC_NEEDED - 1 descriptor free. */
		assert_int_equal(ring_len(e, q), TOY_TX_RING - TOY_DESC_NEEDED + 1);
		assert_true(netif_tx_queue_stopped(txq));
		assert_true(__netif_subqueue_stopped(e->dev, q));
		for (unsigned int k = r->head; k != r->tail; k++)
			assert_int_equal(r->skb[k % TOY_TX_RING]->mark % TOY_NUM_TXQ, q);
		mqtx_txq_get_stats(txq, &ts);
		assert_int_equal(ts.qlen, 25 - ring_len(e, q));
		assert_int_equal(ts.stops, 1);
		assert_int_equal(r->busy, 0);
	}
	assert_false(qdisc_all_tx_empty(e->dev));
	check_conservation(e, 0);

	/* Reclaim 3 on queue 1: 4 free = wake threshold; the softirq refills the ring. */
	local_bh_disable();
	assert_int_equal(toy_clean_tx(e->dev, 1, 3), 3);
	assert_false(netif_tx_queue_stopped(netdev_get_tx_queue(e->dev, 1)));
	assert_int_equal(ring_len(e, 1), TOY_TX_RING - TOY_DESC_NEEDED + 1 - 3); /* not yet */
	local_bh_enable();
	assert_int_equal(ring_len(e, 1), TOY_TX_RING - TOY_DESC_NEEDED + 1);
	assert_true(netif_tx_queue_stopped(netdev_get_tx_queue(e->dev, 1)));
	mqtx_txq_get_stats(netdev_get_tx_queue(e->dev, 1), &ts);
	assert_int_equal(ts.wakes, 1);
	assert_int_equal(ts.stops, 2);
	assert_int_equal(ts.qlen, 25 - 15 - 3);
	/* The third packet of the 10-packet burst stopped the queue: the burst ended there
	 * (dev_hard_start_xmit), so the driver never saw a fourth to refuse with BUSY, and the 7
	 * not taken went back to the qdisc, counted as requeues (dev_requeue_skb). */
	assert_int_equal(e->tp->tx[1].busy, 0);
	assert_int_equal(ts.requeues, 7);
	check_conservation(e, 3);

	done = 3 + clean_all(e);
	assert_int_equal(done, 100);
	assert_true(qdisc_all_tx_empty(e->dev));
	check_conservation(e, done);
	for (u16 q = 0; q < TOY_NUM_TXQ; q++)
		assert_false(netif_tx_queue_stopped(netdev_get_tx_queue(e->dev, q)));
}

/* A wake behind the driver's back: it answers NETDEV_TX_BUSY, the stack requeues, order kept. */
static void test_busy_requeue_keeps_order(void **state)
{
	struct env *e = *state;
	struct toy_tx_ring *r = &e->tp->tx[2];
	struct mqtx_txq_stats ts;
	uint64_t last = 0;
	bool first = true;

	for (uint32_t i = 0; i < 30; i++)
		xmit(e, 2 + 4 * i);
	assert_true(netif_queue_stopped(e->dev) == false);
	assert_true(__netif_subqueue_stopped(e->dev, 2));
	local_bh_disable();
	netif_wake_subqueue(e->dev, 2);
	local_bh_enable();
	assert_true(r->busy > 0);
	assert_true(__netif_subqueue_stopped(e->dev, 2));
	mqtx_txq_get_stats(netdev_get_tx_queue(e->dev, 2), &ts);
	assert_true(ts.requeues > 0);
	check_conservation(e, 0);

	/* Drain queue 2 by hand and check the frames leave in the order they were sent. */
	for (int round = 0; round < 100; round++) {
		local_bh_disable();
		spin_lock(&r->lock);
		while (r->head != r->tail) {
			struct sk_buff *skb = r->skb[r->head % TOY_TX_RING];

			assert_true(first || skb->user > last);
			last = skb->user;
			first = false;
			r->skb[r->head++ % TOY_TX_RING] = NULL;
			dev_kfree_skb(skb);
		}
		if (netif_tx_queue_stopped(netdev_get_tx_queue(e->dev, 2)))
			netif_wake_subqueue(e->dev, 2);
		spin_unlock(&r->lock);
		local_bh_enable();
		if (qdisc_all_tx_empty(e->dev))
			break;
	}
	assert_int_equal(last, 29);
	assert_true(qdisc_all_tx_empty(e->dev));
}

/* A scripted driver: start_xmit returns script[k] for its k-th call, and may stop the queue. */
static const int *script;
static unsigned int script_calls, script_stop_at;

static netdev_tx_t script_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	int rc = script[script_calls++];

	if (dev_xmit_complete(rc))
		dev_kfree_skb_any(skb); /* sent, or dropped by the driver: consumed either way */
	if (script_calls == script_stop_at)
		netif_stop_queue(dev);
	return rc;
}

MQTX_LINUX_XMIT_BURST(script_xmit_burst, script_start_xmit)

/* dev_hard_start_xmit's rules: a consumed packet (OK, or dropped: below NET_XMIT_MASK) goes on
 * to the next, NETDEV_TX_BUSY ends the burst before the packet, a stopped queue after it. */
static void test_burst_ends(void **state)
{
	static const int drops[] = { NET_XMIT_DROP, NETDEV_TX_OK, NET_XMIT_CN, NETDEV_TX_OK };
	static const int busy[] = { NETDEV_TX_OK, NETDEV_TX_OK, NETDEV_TX_BUSY, NETDEV_TX_OK };
	static const int ok[] = { NETDEV_TX_OK, NETDEV_TX_OK, NETDEV_TX_OK, NETDEV_TX_OK };
	static const struct {
		const int *script;
		unsigned int stop_at, taken, calls;
	} cases[] = {
		{ drops, 0, 4, 4 }, /* all consumed */
		{ busy, 0, 2, 3 },  /* the third is refused: two taken */
		{ ok, 2, 2, 2 },    /* the second stops the queue: the third is never offered */
		{ ok, 4, 4, 4 },    /* stopped by the last: nothing left to hold back */
	};
	struct env *e = *state;
	struct netdev_queue *txq = netdev_get_tx_queue(e->dev, 0);

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct sk_buff *skb[4];
		unsigned int taken;

		for (int i = 0; i < 4; i++) {
			skb[i] = mqtx_pkt_alloc(e->pool);
			assert_non_null(skb[i]);
		}
		script = cases[c].script;
		script_calls = 0;
		script_stop_at = cases[c].stop_at;
		netif_start_queue(e->dev);
		taken = script_xmit_burst(e->dev, txq, skb, 4, false);
		assert_int_equal(taken, cases[c].taken);
		assert_int_equal(script_calls, cases[c].calls);
		for (unsigned int i = taken; i < 4; i++)
			dev_kfree_skb(skb[i]); /* what the stack would requeue */
	}
	netif_start_queue(e->dev);
}

/* netif_tx_lock freezes every queue: nothing reaches the driver until the unlock. */
static void test_tx_lock_freezes(void **state)
{
	struct env *e = *state;

	netif_tx_lock(e->dev);
	xmit(e, 0);
	xmit(e, 1);
	assert_int_equal(ring_len(e, 0) + ring_len(e, 1), 0);
	assert_true(mqtx_txq_state(netdev_get_tx_queue(e->dev, 0)) & MQTX_TXQ_FROZEN);
	assert_true(netif_xmit_frozen_or_stopped(netdev_get_tx_queue(e->dev, 0)));
	netif_tx_unlock(e->dev); /* runs the queues it unfroze */
	assert_int_equal(ring_len(e, 0), 1);
	assert_int_equal(ring_len(e, 1), 1);
	check_conservation(e, 0);

	/* Down with frames on the rings: the driver flushes and counts them. */
	netif_tx_stop_all_queues(e->dev);
	xmit(e, 3);
	assert_int_equal(dev_close(e->dev), 0);
	assert_int_equal(e->tp->flushed, 2);
	check_conservation(e, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_queues_stop_wake, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_requeue_keeps_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tx_lock_freezes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_burst_ends, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
