// SPDX-License-Identifier: MIT
/* Packet pool: creation rules and allocation failures, alloc/free/bulk, buffer bounds,
 * copies, exhaustion, pools of frames and holds, and no heap allocation per packet on a warm
 * transmit path. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include <mqtx/sim.h>

#include "helpers.h"

/* A counting allocator around the default one; fails allocation number `fail_at` (1-based,
 * 0: never). */
static struct {
	atomic_ulong allocs, frees;
	unsigned long fail_at;
} ca;

static void *count_alloc(size_t size, size_t align, void *arg)
{
	unsigned long n = atomic_fetch_add(&ca.allocs, 1) + 1;

	if (ca.fail_at && n == ca.fail_at)
		return NULL;
	return mqtx_default_alloc(size, align, arg);
}

static void count_free(void *ptr, void *arg)
{
	atomic_fetch_add(&ca.frees, 1);
	mqtx_default_free(ptr, arg);
}

static void counting_on(unsigned long fail_at)
{
	static const struct mqtx_allocator a = { count_alloc, count_free, NULL };

	atomic_store(&ca.allocs, 0);
	atomic_store(&ca.frees, 0);
	ca.fail_at = fail_at;
	mqtx_set_allocator(&a);
}

static void counting_off(void)
{
	mqtx_set_allocator(NULL);
	ca.fail_at = 0;
}

static void test_create_einval(void **state)
{
	struct mqtx_pkt_pool *p = (void *)0x1;

	(void)state;
	assert_int_equal(mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 0 }, &p), -EINVAL);
	assert_int_equal(mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = (1u << 26) + 1 }, &p),
			 -EINVAL);
	assert_int_equal(
		mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 4, .cache_size = 4097 }, &p),
		-EINVAL);
	assert_int_equal(mqtx_pool_create(NULL, &p), -EINVAL);
	assert_ptr_equal(p, (void *)0x1); /* untouched on error */
	/* The bounds themselves are accepted. */
	assert_int_equal(
		mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 1, .cache_size = 4096 }, &p), 0);
	assert_int_equal(mqtx_pool_count(p), 1);
	assert_int_equal(mqtx_pool_in_use(p), 0);
	mqtx_pool_destroy(p);
	mqtx_pool_destroy(NULL);
}

/* Fail each allocation of pool creation in turn: -ENOMEM, nothing leaked, *out untouched. */
static void test_create_enomem(void **state)
{
	struct mqtx_pool_cfg cfg = { .count = 16, .cache_size = 8 };
	struct mqtx_pkt_pool *p;
	unsigned long n, total;

	(void)state;
	counting_on(0);
	assert_int_equal(mqtx_pool_create(&cfg, &p), 0);
	total = atomic_load(&ca.allocs);
	mqtx_pool_destroy(p);
	assert_int_equal(atomic_load(&ca.frees), total);
	assert_true(total >= 3); /* pool, packets, free stack (and the caches) */
	for (n = 1; n <= total; n++) {
		p = (void *)0x1;
		counting_on(n);
		assert_int_equal(mqtx_pool_create(&cfg, &p), -ENOMEM);
		assert_ptr_equal(p, (void *)0x1);
		/* Every successful allocation before the failing one was released. */
		assert_int_equal(atomic_load(&ca.frees), n - 1);
	}
	/* Beyond the last allocation nothing fails. */
	counting_on(total + 1);
	assert_int_equal(mqtx_pool_create(&cfg, &p), 0);
	mqtx_pool_destroy(p);
	counting_off();
}

