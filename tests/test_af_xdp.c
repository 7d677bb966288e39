// SPDX-License-Identifier: MIT
/* The af_xdp driver on a veth pair (copy mode): one XSK socket per queue id, each queue's
 * frames on the peer's matching queue, every frame once and intact; packets of the UMEM's pool
 * sent where they are, others copied, counted; a ring that fills stops and wakes the queue;
 * set-up errors; a device closed under traffic; a deleted interface, and a pool let go while
 * its frames are in flight. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <mqtx/af_xdp.h>

#include "kdev_util.h"

#define NQ KT_VETH_NQ

static struct mqtx_pkt_pool *pool;

/* A device over @umem's memory, or over a pool of its own (@umem NULL). */
static struct mqtx_dev *mkxdp_on(uint32_t nq, const struct mqtx_af_xdp_cfg *xc,
				 struct mqtx_pkt_pool *umem)
{
	/* A qdisc limit above the whole run: the generator outruns the wire, nothing may drop. */
	struct mqtx_dev_cfg c = {
		.name = "xdp0", .num_txq = nq, .flags = MQTX_DEV_F_BQL, .tx_queue_len = 100000
	};
	struct mqtx_dev *dev = NULL;

	if (umem)
		assert_int_equal(mqtx_af_xdp_dev_create_with_pool(&c, xc, umem, &dev), 0);
	else
		assert_int_equal(mqtx_af_xdp_dev_create(&c, xc, &dev), 0);
	assert_int_equal(mqtx_dev_open(dev), 0);
	return dev;
}

static struct mqtx_dev *mkxdp(uint32_t nq, const struct mqtx_af_xdp_cfg *xc)
{
	return mkxdp_on(nq, xc, NULL);
}

/* The driver's own counter @name, over every queue of @dev. */
struct xstat {
	const char *name;
	uint64_t v;
	bool found;
};

static void xstat_cb(const char *name, uint64_t v, void *arg)
{
	struct xstat *x = arg;

	if (!strcmp(name, x->name)) {
		x->v = v;
		x->found = true;
	}
}

static uint64_t xstat(struct mqtx_dev *dev, const char *name)
{
	struct xstat x = { .name = name };

	assert_int_equal(mqtx_dev_xstats(dev, -1, xstat_cb, &x), 0);
	assert_true(x.found);
	return x.v;
}

/* Run 20000 IMIX frames of 64 flows from @from; check the capture on mqb0, the counters on both
 * sides, that the peer's receive queue i got exactly what mqtx sent on queue i, and that every
 * frame went out in place (@from is the UMEM's pool) or as a copy (any other pool). */
static void run_exact(struct mqtx_dev *dev, struct mqtx_pkt_pool *from, unsigned threads)
{
	bool in_place = from == mqtx_af_xdp_pool(dev);
	struct mqtx_gen_cfg cfg;
	long long rxq[NQ];
	unsigned used = 0;

	for (unsigned i = 0; i < NQ; i++)
		rxq[i] = kt_veth_rxq("mqb0", i);
	kt_gen_exact(&cfg, threads);
	assert_int_equal(kt_run_captured(dev, from, &cfg, "mqb0"), 0);
	for (unsigned i = 0; i < NQ; i++) {
		struct mqtx_txq_stats ts;
		struct mqtx_ktxq_stats ks;

		mqtx_txq_get_stats(mqtx_dev_txq(dev, i), &ts);
		assert_int_equal(mqtx_dev_ktxq_stats(dev, (int)i, &ks), 0);
		assert_int_equal(ks.packets, ts.packets);
		assert_int_equal(ks.completed, ts.packets); /* the completion ring gave all back */
		assert_int_equal(ts.bql_inflight, 0);
		assert_int_equal(kt_veth_rxq("mqb0", i) - rxq[i], ts.packets);
		used += ts.packets > 0;
	}
	assert_true(used >= 3);
	assert_int_equal(xstat(dev, "in_place"), in_place ? cfg.count : 0);
	assert_int_equal(xstat(dev, "copied"), in_place ? 0 : cfg.count);
	/* Every packet is back in its pool: the completions freed what was sent in place, the
	 * copies freed the originals at once. */
	assert_int_equal(mqtx_pool_in_use(from), 0);
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
	run_exact(dev, pool, 2);
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
	run_exact(dev, pool, 1);
	assert_int_equal(mqtx_dev_ktxq_stats(dev, -1, &ks), 0);
	assert_true(ks.stops > 0);
	assert_int_equal(ks.wakes, ks.stops); /* every stop was woken */
	mqtx_dev_destroy(dev);
}

