// SPDX-License-Identifier: MIT
/* The sim driver: exact completion times in virtual time, stop/wake, BQL, flush, conservation. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <mqtx/driver.h>
#include <mqtx/loopback.h>
#include <mqtx/mqtx.h>
#include <mqtx/sim.h>

#include "helpers.h"

#define T0 1000000000ull

struct env {
	struct mqtx_clock *clock;
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev;
};

static int setup(void **state)
{
	static struct env e;

	memset(&e, 0, sizeof(e));
	assert_int_equal(test_env_virtual(T0, 4096, &e.clock, &e.pool), 0);
	*state = &e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	assert_int_equal(test_env_free(e->dev, e->pool, e->clock), 0);
	return 0;
}

static struct mqtx_dev *mkdev(struct env *e, uint32_t nq, uint32_t flags,
			      const struct mqtx_sim_cfg *sc)
{
	struct mqtx_dev_cfg c = {
		.name = "sim0",
		.num_txq = nq,
		.clock = e->clock,
		.flags = flags,
	};

	assert_int_equal(mqtx_sim_dev_create(&c, sc, &e->dev), 0);
	assert_int_equal(mqtx_dev_open(e->dev), 0);
	return e->dev;
}

/* Send one frame of @len bytes to queue @q (chosen by the sender). */
static int send(struct env *e, uint16_t q, uint32_t len)
{
	struct mqtx_pkt *pkt = mqtx_pkt_alloc(e->pool);

	assert_non_null(pkt);
	assert_non_null(mqtx_pkt_put(pkt, len));
	memset(pkt->data, 0, len);
	pkt->queue_mapping = q;
	pkt->flags |= MQTX_PKT_F_QMAP_SET;
	return mqtx_dev_xmit(e->dev, pkt);
}

static struct mqtx_sim_txq_stats qstats(struct env *e, uint32_t i)
{
	struct mqtx_sim_txq_stats st;

	assert_int_equal(mqtx_sim_txq_stats(e->dev, i, &st), 0);
	return st;
}

static uint64_t completed(struct env *e, uint32_t i)
{
	return qstats(e, i).completed_pkts;
}

static void test_rate_pps_exact(void **state)
{
	struct env *e = *state;
	struct mqtx_sim_cfg sc = { .ring = 8, .rate_pps = 1000000 };

	mkdev(e, 1, 0, &sc);
	for (int i = 0; i < 3; i++)
		assert_int_equal(send(e, 0, 100), MQTX_XMIT_SUCCESS);
	assert_int_equal(qstats(e, 0).ring, 3);
	assert_true(!mqtx_dev_all_tx_empty(e->dev));
	mqtx_clock_advance_to(e->clock, T0 + 999);
	assert_int_equal(completed(e, 0), 0);
	mqtx_clock_advance_to(e->clock, T0 + 1000);
	assert_int_equal(completed(e, 0), 1);
	mqtx_clock_advance_to(e->clock, T0 + 2999);
	assert_int_equal(completed(e, 0), 2);
	mqtx_clock_advance_to(e->clock, T0 + 3000);
	assert_int_equal(completed(e, 0), 3);
	assert_int_equal(qstats(e, 0).completed_bytes, 300);
	assert_int_equal(qstats(e, 0).ring, 0);
	assert_int_equal(qstats(e, 0).ring_max, 3);
	assert_true(mqtx_dev_all_tx_empty(e->dev));
	assert_int_equal(mqtx_clock_next_timer(e->clock), UINT64_MAX);

	/* An idle wire starts at once: a frame sent at T0+5000 is done at T0+6000. */
	mqtx_clock_advance_to(e->clock, T0 + 5000);
	assert_int_equal(send(e, 0, 100), MQTX_XMIT_SUCCESS);
	assert_int_equal(mqtx_clock_next_timer(e->clock), T0 + 6000);
	mqtx_clock_advance_to(e->clock, T0 + 6000);
	assert_int_equal(completed(e, 0), 4);
}

