// SPDX-License-Identifier: MIT
/*
 * Senders sharing one TX queue. On a driver that is always ready (it never stops its queue)
 * every sender sends its own packets, straight to the driver, and feels the driver's pace as
 * backpressure: nothing is dropped, nothing waits in the qdisc, every flow arrives whole and
 * in order, with as many threads as cores or four times more. On drivers that stop their
 * queue (a small ring, BQL) and behind a shaper or an AQM, packets wait in the qdisc and may be
 * dropped there, but only for the qdisc's reasons, and the books balance to the packet.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <mqtx/sim.h>

#include "contend.h"
#include "ctl_fixture.h"

#define MAX_SENDERS 32
#define RING	    16 /* the sim's descriptors: a ring that stops its queue often */

/* MQTX_CONTEND_PACKETS: packets per sender (20000). */
static unsigned per_sender(void)
{
	const char *v = getenv("MQTX_CONTEND_PACKETS");
	unsigned long n = v && *v ? strtoul(v, NULL, 10) : 20000;

	return n < 1 ? 1 : n > 10000000 ? 10000000 : (unsigned)n;
}

struct env {
	struct mqtx_ctl *ctl;
	struct mqtx_dev *dev;
	struct mqtx_dev *peer; /* sim: where its frames arrive */
	struct mqtx_pkt_pool *pool;
	struct ct_rx rx;
	struct ct_run run;
	struct ct_sender snd[MAX_SENDERS];
};

enum kind { NULL_DRV, ORDERED, SIM };

/* Device "c0" of @kind with one TX queue, up, in a command context; a sim device gets a
 * @ring-descriptor ring and a peer that checks the order of what arrives. @txqlen: the default
 * qdisc's limit (0: 1000). */
static struct env *env_make(enum kind kind, unsigned ring, uint32_t flags, uint32_t txqlen)
{
	struct env *e = calloc(1, sizeof(*e));
	struct mqtx_dev_cfg c = { .name = "c0",
				  .ops = kind == NULL_DRV ? &mqtx_null_ops : &ct_ops,
				  .num_txq = 1,
				  .tx_queue_len = txqlen,
				  .flags = flags };
	struct mqtx_pool_cfg pc = { .count = 8192, .cache_size = 32 };

	assert_non_null(e);
	assert_int_equal(mqtx_pool_create(&pc, &e->pool), 0);
	if (kind == SIM) {
		ct_sim_create(&c, ring, &e->rx, &e->peer, &e->dev);
	} else {
		assert_int_equal(mqtx_dev_create(&c, &e->dev), 0);
	}
	assert_int_equal(mqtx_dev_open(e->dev), 0);
	assert_int_equal(mqtx_ctl_new(&e->ctl), 0);
	assert_int_equal(mqtx_ctl_add_dev(e->ctl, e->dev), 0);
	e->run.dev = e->dev;
	e->run.pool = e->pool;
	e->run.per_sender = per_sender();
	return e;
}

static void env_cmd(struct env *e, const char *line)
{
	char *err = NULL;

	if (fixture_run(e->ctl, line, NULL, &err))
		fail_msg("\"%s\": %s", line, err);
	free(err);
}

static void env_free(struct env *e)
{
	mqtx_ctl_free(e->ctl); /* destroys c0 (a sim device flushes its ring first) */
	mqtx_dev_destroy(e->peer);
	assert_int_equal(mqtx_pool_in_use(e->pool), 0);
	mqtx_pool_destroy(e->pool);
	free(e);
}

/* Run @senders senders to their end and wait until the device has sent everything. */
static void run_senders(struct env *e, unsigned senders, unsigned burst, bool varies)
{
	e->run.senders = senders;
	e->run.burst = burst;
	e->run.burst_varies = varies;
	ct_start(&e->run, e->snd);
	ct_join_senders(&e->run, e->snd);
}

static uint64_t null_done(void *arg)
{
	uint64_t pk, by;

	mqtx_null_counts(arg, &pk, &by);
	return pk;
}

/* Frames of a sim device that arrived at its peer (the completion thread hands them over
 * after it has counted them completed). */
static uint64_t sim_arrived(void *arg)
{
	return atomic_load(&((struct env *)arg)->rx.order.seen);
}

/* ---- an always-ready driver: backpressure, never drops ---- */

/*
 * The null driver never stops its queue, so a sender that finds the queue busy must wait for
 * it rather than leave its packets behind: not one packet dropped, none ever queued (each went
 * straight to the driver, bypass), every sender's packets delivered.
 */
