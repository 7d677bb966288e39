// SPDX-License-Identifier: MIT
/* The receive side: delivery to the handler, drops without one, counters, and an ingress
 * qdisc that polices every second packet. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "helpers.h"

/* A policer: drops every second packet it sees; keeps the one it accepts for the dequeue
 * that follows (the ingress path takes accepted packets straight back out). */
struct pol_priv {
	unsigned seen;
	struct mqtx_pkt *held;
};

static int pol_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	struct pol_priv *p = mqtx_qdisc_priv(q);

	if (++p->seen % 2 == 0)
		return mqtx_qdisc_drop(q, pkt, MQTX_DROP_POLICE, to_free);
	assert_null(p->held);
	p->held = pkt;
	q->qlen++;
	q->backlog += pkt->len;
	return MQTX_XMIT_SUCCESS;
}

static struct mqtx_pkt *pol_dequeue(struct mqtx_qdisc *q)
{
	struct pol_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_pkt *pkt = p->held;

	if (pkt) {
		p->held = NULL;
		q->qlen--;
		q->backlog -= pkt->len;
	}
	return pkt;
}

static struct mqtx_pkt *pol_peek(struct mqtx_qdisc *q)
{
	return ((struct pol_priv *)mqtx_qdisc_priv(q))->held;
}

static const struct mqtx_qdisc_ops pol_ops = {
	.id = "testpolice",
	.priv_size = sizeof(struct pol_priv),
	.static_flags = MQTX_QF_INGRESS,
	.enqueue = pol_enqueue,
	.dequeue = pol_dequeue,
	.peek = pol_peek,
};

struct got {
	struct mqtx_dev *dev;
	unsigned n;
	uint64_t seq[64];
	uint64_t bytes;
};

static void handler(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg)
{
	struct got *g = arg;

	assert_ptr_equal(dev, g->dev);
	if (g->n < 64)
		g->seq[g->n] = pkt->user;
	g->n++;
	g->bytes += pkt->len;
	mqtx_pkt_free(pkt);
}

struct env {
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev;
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	struct mqtx_dev_cfg cfg = { .name = "rx0", .ops = &mqtx_null_ops, .num_txq = 2 };

	assert_int_equal(mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 256 }, &e->pool), 0);
	assert_int_equal(mqtx_dev_create(&cfg, &e->dev), 0);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	assert_int_equal(test_env_free(e->dev, e->pool, NULL), 0);
	free(e);
	return 0;
}

static struct mqtx_pkt *frame(struct env *e, uint64_t seq, uint32_t extra)
{
	struct mqtx_pkt *pkt = test_udp_pkt(e->pool, 7, 1000, 53, seq);

	assert_non_null(pkt);
	assert_non_null(mqtx_pkt_put(pkt, extra));
	return pkt;
}

static void test_handler_delivery(void **state)
{
	struct env *e = *state;
	struct got g = { .dev = e->dev };
	struct mqtx_dev_stats st;

	/* Receive does not need the device up (the driver decides when it delivers). */
	mqtx_dev_set_rx_handler(e->dev, handler, &g);
	for (unsigned i = 0; i < 10; i++)
		assert_int_equal(mqtx_dev_receive(e->dev, frame(e, i, i)), MQTX_XMIT_SUCCESS);
	assert_int_equal(g.n, 10);
	for (unsigned i = 0; i < 10; i++)
		assert_int_equal(g.seq[i], i);
	assert_int_equal(g.bytes, 10 * 64 + 45);
	mqtx_dev_get_stats(e->dev, &st);
	assert_int_equal(st.rx_packets, 10);
	assert_int_equal(st.rx_bytes, 10 * 64 + 45);
	assert_int_equal(st.rx_drops, 0);
	/* The receive side never touches the TX counters. */
	assert_int_equal(st.xmit, 0);
	assert_int_equal(st.txq.packets, 0);
	assert_int_equal(test_drops(&st), 0);
}

static void test_no_handler_drops(void **state)
{
	struct env *e = *state;
	struct got g = { .dev = e->dev };
	struct mqtx_dev_stats st;

	/* No handler: freed (the pool gets it back) and counted as a drop with its reason. */
	assert_int_equal(mqtx_dev_receive(e->dev, frame(e, 0, 0)), MQTX_XMIT_DROP);
	assert_int_equal(mqtx_dev_receive(e->dev, frame(e, 1, 100)), MQTX_XMIT_DROP);
	assert_int_equal(mqtx_pool_in_use(e->pool), 0);
	mqtx_dev_get_stats(e->dev, &st);
	assert_int_equal(st.rx_drops, 2);
	assert_int_equal(st.rx_drop_reasons[MQTX_DROP_NO_HANDLER], 2);
	assert_int_equal(st.rx_packets, 0);
	assert_int_equal(st.rx_bytes, 0);
	assert_int_equal(test_drops(&st), 0); /* nothing on the TX side */
	/* A handler installed later gets the next one; removing it drops again. */
	mqtx_dev_set_rx_handler(e->dev, handler, &g);
	mqtx_dev_receive(e->dev, frame(e, 2, 0));
	mqtx_dev_set_rx_handler(e->dev, NULL, NULL);
	mqtx_dev_receive(e->dev, frame(e, 3, 0));
	assert_int_equal(g.n, 1);
	assert_int_equal(g.seq[0], 2);
	mqtx_dev_get_stats(e->dev, &st);
	assert_int_equal(st.rx_drops, 3);
	assert_int_equal(st.rx_packets, 1);
	assert_int_equal(st.rx_bytes, 64);
}