static void test_rate_bps_exact(void **state)
{
	struct env *e = *state;
	/* 1 Gbit/s: a 1000-byte frame is (1000 + 24) * 8 = 8192 bits = 8192 ns; with a 1 Mpps
	 * limit too, a 100-byte frame (992 ns of bits) takes the packet time, 1000 ns. */
	struct mqtx_sim_cfg sc = { .ring = 8, .rate_bps = 1000000000, .rate_pps = 1000000 };

	mkdev(e, 1, 0, &sc);
	assert_int_equal(send(e, 0, 1000), MQTX_XMIT_SUCCESS);
	assert_int_equal(send(e, 0, 1000), MQTX_XMIT_SUCCESS);
	assert_int_equal(send(e, 0, 100), MQTX_XMIT_SUCCESS);
	mqtx_clock_advance_to(e->clock, T0 + 8191);
	assert_int_equal(completed(e, 0), 0);
	mqtx_clock_advance_to(e->clock, T0 + 8192);
	assert_int_equal(completed(e, 0), 1);
	mqtx_clock_advance_to(e->clock, T0 + 16384);
	assert_int_equal(completed(e, 0), 2);
	mqtx_clock_advance_to(e->clock, T0 + 17383);
	assert_int_equal(completed(e, 0), 2);
	mqtx_clock_advance_to(e->clock, T0 + 17384);
	assert_int_equal(completed(e, 0), 3);
	assert_int_equal(qstats(e, 0).completed_bytes, 2100);
}

/* Each queue has its own wire: two queues complete in parallel. */
static void test_queues_independent(void **state)
{
	struct env *e = *state;
	struct mqtx_sim_cfg sc = { .ring = 8, .rate_pps = 1000000 };

	mkdev(e, 2, 0, &sc);
	assert_int_equal(send(e, 0, 60), MQTX_XMIT_SUCCESS);
	assert_int_equal(send(e, 0, 60), MQTX_XMIT_SUCCESS);
	assert_int_equal(send(e, 1, 60), MQTX_XMIT_SUCCESS);
	mqtx_clock_advance_to(e->clock, T0 + 1000);
	assert_int_equal(completed(e, 0), 1);
	assert_int_equal(completed(e, 1), 1);
	mqtx_clock_advance_to(e->clock, T0 + 2000);
	assert_int_equal(completed(e, 0), 2);
	assert_int_equal(qstats(e, 0).rounds, 2);
	assert_int_equal(qstats(e, 1).rounds, 1);
}

static void test_rate_zero_next_round(void **state)
{
	struct env *e = *state;

	mkdev(e, 1, 0, NULL);
	for (int i = 0; i < 5; i++)
		assert_int_equal(send(e, 0, 64), MQTX_XMIT_SUCCESS);
	assert_int_equal(completed(e, 0), 0);
	assert_int_equal(qstats(e, 0).ring, 5);
	mqtx_clock_advance(e->clock, 0); /* the next round, at the same instant */
	assert_int_equal(completed(e, 0), 5);
	assert_int_equal(qstats(e, 0).ring, 0);
}

