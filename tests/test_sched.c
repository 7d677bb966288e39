// SPDX-License-Identifier: MIT
/* TX scheduling: a queue is on an output list once; TX workers run queues woken from a
 * completion thread; stopping workers hands their queues on; without workers a completion
 * round held as a section runs what it woke at its end, and wakes outside any section run on
 * the TX thread. Threaded parts check invariants (everything sent, in order per queue,
 * conserved), never durations. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "helpers.h"

#define NQ	 4
#define RING	 32
#define PER_Q	 2000
#define N	 (NQ * PER_Q)
#define IDLE_MAX 20000000L /* bound on idle polls: a safety net, not a duration */

enum role { ROLE_OTHER, ROLE_MAIN, ROLE_COMPLETION, ROLE_MAX };
static __thread enum role my_role;

/* A driver with a descriptor ring per queue that stops its queue when the ring is full; a
 * completion thread empties the rings and wakes stopped queues. With @sink it frees at
 * once and never stops. */
struct ring_q {
	pthread_mutex_t lock;
	struct mqtx_pkt *slot[RING];
	unsigned head, count;
	uint64_t next_seq;
};

struct ring_priv {
	struct ring_q q[NQ];
	bool sink;
	atomic_ullong taken;
	atomic_ullong calls[ROLE_MAX];
	atomic_uint bad; /* invariant violations seen on any thread */
};

static int ring_init(struct mqtx_dev *dev)
{
	struct ring_priv *p = mqtx_dev_priv(dev);

	for (unsigned i = 0; i < NQ; i++)
		pthread_mutex_init(&p->q[i].lock, NULL);
	return 0;
}

static void ring_uninit(struct mqtx_dev *dev)
{
	struct ring_priv *p = mqtx_dev_priv(dev);

	for (unsigned i = 0; i < NQ; i++)
		pthread_mutex_destroy(&p->q[i].lock);
}

static unsigned ring_xmit(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			  unsigned n, bool more)
{
	struct ring_priv *p = mqtx_dev_priv(dev);
	struct ring_q *r = &p->q[mqtx_txq_index(txq)];
	unsigned take;

	(void)more;
	atomic_fetch_add(&p->calls[my_role], 1);
	pthread_mutex_lock(&r->lock);
	take = p->sink ? n : (n < RING - r->count ? n : RING - r->count);
	for (unsigned i = 0; i < take; i++) {
		/* Per queue, packets arrive in the order they were sent, none twice or lost. */
		if (pkts[i]->user != r->next_seq)
			atomic_fetch_add(&p->bad, 1);
		r->next_seq = pkts[i]->user + 1;
		if (p->sink)
			mqtx_pkt_free(pkts[i]);
		else
			r->slot[(r->head + r->count++) % RING] = pkts[i];
	}
	/* Stop before the ring is full, under the lock the completion side tests it with. */
	if (!p->sink && r->count == RING)
		mqtx_txq_stop(txq);
	pthread_mutex_unlock(&r->lock);
	atomic_fetch_add(&p->taken, take);
	return take;
}

static const struct mqtx_dev_ops ring_ops = {
	.kind = "ringtest",
	.priv_size = sizeof(struct ring_priv),
	.init = ring_init,
	.uninit = ring_uninit,
	.xmit_burst = ring_xmit,
};

struct env {
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev;
	struct ring_priv *drv;
	bool round_section; /* each completion round is a section (runs what it woke) */
	atomic_ullong completed;
};

static struct env *make(void)
{
	struct env *e = calloc(1, sizeof(*e));
	struct mqtx_dev_cfg cfg = {
		.name = "sch0", .ops = &ring_ops, .num_txq = NQ, .tx_queue_len = N
	};
	struct mqtx_pool_cfg pc = { .count = N + 1024, .data_room = 128 };

	my_role = ROLE_MAIN;
	assert_int_equal(mqtx_pool_create(&pc, &e->pool), 0);
	assert_int_equal(mqtx_dev_create(&cfg, &e->dev), 0);
	e->drv = mqtx_dev_priv(e->dev);
	assert_int_equal(mqtx_dev_open(e->dev), 0);
	return e;
}

static void unmake(struct env *e)
{
	assert_int_equal(test_env_free(e->dev, e->pool, NULL), 0);
	free(e);
}

/* Queue @n packets per queue numbered from @seq0 (queue chosen by the sender). */
static void send_per_queue(struct env *e, unsigned n, uint64_t seq0)
{
	for (uint64_t s = seq0; s < seq0 + n; s++) {
		for (uint16_t q = 0; q < NQ; q++) {
			struct mqtx_pkt *pkt = test_udp_pkt(e->pool, 1, q, 9, s);

			assert_non_null(pkt);
			pkt->queue_mapping = q;
			pkt->flags |= MQTX_PKT_F_QMAP_SET;
			assert_int_equal(mqtx_dev_xmit(e->dev, pkt), MQTX_XMIT_SUCCESS);
		}
	}
}