static void test_ingress_police(void **state)
{
	struct env *e = *state;
	struct got g = { .dev = e->dev };
	struct mqtx_qdisc *q, *old;
	struct mqtx_qdisc_stats qs;
	struct mqtx_dev_stats st;
	struct mqtx_extack ack = { { 0 } };
	unsigned drops = 0;

	assert_int_equal(mqtx_qdisc_create(e->dev, mqtx_dev_txq(e->dev, 0), &pol_ops, 0xffff0000u,
					   NULL, &ack, &q),
			 0);
	assert_null(mqtx_dev_ingress_qdisc(e->dev));
	assert_null(mqtx_dev_graft_ingress(e->dev, q));
	assert_ptr_equal(mqtx_dev_ingress_qdisc(e->dev), q);
	mqtx_dev_set_rx_handler(e->dev, handler, &g);
	for (unsigned i = 0; i < 20; i++) {
		int rc = mqtx_dev_receive(e->dev, frame(e, i, 0));

		assert_int_equal(rc, i % 2 ? MQTX_XMIT_DROP : MQTX_XMIT_SUCCESS);
		drops += rc == MQTX_XMIT_DROP;
	}
	assert_int_equal(drops, 10);
	/* The odd ones were policed; the even ones delivered in order. */
	assert_int_equal(g.n, 10);
	for (unsigned i = 0; i < 10; i++)
		assert_int_equal(g.seq[i], 2 * i);
	assert_int_equal(mqtx_pool_in_use(e->pool), 0);
	mqtx_dev_get_stats(e->dev, &st);
	assert_int_equal(st.rx_packets, 10);
	assert_int_equal(st.rx_bytes, 640);
	assert_int_equal(st.rx_drops, 10);
	mqtx_qdisc_get_stats(q, &qs);
	assert_int_equal(qs.drops, 10);
	assert_int_equal(qs.qlen, 0);
	assert_int_equal(qs.backlog, 0);
	/* The reason is kept on the receive side; the TX queues count nothing. */
	assert_int_equal(st.xmit, 0);
	assert_int_equal(st.rx_drop_reasons[MQTX_DROP_POLICE], 10);
	assert_int_equal(test_drops(&st), 0);

	/* Detach: delivery without policing again. */
	old = mqtx_dev_graft_ingress(e->dev, NULL);
	assert_ptr_equal(old, q);
	assert_int_equal(mqtx_dev_receive(e->dev, frame(e, 100, 0)), MQTX_XMIT_SUCCESS);
	assert_int_equal(mqtx_dev_receive(e->dev, frame(e, 101, 0)), MQTX_XMIT_SUCCESS);
	assert_int_equal(g.n, 12);
	mqtx_qdisc_destroy(old);
}

/* A frame from a peer with more TX queues keeps the peer's queue_mapping: an ingress drop
 * must not index this device's queues with it. */
static void test_ingress_foreign_queue_mapping(void **state)
{
	struct env *e = *state;
	struct mqtx_qdisc *q;
	struct mqtx_dev_stats st;

	assert_int_equal(mqtx_qdisc_create(e->dev, mqtx_dev_txq(e->dev, 0), &pol_ops, 0xffff0000u,
					   NULL, NULL, &q),
			 0);
	mqtx_dev_graft_ingress(e->dev, q);
	for (unsigned i = 0; i < 4; i++) {
		struct mqtx_pkt *pkt = frame(e, i, 0);

		pkt->queue_mapping = 4000; /* num_txq is 2 */
		mqtx_dev_receive(e->dev, pkt);
	}
	mqtx_dev_get_stats(e->dev, &st);
	assert_int_equal(st.rx_drops, 2 + 2); /* 2 policed, 2 without a handler */
	assert_int_equal(st.rx_packets, 0);
	/* Counted on the receive side, never by indexing this device's queues with 4000. */
	assert_int_equal(st.rx_drop_reasons[MQTX_DROP_POLICE], 2);
	assert_int_equal(st.rx_drop_reasons[MQTX_DROP_NO_HANDLER], 2);
	assert_int_equal(test_drops(&st), 0);
	/* The device destroys the attached ingress qdisc. */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_handler_delivery, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_handler_drops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingress_police, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ingress_foreign_queue_mapping, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
