// SPDX-License-Identifier: MIT
/* The tap driver against the kernel: queue i lands on the TAP's queue i, every frame once and
 * intact, kernel errors counted with their errno, a deleted TAP takes its device down. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <mqtx/tap.h>

#include "kdev_util.h"

#define NQ 4

static struct mqtx_pkt_pool *pool;

static struct mqtx_dev *mktap(const char *name, uint32_t nq, const struct mqtx_tap_cfg *tc)
{
	/* A qdisc limit above any run: a generator may outrun the kernel, nothing may drop. */
	struct mqtx_dev_cfg c = { .name = name, .num_txq = nq, .tx_queue_len = 100000 };
	struct mqtx_dev *dev = NULL;

	assert_int_equal(mqtx_tap_dev_create(&c, tc, &dev), 0);
	assert_int_equal(mqtx_dev_open(dev), 0);
	return dev;
}

/* 64 flows over 4 queues: the TAP receives every frame once (its kernel counters), the capture
 * on it sees them as generated, each flow in order, and a BPF program on the TAP's ingress
 * counts on kernel queue i exactly what mqtx sent on its queue i. */
static void test_tap_queues_exact(void **state)
{
	struct mqtx_dev *dev = mktap("mqtap0", NQ, NULL);
	struct mqtx_gen_cfg cfg;
	struct kt_qcount *qc;
	unsigned used = 0;

	(void)state;
	qc = kt_qcount_attach("mqtap0", true);
	assert_non_null(qc);
	kt_gen_exact(&cfg, 2);
	assert_int_equal(kt_run_captured(dev, pool, &cfg, "mqtap0"), 0);
	for (unsigned i = 0; i < NQ; i++) {
		struct mqtx_txq_stats ts;
		struct mqtx_ktxq_stats ks;

		mqtx_txq_get_stats(mqtx_dev_txq(dev, i), &ts);
		assert_int_equal(mqtx_dev_ktxq_stats(dev, (int)i, &ks), 0);
		/* tun_get_user() records the fd's queue as the rx queue: queue_mapping = i + 1 */
		assert_int_equal(kt_qcount_get(qc, i + 1), ts.packets);
		assert_int_equal(ks.packets, ts.packets);
		used += ts.packets > 0;
	}
	assert_true(used >= 3);
	assert_int_equal(kt_if_stat("mqtap0", "rx_packets"), cfg.count);
	kt_qcount_detach(qc);
	mqtx_dev_destroy(dev);
	/* The TAP mqtx created is gone with it. */
	assert_int_equal(if_nametoindex("mqtap0"), 0);
}

/* A frame the kernel refuses (shorter than an Ethernet header: tun_get_user() says EINVAL) is
 * dropped, counted as "kernel" on its queue and as EINVAL on the driver's side, and logged. */
static void test_tap_errno_counted(void **state)
{
	struct mqtx_dev *dev = mktap("mqtap1", 2, NULL);
	struct mqtx_ktxq_stats ks;
	struct mqtx_dev_stats ds;
	struct mqtx_pkt *pkt;

	(void)state;
	kt_log_reset();
	pkt = mqtx_pkt_alloc(pool);
	memset(mqtx_pkt_put(pkt, 10), 0xab, 10);
	pkt->queue_mapping = 1;
	pkt->flags |= MQTX_PKT_F_QMAP_SET;
	mqtx_dev_xmit(dev, pkt);
	assert_true(kt_conserved(dev, &ds));
	assert_int_equal(ds.txq.drops[MQTX_DROP_KERNEL], 1);
	assert_int_equal(ds.txq.packets, 0);
	assert_int_equal(mqtx_dev_ktxq_stats(dev, 1, &ks), 0);
	assert_int_equal(ks.err[MQTX_KERR_EINVAL], 1);
	assert_int_equal(ks.last_errno, EINVAL);
	assert_true(kt_log_has("mqtap1: txq 1: the kernel refused a frame: EINVAL"));
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
	mqtx_dev_destroy(dev);
}

/* Set-up errors name the interface and the cause and leave nothing behind. */
static void test_tap_setup_errors(void **state)
{
	struct mqtx_dev_cfg c = { .name = "mqtapx", .num_txq = 2 };
	struct mqtx_tap_cfg tc = { .ifname = "mqveth0" };
	struct mqtx_dev *dev = NULL;

	(void)state;
	kt_log_reset();
	assert_int_equal(kt_sh("ip link add mqveth0 type veth peer mqveth1"), 0);
	assert_int_equal(mqtx_tap_dev_create(&c, &tc, &dev), -EINVAL);
	assert_true(kt_log_has("mqveth0: exists and is not a multi-queue TAP"));
	tc.ifname = "a-name-far-too-long-for-linux";
	assert_int_equal(mqtx_tap_dev_create(&c, &tc, &dev), -EINVAL);
	assert_true(kt_log_has("not a valid interface name"));
	c.num_txq = 300;
	tc.ifname = "mqtapbig";
	assert_int_equal(mqtx_tap_dev_create(&c, &tc, &dev), -EINVAL);
	assert_int_equal(if_nametoindex("mqtapbig"), 0);
	assert_null(dev);
	kt_sh("ip link del mqveth0");
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
}

/* The TAP is deleted under traffic: the device goes down with a message, every packet is
 * accounted for, and the library keeps serving (a new device works). */
static void test_tap_deleted(void **state)
{
	struct mqtx_dev *dev = mktap("mqtap2", 2, NULL);
	struct mqtx_job_stats js;
	struct mqtx_dev_stats ds;

	(void)state;
	kt_log_reset();
	assert_int_equal(kt_delete_under_traffic(dev, pool, "mqtap2", &js, &ds), 0);
	assert_int_not_equal(mqtx_dev_failed(dev), 0);
	assert_true(ds.txq.drops[MQTX_DROP_KERNEL] >= 1);
	assert_true(kt_log_has("mqtap2: the device failed"));
	assert_int_equal(mqtx_dev_open(dev), -ENODEV);
	mqtx_dev_destroy(dev);
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
	/* Still serving: a new device on a new TAP. */
	dev = mktap("mqtap3", 1, NULL);
	mqtx_dev_destroy(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tap_queues_exact),
		cmocka_unit_test(test_tap_errno_counted),
		cmocka_unit_test(test_tap_setup_errors),
		cmocka_unit_test(test_tap_deleted),
	};
	struct mqtx_pool_cfg pc = { .count = 8192 };
	int rc;

	kt_enter_netns();
	if (access("/dev/net/tun", R_OK | W_OK))
		kt_skip("no /dev/net/tun: the kernel has no TUN/TAP support");
	if (mqtx_pool_create(&pc, &pool))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	mqtx_pool_destroy(pool);
	return rc;
}
