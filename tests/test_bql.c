// SPDX-License-Identifier: MIT
/* Byte queue limits through a device: STACK_XOFF on the limit, release on completion, the
 * limit growing when starved and shrinking after the hold time (exact numbers follow the DQL
 * algorithm of Linux's lib/dynamic_queue_limits.c, derived by hand in the comments). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "helpers.h"

#define T0   1000000000ull
#define HOLD 1000ull /* slack hold time used here, ns */
#define RING 64

/* A driver with a ring per queue that reports BQL: sent per packet (more = another packet of
 * this burst follows), completed per round by the test. */
struct bq_priv {
	struct mqtx_pkt *ring[2][RING];
	unsigned head[2], held[2];
	unsigned calls;
};

static unsigned bq_xmit(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			unsigned n, bool more)
{
	struct bq_priv *p = mqtx_dev_priv(dev);
	unsigned qi = mqtx_txq_index(txq);

	(void)more;
	p->calls++;
	for (unsigned i = 0; i < n; i++) {
		assert_true(p->held[qi] < RING);
		p->ring[qi][(p->head[qi] + p->held[qi]++) % RING] = pkts[i];
		mqtx_txq_sent(txq, pkts[i]->len, i + 1 < n);
	}
	return n;
}

static const struct mqtx_dev_ops bq_ops = {
	.kind = "bqltest",
	.priv_size = sizeof(struct bq_priv),
	.xmit_burst = bq_xmit,
};

/* The hardware finished the @k oldest packets of queue @qi: one completion round. */
static void complete(struct mqtx_dev *dev, unsigned qi, unsigned k)
{
	struct bq_priv *p = mqtx_dev_priv(dev);
	uint32_t bytes = 0;

	assert_true(k <= p->held[qi]);
	for (unsigned i = 0; i < k; i++) {
		struct mqtx_pkt *pkt = p->ring[qi][p->head[qi]];

		p->head[qi] = (p->head[qi] + 1) % RING;
		bytes += pkt->len;
		mqtx_pkt_free(pkt);
	}
	p->held[qi] -= k;
	mqtx_bh_disable(); /* a completion round: what it wakes runs at its end */
	mqtx_txq_completed(mqtx_dev_txq(dev, qi), k, bytes);
	mqtx_bh_enable();
}

struct env {
	struct mqtx_clock *clock;
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev;
	struct bq_priv *drv;
	struct mqtx_txq *txq;
	uint64_t sent;
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	struct mqtx_dev_cfg cfg = {
		.name = "bql0", .ops = &bq_ops, .num_txq = 1, .flags = MQTX_DEV_F_BQL
	};

	assert_int_equal(mqtx_clock_new_virtual(T0, &e->clock), 0);
	cfg.clock = e->clock;
	assert_int_equal(mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 256 }, &e->pool), 0);
	assert_int_equal(mqtx_dev_create(&cfg, &e->dev), 0);
	e->drv = mqtx_dev_priv(e->dev);
	e->txq = mqtx_dev_txq(e->dev, 0);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;
	struct mqtx_dev_stats st;

	/* Conservation: everything sent was taken by the driver or is counted. */
	if (e->drv->held[0])
		complete(e->dev, 0, e->drv->held[0]);
	mqtx_dev_get_stats(e->dev, &st);
	assert_int_equal(st.xmit, e->sent);
	assert_int_equal(st.xmit, st.txq.packets + test_drops(&st) + st.txq.qlen);
	assert_int_equal(test_env_free(e->dev, e->pool, e->clock), 0);
	free(e);
	return 0;
}

static void xmit1(struct env *e, uint32_t len)
{
	struct mqtx_pkt *pkt = mqtx_pkt_alloc(e->pool);

	assert_non_null(pkt);
	assert_non_null(mqtx_pkt_put(pkt, len));
	memset(pkt->data, 0, len);
	e->sent++;
	assert_int_equal(mqtx_dev_xmit(e->dev, pkt), MQTX_XMIT_SUCCESS);
}

static uint32_t held_bytes(struct bq_priv *p, unsigned qi)
{
	uint32_t b = 0;

	for (unsigned i = 0; i < p->held[qi]; i++)
		b += p->ring[qi][(p->head[qi] + i) % RING]->len;
	return b;
}

/* Check limit, in-flight bytes, STACK_XOFF, qdisc backlog and packets the driver holds. */
static void expect(struct env *e, uint32_t limit, uint32_t inflight, bool xoff, uint64_t qlen)
{
	struct mqtx_txq_stats st;

	mqtx_txq_get_stats(e->txq, &st);
	assert_int_equal(st.bql_limit, limit);
	assert_int_equal(st.bql_inflight, inflight);
	assert_int_equal(!!(st.state & MQTX_TXQ_STACK_XOFF), xoff);
	assert_false(st.state & MQTX_TXQ_DRV_XOFF); /* BQL never touches the driver's bit */
	assert_int_equal(st.qlen, qlen);
	assert_int_equal(held_bytes(e->drv, 0), inflight);
}