/* Packets of the device's own pool go out where they were built: not one copy, every frame
 * intact and once, every packet back in the pool. */
static void test_xdp_in_place(void **state)
{
	struct mqtx_af_xdp_cfg xc = { .ifname = "mqa0" };
	struct mqtx_dev *dev = mkxdp(NQ, &xc);
	struct mqtx_pkt_pool *own = mqtx_af_xdp_pool(dev);

	(void)state;
	assert_non_null(own);
	assert_null(mqtx_af_xdp_pool(NULL));
	assert_int_equal(mqtx_pool_count(own), MQTX_XDP_RING_DEFAULT * NQ);
	assert_int_equal(xstat(dev, "umem_frames"), MQTX_XDP_RING_DEFAULT * NQ);
	run_exact(dev, own, 2);
	assert_int_equal(xstat(dev, "copy_waits"), 0);
	mqtx_dev_destroy(dev);
}

/* A pool of the caller's as the UMEM: its packets go out in place, another pool's are copied
 * into frames the queues take from it and give back when the device goes down; the pool
 * outlives the devices. A pool that cannot be a UMEM is refused with a message. */
static void test_xdp_caller_pool(void **state)
{
	struct mqtx_af_xdp_cfg xc = { .ifname = "mqa0", .ring = 256 };
	struct mqtx_dev_cfg c = { .name = "xdpx", .num_txq = NQ };
	struct mqtx_pkt_pool *umem, *small;
	struct mqtx_dev *dev;

	(void)state;
	assert_int_equal(
		mqtx_pool_create_frames(&(struct mqtx_pool_cfg){ .count = 4096 }, 2048, &umem), 0);
	dev = mkxdp_on(NQ, &xc, umem);
	assert_ptr_equal(mqtx_af_xdp_pool(dev), umem);
	run_exact(dev, umem, 2);
	mqtx_dev_destroy(dev);
	assert_int_equal(mqtx_pool_in_use(umem), 0);

	dev = mkxdp_on(NQ, &xc, umem);
	run_exact(dev, pool, 2);
	/* The queues keep their copy frames while up (at most a ring each)... */
	assert_in_range(mqtx_pool_in_use(umem), 1, 256 * NQ);
	assert_int_equal(mqtx_dev_close(dev), 0);
	/* ...and give them back when the device goes down. */
	assert_int_equal(mqtx_pool_in_use(umem), 0);
	mqtx_dev_destroy(dev);

	dev = NULL;
	kt_log_reset();
	assert_int_equal(mqtx_af_xdp_dev_create_with_pool(&c, &xc, NULL, &dev), -EINVAL);
	assert_true(kt_log_has("af_xdp: xdpx: needs a pool"));
	assert_int_equal(mqtx_af_xdp_dev_create_with_pool(&c, &xc, pool, &dev), -EINVAL);
	assert_true(kt_log_has("af_xdp: mqa0: the pool's packets are not frames of one area "
			       "(mqtx_pool_create_frames())"));
	xc.frame = 4096;
	assert_int_equal(mqtx_af_xdp_dev_create_with_pool(&c, &xc, umem, &dev), -EINVAL);
	assert_true(kt_log_has("af_xdp: mqa0: frame 4096: the pool's frames are of 2048 bytes"));
	xc.frame = 0;
	assert_int_equal(
		mqtx_pool_create_frames(&(struct mqtx_pool_cfg){ .count = 64 }, 1024, &small), 0);
	assert_int_equal(mqtx_af_xdp_dev_create_with_pool(&c, &xc, small, &dev), -EINVAL);
	assert_true(kt_log_has("af_xdp: mqa0: frame 1024: a UMEM frame is 2048 or 4096 bytes"));
	assert_null(dev);
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
	mqtx_pool_destroy(small);
	mqtx_pool_destroy(umem);
}