static void shared_null(unsigned senders, unsigned burst)
{
	struct env *e = env_make(NULL_DRV, 0, 0, 0);
	struct mqtx_dev_stats st;

	run_senders(e, senders, burst, false);
	ct_drain(e->dev, null_done, e->dev);
	st = ct_books(e->dev, atomic_load(&e->run.sent), 0);
	assert_int_equal(st.xmit, (uint64_t)senders * e->run.per_sender);
	assert_int_equal(test_drops(&st), 0);
	assert_int_equal(null_done(e->dev), st.xmit);
	assert_int_equal(st.txq.bypass, st.xmit);
	env_free(e);
}

static void test_null_8_burst1(void **state)
{
	(void)state;
	shared_null(8, 1);
}

static void test_null_8_burst32(void **state)
{
	(void)state;
	shared_null(8, 32);
}

/* The same on a driver that checks each flow as it takes it: whole and in order. */
static void shared_ordered(unsigned senders, unsigned burst, bool varies)
{
	struct env *e = env_make(ORDERED, 0, 0, 0);
	struct ct_order *o = &((struct ct_drv *)mqtx_dev_priv(e->dev))->order;
	struct mqtx_dev_stats st;

	run_senders(e, senders, burst, varies);
	ct_drain(e->dev, NULL, NULL);
	st = ct_books(e->dev, atomic_load(&e->run.sent), 0);
	assert_int_equal(st.xmit, (uint64_t)senders * e->run.per_sender);
	assert_int_equal(test_drops(&st), 0);
	assert_int_equal(st.txq.bypass, st.xmit);
	assert_int_equal(atomic_load(&o->seen), st.xmit);
	assert_int_equal(atomic_load(&o->reordered), 0);
	assert_int_equal(atomic_load(&o->gaps), 0);
	for (unsigned i = 0; i < senders; i++)
		assert_int_equal(atomic_load(&o->per_flow[i]), e->run.per_sender);
	env_free(e);
}

static void test_ordered_8_burst1(void **state)
{
	(void)state;
	shared_ordered(8, 1, false);
}

static void test_ordered_8_burst32(void **state)
{
	(void)state;
	shared_ordered(8, 32, false);
}

/* More senders than cores, four times: holders lose their CPU and waiters park. */
static void test_ordered_oversubscribed_burst1(void **state)
{
	(void)state;
	shared_ordered(ct_senders(0), 1, false);
}

static void test_ordered_oversubscribed_burst_1_to_32(void **state)
{
	(void)state;
	shared_ordered(ct_senders(0), 32, true);
}

/* ---- drivers that stop their queue, a shaper, an AQM: drops only for the qdisc's reasons ---- */

/*
 * Two sizes of qdisc: the default txqueuelen, which senders faster than the wire overflow (the
 * qdisc drops, counted as such), and one larger than the packet pool (LONGQ), which can never
 * overflow: senders then wait for packets to come back, and every one of them arrives.
 */
#define LONGQ 100000

/*
 * Check what a sim device delivered: every packet its driver took completed and arrived at
 * the peer, each flow in order; gaps only where the qdisc dropped.
 */
static void sim_check(struct env *e, const struct mqtx_dev_stats *st)
{
	struct mqtx_sim_txq_stats ss;
	uint64_t flows = 0;

	mqtx_sim_stats(e->dev, &ss);
	assert_int_equal(ss.completed_pkts, st->txq.packets);
	assert_int_equal(ss.ring, 0);
	assert_int_equal(ss.flushed, 0);
	assert_true(ss.ring_max <= RING);
	assert_true(ss.stops > 0); /* the case is the one it claims: the queue was stopped */
	assert_int_equal(atomic_load(&e->rx.order.seen), st->txq.packets);
	assert_int_equal(atomic_load(&e->rx.order.reordered), 0);
	for (unsigned i = 0; i < e->run.senders; i++)
		flows += atomic_load(&e->rx.order.per_flow[i]);
	assert_int_equal(flows, st->txq.packets);
}

/* Nothing was dropped: every flow arrived whole, without a gap. */
static void all_arrived(struct env *e, const struct mqtx_dev_stats *st, struct ct_order *o)
{
	assert_int_equal(test_drops(st), 0);
	assert_int_equal(atomic_load(&o->gaps), 0);
	for (unsigned i = 0; i < e->run.senders; i++)
		assert_int_equal(atomic_load(&o->per_flow[i]), e->run.per_sender);
}