static void test_stop_wake(void **state)
{
	struct env *e = *state;
	struct mqtx_sim_cfg sc = {
		.ring = 8, .rate_pps = 1000000, .stop_thresh = 2, .wake_thresh = 4
	};
	struct mqtx_txq *txq;
	struct mqtx_txq_stats ts;

	mkdev(e, 1, 0, &sc);
	txq = mqtx_dev_txq(e->dev, 0);
	for (int i = 0; i < 20; i++)
		assert_int_equal(send(e, 0, 100), MQTX_XMIT_SUCCESS);
	/* Stopped with one descriptor still free (free < 2 after the 7th frame). */
	assert_int_equal(qstats(e, 0).ring, 7);
	assert_true(mqtx_txq_stopped(txq));
	assert_int_equal(qstats(e, 0).stops, 1);
	mqtx_txq_get_stats(txq, &ts);
	assert_int_equal(ts.qlen, 13);
	assert_int_equal(ts.packets, 7);

	mqtx_clock_advance_to(e->clock, T0 + 2000); /* 3 free: below wake_thresh */
	assert_true(mqtx_txq_stopped(txq));
	assert_int_equal(qstats(e, 0).wakes, 0);
	/* 4 free: woken; the stack hands over a burst of the 13 waiting, the driver takes the 4
	 * that fit (stop_thresh 2 is below the burst size: the tail is refused and requeued). */
	mqtx_clock_advance_to(e->clock, T0 + 3000);
	assert_int_equal(qstats(e, 0).wakes, 1);
	assert_int_equal(qstats(e, 0).stops, 2);
	assert_int_equal(qstats(e, 0).ring, 8);
	assert_true(mqtx_txq_stopped(txq));
	mqtx_txq_get_stats(txq, &ts);
	assert_int_equal(ts.qlen, 9);
	assert_int_equal(ts.packets, 11);
	assert_int_equal(ts.requeues, 9);
	assert_int_equal(qstats(e, 0).ring_max, 8);

	/* The wire never idles: the 20th frame is done at exactly 20 us. */
	mqtx_clock_advance_to(e->clock, T0 + 19999);
	assert_int_equal(completed(e, 0), 19);
	mqtx_clock_advance_to(e->clock, T0 + 20000);
	assert_int_equal(completed(e, 0), 20);
	assert_false(mqtx_txq_stopped(txq));
	assert_int_equal(qstats(e, 0).refused, 0);
	mqtx_txq_get_stats(txq, &ts);
	assert_int_equal(ts.packets, 20);
	assert_int_equal(ts.qlen, 0);
	assert_int_equal(mqtx_txq_stats_drops(&ts), 0);
	assert_int_equal(ts.stops, qstats(e, 0).stops);
	assert_int_equal(ts.wakes, qstats(e, 0).wakes);
	assert_true(mqtx_dev_all_tx_empty(e->dev));
}

static void check_conservation(struct env *e, uint64_t sent);

/* The model with defaults filled in: on a virtual clock there is no coalescing. */
static void test_get_cfg(void **state)
{
	struct env *e = *state;
	struct mqtx_sim_cfg sc = { .ring = 40, .rate_pps = 5000 }, got;
	struct mqtx_dev *null_dev;
	struct mqtx_dev_cfg nc = { .name = "n0", .ops = &mqtx_null_ops, .num_txq = 1 };

	mkdev(e, 1, 0, &sc);
	assert_int_equal(mqtx_sim_get_cfg(e->dev, &got), 0);
	assert_int_equal(got.ring, 40);
	assert_int_equal(got.rate_pps, 5000);
	assert_int_equal(got.stop_thresh, 10); /* min(64, ring / 4) */
	assert_int_equal(got.wake_thresh, 10);
	assert_int_equal(got.coalesce_ns, 0);
	assert_int_equal(mqtx_dev_create(&nc, &null_dev), 0);
	assert_int_equal(mqtx_sim_get_cfg(null_dev, &got), -EINVAL);
	mqtx_dev_destroy(null_dev);
}

/* mqtx_dev_change(): ring, coalescing and rate while down (as a NIC's reset), refused while
 * up or out of range with nothing changed; mtu and txqueuelen whenever. */
static void test_change(void **state)
{
	struct env *e = *state;
	struct mqtx_sim_cfg sc = { .ring = 128, .rate_pps = 5000 }, got;
	struct mqtx_dev_settings set = { .mask = MQTX_DEV_SET_RING | MQTX_DEV_SET_RATE |
						 MQTX_DEV_SET_COALESCE,
					 .ring = 512,
					 .rate_bps = 1000000000,
					 .coalesce_ns = 50000 };
	char msg[160];

	mkdev(e, 2, 0, &sc);
	assert_int_equal(mqtx_dev_close(e->dev), 0);
	assert_int_equal(mqtx_dev_change(e->dev, &set, msg, sizeof(msg)), 0);
	assert_int_equal(mqtx_sim_get_cfg(e->dev, &got), 0);
	assert_int_equal(got.ring, 512);
	assert_int_equal(got.rate_bps, 1000000000);
	assert_int_equal(got.rate_pps, 0);
	assert_int_equal(got.coalesce_ns, 50000);
	assert_int_equal(got.stop_thresh, 64); /* the defaults follow the new ring */
	set = (struct mqtx_dev_settings){ .mask = MQTX_DEV_SET_RING,
					  .ring = MQTX_SIM_RING_MAX + 1 };
	assert_int_equal(mqtx_dev_change(e->dev, &set, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "ring 65537 out of range"));
	assert_int_equal(mqtx_dev_open(e->dev), 0);
	set.ring = 64;
	assert_int_equal(mqtx_dev_change(e->dev, &set, msg, sizeof(msg)), -EBUSY);
	assert_non_null(strstr(msg, "only while the device is down"));
	set = (struct mqtx_dev_settings){ .mask = MQTX_DEV_SET_MTU | MQTX_DEV_SET_TXQUEUELEN,
					  .mtu = 9000,
					  .tx_queue_len = 50 };
	assert_int_equal(mqtx_dev_change(e->dev, &set, msg, sizeof(msg)), 0);
	assert_int_equal(mqtx_dev_mtu(e->dev), 9000);
	assert_int_equal(mqtx_dev_tx_queue_len(e->dev), 50);
	assert_int_equal(mqtx_sim_get_cfg(e->dev, &got), 0);
	assert_int_equal(got.ring, 512); /* unchanged by what was refused */
}

