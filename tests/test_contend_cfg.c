// SPDX-License-Identifier: MIT
/*
 * Configuration under traffic while senders share queues: qdiscs replaced one after another,
 * the number of queues in use changed, every queue frozen both ways, the device taken down and
 * up, while four to eight threads send into one or two queues, direct and through a backlog,
 * on a driver that never stops, one that stops (a small ring) and one that sends into itself.
 * No deadlock (a thread that does not finish in time is reported as one), traffic keeps moving
 * between changes, and once the device is up and the senders stop nothing is stranded: the
 * books balance to the packet, with drops only for the reasons the changes give, and no
 * sender's flow is reordered on a queue.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <mqtx/sim.h>

#include "contend.h"
#include "ctl_fixture.h"

#define MAX_SENDERS 8
#define NQ	    2
#define RING	    16
#define ROUNDS	    3	/* times through the whole list of changes */
#define STEP	    500 /* packets sent between two changes */
#define N_REPLACES  (sizeof(replaces) / sizeof(replaces[0]))

/* What the changes may drop: a full qdisc (or a shaper's), CoDel, a device going down, a reset
 * of queues taken out of use, a replaced qdisc's backlog that the new one refused. */
#define CHANGE_DROPS                                                                   \
	(CT_DROP(MQTX_DROP_QDISC) | CT_DROP(MQTX_DROP_AQM) | CT_DROP(MQTX_DROP_DOWN) | \
	 CT_DROP(MQTX_DROP_RESET) | CT_DROP(MQTX_DROP_REPLACE))

enum kind { ORDERED, RESEND, RESEND_CROSS, SIM };

struct env {
	struct mqtx_ctl *ctl;
	struct mqtx_dev *dev, *peer;
	struct mqtx_pkt_pool *pool;
	struct ct_rx rx;
	struct ct_run run;
	struct ct_sender snd[MAX_SENDERS];
	atomic_uint changes; /* made so far by the configuration thread */
	atomic_bool done;
	char error[256]; /* what went wrong in the configuration thread, if anything */
};

static void env_make(struct env *e, enum kind kind)
{
	struct mqtx_dev_cfg c = { .name = "c0", .ops = &ct_ops, .num_txq = NQ };
	struct mqtx_pool_cfg pc = { .count = 4096, .cache_size = 16 };

	memset(e, 0, sizeof(*e));
	assert_int_equal(mqtx_pool_create(&pc, &e->pool), 0);
	if (kind == SIM) {
		ct_sim_create(&c, RING, &e->rx, &e->peer, &e->dev);
	} else {
		struct ct_drv *d;

		assert_int_equal(mqtx_dev_create(&c, &e->dev), 0);
		d = mqtx_dev_priv(e->dev);
		d->resend = kind != ORDERED;
		d->cross = kind == RESEND_CROSS;
	}
	assert_int_equal(mqtx_dev_open(e->dev), 0);
	assert_int_equal(mqtx_ctl_new(&e->ctl), 0);
	assert_int_equal(mqtx_ctl_add_dev(e->ctl, e->dev), 0);
	e->run.dev = e->dev;
	e->run.pool = e->pool;
}

static void env_free(struct env *e)
{
	mqtx_ctl_free(e->ctl); /* destroys c0 */
	mqtx_dev_destroy(e->peer);
	assert_int_equal(mqtx_pool_in_use(e->pool), 0);
	mqtx_pool_destroy(e->pool);
}

/* ---- the configuration thread (it only records what went wrong: cmocka is the main's) ---- */

static bool cmd(struct env *e, const char *line)
{
	char *err = NULL;
	int rc = fixture_run(e->ctl, line, NULL, &err);

	if (rc)
		snprintf(e->error, sizeof(e->error), "\"%s\" exited %d: %s", line, rc, err);
	free(err);
	atomic_fetch_add(&e->changes, 1);
	return !rc;
}

/* Until the senders have handed the device @n more packets: traffic goes on between changes
 * (a device that stranded its queue would hold the pool, and the senders would stall). */