/* The NIC's completion context: free what the rings hold, wake a stopped queue once its ring
 * is at most half full (the decision under the ring lock the driver stops under). */
static void *completion_main(void *arg)
{
	struct env *e = arg;
	struct mqtx_pkt *done[RING];
	long idle = 0;

	my_role = ROLE_COMPLETION;
	while (atomic_load(&e->completed) < N && idle < IDLE_MAX) {
		bool any = false;

		if (e->round_section)
			mqtx_bh_disable();
		for (unsigned qi = 0; qi < NQ; qi++) {
			struct ring_q *r = &e->drv->q[qi];
			struct mqtx_txq *txq = mqtx_dev_txq(e->dev, qi);
			unsigned k;
			bool wake;

			pthread_mutex_lock(&r->lock);
			k = r->count < 8 ? r->count : 8;
			for (unsigned i = 0; i < k; i++) {
				done[i] = r->slot[r->head];
				r->head = (r->head + 1) % RING;
			}
			r->count -= k;
			wake = mqtx_txq_stopped(txq) && r->count <= RING / 2;
			pthread_mutex_unlock(&r->lock);
			mqtx_pkt_free_bulk(done, k);
			atomic_fetch_add(&e->completed, k);
			if (wake)
				mqtx_txq_wake(txq);
			any |= k || wake;
		}
		if (e->round_section)
			mqtx_bh_enable();
		if (!any) {
			idle++;
			sched_yield();
		}
	}
	return NULL;
}

/* Everything taken by the driver in order, completed, and nothing left in the stack. */
static void check_all_sent(struct env *e)
{
	struct mqtx_dev_stats st;

	assert_int_equal(atomic_load(&e->drv->bad), 0);
	assert_int_equal(atomic_load(&e->drv->taken), N);
	assert_int_equal(atomic_load(&e->completed), N);
	mqtx_dev_get_stats(e->dev, &st);
	assert_int_equal(st.xmit, N);
	assert_int_equal(st.txq.packets, N);
	assert_int_equal(test_drops(&st), 0);
	assert_int_equal(st.txq.qlen, 0);
	for (unsigned qi = 0; qi < NQ; qi++)
		assert_int_equal(e->drv->q[qi].next_seq, PER_Q);
	assert_true(mqtx_dev_all_tx_empty(e->dev));
}

static void test_schedule_once(void **state)
{
	struct env *e = make();
	struct mqtx_txq *t0 = mqtx_dev_txq(e->dev, 0), *t1 = mqtx_dev_txq(e->dev, 1);

	(void)state;
	e->drv->sink = true;
	mqtx_bh_disable(); /* what is scheduled stays on this thread's list until tx_action */
	assert_int_equal(mqtx_tx_action(), 0); /* nothing scheduled */
	mqtx_txq_stop(t0);
	for (uint64_t s = 0; s < 5; s++) {
		struct mqtx_pkt *pkt = test_udp_pkt(e->pool, 1, 0, 9, s);

		pkt->flags |= MQTX_PKT_F_QMAP_SET;
		mqtx_dev_xmit(e->dev, pkt);
	}
	assert_int_equal(atomic_load(&e->drv->taken), 0);
	mqtx_txq_start(t0); /* no run */
	assert_int_equal(mqtx_tx_action(), 0);
	/* Twice on the list would run twice: the SCHED bit keeps it to once. */
	mqtx_txq_schedule(t0);
	mqtx_txq_schedule(t0);
	assert_int_equal(mqtx_tx_action(), 1);
	assert_int_equal(atomic_load(&e->drv->taken), 5);
	assert_int_equal(mqtx_tx_action(), 0);
	/* Once run, it can be scheduled again; two queues are two entries. */
	mqtx_txq_schedule(t0);
	mqtx_txq_schedule(t1);
	mqtx_txq_schedule(t1);
	mqtx_txq_schedule(t0);
	assert_int_equal(mqtx_tx_action(), 2);
	/* A scheduled stopped queue is visited but sends nothing. */
	mqtx_txq_stop(t1);
	mqtx_txq_schedule(t1);
	assert_int_equal(mqtx_tx_action(), 1);
	assert_int_equal(atomic_load(&e->drv->calls[ROLE_MAIN]), 1);
	mqtx_txq_start(t1);
	mqtx_bh_enable();
	unmake(e);
}

static void test_worker_args(void **state)
{
	struct env *e = make();

	(void)state;
	assert_int_equal(mqtx_dev_start_workers(e->dev, 0), -EINVAL);
	assert_int_equal(mqtx_dev_start_workers(e->dev, 65), -EINVAL);
	assert_int_equal(mqtx_dev_start_workers(e->dev, 2), 0);
	assert_int_equal(mqtx_dev_start_workers(e->dev, 2), -EBUSY);
	assert_int_equal(mqtx_dev_start_workers(e->dev, 64), -EBUSY);
	mqtx_dev_stop_workers(e->dev);
	mqtx_dev_stop_workers(e->dev); /* idempotent */
	assert_int_equal(mqtx_dev_start_workers(e->dev, 64), 0);
	/* After stopping, scheduling inside a section is the calling thread's business again. */
	mqtx_dev_stop_workers(e->dev);
	mqtx_bh_disable();
	mqtx_txq_schedule(mqtx_dev_txq(e->dev, 2));
	assert_int_equal(mqtx_tx_action(), 1);
	mqtx_bh_enable();
	unmake(e);
}