static void test_grow_and_xoff(void **state)
{
	struct env *e = *state;

	assert_int_equal(mqtx_txq_set_bql(e->txq, 0, 0, HOLD), 0);
	assert_int_equal(mqtx_dev_open(e->dev), 0);
	expect(e, 0, 0, false, 0);
	/* limit 0: the first packet (bypassing the empty qdisc) exceeds it. */
	xmit1(e, 1000);
	expect(e, 0, 1000, true, 0);
	xmit1(e, 1000);
	expect(e, 0, 1000, true, 1); /* held in the qdisc, not given to the driver */
	/* Over the limit and then empty: limit += completed beyond prev_num_queued (1000 - 0)
	 * + prev_ovlimit (0) = 1000. adj_limit = 1000 + 1000, avail = 2000 - 1000 >= 0:
	 * STACK_XOFF cleared and the queue run: the waiting packet goes (avail 0 after it, so
	 * no XOFF: only exceeding the limit stops the queue). */
	complete(e->dev, 0, 1);
	expect(e, 1000, 1000, false, 0);
	/* The next packet goes out too (avail 0 is not over) and takes it over the limit. */
	xmit1(e, 1000);
	expect(e, 1000, 2000, true, 0);
	xmit1(e, 1000);
	xmit1(e, 1000);
	expect(e, 1000, 2000, true, 2);
	/* num_queued 3000, num_completed 1000, prev_num_queued 1000 (num_queued at the last
	 * completion): completing 2000 empties it while 1000 over: limit += (3000 - 1000) + 0
	 * -> 3000; adj_limit 6000, avail 3000: the two waiting packets go in one batch. */
	complete(e->dev, 0, 2);
	expect(e, 3000, 2000, false, 0);
	assert_int_equal(e->drv->calls, 4);
	/* Partial completions while under the limit change nothing. */
	complete(e->dev, 0, 1);
	expect(e, 3000, 1000, false, 0);
	complete(e->dev, 0, 1);
	expect(e, 3000, 0, false, 0);
}

/* Keep three 1000-byte packets in flight and complete one per round: each round is busy the
 * whole interval with slack = limit - 2 * completed = 3000 - 2000 = 1000; the limit drops by
 * that once the hold time has passed, not before. */
static void test_shrink_after_hold(void **state)
{
	struct env *e = *state;

	assert_int_equal(mqtx_txq_set_bql(e->txq, 0, 0, HOLD), 0);
	assert_int_equal(mqtx_dev_open(e->dev), 0);
	/* Grow to 3000: 1000 sent, completed (limit 1000); then 3 sent, the third waits; 2
	 * completed with the queue empty and 1000 over: limit += (3000 - 1000) -> 3000 at T0,
	 * which also starts the slack window. The waiting packet goes. */
	xmit1(e, 1000);
	complete(e->dev, 0, 1);
	expect(e, 1000, 0, false, 0);
	xmit1(e, 1000);
	xmit1(e, 1000);
	xmit1(e, 1000);
	expect(e, 1000, 2000, true, 1);
	complete(e->dev, 0, 2);
	expect(e, 3000, 1000, false, 0);
	xmit1(e, 1000);
	xmit1(e, 1000);
	expect(e, 3000, 3000, false, 0); /* exactly at the limit */
	/* Round 1: prev_num_queued (3000) == num_completed: not a busy interval yet. */
	complete(e->dev, 0, 1);
	expect(e, 3000, 2000, false, 0);
	xmit1(e, 1000);
	/* Round 2: busy (in progress now and before, not all previous done): slack 1000, but
	 * the hold time has not passed (now == window start). */
	complete(e->dev, 0, 1);
	expect(e, 3000, 2000, false, 0);
	xmit1(e, 1000);
	expect(e, 3000, 3000, false, 0);
	mqtx_clock_advance_to(e->clock, T0 + HOLD);
	complete(e->dev, 0, 1); /* now == start + hold: not yet ("now > start + hold") */
	expect(e, 3000, 2000, false, 0);
	xmit1(e, 1000);
	mqtx_clock_advance_to(e->clock, T0 + HOLD + 1);
	/* Round 4: the window is over: limit -= lowest slack (1000) -> 2000. */
	complete(e->dev, 0, 1);
	expect(e, 2000, 2000, false, 0);
	/* The smaller limit is enforced: the next packet is over it. */
	xmit1(e, 1000);
	expect(e, 2000, 3000, true, 0);
	xmit1(e, 1000);
	xmit1(e, 1000);
	expect(e, 2000, 3000, true, 2);
	/* Busy round: slack posdiff(2000, 2 * 1000) = 0, limit kept, ovlimit 1000 remembered.
	 * adj_limit 2000 + 8000 = num_queued: avail 0, so STACK_XOFF is cleared and the queue
	 * runs; it sends one packet and is over the limit again. */
	complete(e->dev, 0, 1);
	expect(e, 2000, 3000, true, 1);
	/* Everything completes: starved while over (1000) with prev_ovlimit 1000: limit +=
	 * (completed - prev_num_queued = 1000) + 1000 -> 4000; the last packet goes. */
	complete(e->dev, 0, 3);
	expect(e, 4000, 1000, false, 0);
	complete(e->dev, 0, 1);
	expect(e, 4000, 0, false, 0);
}

