/* SPDX-License-Identifier: MIT */
/* Test helpers: UDP frames from a pool, a recording driver, conservation checks. */
#ifndef MQTX_TEST_HELPERS_H
#define MQTX_TEST_HELPERS_H

#include <stdlib.h>
#include <string.h>

#include <mqtx/driver.h>
#include <mqtx/gen.h>
#include <mqtx/mqtx.h>
#include <mqtx/qdisc.h>

/* A 64-byte Ethernet/IPv4/UDP frame of flow @saddr:@sport -> 10.0.0.1:@dport, from the
 * generator's frame builder, in a new packet. */
static inline struct mqtx_pkt *test_udp_pkt(struct mqtx_pkt_pool *pool, uint32_t saddr,
					    uint16_t sport, uint16_t dport, uint64_t seq)
{
	struct mqtx_pkt *pkt = mqtx_pkt_alloc(pool);
	struct mqtx_gen_cfg g;

	if (!pkt)
		return NULL;
	mqtx_gen_cfg_default(&g);
	g.size = 64 + MQTX_GEN_FCS;
	g.src_lo = g.src_hi = saddr;
	g.dst_lo = g.dst_hi = 0x0a000001;
	g.sport_lo = g.sport_hi = sport;
	g.dport_lo = g.dport_hi = dport;
	if (mqtx_gen_build(&g, seq, mqtx_pkt_put(pkt, 64), 64) != 64)
		abort();
	pkt->user = seq;
	return pkt;
}

/* What a test in virtual time starts with: a virtual clock at @t0 and a pool of @count packets
 * with a cache of one, so that mqtx_pool_in_use() is exact at any moment. 0 or -errno. */
static inline int test_env_virtual(uint64_t t0, uint32_t count, struct mqtx_clock **clock,
				   struct mqtx_pkt_pool **pool)
{
	struct mqtx_pool_cfg pc = { .count = count, .cache_size = 1 };
	int err = mqtx_clock_new_virtual(t0, clock);

	return err ? err : mqtx_pool_create(&pc, pool);
}

/* A test's end: destroy the device under test, then the pool and the clock (NULL: none, or
 * the real clock). Returns the packets still out of the pool, which a test wants 0: nothing
 * lost. With any out, the pool is left: it is freed only with every packet back. */
static inline uint32_t test_env_free(struct mqtx_dev *dev, struct mqtx_pkt_pool *pool,
				     struct mqtx_clock *clock)
{
	uint32_t out;

	mqtx_dev_destroy(dev);
	out = mqtx_pool_in_use(pool);
	if (!out)
		mqtx_pool_destroy(pool);
	mqtx_clock_free(clock);
	return out;
}

/* Sum of what left the stack for good, for the conservation law. */
static inline uint64_t test_drops(const struct mqtx_dev_stats *st)
{
	return mqtx_txq_stats_drops(&st->txq);
}

#endif