/* With the default thresholds a running queue always has room for a whole burst: under a
 * sustained overload the queue stops and wakes, but the driver never refuses (no requeue). */
static void test_default_never_refuses(void **state)
{
	struct env *e = *state;
	struct mqtx_sim_cfg sc = { .ring = 256, .rate_pps = 1000000 };
	struct mqtx_txq_stats ts;
	uint64_t sent = 0;

	mkdev(e, 1, 0, &sc);
	for (int round = 0; round < 50; round++) {
		struct mqtx_pkt *b[64];

		for (int i = 0; i < 64; i++) {
			b[i] = mqtx_pkt_alloc(e->pool);
			assert_non_null(mqtx_pkt_put(b[i], 60));
			memset(b[i]->data, 0, 60);
		}
		mqtx_dev_xmit_burst(e->dev, b, 64);
		sent += 64;
		mqtx_clock_advance(e->clock, 40000); /* 40 frames' worth of wire: overloaded */
	}
	mqtx_txq_get_stats(mqtx_dev_txq(e->dev, 0), &ts);
	assert_true(ts.stops > 0);
	assert_true(ts.wakes > 0);
	assert_int_equal(ts.requeues, 0);
	assert_int_equal(qstats(e, 0).refused, 0);
	assert_true(qstats(e, 0).ring_max <= 256);
	check_conservation(e, sent);
}

static void test_bql(void **state)
{
	struct env *e = *state;
	struct mqtx_sim_cfg sc = { .ring = 64, .rate_pps = 1000000 };
	struct mqtx_txq *txq;
	struct mqtx_txq_stats ts;
	uint32_t first_limit;

	mkdev(e, 1, MQTX_DEV_F_BQL, &sc);
	txq = mqtx_dev_txq(e->dev, 0);
	for (int i = 0; i < 200; i++)
		assert_int_equal(send(e, 0, 1000), MQTX_XMIT_SUCCESS);
	/* A limit of 0 to start with: the first frame reaches it, BQL stops the stack. */
	mqtx_txq_get_stats(txq, &ts);
	assert_int_equal(ts.bql_limit, 0);
	assert_int_equal(ts.bql_inflight, 1000);
	assert_true(ts.state & MQTX_TXQ_STACK_XOFF);
	assert_false(mqtx_txq_stopped(txq));
	assert_int_equal(qstats(e, 0).ring, 1);

	/* Starved (over the limit, then empty): the limit grows by what completed, 0 -> 1000
	 * -> 2000 bytes, then stays: two 1000-byte frames keep a 1 Mpps wire busy between
	 * rounds. The ring is bounded by bytes now, far below its 64 descriptors. */
	mqtx_clock_advance_to(e->clock, T0 + 1000);
	mqtx_txq_get_stats(txq, &ts);
	first_limit = ts.bql_limit;
	assert_int_equal(first_limit, 1000);
	assert_int_equal(completed(e, 0), 1);
	mqtx_clock_advance_to(e->clock, T0 + 3000);
	mqtx_txq_get_stats(txq, &ts);
	assert_int_equal(ts.bql_limit, 2000);
	mqtx_clock_advance_to(e->clock, T0 + 30000);
	mqtx_txq_get_stats(txq, &ts);
	assert_int_equal(ts.bql_limit, 2000);
	assert_true(ts.state & MQTX_TXQ_STACK_XOFF);
	assert_int_equal(completed(e, 0), 30);
	assert_true(qstats(e, 0).ring <= 3);
	assert_true(qstats(e, 0).ring_max <= 3);
	assert_int_equal(qstats(e, 0).stops, 0);
	mqtx_clock_advance_to(e->clock, T0 + 1000000);
	assert_int_equal(completed(e, 0), 200);
	mqtx_txq_get_stats(txq, &ts);
	assert_int_equal(ts.bql_inflight, 0);
	assert_int_equal(ts.packets, 200);
	assert_int_equal(ts.qlen, 0);
}