static void test_alloc_free_bulk(void **state)
{
	struct mqtx_pkt_pool *p;
	struct mqtx_pkt *a[40], *one;

	(void)state;
	assert_int_equal(
		mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 100, .cache_size = 16 }, &p), 0);
	one = mqtx_pkt_alloc(p);
	assert_non_null(one);
	assert_ptr_equal(one->pool, p);
	assert_int_equal(one->len, 0);
	assert_int_equal(mqtx_pool_in_use(p), 1);
	/* Metadata is cleared when a packet is handed out again. */
	one->len = 5;
	one->flags = MQTX_PKT_F_HASH_VALID;
	one->hash = 7;
	one->priority = 3;
	one->mark = 9;
	one->user = 11;
	one->queue_mapping = 2;
	one->tstamp = 4;
	one->data += 10;
	mqtx_pkt_free(one);
	assert_int_equal(mqtx_pool_in_use(p), 0);
	one = mqtx_pkt_alloc(p);
	assert_int_equal(one->len, 0);
	assert_int_equal(one->flags, 0);
	assert_int_equal(one->hash, 0);
	assert_int_equal(one->priority, 0);
	assert_int_equal(one->mark, 0);
	assert_int_equal(one->user, 0);
	assert_int_equal(one->queue_mapping, 0);
	assert_int_equal(one->tstamp, 0);
	assert_null(one->next);
	assert_int_equal(mqtx_pkt_headroom(one), 128);

	assert_int_equal(mqtx_pkt_alloc_bulk(p, a, 40), 40);
	assert_int_equal(mqtx_pool_in_use(p), 41);
	for (unsigned i = 0; i < 40; i++) {
		assert_ptr_not_equal(a[i], one);
		for (unsigned j = 0; j < i; j++)
			assert_ptr_not_equal(a[i], a[j]);
	}
	/* free_bulk skips NULL entries */
	struct mqtx_pkt *kept = a[3], *all[101];

	a[3] = NULL;
	mqtx_pkt_free_bulk(a, 20);
	assert_int_equal(mqtx_pool_in_use(p), 41 - 19);
	/* free_list returns a chain and counts it */
	for (unsigned i = 20; i < 39; i++)
		a[i]->next = a[i + 1];
	a[39]->next = NULL;
	assert_int_equal(mqtx_pkt_free_list(a[20]), 20);
	assert_int_equal(mqtx_pkt_free_list(NULL), 0);
	assert_int_equal(mqtx_pool_in_use(p), 2); /* `one` and `kept` */
	mqtx_pkt_free(one);
	mqtx_pkt_free(kept);
	mqtx_pkt_free(NULL);
	assert_int_equal(mqtx_pool_in_use(p), 0);
	assert_int_equal(mqtx_pool_failures(p), 0);
	/* Every packet comes back: a bulk of 101 gets exactly the 100. */
	assert_int_equal(mqtx_pkt_alloc_bulk(p, all, 101), 100);
	assert_int_equal(mqtx_pool_failures(p), 1);
	assert_int_equal(mqtx_pool_in_use(p), 100);
	mqtx_pkt_free_bulk(all, 100);
	assert_int_equal(mqtx_pool_in_use(p), 0);
	mqtx_pool_destroy(p);
}

/* Two packets of 16 bytes of headroom and 100 of data room. */
static struct mqtx_pkt_pool *small_pool(void)
{
	struct mqtx_pkt_pool *p;

	assert_int_equal(
		mqtx_pool_create(
			&(struct mqtx_pool_cfg){ .count = 2, .data_room = 100, .headroom = 16 },
			&p),
		0);
	return p;
}