static bool progress(struct env *e, uint64_t n)
{
	uint64_t want = atomic_load(&e->run.sent) + n, until = ct_now() + CT_WAIT_NS;

	while (atomic_load(&e->run.sent) < want) {
		if (ct_now() > until) {
			snprintf(e->error, sizeof(e->error), "traffic stalled after %u changes",
				 atomic_load(&e->changes));
			return false;
		}
		sched_yield();
	}
	return true;
}

static const char *const replaces[] = {
	"qdisc replace dev c0 root pfifo limit 300",
	"qdisc replace dev c0 root fq_codel limit 500",
	"qdisc replace dev c0 root handle 1: mq",
	"qdisc replace dev c0 parent 1:1 pfifo limit 200",
	"qdisc replace dev c0 parent 1:2 fq_codel",
	"qdisc replace dev c0 root tbf rate 1gbit burst 64kb limit 64kb",
	"qdisc replace dev c0 root pfifo_fast",
	"qdisc del dev c0 root",
	"dev set c0 txqueues 1",
	"dev set c0 txqueues 2",
};

/* Every queue held still, both ways: transmits queue behind the freeze, then run at its end. */
static void freeze(struct env *e)
{
	mqtx_dev_lock_all(e->dev);
	sched_yield();
	mqtx_dev_unlock_all(e->dev);
	atomic_fetch_add(&e->changes, 1);
	mqtx_dev_lock_all_queues(e->dev);
	sched_yield();
	mqtx_dev_unlock_all_queues(e->dev);
	atomic_fetch_add(&e->changes, 1);
}

/* One pass through every kind of change, with traffic moving between any two. */
static bool change_round(struct env *e)
{
	for (size_t i = 0; i < N_REPLACES; i++)
		if (!cmd(e, replaces[i]) || !progress(e, STEP))
			return false;
	freeze(e);
	return progress(e, STEP) && cmd(e, "dev set c0 down") &&
	       progress(e, STEP) /* dropped as down meanwhile */ && cmd(e, "dev set c0 up") &&
	       progress(e, STEP);
}

static void *config_main(void *arg)
{
	struct env *e = arg;

	if (progress(e, STEP))
		for (unsigned r = 0; r < ROUNDS && change_round(e); r++)
			;
	atomic_store(&e->done, true);
	return NULL;
}

/* Wait for the configuration thread: a change that makes no progress for the bound is a
 * deadlock (the whole sequence may take long on a slow machine, a single change may not). */
static void wait_config(struct env *e, pthread_t th)
{
	unsigned seen = atomic_load(&e->changes);
	uint64_t until = ct_now() + CT_WAIT_NS;
	struct timespec ts = { 0, 1000000 };

	while (!atomic_load(&e->done)) {
		if (atomic_load(&e->changes) != seen) {
			seen = atomic_load(&e->changes);
			until = ct_now() + CT_WAIT_NS;
		}
		if (ct_now() > until)
			fail_msg("configuration stuck after %u changes: deadlock", seen);
		nanosleep(&ts, NULL);
	}
	assert_int_equal(pthread_join(th, NULL), 0);
	if (e->error[0])
		fail_msg("%s", e->error);
}

/*
 * @senders threads send into @nq queues (bursts of 1 to @burst) while the changes go round;
 * then the senders stop, and once the device has sent everything the books must balance.
 */
static void under_traffic(struct env *e, unsigned senders, unsigned nq, unsigned burst)
{
	struct mqtx_dev_stats st;
	pthread_t cfg;

	e->run.senders = senders;
	e->run.nq = nq;
	e->run.burst = burst;
	e->run.burst_varies = burst > 1;
	ct_start(&e->run, e->snd);
	assert_int_equal(pthread_create(&cfg, NULL, config_main, e), 0);
	wait_config(e, cfg);
	assert_int_equal(atomic_load(&e->changes), ROUNDS * (N_REPLACES + 4));
	atomic_store(&e->run.stop, true);
	ct_join_senders(&e->run, e->snd);
	assert_true(mqtx_dev_is_up(e->dev));
	ct_drain(e->dev, NULL, NULL);
	mqtx_dev_get_stats(e->dev, &st);
	ct_print("c0", &st);
	assert_true(st.txq.drops[MQTX_DROP_DOWN] > 0); /* the case is the one it claims */
}

