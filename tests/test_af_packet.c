// SPDX-License-Identifier: MIT
/* The af_packet driver on a veth pair: with the kernel's qdisc pass mqtx queue i leaves on
 * kernel queue i; with the bypass the kernel picks the sending CPU's queue; every frame once
 * and intact; errnos counted; a full socket buffer stops and wakes; a deleted interface. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <mqtx/af_packet.h>

#include "kdev_util.h"

#define NQ KT_VETH_NQ

static struct mqtx_pkt_pool *pool;

static struct mqtx_dev *mkafp(uint32_t nq, const struct mqtx_af_packet_cfg *ac)
{
	/* A qdisc limit above any run: a generator may outrun the kernel, nothing may drop. */
	struct mqtx_dev_cfg c = { .name = "afp0", .num_txq = nq, .tx_queue_len = 100000 };
	struct mqtx_dev *dev = NULL;

	assert_int_equal(mqtx_af_packet_dev_create(&c, ac, &dev), 0);
	assert_int_equal(mqtx_dev_open(dev), 0);
	return dev;
}

/* Without the bypass, the steering program puts mqtx queue i on kernel queue i: the peer's
 * receive queue i (veth hands a frame to the peer's queue of its own TX queue) counts exactly
 * what mqtx sent on queue i. */
static void test_afp_steered(void **state)
{
	struct mqtx_af_packet_cfg ac = { .ifname = "mqa0", .no_bypass = true };
	struct mqtx_dev *dev = mkafp(NQ, &ac);
	struct mqtx_gen_cfg cfg;
	long long rxq[NQ];
	unsigned used = 0;

	(void)state;
	/* The kernel's qdisc pass: mq with a pfifo_fast per queue, long enough for the whole
	 * run, so that a peer ring that fills (veth returns NETDEV_TX_BUSY) requeues instead of
	 * dropping as noqueue, veth's default, would. */
	assert_int_equal(kt_sh("ip link set mqa0 txqueuelen 100000 && "
			       "tc qdisc replace dev mqa0 root handle 1: mq"),
			 0);
	for (unsigned i = 0; i < NQ; i++)
		rxq[i] = kt_veth_rxq("mqb0", i);
	kt_gen_exact(&cfg, 2);
	assert_int_equal(kt_run_captured(dev, pool, &cfg, "mqb0"), 0);
	for (unsigned i = 0; i < NQ; i++) {
		struct mqtx_txq_stats ts;
		struct mqtx_ktxq_stats ks;

		mqtx_txq_get_stats(mqtx_dev_txq(dev, i), &ts);
		assert_int_equal(mqtx_dev_ktxq_stats(dev, (int)i, &ks), 0);
		assert_int_equal(ks.packets, ts.packets);
		assert_int_equal(kt_veth_rxq("mqb0", i) - rxq[i], ts.packets);
		used += ts.packets > 0;
	}
	assert_true(used >= 3);
	mqtx_dev_destroy(dev);
	/* The program and the clsact hook it needed are gone with the device. */
	assert_int_not_equal(kt_sh("tc qdisc show dev mqa0 | grep -q clsact"), 0);
	kt_sh("tc qdisc del dev mqa0 root");
}

/* With the bypass (the default) the kernel ignores the socket: every frame sent from CPU c
 * leaves on kernel queue c % queues, whichever mqtx queue sent it. */
static void test_afp_bypass_cpu_queue(void **state)
{
	struct mqtx_af_packet_cfg ac = { .ifname = "mqa0" };
	struct mqtx_dev *dev = mkafp(NQ, &ac);
	cpu_set_t set, old;
	struct mqtx_gen_cfg cfg;
	uint8_t buf[128];
	long long rxq[NQ];
	int cpu = 0;

	(void)state;
	mqtx_gen_cfg_default(&cfg);
	cfg.flows = 64;
	sched_getaffinity(0, sizeof(old), &old);
	while (!CPU_ISSET(cpu, &old))
		cpu++;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);
	for (unsigned i = 0; i < NQ; i++)
		rxq[i] = kt_veth_rxq("mqb0", i);
	for (uint64_t seq = 0; seq < 400; seq++) {
		struct mqtx_pkt *pkt = mqtx_pkt_alloc(pool);
		int len = mqtx_gen_build(&cfg, seq, buf, sizeof(buf));

		memcpy(mqtx_pkt_put(pkt, (uint32_t)len), buf, (size_t)len);
		pkt->queue_mapping = (uint16_t)(seq % NQ); /* every mqtx queue in turn */
		pkt->flags |= MQTX_PKT_F_QMAP_SET;
		assert_int_equal(mqtx_dev_xmit(dev, pkt), MQTX_XMIT_SUCCESS);
	}
	sched_setaffinity(0, sizeof(old), &old);
	for (unsigned i = 0; i < NQ; i++) {
		long long want = i == (unsigned)cpu % NQ ? 400 : 0;
		struct mqtx_txq_stats ts;

		mqtx_txq_get_stats(mqtx_dev_txq(dev, i), &ts);
		assert_int_equal(ts.packets, 100);
		assert_int_equal(kt_veth_rxq("mqb0", i) - rxq[i], want);
	}
	mqtx_dev_destroy(dev);
}

