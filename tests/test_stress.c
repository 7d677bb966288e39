// SPDX-License-Identifier: MIT
/* Multi-threaded stress: sender threads × queues × ring sizes, with a completion thread and
 * a thread that stops and wakes queues at random. At the end every packet is transmitted,
 * dropped with a reason, or still queued, and every flow arrived in order. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "helpers.h"

#define FLOWS_PER_THREAD 32
#define MAX_Q		 8
#define MAX_FLOWS	 (4 * FLOWS_PER_THREAD)

struct ring {
	pthread_mutex_t lock;
	struct mqtx_pkt *slot[1024];
	unsigned len;
};

struct drv {
	unsigned ring_size;
	struct ring ring[MAX_Q];
	uint64_t last_seq[MAX_FLOWS]; /* seq + 1 of the last packet seen per flow */
	atomic_ullong taken, completed, order_errors;
};

static unsigned drv_xmit(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			 unsigned n, bool more)
{
	struct drv *d = mqtx_dev_priv(dev);
	struct ring *r = &d->ring[mqtx_txq_index(txq)];
	unsigned i;

	(void)more;
	pthread_mutex_lock(&r->lock);
	for (i = 0; i < n && r->len < d->ring_size; i++) {
		uint64_t flow = pkts[i]->user >> 32, seq = pkts[i]->user & 0xffffffffu;

		/* Flows never change queue, and one queue's calls are serialised: no race. */
		if (seq < d->last_seq[flow]) /* gaps are drops; going back is a reorder */
			atomic_fetch_add(&d->order_errors, 1);
		d->last_seq[flow] = seq + 1;
		r->slot[r->len++] = pkts[i];
	}
	/* Stop before the ring is full, as a driver should. */
	if (r->len >= d->ring_size)
		mqtx_txq_stop(txq);
	pthread_mutex_unlock(&r->lock);
	atomic_fetch_add(&d->taken, i);
	return i;
}

static uint32_t drv_inflight(struct mqtx_dev *dev, struct mqtx_txq *txq)
{
	struct drv *d = mqtx_dev_priv(dev);
	struct ring *r = &d->ring[mqtx_txq_index(txq)];
	uint32_t n;

	pthread_mutex_lock(&r->lock);
	n = r->len;
	pthread_mutex_unlock(&r->lock);
	return n;
}

static const struct mqtx_dev_ops drv_ops = {
	.kind = "stress",
	.xmit_burst = drv_xmit,
	.inflight = drv_inflight,
};

/* One completion round, held as a section: the queues it wakes run at its end, here. */
static void complete_all(struct mqtx_dev *dev)
{
	struct drv *d = mqtx_dev_priv(dev);

	mqtx_bh_disable();
	for (unsigned q = 0; q < mqtx_dev_num_txq(dev); q++) {
		struct ring *r = &d->ring[q];
		unsigned n;

		pthread_mutex_lock(&r->lock);
		n = r->len;
		mqtx_pkt_free_bulk(r->slot, n);
		r->len = 0;
		pthread_mutex_unlock(&r->lock);
		atomic_fetch_add(&d->completed, n);
		mqtx_txq_wake(mqtx_dev_txq(dev, q));
	}
	mqtx_bh_enable();
}

struct run {
	struct mqtx_dev *dev;
	struct mqtx_pkt_pool *pool;
	atomic_bool stop;
	unsigned per_thread;
	unsigned burst;
	unsigned id;
	atomic_ullong sent, nomem;
};

struct sender {
	struct run *run;
	unsigned id;
};

static void *sender_main(void *arg)
{
	struct sender *s = arg;
	struct run *run = s->run;
	uint32_t seq[FLOWS_PER_THREAD] = { 0 };
	unsigned rng = s->id * 7919 + 1;

	for (unsigned i = 0; i < run->per_thread;) {
		struct mqtx_pkt *b[32];
		unsigned n = 0;

		while (n < run->burst && i < run->per_thread) {
			unsigned f =
				(rng = rng * 1103515245 + 12345) >> 16 & (FLOWS_PER_THREAD - 1);
			unsigned flow = s->id * FLOWS_PER_THREAD + f;
			struct mqtx_pkt *p = test_udp_pkt(run->pool, 0x0a100000 + flow,
							  (uint16_t)(1000 + flow), 80, 0);

			if (!p) {
				atomic_fetch_add(&run->nomem, 1);
				sched_yield();
				continue;
			}
			p->user = (uint64_t)flow << 32 | seq[f]++;
			b[n++] = p;
			i++;
		}
		atomic_fetch_add(&run->sent, n);
		if (run->burst == 1)
			mqtx_dev_xmit(run->dev, b[0]);
		else
			mqtx_dev_xmit_burst(run->dev, b, n);
	}
	return NULL;
}