static void ordered_case(enum kind kind, unsigned senders, unsigned nq, unsigned burst)
{
	struct mqtx_dev_stats st;
	struct ct_drv *d;
	struct env e;

	env_make(&e, kind);
	d = mqtx_dev_priv(e.dev);
	under_traffic(&e, senders, nq, burst);
	st = ct_books(e.dev, atomic_load(&e.run.sent) + atomic_load(&d->resent), CHANGE_DROPS);
	assert_int_equal(atomic_load(&d->order.seen) + atomic_load(&d->again.seen), st.txq.packets);
	assert_int_equal(atomic_load(&d->order.reordered), 0);
	if (kind != ORDERED)
		/* Every first pass taken was sent again: taken, dropped, never lost. */
		assert_int_equal(atomic_load(&d->resent), atomic_load(&d->order.seen));
	if (kind == RESEND && nq == 1)
		/* Into the queue its thread holds: in the driver's order. Into another queue (the
		 * other one, or queue 0 when a second queue goes out of use), a pass deferred by
		 * one thread may be overtaken by a later one: see ping_pong() in test_reenter.c. */
		assert_int_equal(atomic_load(&d->again.reordered), 0);
	env_free(&e);
}

/* Eight senders on one queue, the other one idle but changed all the same. */
static void test_ordered_8_senders_1_queue(void **state)
{
	(void)state;
	ordered_case(ORDERED, 8, 1, 32);
}

static void test_ordered_4_senders_2_queues(void **state)
{
	(void)state;
	ordered_case(ORDERED, 4, 2, 1);
}

/* The driver sends every packet into its own device again: re-entry under the held lock
 * while the qdisc it enters is replaced, frozen or taken down. */
static void test_resend_4_senders_1_queue(void **state)
{
	(void)state;
	ordered_case(RESEND, 4, 1, 16);
}

static void test_resend_6_senders_2_queues(void **state)
{
	(void)state;
	ordered_case(RESEND, 6, 2, 1);
}

/* Frames of a sim device that left it: arrived at the peer, or flushed by a down. */
static uint64_t sim_gone(void *arg)
{
	struct env *e = arg;
	struct mqtx_sim_txq_stats ss;

	mqtx_sim_stats(e->dev, &ss);
	return atomic_load(&e->rx.order.seen) + ss.flushed;
}

/* ...into the other queue: a thread in the driver holds one queue's lock while the graft
 * wants it, and sends into the other queue's qdisc, which the graft has taken out of service
 * already. */
static void test_resend_other_queue_6_senders(void **state)
{
	(void)state;
	ordered_case(RESEND_CROSS, 6, 2, 8);
}

/* A ring that stops its queue: a completion thread wakes it; going down flushes the ring. */
static void test_sim_6_senders_2_queues(void **state)
{
	struct mqtx_sim_txq_stats ss;
	struct mqtx_dev_stats st;
	struct env e;

	(void)state;
	env_make(&e, SIM);
	under_traffic(&e, 6, NQ, 16);
	ct_drain(e.dev, sim_gone, &e);
	st = ct_books(e.dev, atomic_load(&e.run.sent), CHANGE_DROPS);
	mqtx_sim_stats(e.dev, &ss);
	assert_int_equal(ss.ring, 0);
	assert_true(ss.stops > 0);
	/* What the driver took was completed, or flushed when the device went down. */
	assert_int_equal(ss.completed_pkts + ss.flushed, st.txq.packets);
	assert_int_equal(atomic_load(&e.rx.order.seen), ss.completed_pkts);
	assert_int_equal(atomic_load(&e.rx.order.reordered), 0);
	env_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ordered_8_senders_1_queue),
		cmocka_unit_test(test_ordered_4_senders_2_queues),
		cmocka_unit_test(test_resend_4_senders_1_queue),
		cmocka_unit_test(test_resend_6_senders_2_queues),
		cmocka_unit_test(test_resend_other_queue_6_senders),
		cmocka_unit_test(test_sim_6_senders_2_queues),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
