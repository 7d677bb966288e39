/* SPDX-License-Identifier: MIT */
/* Conservation under threads for a qdisc test: producers and consumers on one qdisc, each
 * call under one mutex as the core serialises them on the queue lock. */
#ifndef MQTX_TEST_QDISC_MT_H
#define MQTX_TEST_QDISC_MT_H

#include <pthread.h>

#include "test_qdisc_util.h"

#define TQ_MT_THREADS 2	    /* producers, and as many consumers */
#define TQ_MT_PER     20000 /* packets per producer */

struct tq_mt {
	struct tq *t;
	const uint32_t *prios;
	unsigned nprios;
	uint64_t offered, sent, stop;
	pthread_mutex_t lock;
};

/* Packets of 64..1463 bytes, each with the next priority of the list. */
static inline void *tq_mt_producer(void *arg)
{
	struct tq_mt *m = arg;

	for (uint32_t i = 0; i < TQ_MT_PER; i++) {
		struct mqtx_pkt *p = mqtx_pkt_alloc(m->t->pool), *to_free = NULL;

		assert_non_null(p);
		assert_non_null(mqtx_pkt_put(p, 64 + i % 1400));
		p->priority = m->prios[i % m->nprios];
		pthread_mutex_lock(&m->lock);
		m->t->q->ops->enqueue(m->t->q, p, &to_free);
		m->offered++;
		pthread_mutex_unlock(&m->lock);
		mqtx_qdisc_free_dropped(m->t->dev, to_free);
	}
	return NULL;
}

static inline void *tq_mt_consumer(void *arg)
{
	struct tq_mt *m = arg;

	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE)) {
		struct mqtx_pkt *p;

		pthread_mutex_lock(&m->lock);
		p = m->t->q->ops->dequeue(m->t->q);
		m->sent += p != NULL;
		pthread_mutex_unlock(&m->lock);
		mqtx_pkt_free(p);
	}
	return NULL;
}

/* Run them on t->q; then everything offered is sent, dropped (counted by the qdisc and the
 * queue alike) or still queued, and the pool holds exactly the queued ones. */
static inline void tq_mt_conservation(struct tq *t, const uint32_t *prios, unsigned nprios)
{
	pthread_t pr[TQ_MT_THREADS], co[TQ_MT_THREADS];
	struct mqtx_txq_stats st;
	struct tq_mt m = { .t = t, .prios = prios, .nprios = nprios };

	pthread_mutex_init(&m.lock, NULL);
	for (int i = 0; i < TQ_MT_THREADS; i++) {
		assert_int_equal(pthread_create(&pr[i], NULL, tq_mt_producer, &m), 0);
		assert_int_equal(pthread_create(&co[i], NULL, tq_mt_consumer, &m), 0);
	}
	for (int i = 0; i < TQ_MT_THREADS; i++)
		pthread_join(pr[i], NULL);
	__atomic_store_n(&m.stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < TQ_MT_THREADS; i++)
		pthread_join(co[i], NULL);
	pthread_mutex_destroy(&m.lock);
	mqtx_txq_get_stats(mqtx_dev_txq(t->dev, 0), &st);
	assert_int_equal(m.offered, (uint64_t)TQ_MT_THREADS * TQ_MT_PER);
	assert_int_equal(m.sent + mqtx_txq_stats_drops(&st) + t->q->qlen, m.offered);
	assert_int_equal(t->q->drops, mqtx_txq_stats_drops(&st));
	assert_int_equal(mqtx_pool_in_use(t->pool), t->q->qlen);
}

#endif
