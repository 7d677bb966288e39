// SPDX-License-Identifier: MIT
/* The af_xdp driver on a veth pair (copy mode): one XSK socket per queue id, each queue's
 * frames on the peer's matching queue, every frame once and intact; a ring that fills stops
 * and wakes the queue; set-up errors; a deleted interface. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <mqtx/af_xdp.h>

#include "kdev_util.h"

#define NQ KT_VETH_NQ

static struct mqtx_pkt_pool *pool;

static struct mqtx_dev *mkxdp(uint32_t nq, const struct mqtx_af_xdp_cfg *xc)
{
	/* A qdisc limit above the whole run: the generator outruns the wire, nothing may drop. */
	struct mqtx_dev_cfg c = {
		.name = "xdp0", .num_txq = nq, .flags = MQTX_DEV_F_BQL, .tx_queue_len = 100000
	};
	struct mqtx_dev *dev = NULL;

	assert_int_equal(mqtx_af_xdp_dev_create(&c, xc, &dev), 0);
	assert_int_equal(mqtx_dev_open(dev), 0);
	return dev;
}

/* Run 20000 IMIX frames of 64 flows; check the capture on mqb0, the counters on both sides and
 * that the peer's receive queue i got exactly what mqtx sent on queue i. */
static void run_exact(struct mqtx_dev *dev, unsigned threads)
{
	struct mqtx_gen_cfg cfg;
	long long rxq[NQ];
	unsigned used = 0;

	for (unsigned i = 0; i < NQ; i++)
		rxq[i] = kt_veth_rxq("mqb0", i);
	kt_gen_exact(&cfg, threads);
	assert_int_equal(kt_run_captured(dev, pool, &cfg, "mqb0"), 0);
	for (unsigned i = 0; i < NQ; i++) {
		struct mqtx_txq_stats ts;
		struct mqtx_ktxq_stats ks;

		mqtx_txq_get_stats(mqtx_dev_txq(dev, i), &ts);
		assert_int_equal(mqtx_af_xdp_txq_stats(dev, (int)i, &ks), 0);
		assert_int_equal(ks.packets, ts.packets);
		assert_int_equal(ks.completed, ts.packets); /* the completion ring gave all back */
		assert_int_equal(ts.bql_inflight, 0);
		assert_int_equal(kt_veth_rxq("mqb0", i) - rxq[i], ts.packets);
		used += ts.packets > 0;
	}
	assert_true(used >= 3);
}

/* One socket per queue id, seen by the kernel, and queue i's frames on the peer's queue i. */
static void test_xdp_queues_exact(void **state)
{
	struct mqtx_af_xdp_cfg xc = { .ifname = "mqa0" };
	struct mqtx_dev *dev = mkxdp(NQ, &xc);

	(void)state;
	assert_int_equal(mqtx_af_xdp_zerocopy(dev), 0); /* veth has no zero-copy: auto copies */
	/* The kernel's view of the sockets needs CONFIG_XDP_SOCKETS_DIAG. */
	if (kt_sh("ss -a --xdp 2>/dev/null | grep -q mqa0") == 0) {
		for (unsigned i = 0; i < NQ; i++)
			assert_int_equal(kt_sh("ss -a --xdp | grep -q 'mqa0:q%u'", i), 0);
	} else {
		printf("note: ss --xdp shows no sockets (kernel without XDP_SOCKETS_DIAG); "
		       "the peer's per-queue counters show them\n");
	}
	run_exact(dev, 2);
	mqtx_dev_destroy(dev);
}

/* A ring of 64 frames: the queue stops after every burst that leaves less than a burst free
 * and wakes from completions; nothing is lost and the order holds. */
static void test_xdp_small_ring(void **state)
{
	struct mqtx_af_xdp_cfg xc = { .ifname = "mqa0", .mode = MQTX_XDP_COPY, .ring = 64 };
	struct mqtx_dev *dev = mkxdp(NQ, &xc);
	struct mqtx_ktxq_stats ks;

	(void)state;
	run_exact(dev, 1);
	assert_int_equal(mqtx_af_xdp_txq_stats(dev, -1, &ks), 0);
	assert_true(ks.stops > 0);
	assert_int_equal(ks.wakes, ks.stops); /* every stop was woken */
	mqtx_dev_destroy(dev);
}

/* Set-up errors name the interface and the cause and leave nothing behind. */
static void test_xdp_setup_errors(void **state)
{
	struct mqtx_af_xdp_cfg xc = { .ifname = "mqa0", .queue = 3 };
	struct mqtx_dev_cfg c = { .name = "xdpx", .num_txq = 2 };
	struct mqtx_dev *dev = NULL;

	(void)state;
	kt_log_reset();
	assert_int_equal(mqtx_af_xdp_dev_create(&c, &xc, &dev), -EINVAL);
	assert_true(kt_log_has("af_xdp: mqa0: no queue 4 (the interface has 4 TX queues)"));
	xc.queue = 0;
	xc.ring = 100;
	assert_int_equal(mqtx_af_xdp_dev_create(&c, &xc, &dev), -EINVAL);
	assert_true(kt_log_has("mqa0: ring 100 is not a power of two"));
	xc.ring = 0;
	xc.mode = MQTX_XDP_ZEROCOPY;
	assert_true(mqtx_af_xdp_dev_create(&c, &xc, &dev) < 0);
	assert_true(kt_log_has("af_xdp: mqa0: queue 0: zero-copy AF_XDP not supported"));
	xc.ifname = "mqnope0";
	assert_int_equal(mqtx_af_xdp_dev_create(&c, &xc, &dev), -ENODEV);
	assert_true(kt_log_has("af_xdp: mqnope0: no such interface"));
	assert_null(dev);
	/* Nothing attached to the interface. */
	assert_int_not_equal(kt_sh("ip link show mqa0 | grep -q xdp"), 0);
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
}

/* The interface is deleted under traffic: the device goes down, the counts add up, and the
 * library still serves. */
static void test_xdp_deleted(void **state)
{
	struct mqtx_af_xdp_cfg xc = { .ifname = "mqa0" };
	struct mqtx_dev *dev = mkxdp(NQ, &xc);
	struct mqtx_job_stats js;
	struct mqtx_dev_stats ds;

	(void)state;
	kt_log_reset();
	assert_int_equal(kt_delete_under_traffic(dev, pool, "mqa0", &js, &ds), 0);
	assert_true(kt_log_has("xdp0: the device failed"));
	mqtx_dev_destroy(dev);
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
	assert_int_equal(kt_veth("mqa0", "mqb0", NQ), 0);
	dev = mkxdp(1, &xc);
	mqtx_dev_destroy(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xdp_queues_exact),
		cmocka_unit_test(test_xdp_small_ring),
		cmocka_unit_test(test_xdp_setup_errors),
		cmocka_unit_test(test_xdp_deleted),
	};
	struct mqtx_pool_cfg pc = { .count = 8192 };
	int rc, fd;

	kt_enter_netns();
	if (kt_sh("ethtool --version >/dev/null 2>&1"))
		kt_skip("ethtool is missing (it reads veth's per-queue counters)");
	fd = socket(AF_XDP, SOCK_RAW, 0);
	if (fd < 0 && errno == EAFNOSUPPORT)
		kt_skip("the kernel has no AF_XDP (CONFIG_XDP_SOCKETS)");
	close(fd);
	if (mqtx_pool_create(&pc, &pool))
		return 1;
	rc = cmocka_run_group_tests(tests, kt_veth_setup, kt_veth_teardown);
	mqtx_pool_destroy(pool);
	return rc;
}
