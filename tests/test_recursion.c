// SPDX-License-Identifier: MIT
/* Transmit recursion: a driver sending into its own device (into the qdisc whose lock its
 * direct transmit holds, or straight to the other queue; dropped on a noqueue device by
 * xmit-owner detection) and nesting through a chain of devices deeper than
 * MQTX_XMIT_RECURSION_MAX. No deadlock, every packet accounted for. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "helpers.h"

#define INNER 1000000u /* seq offset of packets the driver itself sends */
#define CHAIN 12

/* A driver that, for every packet it takes, first sends a copy into its own device (like a
 * misconfigured tunnel), or, in a chain, forwards the packet to the next device. */
struct loop_priv {
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *next; /* chain: forward here; NULL: send into self */
	bool other_queue;      /* send into self on the other of two queues */
	unsigned n;
	uint64_t seq[256];
	unsigned inner_rc[3];
	unsigned fwd_rc[3];
};

static unsigned loop_xmit(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			  unsigned n, bool more)
{
	struct loop_priv *p = mqtx_dev_priv(dev);

	(void)more;
	for (unsigned i = 0; i < n; i++) {
		struct mqtx_pkt *pkt = pkts[i];

		if (p->n < 256)
			p->seq[p->n] = pkt->user;
		p->n++;
		if (p->next) {
			p->fwd_rc[mqtx_dev_xmit(p->next, pkt)]++;
			continue;
		}
		if (pkt->user < INNER) {
			struct mqtx_pkt *inner = test_udp_pkt(p->pool, 1, 1, 1, INNER + pkt->user);

			assert_non_null(inner);
			if (p->other_queue) {
				inner->queue_mapping = (uint16_t)(1 - mqtx_txq_index(txq));
				inner->flags |= MQTX_PKT_F_QMAP_SET;
			}
			p->inner_rc[mqtx_dev_xmit(dev, inner)]++;
		}
		mqtx_pkt_free(pkt);
	}
	return n;
}

static const struct mqtx_dev_ops loop_ops = {
	.kind = "looptest",
	.priv_size = sizeof(struct loop_priv),
	.xmit_burst = loop_xmit,
};

static struct mqtx_pkt_pool *pool;

static int setup(void **state)
{
	(void)state;
	return mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 1024 }, &pool);
}

static int teardown(void **state)
{
	(void)state;
	assert_int_equal(mqtx_pool_in_use(pool), 0);
	mqtx_pool_destroy(pool);
	return 0;
}

static struct mqtx_dev *mkdev_nq(const char *name, uint32_t flags, uint32_t nq)
{
	struct mqtx_dev_cfg cfg = { .name = name, .ops = &loop_ops, .num_txq = nq, .flags = flags };
	struct mqtx_dev *dev;

	assert_int_equal(mqtx_dev_create(&cfg, &dev), 0);
	((struct loop_priv *)mqtx_dev_priv(dev))->pool = pool;
	assert_int_equal(mqtx_dev_open(dev), 0);
	return dev;
}

static struct mqtx_dev *mkdev(const char *name, uint32_t flags)
{
	return mkdev_nq(name, flags, 1);
}

/* With a qdisc, the inner packet is queued behind the running outer one and sent by the
 * same run after it: no deadlock, nothing dropped. The default pfifo_fast is empty when each
 * outer packet comes, so it goes straight to the driver with the queue lock held (a direct
 * transmit); the inner one enters the qdisc whose lock its own thread holds. */