/* Fill the qdiscs with every queue stopped, then let a completion thread wake them: it never
 * transmits itself; the workers do; the main thread only waits. */
static void test_workers_run_woken_queues(void **state)
{
	struct env *e = make();
	pthread_t th;

	(void)state;
	mqtx_dev_stop_all_queues(e->dev);
	send_per_queue(e, PER_Q, 0);
	assert_int_equal(atomic_load(&e->drv->taken), 0);
	assert_int_equal(mqtx_dev_start_workers(e->dev, 2), 0);
	assert_int_equal(pthread_create(&th, NULL, completion_main, e), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	check_all_sent(e);
	assert_int_equal(atomic_load(&e->drv->calls[ROLE_MAIN]), 0);
	assert_int_equal(atomic_load(&e->drv->calls[ROLE_COMPLETION]), 0);
	assert_true(atomic_load(&e->drv->calls[ROLE_OTHER]) >= N / RING);
	mqtx_dev_stop_workers(e->dev);
	unmake(e);
}

/* The same without workers: each completion round is a section, so its wakes land on the
 * completion thread's own list and run at the round's end, on that thread. */
static void test_completion_round_section(void **state)
{
	struct env *e = make();
	pthread_t th;

	(void)state;
	e->round_section = true;
	mqtx_dev_stop_all_queues(e->dev);
	send_per_queue(e, PER_Q, 0);
	assert_int_equal(pthread_create(&th, NULL, completion_main, e), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	check_all_sent(e);
	assert_int_equal(atomic_load(&e->drv->calls[ROLE_MAIN]), 0);
	assert_int_equal(atomic_load(&e->drv->calls[ROLE_OTHER]), 0);
	assert_true(atomic_load(&e->drv->calls[ROLE_COMPLETION]) >= N / RING);
	unmake(e);
}

/* Without workers and without a section (a driver's own thread that knows nothing of
 * sections): the wakes go to the TX thread, which sends everything; neither the completion
 * thread nor the main thread ever calls the driver. */
static void test_completion_thread_plain(void **state)
{
	struct env *e = make();
	pthread_t th;

	(void)state;
	mqtx_dev_stop_all_queues(e->dev);
	send_per_queue(e, PER_Q, 0);
	assert_int_equal(pthread_create(&th, NULL, completion_main, e), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	check_all_sent(e);
	assert_int_equal(atomic_load(&e->drv->calls[ROLE_MAIN]), 0);
	assert_int_equal(atomic_load(&e->drv->calls[ROLE_COMPLETION]), 0);
	assert_true(atomic_load(&e->drv->calls[ROLE_OTHER]) >= N / RING);
	unmake(e);
}

/* Queues woken onto a worker's list and the workers stopped right away: whatever the worker
 * did not run moves to this thread's section, whose mqtx_tx_action() sends it. Nothing is
 * lost either way, round after round. */
static void test_stop_workers_moves_queues(void **state)
{
	struct env *e = make();
	struct mqtx_dev_stats st;
	uint64_t seq = 0;

	(void)state;
	e->drv->sink = true;
	for (unsigned round = 0; round < 200; round++) {
		assert_int_equal(mqtx_dev_start_workers(e->dev, 1 + round % 3), 0);
		mqtx_dev_stop_all_queues(e->dev);
		send_per_queue(e, 5, seq);
		seq += 5;
		mqtx_bh_disable();
		for (unsigned qi = 0; qi < NQ; qi++)
			mqtx_txq_wake(mqtx_dev_txq(e->dev, qi));
		mqtx_dev_stop_workers(e->dev);
		mqtx_tx_action();
		mqtx_bh_enable();
		assert_int_equal(atomic_load(&e->drv->taken), seq * NQ);
	}
	assert_int_equal(atomic_load(&e->drv->bad), 0);
	mqtx_dev_get_stats(e->dev, &st);
	assert_int_equal(st.xmit, seq * NQ);
	assert_int_equal(st.txq.packets, seq * NQ);
	assert_int_equal(st.txq.qlen, 0);
	assert_int_equal(st.txq.wakes, 200 * NQ);
	/* The workers and this thread shared the work; their sum is every driver call. */
	assert_int_equal(atomic_load(&e->drv->calls[ROLE_MAIN]) +
				 atomic_load(&e->drv->calls[ROLE_OTHER]),
			 st.txq.batches);
	unmake(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedule_once),
		cmocka_unit_test(test_worker_args),
		cmocka_unit_test(test_workers_run_woken_queues),
		cmocka_unit_test(test_completion_round_section),
		cmocka_unit_test(test_completion_thread_plain),
		cmocka_unit_test(test_stop_workers_moves_queues),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