static void test_bounds(void **state)
{
	struct mqtx_pkt_pool *p;
	struct mqtx_pkt *k;
	uint8_t *d;

	(void)state;
	p = small_pool();
	k = mqtx_pkt_alloc(p);
	assert_int_equal(k->buf_size, 116);
	assert_int_equal(mqtx_pkt_headroom(k), 16);
	assert_int_equal(mqtx_pkt_tailroom(k), 100);
	assert_ptr_equal(k->data, k->buf + 16);
	assert_int_equal((uintptr_t)k % MQTX_CACHE_LINE, 0);

	d = mqtx_pkt_put(k, 60);
	assert_ptr_equal(d, k->buf + 16);
	assert_int_equal(k->len, 60);
	memset(d, 0xaa, 60);
	assert_null(mqtx_pkt_put(k, 41)); /* 40 left */
	assert_int_equal(k->len, 60);
	assert_ptr_equal(mqtx_pkt_put(k, 40), k->buf + 76);
	assert_int_equal(mqtx_pkt_tailroom(k), 0);
	assert_null(mqtx_pkt_put(k, 1));
	assert_non_null(mqtx_pkt_put(k, 0));

	assert_null(mqtx_pkt_push(k, 17));
	assert_int_equal(k->len, 100);
	assert_ptr_equal(mqtx_pkt_push(k, 14), k->buf + 2);
	assert_int_equal(k->len, 114);
	assert_int_equal(mqtx_pkt_headroom(k), 2);
	assert_ptr_equal(mqtx_pkt_push(k, 2), k->buf);
	assert_null(mqtx_pkt_push(k, 1));
	assert_int_equal(mqtx_pkt_headroom(k), 0);

	assert_null(mqtx_pkt_pull(k, 117));
	assert_int_equal(k->len, 116);
	assert_ptr_equal(mqtx_pkt_pull(k, 16), k->buf + 16);
	assert_int_equal(k->data[0], 0xaa);
	assert_int_equal(k->len, 100);
	assert_ptr_equal(mqtx_pkt_pull(k, 100), k->buf + 116);
	assert_int_equal(k->len, 0);
	assert_null(mqtx_pkt_pull(k, 1));
	assert_int_equal(mqtx_pkt_headroom(k), 116);
	assert_int_equal(mqtx_pkt_tailroom(k), 0);

	/* The second packet's buffer does not overlap the first. */
	struct mqtx_pkt *k2 = mqtx_pkt_alloc(p);

	assert_true((uint8_t *)k2 >= k->buf + k->buf_size || (uint8_t *)k >= k2->buf + 116);
	mqtx_pkt_free(k);
	mqtx_pkt_free(k2);
	assert_int_equal(mqtx_pool_in_use(p), 0);
	mqtx_pool_destroy(p);
}

/* A copy: the buffer to the frame's end at the same place, the metadata filters read, nothing
 * of what a qdisc stamps; NULL once the pool is dry. */
static void test_copy(void **state)
{
	struct mqtx_pkt_pool *p;
	struct mqtx_pkt *k, *c;

	(void)state;
	p = small_pool();
	k = mqtx_pkt_alloc(p);
	for (unsigned i = 0; i < 40; i++)
		mqtx_pkt_put(k, 1)[0] = (uint8_t)i;
	memset(mqtx_pkt_push(k, 4), 0xee, 4);
	k->queue_mapping = 3;
	k->flags = MQTX_PKT_F_HASH_VALID;
	k->hash = 0x12345678;
	k->priority = 6;
	k->mark = 7;
	k->user = 8;
	k->redirects = 2;
	k->tstamp = 99;
	mqtx_pkt_set_txtime(k, 1000);

	c = mqtx_pkt_copy(k);
	assert_non_null(c);
	assert_ptr_not_equal(c, k);
	assert_int_equal(mqtx_pkt_headroom(c), 12);
	assert_int_equal(c->len, 44);
	assert_memory_equal(c->data, k->data, 44);
	assert_int_equal(c->queue_mapping, 3);
	assert_int_equal(c->flags, MQTX_PKT_F_HASH_VALID);
	assert_int_equal(c->hash, 0x12345678);
	assert_int_equal(c->priority, 6);
	assert_int_equal(c->mark, 7);
	assert_int_equal(c->user, 8);
	assert_int_equal(c->redirects, 2);
	assert_int_equal(c->tstamp, 0);
	assert_int_equal(mqtx_pkt_txtime(c), 0);
	assert_null(mqtx_pkt_copy(k)); /* both packets are out */
	mqtx_pkt_free(c);
	mqtx_pkt_free(k);
	assert_int_equal(mqtx_pool_in_use(p), 0);
	mqtx_pool_destroy(p);
}