static void test_set_bql_bounds(void **state)
{
	struct env *e = *state;

	assert_int_equal(mqtx_dev_open(e->dev), 0);
	assert_int_equal(mqtx_txq_set_bql(e->txq, 0, 1500, 0), 0);
	/* Refused changes change nothing: min above the (current) max, max beyond DQL's. */
	assert_int_equal(mqtx_txq_set_bql(e->txq, 2000, 0, 5), -EINVAL);
	assert_int_equal(mqtx_txq_set_bql(e->txq, 2000, 1999, 0), -EINVAL);
	assert_int_equal(mqtx_txq_set_bql(e->txq, 0, (UINT32_MAX / 2) - (UINT32_MAX / 16) + 1, 0),
			 -EINVAL);
	/* Growth is clamped to max: 2000 completed would make the limit 2000. */
	xmit1(e, 2000);
	expect(e, 0, 2000, true, 0);
	complete(e->dev, 0, 1);
	expect(e, 1500, 0, false, 0);
	/* A min: a reset starts from it, and it holds the limit up. */
	assert_int_equal(mqtx_txq_set_bql(e->txq, 1200, 4000, 0), 0);
	mqtx_txq_bql_reset(e->txq);
	expect(e, 1200, 0, false, 0);
	xmit1(e, 1000);
	expect(e, 1200, 1000, false, 0);
	xmit1(e, 1000);
	expect(e, 1200, 2000, true, 0);
	/* min == max pins the limit. */
	assert_int_equal(mqtx_txq_set_bql(e->txq, 4000, 4000, 0), 0);
	complete(e->dev, 0, 2);
	expect(e, 4000, 0, false, 0);
}

static void test_reset_and_no_bql(void **state)
{
	struct env *e = *state;
	struct mqtx_dev_cfg cfg = {
		.name = "nobql", .ops = &bq_ops, .num_txq = 1, .clock = e->clock
	};
	struct mqtx_txq_stats st;
	struct mqtx_dev *d;

	assert_int_equal(mqtx_dev_open(e->dev), 0);
	xmit1(e, 1000);
	xmit1(e, 1000);
	expect(e, 0, 1000, true, 1);
	/* A flushed ring: BQL forgets, STACK_XOFF goes (the driver freed its ring itself). */
	complete(e->dev, 0, 0);
	expect(e, 0, 1000, true, 1); /* a round of 0 bytes is ignored */
	mqtx_txq_bql_reset(e->txq);
	mqtx_txq_get_stats(e->txq, &st);
	assert_int_equal(st.bql_inflight, 0);
	assert_int_equal(st.bql_limit, 0);
	assert_int_equal(st.state, 0);
	/* Completing what BQL no longer knows about is clamped, not an underflow. */
	complete(e->dev, 0, 1);
	mqtx_txq_get_stats(e->txq, &st);
	assert_int_equal(st.bql_inflight, 0);
	assert_int_equal(st.qlen, 1); /* a reset does not run the queue (as Linux) */
	mqtx_txq_stop(e->txq);
	mqtx_bh_disable();
	mqtx_txq_wake(e->txq);
	mqtx_bh_enable();
	mqtx_txq_get_stats(e->txq, &st);
	assert_int_equal(st.qlen, 0);
	assert_int_equal(st.packets, 2);

	/* Without MQTX_DEV_F_BQL nothing is accounted and nothing stops. */
	assert_int_equal(mqtx_dev_create(&cfg, &d), 0);
	assert_int_equal(mqtx_dev_open(d), 0);
	for (unsigned i = 0; i < 5; i++) {
		struct mqtx_pkt *pkt = mqtx_pkt_alloc(e->pool);

		mqtx_pkt_put(pkt, 1000);
		assert_int_equal(mqtx_dev_xmit(d, pkt), MQTX_XMIT_SUCCESS);
	}
	mqtx_txq_get_stats(mqtx_dev_txq(d, 0), &st);
	assert_int_equal(st.bql_inflight, 0);
	assert_int_equal(st.state, 0);
	assert_int_equal(st.packets, 5);
	assert_true(mqtx_txq_sent(mqtx_dev_txq(d, 0), 100, true));
	complete(d, 0, 5);
	mqtx_dev_destroy(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_grow_and_xoff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shrink_after_hold, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_bql_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset_and_no_bql, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