/* Start a generator of endless 64-byte frames on @dev from @from; returns once it has sent
 * @after of them. */
static struct mqtx_job *gen_endless(struct mqtx_dev *dev, struct mqtx_pkt_pool *from,
				    uint64_t after)
{
	struct mqtx_job_stats js;
	struct mqtx_gen_cfg cfg;
	struct mqtx_job *job;

	mqtx_gen_cfg_default(&cfg);
	cfg.flows = 16;
	cfg.threads = 2;
	cfg.count = 50000000; /* far more than it can send meanwhile */
	assert_int_equal(mqtx__gen_start(dev, from, &cfg, &job), 0);
	do {
		usleep(1000);
		mqtx__job_stats(job, &js);
	} while (js.sent < after);
	return job;
}

/* Stop @job; the counts of @dev and the job agree, and every frame the kernel took from @dev
 * was completed or flushed, once. */
static void stop_and_check(struct mqtx_dev *dev, struct mqtx_job *job, struct mqtx_ktxq_stats *ks)
{
	struct mqtx_job_stats js;
	struct mqtx_dev_stats ds;

	mqtx__job_join(job);
	mqtx__job_stats(job, &js);
	mqtx__job_free(job);
	assert_true(kt_conserved(dev, &ds));
	assert_int_equal(ds.xmit, js.sent + js.dropped);
	assert_int_equal(mqtx_dev_ktxq_stats(dev, -1, ks), 0);
	assert_int_equal(ks->packets, ds.txq.packets);
	assert_int_equal(ks->packets, ks->completed + ks->flushed);
}

/* The device goes down under traffic with packets of its own pool in flight: each frame is
 * completed or flushed once, and every packet is back in the pool. Up again, it sends and gets
 * back every frame: a packet freed twice would leave the pool's count wrong. */
static void test_xdp_close_under_traffic(void **state)
{
	struct mqtx_af_xdp_cfg xc = { .ifname = "mqa0", .ring = 256 };
	struct mqtx_dev *dev = mkxdp(NQ, &xc);
	struct mqtx_pkt_pool *own = mqtx_af_xdp_pool(dev);
	struct mqtx_ktxq_stats ks, ks2;
	struct mqtx_job_stats js;
	struct mqtx_gen_cfg cfg;
	long long rx = 0;
	struct mqtx_job *job;

	(void)state;
	job = gen_endless(dev, own, 5000);
	assert_int_equal(mqtx_dev_close(dev), 0);
	stop_and_check(dev, job, &ks);
	assert_int_equal(mqtx_pool_in_use(own), 0);

	assert_int_equal(mqtx_dev_open(dev), 0);
	for (unsigned i = 0; i < NQ; i++)
		rx -= kt_veth_rxq("mqb0", i);
	kt_gen_exact(&cfg, 2);
	assert_int_equal(kt_gen_run(dev, own, &cfg, &js), 0);
	assert_int_equal(js.sent, cfg.count);
	assert_int_equal(mqtx_dev_ktxq_stats(dev, -1, &ks2), 0);
	assert_int_equal(ks2.packets - ks.packets, cfg.count);
	assert_int_equal(ks2.completed - ks.completed, cfg.count);
	assert_int_equal(ks2.flushed, ks.flushed);
	for (unsigned i = 0; i < NQ; i++)
		rx += kt_veth_rxq("mqb0", i);
	assert_int_equal(rx, cfg.count);
	assert_int_equal(mqtx_pool_in_use(own), 0);
	mqtx_dev_destroy(dev);
}

/* Library allocations, counted around the default allocator; allocation number fail_at
 * (1-based, 0: none) fails. */
static atomic_long live_allocs, nallocs;
static long fail_at;

static void *count_alloc(size_t size, size_t align, void *arg)
{
	void *p;

	if (atomic_fetch_add(&nallocs, 1) + 1 == fail_at)
		return NULL;
	p = mqtx_default_alloc(size, align, arg);
	if (p)
		atomic_fetch_add(&live_allocs, 1);
	return p;
}