/* The kernel refuses with an errno: counted per errno and as kernel drops, nothing lost. */
static void test_afp_errnos(void **state)
{
	struct mqtx_af_packet_cfg ac = { .ifname = "mqa0" };
	struct mqtx_dev *dev = mkafp(2, &ac);
	struct mqtx_ktxq_stats ks;
	struct mqtx_dev_stats ds;
	struct mqtx_pkt *pkt;

	(void)state;
	kt_log_reset();
	/* Larger than the MTU: net/packet/af_packet.c packet_snd() says EMSGSIZE. */
	pkt = mqtx_pkt_alloc(pool);
	memset(mqtx_pkt_put(pkt, 1600), 0x02, 1600);
	mqtx_dev_xmit(dev, pkt);
	/* The interface down (it still exists): ENETDOWN, and the device stays up. */
	assert_int_equal(kt_sh("ip link set mqa0 down"), 0);
	pkt = mqtx_pkt_alloc(pool);
	memset(mqtx_pkt_put(pkt, 60), 0x02, 60);
	mqtx_dev_xmit(dev, pkt);
	assert_int_equal(kt_sh("ip link set mqa0 up"), 0);
	assert_true(kt_conserved(dev, &ds));
	assert_int_equal(ds.txq.drops[MQTX_DROP_KERNEL], 2);
	assert_int_equal(ds.txq.packets, 0);
	assert_int_equal(mqtx_dev_ktxq_stats(dev, -1, &ks), 0);
	assert_int_equal(ks.err[MQTX_KERR_EMSGSIZE], 1);
	assert_int_equal(ks.err[MQTX_KERR_ENETDOWN], 1);
	assert_true(mqtx_dev_is_up(dev));
	assert_true(kt_log_has("the kernel refused a frame: EMSGSIZE"));
	assert_true(kt_log_has("the kernel refused a frame: ENETDOWN"));
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
	mqtx_dev_destroy(dev);
}

/* Set-up errors name the interface and the cause. */
static void test_afp_setup_errors(void **state)
{
	struct mqtx_af_packet_cfg ac = { .ifname = "mqnope0" };
	struct mqtx_dev_cfg c = { .name = "afpx", .num_txq = 2 };
	struct mqtx_dev *dev = NULL;

	(void)state;
	kt_log_reset();
	assert_int_equal(mqtx_af_packet_dev_create(&c, &ac, &dev), -ENODEV);
	assert_true(kt_log_has("af_packet: mqnope0: no such interface"));
	ac.ifname = NULL;
	assert_int_equal(mqtx_af_packet_dev_create(&c, &ac, &dev), -EINVAL);
	assert_true(kt_log_has("needs an interface"));
	/* Down: refused at open, with the interface named. */
	ac.ifname = "mqa0";
	assert_int_equal(kt_sh("ip link set mqa0 down"), 0);
	assert_int_equal(mqtx_af_packet_dev_create(&c, &ac, &dev), 0);
	assert_int_equal(mqtx_dev_open(dev), -ENETDOWN);
	assert_true(kt_log_has("afpx: mqa0: the interface is down"));
	mqtx_dev_destroy(dev);
	assert_int_equal(kt_sh("ip link set mqa0 up"), 0);
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
}

/* The interface is deleted under traffic: the device goes down with a message, the counts add
 * up, and the library still serves. */
static void test_afp_deleted(void **state)
{
	struct mqtx_af_packet_cfg ac = { .ifname = "mqa0" };
	struct mqtx_dev *dev = mkafp(NQ, &ac);
	struct mqtx_job_stats js;
	struct mqtx_dev_stats ds;

	(void)state;
	kt_log_reset();
	assert_int_equal(kt_delete_under_traffic(dev, pool, "mqa0", &js, &ds), 0);
	assert_true(kt_log_has("afp0: the device failed"));
	mqtx_dev_destroy(dev);
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
	/* Still serving: a new pair, a new device. */
	assert_int_equal(kt_veth("mqa0", "mqb0", NQ), 0);
	dev = mkafp(1, &ac);
	mqtx_dev_destroy(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_afp_steered), cmocka_unit_test(test_afp_bypass_cpu_queue),
		cmocka_unit_test(test_afp_errnos),  cmocka_unit_test(test_afp_setup_errors),
		cmocka_unit_test(test_afp_deleted),
	};
	struct mqtx_pool_cfg pc = { .count = 8192 };
	int rc;

	kt_enter_netns();
	if (kt_sh("ethtool --version >/dev/null 2>&1"))
		kt_skip("ethtool is missing (it reads veth's per-queue counters)");
	if (mqtx_pool_create(&pc, &pool))
		return 1;
	rc = cmocka_run_group_tests(tests, kt_veth_setup, kt_veth_teardown);
	mqtx_pool_destroy(pool);
	return rc;
}