/* A small ring, stopped and woken by its completion thread, 8 senders on its queue. */
static void sim_shared(uint32_t flags, uint32_t txqlen, const char *qdisc, unsigned burst,
		       unsigned allowed)
{
	struct env *e = env_make(SIM, RING, flags, txqlen);
	struct mqtx_dev_stats st;

	if (qdisc)
		env_cmd(e, qdisc);
	e->run.per_sender /= 4; /* a slower wire: fewer packets give as many stops */
	run_senders(e, 8, burst, burst > 1);
	ct_drain(e->dev, sim_arrived, e);
	st = ct_books(e->dev, atomic_load(&e->run.sent), allowed);
	ct_print(qdisc ? qdisc : "sim", &st);
	sim_check(e, &st);
	if (txqlen == LONGQ && !(allowed & CT_DROP(MQTX_DROP_AQM)))
		all_arrived(e, &st, &e->rx.order);
	env_free(e);
}

static void test_sim_burst1_overflow(void **state)
{
	(void)state;
	sim_shared(0, 0, NULL, 1, CT_DROP(MQTX_DROP_QDISC));
}

static void test_sim_burst32_overflow(void **state)
{
	(void)state;
	sim_shared(0, 0, NULL, 32, CT_DROP(MQTX_DROP_QDISC));
}

static void test_sim_burst1(void **state)
{
	(void)state;
	sim_shared(0, LONGQ, NULL, 1, 0);
}

static void test_sim_burst32(void **state)
{
	(void)state;
	sim_shared(0, LONGQ, NULL, 32, 0);
}

/* BQL on: the driver reports the bytes it sent and completed, and the byte limit holds the
 * queue back as well as the ring. */
static void test_sim_bql(void **state)
{
	(void)state;
	sim_shared(MQTX_DEV_F_BQL, LONGQ, NULL, 32, 0);
}

static void test_sim_bql_overflow(void **state)
{
	(void)state;
	sim_shared(MQTX_DEV_F_BQL, 0, NULL, 1, CT_DROP(MQTX_DROP_QDISC));
}

static void test_sim_fq_codel(void **state)
{
	(void)state;
	sim_shared(0, LONGQ, "qdisc replace dev c0 root fq_codel", 16, CT_DROP(MQTX_DROP_AQM));
}

static void test_sim_fq_codel_bql_overflow(void **state)
{
	(void)state;
	sim_shared(MQTX_DEV_F_BQL, 0, "qdisc replace dev c0 root fq_codel limit 500", 1,
		   CT_DROP(MQTX_DROP_QDISC) | CT_DROP(MQTX_DROP_AQM));
}

/* A shaper: nothing is ever bypassed, the watchdog sends what the senders queued. */
static void ordered_shaped(const char *qdisc, unsigned burst, unsigned allowed)
{
	struct env *e = env_make(ORDERED, 0, 0, 0);
	struct ct_order *o = &((struct ct_drv *)mqtx_dev_priv(e->dev))->order;
	struct mqtx_dev_stats st;

	env_cmd(e, qdisc);
	e->run.per_sender /= 4;
	run_senders(e, 8, burst, burst > 1);
	ct_drain(e->dev, NULL, NULL);
	st = ct_books(e->dev, atomic_load(&e->run.sent), allowed);
	ct_print(qdisc, &st);
	assert_int_equal(st.txq.bypass, 0);
	assert_int_equal(atomic_load(&o->seen), st.txq.packets);
	assert_int_equal(atomic_load(&o->reordered), 0);
	if (!allowed)
		all_arrived(e, &st, o);
	env_free(e);
}

static void test_tbf_burst1_overflow(void **state)
{
	(void)state;
	ordered_shaped("qdisc replace dev c0 root tbf rate 200mbit burst 20k limit 64k", 1,
		       CT_DROP(MQTX_DROP_QDISC));
}

static void test_tbf_burst32(void **state)
{
	(void)state;
	/* The limit holds the whole pool: nothing is dropped. */
	ordered_shaped("qdisc replace dev c0 root tbf rate 200mbit burst 20k limit 10mb", 32, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_8_burst1),
		cmocka_unit_test(test_null_8_burst32),
		cmocka_unit_test(test_ordered_8_burst1),
		cmocka_unit_test(test_ordered_8_burst32),
		cmocka_unit_test(test_ordered_oversubscribed_burst1),
		cmocka_unit_test(test_ordered_oversubscribed_burst_1_to_32),
		cmocka_unit_test(test_sim_burst1_overflow),
		cmocka_unit_test(test_sim_burst32_overflow),
		cmocka_unit_test(test_sim_burst1),
		cmocka_unit_test(test_sim_burst32),
		cmocka_unit_test(test_sim_bql),
		cmocka_unit_test(test_sim_bql_overflow),
		cmocka_unit_test(test_sim_fq_codel),
		cmocka_unit_test(test_sim_fq_codel_bql_overflow),
		cmocka_unit_test(test_tbf_burst1_overflow),
		cmocka_unit_test(test_tbf_burst32),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
