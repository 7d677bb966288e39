// SPDX-License-Identifier: MIT
/* The loopback driver: frames come back through the receive handler; per-thread stats sum. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <mqtx/loopback.h>
#include <mqtx/mqtx.h>

struct rx_log {
	atomic_ulong packets, bytes, bad;
	_Atomic uint64_t last_user;
};

static void rx_fn(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg)
{
	struct rx_log *log = arg;

	(void)dev;
	/* The frame is intact: its bytes repeat the low byte of its sequence number. */
	for (uint32_t i = 0; i < pkt->len; i++)
		if (pkt->data[i] != (uint8_t)pkt->user)
			atomic_fetch_add(&log->bad, 1);
	atomic_fetch_add(&log->packets, 1);
	atomic_fetch_add(&log->bytes, pkt->len);
	atomic_store(&log->last_user, pkt->user);
	mqtx_pkt_free(pkt);
}

static struct mqtx_pkt *mkpkt(struct mqtx_pkt_pool *pool, uint64_t seq, uint32_t len)
{
	struct mqtx_pkt *pkt;

	while (!(pkt = mqtx_pkt_alloc(pool)))
		sched_yield();
	mqtx_pkt_put(pkt, len);
	memset(pkt->data, (uint8_t)seq, len);
	pkt->user = seq;
	return pkt;
}

static struct mqtx_dev *mklo(uint32_t nq)
{
	struct mqtx_dev_cfg c = {
		.name = "lo",
		.ops = &mqtx_loopback_ops,
		.num_txq = nq,
		.flags = MQTX_DEV_F_NO_QUEUE,
	};
	struct mqtx_dev *dev;

	assert_int_equal(mqtx_dev_create(&c, &dev), 0);
	return dev;
}

static void test_frames_come_back(void **state)
{
	struct mqtx_pool_cfg pc = { .count = 64 };
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev = mklo(1);
	struct rx_log log = { 0 };
	struct mqtx_loopback_stats ls;
	struct mqtx_dev_stats ds;

	(void)state;
	assert_int_equal(mqtx_pool_create(&pc, &pool), 0);
	assert_non_null(mqtx_dev_ml_priv(dev));
	mqtx_dev_set_rx_handler(dev, rx_fn, &log);
	assert_int_equal(mqtx_dev_open(dev), 0);
	for (uint64_t i = 1; i <= 10; i++)
		assert_int_equal(mqtx_dev_xmit(dev, mkpkt(pool, i, 60 + (uint32_t)i)),
				 MQTX_XMIT_SUCCESS);
	assert_int_equal(atomic_load(&log.packets), 10);
	assert_int_equal(atomic_load(&log.bytes), 600 + 55);
	assert_int_equal(atomic_load(&log.bad), 0);
	assert_int_equal(atomic_load(&log.last_user), 10);
	assert_int_equal(mqtx_loopback_get_stats(dev, &ls), 0);
	assert_int_equal(ls.packets, 10);
	assert_int_equal(ls.bytes, 655);
	mqtx_dev_get_stats(dev, &ds);
	assert_int_equal(ds.rx_packets, 10);
	assert_int_equal(ds.txq.packets, 10);
	assert_true(mqtx_dev_all_tx_empty(dev));
	assert_int_equal(mqtx_pool_in_use(pool), 0);

	/* Bursts too; not a loopback device: -EINVAL. */
	struct mqtx_pkt *burst[8];

	for (int i = 0; i < 8; i++)
		burst[i] = mkpkt(pool, 100 + (uint64_t)i, 64);
	assert_int_equal(mqtx_dev_xmit_burst(dev, burst, 8), 8);
	assert_int_equal(atomic_load(&log.packets), 18);
	mqtx_loopback_get_stats(dev, &ls);
	assert_int_equal(ls.packets, 18);
	assert_int_equal(mqtx_pool_in_use(pool), 0);
	mqtx_dev_destroy(dev);
	mqtx_pool_destroy(pool);
}

static void test_not_loopback(void **state)
{
	struct mqtx_dev_cfg c = { .name = "n0", .ops = &mqtx_null_ops, .num_txq = 1 };
	struct mqtx_loopback_stats ls;
	struct mqtx_dev *dev;

	(void)state;
	assert_int_equal(mqtx_dev_create(&c, &dev), 0);
	assert_int_equal(mqtx_loopback_get_stats(dev, &ls), -EINVAL);
	assert_int_equal(mqtx_loopback_get_stats(NULL, &ls), -EINVAL);
	mqtx_dev_destroy(dev);
}

struct sender {
	struct mqtx_dev *dev;
	struct mqtx_pkt_pool *pool;
	int n;
	uint32_t len;
};

static void *send_thread(void *p)
{
	struct sender *s = p;

	for (int i = 0; i < s->n; i++) {
		struct mqtx_pkt *pkt = mkpkt(s->pool, (uint64_t)i, s->len);

		/* Spread over the queues by the sender's choice. */
		pkt->queue_mapping = (uint16_t)(i & 1);
		pkt->flags |= MQTX_PKT_F_QMAP_SET;
		mqtx_dev_xmit(s->dev, pkt);
	}
	return NULL;
}

static void test_two_threads(void **state)
{
	struct mqtx_pool_cfg pc = { .count = 1024 };
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev = mklo(2);
	struct rx_log log = { 0 };
	struct sender s[2];
	pthread_t th[2];
	struct mqtx_loopback_stats ls;
	struct mqtx_dev_stats ds;

	(void)state;
	assert_int_equal(mqtx_pool_create(&pc, &pool), 0);
	mqtx_dev_set_rx_handler(dev, rx_fn, &log);
	assert_int_equal(mqtx_dev_open(dev), 0);
	s[0] = (struct sender){ dev, pool, 30000, 64 };
	s[1] = (struct sender){ dev, pool, 20000, 100 };
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, send_thread, &s[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(mqtx_loopback_get_stats(dev, &ls), 0);
	mqtx_dev_get_stats(dev, &ds);
	/* Every frame was looped back and counted exactly once, whichever slot it used. */
	assert_int_equal(ls.packets + ds.rx_drops, 50000);
	assert_int_equal(ds.rx_drops, 0);
	assert_int_equal(ls.packets, 50000);
	assert_int_equal(ls.bytes, 30000 * 64 + 20000 * 100);
	assert_int_equal(atomic_load(&log.packets), 50000);
	assert_int_equal(atomic_load(&log.bad), 0);
	assert_int_equal(ds.txq.packets + mqtx_txq_stats_drops(&ds.txq), 50000);
	assert_int_equal(mqtx_pool_in_use(pool), 0);
	mqtx_dev_destroy(dev);
	mqtx_pool_destroy(pool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames_come_back),
		cmocka_unit_test(test_not_loopback),
		cmocka_unit_test(test_two_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