/* sent = completed + on rings + flushed + dropped in the stack + queued, at every step. */
static void check_conservation(struct env *e, uint64_t sent)
{
	struct mqtx_sim_txq_stats ss;
	struct mqtx_dev_stats ds;

	assert_int_equal(mqtx_sim_stats(e->dev, &ss), 0);
	mqtx_dev_get_stats(e->dev, &ds);
	assert_int_equal(ds.xmit, sent);
	assert_int_equal(ds.txq.packets, ss.completed_pkts + ss.ring + ss.flushed);
	assert_int_equal(sent, ss.completed_pkts + ss.ring + ss.flushed +
				       mqtx_txq_stats_drops(&ds.txq) + ds.txq.qlen);
}

static void test_flush_and_conservation(void **state)
{
	struct env *e = *state;
	struct mqtx_sim_cfg sc = { .ring = 16, .rate_pps = 1000000, .stop_thresh = 1 };
	struct mqtx_sim_txq_stats ss;
	struct mqtx_dev_stats ds;
	uint64_t on_ring, queued;

	mkdev(e, 2, 0, &sc);
	/* 1200 frames on 2 queues: 1000 fit in each qdisc (tx_queue_len) + 16 on each ring. */
	for (int i = 0; i < 2400; i++)
		send(e, (uint16_t)(i & 1), 100);
	check_conservation(e, 2400);
	mqtx_dev_get_stats(e->dev, &ds);
	assert_int_equal(ds.txq.drops[MQTX_DROP_QDISC], 2400 - 2 * (1000 + 16));
	/* 4 frames done per queue: 4 descriptors free = wake_thresh, woken and refilled. */
	mqtx_clock_advance_to(e->clock, T0 + 4500);
	check_conservation(e, 2400);
	assert_int_equal(completed(e, 0), 4);
	assert_int_equal(completed(e, 1), 4);
	assert_int_equal(qstats(e, 0).wakes, 1);

	mqtx_sim_stats(e->dev, &ss);
	mqtx_dev_get_stats(e->dev, &ds);
	on_ring = ss.ring;
	queued = ds.txq.qlen;
	assert_int_equal(on_ring, 32);
	assert_int_equal(mqtx_dev_close(e->dev), 0);
	mqtx_sim_stats(e->dev, &ss);
	mqtx_dev_get_stats(e->dev, &ds);
	assert_int_equal(ss.flushed, on_ring);
	assert_int_equal(ss.ring, 0);
	assert_int_equal(ds.txq.qlen, 0);
	assert_int_equal(ds.txq.drops[MQTX_DROP_DOWN], queued);
	check_conservation(e, 2400);
	assert_int_equal(mqtx_pool_in_use(e->pool), 0);
	assert_int_equal(mqtx_clock_next_timer(e->clock), UINT64_MAX);

	/* Up again: the counters stay, the rings start empty and work. */
	assert_int_equal(mqtx_dev_open(e->dev), 0);
	assert_int_equal(send(e, 1, 100), MQTX_XMIT_SUCCESS);
	mqtx_clock_advance(e->clock, 1000);
	assert_int_equal(completed(e, 1), 5);
	check_conservation(e, 2401);
}