static void *completer_main(void *arg)
{
	struct run *run = arg;

	while (!atomic_load(&run->stop)) {
		complete_all(run->dev);
		sched_yield();
	}
	return NULL;
}

static void *chaos_main(void *arg)
{
	struct run *run = arg;
	unsigned rng = 99, nq = mqtx_dev_num_txq(run->dev);

	while (!atomic_load(&run->stop)) {
		struct mqtx_txq *t = mqtx_dev_txq(run->dev, (rng = rng * 1103515245 + 12345) % nq);

		if (rng & 0x10000)
			mqtx_txq_stop(t);
		else
			mqtx_txq_wake(t);
		if ((rng & 0x3f0000) == 0) {
			mqtx_dev_lock_all(run->dev);
			mqtx_dev_unlock_all(run->dev);
		}
		/* No section: its wakes run on the TX thread. */
		sched_yield();
	}
	return NULL;
}

static void stress(unsigned threads, unsigned nq, unsigned ring, unsigned burst)
{
	struct mqtx_dev_cfg cfg = { .name = "s0",
				    .ops = &drv_ops,
				    .num_txq = nq,
				    .priv_size = sizeof(struct drv),
				    .tx_queue_len = 64 };
	struct run run = { .per_thread = 50000, .burst = burst };
	pthread_t th[4], comp, chaos;
	struct sender snd[4];
	struct mqtx_dev_stats st;
	struct drv *d;

	assert_int_equal(
		mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 16384, .data_room = 128 },
				 &run.pool),
		0);
	assert_int_equal(mqtx_dev_create(&cfg, &run.dev), 0);
	d = mqtx_dev_priv(run.dev);
	d->ring_size = ring;
	for (unsigned q = 0; q < nq; q++)
		pthread_mutex_init(&d->ring[q].lock, NULL);
	assert_int_equal(mqtx_dev_open(run.dev), 0);

	pthread_create(&comp, NULL, completer_main, &run);
	pthread_create(&chaos, NULL, chaos_main, &run);
	for (unsigned t = 0; t < threads; t++) {
		snd[t] = (struct sender){ &run, t };
		pthread_create(&th[t], NULL, sender_main, &snd[t]);
	}
	for (unsigned t = 0; t < threads; t++)
		pthread_join(th[t], NULL);
	atomic_store(&run.stop, true);
	pthread_join(comp, NULL);
	pthread_join(chaos, NULL);

	/* Drain: wake everything and complete until the device is exactly empty; the section
	 * makes this thread run what it wakes (the TX thread may still be finishing a run of
	 * the chaos thread's wakes, hence a bound rather than one pass). */
	for (int i = 0; i < 100000 && !mqtx_dev_all_tx_empty(run.dev); i++) {
		mqtx_bh_disable();
		mqtx_dev_wake_all_queues(run.dev);
		complete_all(run.dev);
		mqtx_bh_enable();
		if (i > 1000)
			sched_yield();
	}
	assert_true(mqtx_dev_all_tx_empty(run.dev));
	mqtx_dev_get_stats(run.dev, &st);
	assert_int_equal(st.xmit, (uint64_t)threads * run.per_thread);
	assert_int_equal(st.xmit, atomic_load(&run.sent));
	/* Conservation: sent = transmitted + dropped (with a reason) + queued (0 now). */
	assert_int_equal(st.xmit, st.txq.packets + test_drops(&st) + st.txq.qlen);
	assert_int_equal(st.txq.qlen, 0);
	assert_int_equal(st.txq.packets, atomic_load(&d->taken));
	assert_int_equal(atomic_load(&d->taken), atomic_load(&d->completed));
	/* Only the qdisc limit may drop here. */
	assert_int_equal(test_drops(&st), st.txq.drops[MQTX_DROP_QDISC]);
	assert_int_equal(atomic_load(&d->order_errors), 0);
	mqtx_dev_destroy(run.dev);
	assert_int_equal(mqtx_pool_in_use(run.pool), 0);
	mqtx_pool_destroy(run.pool);
}

static void test_2t_4q_ring16_burst1(void **s)
{
	(void)s;
	stress(2, 4, 16, 1);
}

static void test_2t_4q_ring64_burst32(void **s)
{
	(void)s;
	stress(2, 4, 64, 32);
}

static void test_3t_2q_ring4_burst8(void **s)
{
	(void)s;
	stress(3, 2, 4, 8);
}

static void test_4t_8q_ring256_burst16(void **s)
{
	(void)s;
	stress(4, 8, 256, 16);
}

static void test_2t_1q_ring1_burst4(void **s)
{
	(void)s;
	stress(2, 1, 1, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_2t_4q_ring16_burst1),
		cmocka_unit_test(test_2t_4q_ring64_burst32),
		cmocka_unit_test(test_3t_2q_ring4_burst8),
		cmocka_unit_test(test_4t_8q_ring256_burst16),
		cmocka_unit_test(test_2t_1q_ring1_burst4),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