static void test_self_xmit_with_qdisc(void **state)
{
	struct mqtx_dev *dev = mkdev("self0", 0);
	struct loop_priv *p = mqtx_dev_priv(dev);
	struct mqtx_dev_stats st;
	struct mqtx_pkt *b[8];

	(void)state;
	assert_string_equal(mqtx_txq_qdisc(mqtx_dev_txq(dev, 0))->ops->id, "pfifo_fast");
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(mqtx_dev_xmit(dev, test_udp_pkt(pool, 1, 1, 1, i)),
				 MQTX_XMIT_SUCCESS);
	for (unsigned i = 0; i < 8; i++)
		b[i] = test_udp_pkt(pool, 1, 1, 1, 10 + i);
	assert_int_equal(mqtx_dev_xmit_burst(dev, b, 8), 8);
	assert_int_equal(p->inner_rc[MQTX_XMIT_SUCCESS], 11);
	assert_int_equal(p->n, 22);
	/* Each outer packet, then its inner one; a burst's inners follow the whole burst. */
	static const uint64_t want[22] = {
		0,	    INNER + 0,	1,	    INNER + 1,	2,	    INNER + 2,
		10,	    11,		12,	    13,		14,	    15,
		16,	    17,		INNER + 10, INNER + 11, INNER + 12, INNER + 13,
		INNER + 14, INNER + 15, INNER + 16, INNER + 17,
	};
	for (unsigned i = 0; i < 22; i++)
		assert_int_equal(p->seq[i], want[i]);
	mqtx_dev_get_stats(dev, &st);
	assert_int_equal(st.xmit, 22);
	assert_int_equal(st.txq.packets, 22);
	assert_int_equal(st.txq.bypass, 11); /* the outer ones */
	assert_int_equal(test_drops(&st), 0);
	assert_int_equal(st.txq.qlen, 0);
	mqtx_dev_destroy(dev);
}

/* Into the other queue of the device, whose lock is free: the inner packet goes straight to
 * that queue's driver, nested in the outer call, each right after its outer one. */
static void test_self_xmit_other_queue(void **state)
{
	struct mqtx_dev *dev = mkdev_nq("self2", 0, 2);
	struct loop_priv *p = mqtx_dev_priv(dev);
	struct mqtx_dev_stats st;
	struct mqtx_pkt *b[8];

	(void)state;
	p->other_queue = true;
	for (unsigned i = 0; i < 3; i++) {
		struct mqtx_pkt *pkt = test_udp_pkt(pool, 1, 1, 1, i);

		pkt->queue_mapping = 0;
		pkt->flags |= MQTX_PKT_F_QMAP_SET;
		assert_int_equal(mqtx_dev_xmit(dev, pkt), MQTX_XMIT_SUCCESS);
	}
	for (unsigned i = 0; i < 8; i++) {
		b[i] = test_udp_pkt(pool, 1, 1, 1, 10 + i);
		b[i]->queue_mapping = 1;
		b[i]->flags |= MQTX_PKT_F_QMAP_SET;
	}
	assert_int_equal(mqtx_dev_xmit_burst(dev, b, 8), 8);
	assert_int_equal(p->inner_rc[MQTX_XMIT_SUCCESS], 11);
	assert_int_equal(p->n, 22);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(p->seq[2 * i], i);
		assert_int_equal(p->seq[2 * i + 1], INNER + i);
	}
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(p->seq[6 + 2 * i], 10 + i);
		assert_int_equal(p->seq[7 + 2 * i], INNER + 10 + i);
	}
	mqtx_dev_get_stats(dev, &st);
	assert_int_equal(st.xmit, 22);
	assert_int_equal(st.txq.packets, 22);
	assert_int_equal(st.txq.bypass, 22);
	assert_int_equal(test_drops(&st), 0);
	assert_int_equal(st.txq.qlen, 0);
	mqtx_dev_destroy(dev);
}

/* Without a queue the inner transmit would need the xmit lock its own caller holds: the
 * owner check drops it as a dead loop instead of deadlocking. */
static void test_self_xmit_noqueue(void **state)
{
	struct mqtx_dev *dev = mkdev("self1", MQTX_DEV_F_NO_QUEUE);
	struct loop_priv *p = mqtx_dev_priv(dev);
	struct mqtx_dev_stats st;
	struct mqtx_pkt *b[4];

	(void)state;
	assert_string_equal(mqtx_txq_qdisc(mqtx_dev_txq(dev, 0))->ops->id, "noqueue");
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(mqtx_dev_xmit(dev, test_udp_pkt(pool, 1, 1, 1, i)),
				 MQTX_XMIT_SUCCESS);
	for (unsigned i = 0; i < 4; i++)
		b[i] = test_udp_pkt(pool, 1, 1, 1, 10 + i);
	assert_int_equal(mqtx_dev_xmit_burst(dev, b, 4), 4);
	assert_int_equal(p->inner_rc[MQTX_XMIT_DROP], 9);
	assert_int_equal(p->inner_rc[MQTX_XMIT_SUCCESS], 0);
	assert_int_equal(p->n, 9); /* only the outer packets reached the driver */
	mqtx_dev_get_stats(dev, &st);
	assert_int_equal(st.xmit, 18);
	assert_int_equal(st.txq.packets, 9);
	assert_int_equal(st.txq.bypass, 9);
	assert_int_equal(st.txq.drops[MQTX_DROP_RECURSION], 9);
	assert_int_equal(test_drops(&st), 9);
	assert_int_equal(st.xmit, st.txq.packets + test_drops(&st));
	/* The device still works afterwards (the xmit lock was not left held). */
	assert_int_equal(mqtx_dev_xmit(dev, test_udp_pkt(pool, 1, 1, 1, INNER + 99)),
			 MQTX_XMIT_SUCCESS);
	assert_int_equal(p->n, 10);
	mqtx_dev_destroy(dev);
}