static void exhaust(uint32_t cache_size)
{
	struct mqtx_pkt_pool *p;
	struct mqtx_pkt *a[8], *b[4];

	assert_int_equal(
		mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 8, .cache_size = cache_size },
				 &p),
		0);
	for (unsigned i = 0; i < 8; i++) {
		a[i] = mqtx_pkt_alloc(p);
		assert_non_null(a[i]);
		assert_int_equal(mqtx_pool_in_use(p), i + 1);
	}
	assert_null(mqtx_pkt_alloc(p));
	assert_null(mqtx_pkt_alloc(p));
	assert_int_equal(mqtx_pool_failures(p), 2);
	assert_int_equal(mqtx_pkt_alloc_bulk(p, b, 4), 0);
	assert_int_equal(mqtx_pool_failures(p), 6);
	mqtx_pkt_free(a[5]);
	mqtx_pkt_free(a[2]);
	assert_int_equal(mqtx_pool_in_use(p), 6);
	/* A partial bulk counts only what it could not get. */
	assert_int_equal(mqtx_pkt_alloc_bulk(p, b, 4), 2);
	assert_int_equal(mqtx_pool_failures(p), 8);
	assert_true((b[0] == a[5] && b[1] == a[2]) || (b[0] == a[2] && b[1] == a[5]));
	assert_int_equal(mqtx_pool_in_use(p), 8);
	mqtx_pkt_free_bulk(a, 8);
	assert_int_equal(mqtx_pool_in_use(p), 0);
	assert_int_equal(mqtx_pool_failures(p), 8);
	mqtx_pool_destroy(p);
}

static void test_exhaustion(void **state)
{
	(void)state;
	exhaust(0); /* default per-thread cache */
	exhaust(1); /* no caches */
	exhaust(3); /* a cache smaller than the pool */
}

/* What mqtx_pool_create_frames() refuses, and the bounds it accepts. */
static void test_frames_einval(void **state)
{
	struct mqtx_pool_cfg cfg = { .count = 4 };
	struct mqtx_pool_frames f;
	struct mqtx_pkt_pool *p = (void *)0x1;
	const uint32_t bad[] = { 0, 256, 511, 3000, 131072 };

	(void)state;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(mqtx_pool_create_frames(&cfg, bad[i], &p), -EINVAL);
	assert_int_equal(mqtx_pool_create_frames(NULL, 2048, &p), -EINVAL);
	assert_int_equal(mqtx_pool_create_frames(&(struct mqtx_pool_cfg){ 0 }, 2048, &p), -EINVAL);
	/* Metadata (128), headroom and data room must fit the frame. */
	cfg.headroom = 1920;
	assert_int_equal(mqtx_pool_create_frames(&cfg, 2048, &p), -EINVAL);
	cfg.headroom = 128;
	cfg.data_room = 1793;
	assert_int_equal(mqtx_pool_create_frames(&cfg, 2048, &p), -EINVAL);
	assert_ptr_equal(p, (void *)0x1);
	cfg.data_room = 1792;
	assert_int_equal(mqtx_pool_create_frames(&cfg, 2048, &p), 0);
	mqtx_pool_destroy(p);
	assert_int_equal(mqtx_pool_create_frames(&(struct mqtx_pool_cfg){ .count = 1 }, 512, &p),
			 0);
	mqtx_pool_destroy(p);
	assert_int_equal(mqtx_pool_create_frames(&(struct mqtx_pool_cfg){ .count = 1 }, 65536, &p),
			 0);
	mqtx_pool_destroy(p);
	/* A pool of packed packets has no frames to tell. */
	assert_int_equal(mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 1 }, &p), 0);
	assert_int_equal(mqtx_pool_frames(p, &f), -EINVAL);
	assert_int_equal(mqtx_pool_frames(NULL, &f), -EINVAL);
	mqtx_pool_destroy(p);
}

/* Packet i is frame i of one page-aligned area: its metadata first, its whole buffer inside
 * the frame, no two packets in one frame. */