static void count_free(void *ptr, void *arg)
{
	atomic_fetch_sub(&live_allocs, 1);
	mqtx_default_free(ptr, arg);
}

/* The caller lets its pool go while the device sends from it, then the interface is deleted
 * under traffic so that the kernel never completes some frames: the device gives them back as
 * it goes down, the pool goes with the device, and no library allocation is left. */
static void test_xdp_pool_gone_in_flight(void **state)
{
	static const struct mqtx_allocator a = { count_alloc, count_free, NULL };
	struct mqtx_af_xdp_cfg xc = { .ifname = "mqa0", .ring = 256 };
	struct mqtx_pkt_pool *umem;
	struct mqtx_ktxq_stats ks;
	struct mqtx_dev *dev;
	struct mqtx_job *job;
	uint64_t end;

	(void)state;
	fail_at = 0;
	mqtx_set_allocator(&a);
	atomic_store(&live_allocs, 0);
	assert_int_equal(
		mqtx_pool_create_frames(&(struct mqtx_pool_cfg){ .count = 4096 }, 2048, &umem), 0);
	dev = mkxdp_on(NQ, &xc, umem);
	kt_log_reset();
	job = gen_endless(dev, umem, 5000);
	mqtx_pool_destroy(umem); /* the caller's reference; the device holds the pool */
	assert_int_equal(kt_sh("ip link del mqa0"), 0);
	end = kt_now_ms() + 10000;
	while (mqtx_dev_is_up(dev) && kt_now_ms() < end)
		usleep(1000);
	assert_false(mqtx_dev_is_up(dev));
	assert_true(kt_log_has("xdp0: the device failed"));
	mqtx_dev_config_lock(dev); /* the failure's close is over once we have the lock */
	mqtx_dev_config_unlock(dev);
	stop_and_check(dev, job, &ks);
	assert_true(ks.flushed > 0); /* frames were still in the kernel's rings */
	/* Down, the device holds none of the pool's packets, and it still holds the pool. */
	assert_int_equal(mqtx_pool_in_use(umem), 0);
	assert_true(mqtx_dev_all_tx_empty(dev));
	mqtx_dev_destroy(dev);
	assert_int_equal(atomic_load(&live_allocs), 0);
	mqtx_set_allocator(NULL);
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
	assert_int_equal(kt_veth("mqa0", "mqb0", NQ), 0);
}

/* Each allocation of a device's creation fails in turn: -ENOMEM, and nothing is left. */
static void test_xdp_create_enomem(void **state)
{
	static const struct mqtx_allocator a = { count_alloc, count_free, NULL };
	struct mqtx_af_xdp_cfg xc = { .ifname = "mqa0", .ring = 64 };
	struct mqtx_dev_cfg c = { .name = "xdpx", .num_txq = NQ };
	struct mqtx_dev *dev = NULL;
	long total;

	(void)state;
	fail_at = 0;
	atomic_store(&nallocs, 0);
	atomic_store(&live_allocs, 0);
	mqtx_set_allocator(&a);
	assert_int_equal(mqtx_af_xdp_dev_create(&c, &xc, &dev), 0);
	total = atomic_load(&nallocs);
	assert_true(total > 2 * NQ + 3); /* each queue's two rings, the pool's three, the device */
	mqtx_dev_destroy(dev);
	assert_int_equal(atomic_load(&live_allocs), 0);
	for (fail_at = 1; fail_at <= total; fail_at++) {
		dev = NULL;
		atomic_store(&nallocs, 0);
		assert_int_equal(mqtx_af_xdp_dev_create(&c, &xc, &dev), -ENOMEM);
		assert_null(dev);
		assert_int_equal(atomic_load(&live_allocs), 0);
	}
	fail_at = 0;
	mqtx_set_allocator(NULL);
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
		cmocka_unit_test(test_xdp_in_place),
		cmocka_unit_test(test_xdp_caller_pool),
		cmocka_unit_test(test_xdp_close_under_traffic),
		cmocka_unit_test(test_xdp_pool_gone_in_flight),
		cmocka_unit_test(test_xdp_create_enomem),
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