/* d0 -> d1 -> ... -> d11, each driver forwarding synchronously: transmits nest one level per
 * device; d0..d7 are levels 1..MQTX_XMIT_RECURSION_MAX, the transmit into d8 is one too
 * many and is dropped there. */
static void chain(uint32_t flags)
{
	struct mqtx_dev *d[CHAIN];
	struct mqtx_dev_stats st;
	char name[16];

	for (int i = CHAIN - 1; i >= 0; i--) {
		snprintf(name, sizeof(name), "ch%d", i);
		d[i] = mkdev(name, flags);
		((struct loop_priv *)mqtx_dev_priv(d[i]))->next = i + 1 < CHAIN ? d[i + 1] : NULL;
	}
	/* The last device sends into itself, but no packet gets that far. */
	assert_int_equal(mqtx_dev_xmit(d[0], test_udp_pkt(pool, 1, 1, 1, INNER + 1)),
			 MQTX_XMIT_SUCCESS);
	assert_int_equal(mqtx_pool_in_use(pool), 0);
	for (int i = 0; i < CHAIN; i++) {
		struct loop_priv *p = mqtx_dev_priv(d[i]);

		mqtx_dev_get_stats(d[i], &st);
		if (i < MQTX_XMIT_RECURSION_MAX) {
			assert_int_equal(st.xmit, 1);
			assert_int_equal(st.txq.packets, 1);
			assert_int_equal(p->n, 1);
			assert_int_equal(test_drops(&st), 0);
			bool last = i == MQTX_XMIT_RECURSION_MAX - 1;

			/* The forward out of d7 was the one refused. */
			assert_int_equal(p->fwd_rc[last ? MQTX_XMIT_DROP : MQTX_XMIT_SUCCESS], 1);
		} else if (i == MQTX_XMIT_RECURSION_MAX) {
			assert_int_equal(st.xmit, 1);
			assert_int_equal(st.txq.packets, 0);
			assert_int_equal(st.txq.drops[MQTX_DROP_RECURSION], 1);
			assert_int_equal(test_drops(&st), 1);
			assert_int_equal(p->n, 0);
		} else {
			assert_int_equal(st.xmit, 0);
			assert_int_equal(p->n, 0);
		}
		assert_int_equal(st.txq.qlen, 0);
	}
	/* The depth unwound: a fresh transmit into the last device goes through. */
	((struct loop_priv *)mqtx_dev_priv(d[CHAIN - 1]))->next = NULL;
	assert_int_equal(mqtx_dev_xmit(d[CHAIN - 1], test_udp_pkt(pool, 1, 1, 1, INNER + 2)),
			 MQTX_XMIT_SUCCESS);
	assert_int_equal(((struct loop_priv *)mqtx_dev_priv(d[CHAIN - 1]))->n, 1);
	for (int i = 0; i < CHAIN; i++)
		mqtx_dev_destroy(d[i]);
}

static void test_chain_noqueue(void **state)
{
	(void)state;
	chain(MQTX_DEV_F_NO_QUEUE);
}

static void test_chain_qdisc(void **state)
{
	(void)state;
	chain(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_xmit_with_qdisc),
		cmocka_unit_test(test_self_xmit_other_queue),
		cmocka_unit_test(test_self_xmit_noqueue),
		cmocka_unit_test(test_chain_noqueue),
		cmocka_unit_test(test_chain_qdisc),
	};

	return cmocka_run_group_tests_name("recursion", tests, setup, teardown);
}