static void test_config(void **state)
{
	struct env *e = *state;
	struct mqtx_dev_cfg c = { .name = "simx", .num_txq = 1, .clock = e->clock };
	struct mqtx_sim_cfg bad[] = {
		{ .ring = MQTX_SIM_RING_MAX + 1 },
		{ .ring = 8, .stop_thresh = 9 },
		{ .ring = 8, .stop_thresh = 4, .wake_thresh = 3 },
		{ .ring = 8, .wake_thresh = 9 },
	};
	struct mqtx_sim_cfg good = { .ring = MQTX_SIM_RING_MAX, .stop_thresh = 8 };
	struct mqtx_dev *dev = NULL, *lo;
	struct mqtx_sim_txq_stats st;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(mqtx_sim_dev_create(&c, &bad[i], &dev), -EINVAL);
		assert_null(dev);
	}
	assert_int_equal(mqtx_sim_dev_create(&c, &good, &dev), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(mqtx_sim_configure(dev, &bad[i]), -EINVAL);
	good.peer = dev;
	assert_int_equal(mqtx_sim_configure(dev, &good), -EINVAL);
	good.peer = NULL;
	assert_int_equal(mqtx_sim_txq_stats(dev, 1, &st), -EINVAL);
	assert_int_equal(mqtx_sim_txq_stats(dev, 0, &st), 0);
	assert_int_equal(mqtx_dev_open(dev), 0);
	assert_int_equal(mqtx_sim_configure(dev, &good), -EBUSY);
	assert_int_equal(mqtx_dev_close(dev), 0);
	assert_int_equal(mqtx_sim_configure(dev, &good), 0);

	c.name = "lo";
	c.ops = &mqtx_loopback_ops;
	assert_int_equal(mqtx_dev_create(&c, &lo), 0);
	assert_int_equal(mqtx_sim_configure(lo, &good), -EINVAL);
	assert_int_equal(mqtx_sim_stats(lo, &st), -EINVAL);
	mqtx_dev_destroy(lo);
	mqtx_dev_destroy(dev);

	/* The plain constructor with just the ops gives a default sim (the ops size its area). */
	c.name = "sim1";
	c.ops = &mqtx_sim_ops;
	c.priv_size = 0;
	assert_int_equal(mqtx_dev_create(&c, &e->dev), 0);
	assert_int_equal(mqtx_dev_open(e->dev), 0);
	assert_int_equal(send(e, 0, 64), MQTX_XMIT_SUCCESS);
	mqtx_clock_advance(e->clock, 1);
	assert_int_equal(completed(e, 0), 1);
}

static uint64_t peer_rx;

static void peer_rx_fn(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg)
{
	(void)dev;
	assert_ptr_equal(arg, &peer_rx);
	assert_int_equal(pkt->len, 200);
	peer_rx++;
	mqtx_pkt_free(pkt);
}

static void test_peer(void **state)
{
	struct env *e = *state;
	struct mqtx_dev_cfg c = { .name = "simb", .num_txq = 1, .clock = e->clock };
	struct mqtx_sim_cfg sc = { .rate_pps = 1000000 };
	struct mqtx_dev *b;
	struct mqtx_dev_stats ds;

	assert_int_equal(mqtx_sim_dev_create(&c, NULL, &b), 0);
	mqtx_dev_set_rx_handler(b, peer_rx_fn, &peer_rx);
	assert_int_equal(mqtx_dev_open(b), 0);
	sc.peer = b;
	mkdev(e, 1, 0, &sc);
	peer_rx = 0;
	for (int i = 0; i < 4; i++)
		assert_int_equal(send(e, 0, 200), MQTX_XMIT_SUCCESS);
	mqtx_clock_advance_to(e->clock, T0 + 2000);
	assert_int_equal(peer_rx, 2);
	mqtx_clock_advance_to(e->clock, T0 + 4000);
	assert_int_equal(peer_rx, 4);
	mqtx_dev_get_stats(b, &ds);
	assert_int_equal(ds.rx_packets, 4);
	assert_int_equal(ds.rx_bytes, 800);
	mqtx_dev_destroy(e->dev);
	e->dev = NULL;
	mqtx_dev_destroy(b);
}

/* Fail the N-th allocation for every N: creation and open fail cleanly, nothing leaks. */
static int fail_at, nalloc, live;

