// SPDX-License-Identifier: MIT
/* Flow spread through the device picker: uniform over 4/8/16 queues (chi-square), stable per
 * flow, Toeplitz mapping recomputed independently, and the per-device jhash seed. */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "helpers.h"

#define FLOWS 10000

struct flow {
	uint32_t saddr, daddr; /* host order */
	uint16_t sport, dport;
};

/* splitmix64: a fixed-seed generator, so every run sees the same flows. */
static uint64_t rng_state;

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static struct flow flows[FLOWS];

static void make_flows(uint64_t seed)
{
	rng_state = seed;
	for (unsigned i = 0; i < FLOWS; i++) {
		uint64_t r = rng();

		flows[i].saddr = (uint32_t)r;
		flows[i].daddr = (uint32_t)(r >> 32);
		r = rng();
		flows[i].sport = (uint16_t)r;
		flows[i].dport = (uint16_t)(r >> 16);
	}
}

static struct mqtx_pkt_pool *pool;

/* An Ethernet/IPv4/UDP frame of flow @f. */
static struct mqtx_pkt *flow_pkt(const struct flow *f)
{
	struct mqtx_pkt *pkt = test_udp_pkt(pool, f->saddr, f->sport, f->dport, 0);
	uint32_t d = htonl(f->daddr);

	assert_non_null(pkt);
	memcpy(pkt->data + 30, &d, 4);
	return pkt;
}

static uint16_t pick(struct mqtx_dev *dev, const struct flow *f)
{
	struct mqtx_pkt *pkt = flow_pkt(f);
	uint16_t q = mqtx_dev_select_queue(dev, pkt);

	assert_int_equal(pkt->queue_mapping, q);
	mqtx_pkt_free(pkt);
	return q;
}

static struct mqtx_dev *mkdev(uint32_t nq)
{
	struct mqtx_dev_cfg cfg = { .name = "spr0", .ops = &mqtx_null_ops, .num_txq = nq };
	struct mqtx_dev *dev;

	assert_int_equal(mqtx_dev_create(&cfg, &dev), 0);
	return dev;
}

/* 99.9% quantiles of chi-square with n - 1 degrees of freedom. */
static double chi2_crit(uint32_t n)
{
	switch (n) {
	case 4:
		return 16.266;
	case 8:
		return 24.322;
	case 16:
		return 37.697;
	}
	fail();
	return 0;
}

/* Spread of every flow over @dev's queues; also checks each flow is picked consistently. */
static double chi2(struct mqtx_dev *dev, uint16_t *map)
{
	uint32_t n = mqtx_dev_real_num_txq(dev), count[16] = { 0 };
	double e = (double)FLOWS / n, x = 0;

	for (unsigned i = 0; i < FLOWS; i++) {
		map[i] = pick(dev, &flows[i]);
		assert_true(map[i] < n);
		count[map[i]]++;
	}
	for (unsigned i = 0; i < FLOWS; i += 7) /* the same flow, the same queue */
		assert_int_equal(pick(dev, &flows[i]), map[i]);
	for (uint32_t q = 0; q < n; q++)
		x += (count[q] - e) * (count[q] - e) / e;
	return x;
}

static uint16_t map_a[FLOWS], map_b[FLOWS];

static int setup(void **state)
{
	(void)state;
	make_flows(0x6d717478ull);
	return mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 64 }, &pool);
}

static int teardown(void **state)
{
	(void)state;
	assert_int_equal(mqtx_pool_in_use(pool), 0);
	mqtx_pool_destroy(pool);
	return 0;
}

static void test_uniform_jhash(void **state)
{
	static const uint32_t ns[3] = { 4, 8, 16 };

	(void)state;
	for (unsigned k = 0; k < 3; k++) {
		struct mqtx_dev *dev = mkdev(ns[k]);
		double x = chi2(dev, map_a);

		assert_true(x < chi2_crit(ns[k]));
		mqtx_dev_destroy(dev);
	}
}

/* The Toeplitz picker equals reciprocal_scale(toeplitz(default key, src ‖ dst ‖ sport ‖
 * dport), n), the tuple assembled here from the flow in network order. */
static void test_toeplitz_mapping(void **state)
{
	static const uint32_t ns[3] = { 4, 8, 16 };
	/* Microsoft's RSS verification: 66.9.149.187:2794 -> 161.142.100.80:1766. */
	static const uint8_t ms[12] = {
		66, 9, 149, 187, 161, 142, 100, 80, 0x0a, 0xea, 0x06, 0xe6
	};

	(void)state;
	assert_int_equal(mqtx_toeplitz(mqtx_rss_default_key, 40, ms, 8), 0x323e8fc2);
	assert_int_equal(mqtx_toeplitz(mqtx_rss_default_key, 40, ms, 12), 0x51ccc178);
	for (unsigned k = 0; k < 3; k++) {
		struct mqtx_dev *dev = mkdev(ns[k]);
		struct mqtx_hash_cfg hc = { .algo = MQTX_HASH_TOEPLITZ, .l4 = true };
		double x;

		assert_int_equal(mqtx_dev_set_hash(dev, &hc), 0);
		x = chi2(dev, map_a);
		assert_true(x < chi2_crit(ns[k]));
		for (unsigned i = 0; i < FLOWS; i++) {
			uint8_t t[12];
			uint32_t s = htonl(flows[i].saddr), d = htonl(flows[i].daddr);
			uint16_t sp = htons(flows[i].sport), dp = htons(flows[i].dport);

			memcpy(t, &s, 4);
			memcpy(t + 4, &d, 4);
			memcpy(t + 8, &sp, 2);
			memcpy(t + 10, &dp, 2);
			assert_int_equal(
				map_a[i],
				mqtx_reciprocal_scale(
					mqtx_toeplitz(mqtx_rss_default_key, 40, t, 12), ns[k]));
		}
		mqtx_dev_destroy(dev);
	}
}

static unsigned differing(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < FLOWS; i++)
		n += map_a[i] != map_b[i];
	return n;
}

static void test_jhash_seed(void **state)
{
	struct mqtx_dev *dev = mkdev(16), *other = mkdev(16);
	struct mqtx_hash_cfg hc = { .algo = MQTX_HASH_JHASH, .seed = 12345 }, got;

	(void)state;
	mqtx_dev_hash_cfg(dev, &got);
	assert_int_equal(got.algo, MQTX_HASH_JHASH);
	chi2(dev, map_a); /* the default seed */
	assert_int_equal(mqtx_dev_set_hash(dev, &hc), 0);
	mqtx_dev_hash_cfg(dev, &got);
	assert_int_equal(got.seed, 12345);
	assert_true(chi2(dev, map_b) < chi2_crit(16));
	/* Another seed moves about 15 flows in 16; require most of them. */
	assert_true(differing() > FLOWS * 3 / 4);
	/* The same seed on another device reproduces the mapping exactly. */
	assert_int_equal(mqtx_dev_set_hash(other, &hc), 0);
	chi2(other, map_a);
	assert_int_equal(differing(), 0);
	/* And a third seed differs from it again. */
	hc.seed = 12346;
	assert_int_equal(mqtx_dev_set_hash(other, &hc), 0);
	chi2(other, map_a);
	assert_true(differing() > FLOWS * 3 / 4);
	mqtx_dev_destroy(dev);
	mqtx_dev_destroy(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uniform_jhash),
		cmocka_unit_test(test_toeplitz_mapping),
		cmocka_unit_test(test_jhash_seed),
	};

	return cmocka_run_group_tests_name("spread", tests, setup, teardown);
}