static void test_frames_layout(void **state)
{
	const uint32_t frames[] = { 2048, 4096 };

	(void)state;
	for (unsigned v = 0; v < 2; v++) {
		uint32_t fs = frames[v];
		struct mqtx_pool_cfg cfg = { .count = 9, .cache_size = 4 };
		struct mqtx_pkt *a[9];
		struct mqtx_pool_frames f;
		struct mqtx_pkt_pool *p;
		bool seen[9] = { false };
		uint32_t room;

		assert_int_equal(mqtx_pool_create_frames(&cfg, fs, &p), 0);
		assert_int_equal(mqtx_pool_frames(p, &f), 0);
		assert_int_equal((uintptr_t)f.base % (uintptr_t)sysconf(_SC_PAGESIZE), 0);
		assert_int_equal(f.frame, fs);
		assert_int_equal(f.count, 9);
		assert_int_equal(f.size, 9 * (size_t)fs);
		assert_int_equal(f.buf_size, fs - sizeof(struct mqtx_pkt));
		assert_int_equal(mqtx_pkt_alloc_bulk(p, a, 9), 9);
		for (unsigned i = 0; i < 9; i++) {
			size_t off = (size_t)((uint8_t *)a[i] - (uint8_t *)f.base);
			size_t data = (size_t)(a[i]->data - (uint8_t *)f.base);

			assert_int_equal(off % fs, 0);
			assert_true(off / fs < 9);
			assert_false(seen[off / fs]);
			seen[off / fs] = true;
			assert_int_equal(mqtx_pkt_headroom(a[i]), 128);
			assert_int_equal(mqtx_pkt_tailroom(a[i]),
					 fs - sizeof(struct mqtx_pkt) - 128);
			assert_int_equal(data / fs, off / fs);
			assert_int_equal((data + mqtx_pkt_tailroom(a[i]) - 1) / fs, off / fs);
			/* The whole buffer is writable. */
			room = mqtx_pkt_tailroom(a[i]);
			memset(mqtx_pkt_put(a[i], room), (int)i, room);
		}
		for (unsigned i = 0; i < 9; i++)
			for (uint32_t b = 0; b < a[i]->len; b++)
				assert_int_equal(a[i]->data[b], i);
		mqtx_pkt_free_bulk(a, 9);
		assert_int_equal(mqtx_pool_in_use(p), 0);
		mqtx_pool_destroy(p);
	}
}

/* A hold keeps the pool past its creator's destroy; the last release frees it, and every
 * allocation of a pool of frames is released when one fails. */
static void test_frames_hold(void **state)
{
	struct mqtx_pool_cfg cfg = { .count = 16, .cache_size = 8 };
	struct mqtx_pkt_pool *p;
	struct mqtx_pkt *k;
	unsigned long n, total;

	(void)state;
	counting_on(0);
	assert_int_equal(mqtx_pool_create_frames(&cfg, 2048, &p), 0);
	total = atomic_load(&ca.allocs);
	mqtx_pool_hold(p);
	mqtx_pool_hold(p);
	k = mqtx_pkt_alloc(p);
	mqtx_pool_destroy(p); /* the creator's */
	mqtx_pool_destroy(p);
	assert_int_equal(atomic_load(&ca.frees), 0);
	/* Still a pool: its packets come and go. */
	mqtx_pkt_free(k);
	assert_int_equal(mqtx_pool_in_use(p), 0);
	assert_non_null(k = mqtx_pkt_alloc(p));
	mqtx_pkt_free(k);
	mqtx_pool_destroy(p); /* the last hold */
	assert_int_equal(atomic_load(&ca.frees), total);
	for (n = 1; n <= total; n++) {
		p = (void *)0x1;
		counting_on(n);
		assert_int_equal(mqtx_pool_create_frames(&cfg, 2048, &p), -ENOMEM);
		assert_ptr_equal(p, (void *)0x1);
		assert_int_equal(atomic_load(&ca.frees), n - 1);
	}
	counting_off();
}

/* Send @n packets through @dev alternating mqtx_dev_xmit and bursts of 32; all must be
 * accepted. */
static void pump(struct mqtx_dev *dev, struct mqtx_pkt_pool *pool, unsigned n,
		 struct mqtx_clock *vclock)
{
	struct mqtx_pkt *b[32];
	unsigned sent = 0, k;