static void *fail_alloc(size_t size, size_t align, void *arg)
{
	void *p;

	if (nalloc++ == fail_at)
		return NULL;
	p = mqtx_default_alloc(size, align, arg);
	if (p)
		live++;
	return p;
}

static void fail_free(void *ptr, void *arg)
{
	live--;
	mqtx_default_free(ptr, arg);
}

static void test_alloc_failures(void **state)
{
	struct env *e = *state;
	struct mqtx_allocator a = { fail_alloc, fail_free, NULL };
	struct mqtx_dev_cfg c = { .name = "simf", .num_txq = 4, .clock = e->clock };
	struct mqtx_sim_cfg sc = { .ring = 32, .rate_pps = 1000000 };
	int err = -ENOMEM;

	mqtx_set_allocator(&a);
	for (fail_at = 0; err; fail_at++) {
		struct mqtx_dev *dev = NULL;

		nalloc = live = 0;
		err = mqtx_sim_dev_create(&c, &sc, &dev);
		if (!err) {
			err = mqtx_dev_open(dev);
			if (!err)
				assert_int_equal(mqtx_dev_close(dev), 0);
			mqtx_dev_destroy(dev);
		}
		assert_true(err == 0 || err == -ENOMEM);
		assert_int_equal(live, 0);
		assert_true(fail_at < 1000);
	}
	mqtx_set_allocator(NULL);
	assert_true(fail_at > 2);
}

/* Real time, two senders: only invariants (no timing). */
struct rt_arg {
	struct env *e;
	int n;
	uint64_t accepted;
};

static void *rt_sender(void *p)
{
	struct rt_arg *a = p;

	for (int i = 0; i < a->n; i++) {
		struct mqtx_pkt *pkt;

		while (!(pkt = mqtx_pkt_alloc(a->e->pool)))
			sched_yield();
		mqtx_pkt_put(pkt, 64);
		memset(pkt->data, 0, 64);
		pkt->queue_mapping = (uint16_t)(i & 3);
		pkt->flags |= MQTX_PKT_F_QMAP_SET;
		if (mqtx_dev_xmit(a->e->dev, pkt) != MQTX_XMIT_DROP)
			a->accepted++;
	}
	return NULL;
}

static void test_real_time(void **state)
{
	struct env *e = *state;
	struct mqtx_dev_cfg c = { .name = "simrt", .num_txq = 4, .flags = MQTX_DEV_F_BQL };
	struct mqtx_sim_cfg sc = { .ring = 64, .rate_pps = 2000000 };
	struct rt_arg a[2] = { { e, 20000, 0 }, { e, 20000, 0 } };
	pthread_t th[2];
	struct mqtx_sim_txq_stats ss;
	struct mqtx_dev_stats ds;

	assert_int_equal(mqtx_sim_dev_create(&c, &sc, &e->dev), 0);
	assert_int_equal(mqtx_dev_open(e->dev), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, rt_sender, &a[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	/* The wire drains the rings; the completion thread runs what the stack still holds. */
	for (int i = 0; i < 5000 && !mqtx_dev_all_tx_empty(e->dev); i++) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
	assert_true(mqtx_dev_all_tx_empty(e->dev));
	mqtx_sim_stats(e->dev, &ss);
	mqtx_dev_get_stats(e->dev, &ds);
	assert_int_equal(ds.xmit, 40000);
	assert_int_equal(ss.completed_pkts, ds.txq.packets);
	assert_int_equal(ss.ring, 0);
	assert_int_equal(ds.txq.packets + mqtx_txq_stats_drops(&ds.txq), 40000);
	assert_int_equal(ds.txq.packets, a[0].accepted + a[1].accepted);
	assert_true(ss.ring_max <= 64);
	assert_int_equal(mqtx_dev_close(e->dev), 0);
	mqtx_sim_stats(e->dev, &ss);
	assert_int_equal(ss.flushed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rate_pps_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rate_bps_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queues_independent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rate_zero_next_round, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_wake, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_never_refuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_get_cfg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_change, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bql, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flush_and_conservation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config, setup, teardown),
		cmocka_unit_test_setup_teardown(test_peer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_time, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