	while (sent < n) {
		struct mqtx_pkt *pk = test_udp_pkt(pool, sent & 255, (uint16_t)sent, 7, sent);

		assert_non_null(pk);
		assert_int_equal(mqtx_dev_xmit(dev, pk), MQTX_XMIT_SUCCESS);
		sent++;
		for (k = 0; k < 32; k++) {
			b[k] = test_udp_pkt(pool, (sent + k) & 255, (uint16_t)(sent + k), 7, sent);
			assert_non_null(b[k]);
		}
		assert_int_equal(mqtx_dev_xmit_burst(dev, b, 32), 32);
		sent += 32;
		if (vclock) /* let the simulated wire complete what is on the rings */
			mqtx_clock_advance(vclock, 100000);
	}
}

static void test_no_alloc_per_packet_null(void **state)
{
	struct mqtx_dev_cfg cfg = { .name = "n0", .ops = &mqtx_null_ops, .num_txq = 4 };
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev;
	struct mqtx_dev_stats st;

	(void)state;
	counting_on(0);
	assert_int_equal(mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 4096 }, &pool), 0);
	assert_int_equal(mqtx_dev_create(&cfg, &dev), 0);
	assert_int_equal(mqtx_dev_open(dev), 0);
	pump(dev, pool, 1000, NULL);
	atomic_store(&ca.allocs, 0);
	atomic_store(&ca.frees, 0);
	pump(dev, pool, 100000, NULL);
	assert_int_equal(atomic_load(&ca.allocs), 0);
	assert_int_equal(atomic_load(&ca.frees), 0);
	mqtx_dev_get_stats(dev, &st);
	assert_int_equal(st.xmit, st.txq.packets);
	assert_true(st.xmit >= 101000);
	mqtx_dev_destroy(dev);
	assert_int_equal(mqtx_pool_in_use(pool), 0);
	mqtx_pool_destroy(pool);
	counting_off();
}

static void test_no_alloc_per_packet_sim(void **state)
{
	struct mqtx_dev_cfg cfg = { .name = "s0", .num_txq = 4, .flags = MQTX_DEV_F_BQL };
	struct mqtx_sim_cfg sc = { .ring = 256, .rate_pps = 10000000 };
	struct mqtx_sim_txq_stats ss;
	struct mqtx_pkt_pool *pool;
	struct mqtx_clock *clk;
	struct mqtx_dev *dev;
	struct mqtx_dev_stats st;

	(void)state;
	counting_on(0);
	assert_int_equal(mqtx_clock_new_virtual(1000, &clk), 0);
	cfg.clock = clk;
	assert_int_equal(mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 8192 }, &pool), 0);
	assert_int_equal(mqtx_sim_dev_create(&cfg, &sc, &dev), 0);
	assert_int_equal(mqtx_dev_open(dev), 0);
	pump(dev, pool, 1000, clk);
	atomic_store(&ca.allocs, 0);
	atomic_store(&ca.frees, 0);
	pump(dev, pool, 100000, clk);
	assert_int_equal(atomic_load(&ca.allocs), 0);
	assert_int_equal(atomic_load(&ca.frees), 0);
	mqtx_clock_advance(clk, MQTX_NSEC_PER_SEC);
	mqtx_dev_get_stats(dev, &st);
	assert_int_equal(mqtx_sim_stats(dev, &ss), 0);
	/* Everything was taken by the driver and completed on the wire. */
	assert_int_equal(st.xmit, st.txq.packets);
	assert_int_equal(ss.completed_pkts, st.txq.packets);
	assert_int_equal(mqtx_pool_in_use(pool), 0);
	mqtx_dev_destroy(dev);
	mqtx_clock_free(clk);
	mqtx_pool_destroy(pool);
	counting_off();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_einval),
		cmocka_unit_test(test_create_enomem),
		cmocka_unit_test(test_alloc_free_bulk),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_exhaustion),
		cmocka_unit_test(test_frames_einval),
		cmocka_unit_test(test_frames_layout),
		cmocka_unit_test(test_frames_hold),
		cmocka_unit_test(test_no_alloc_per_packet_null),
		cmocka_unit_test(test_no_alloc_per_packet_sim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
