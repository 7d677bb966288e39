/* SPDX-License-Identifier: MIT */
/* Test helpers: UDP frames from a pool, a recording driver, conservation checks. */
#ifndef MQTX_TEST_HELPERS_H
#define MQTX_TEST_HELPERS_H

#include <arpa/inet.h>
#include <string.h>

#include <mqtx/driver.h>
#include <mqtx/mqtx.h>
#include <mqtx/qdisc.h>

/* Build a 64-byte Ethernet/IPv4/UDP frame of flow (src port @sport) into a new packet. */
static inline struct mqtx_pkt *test_udp_pkt(struct mqtx_pkt_pool *pool, uint32_t saddr,
					    uint16_t sport, uint16_t dport, uint64_t seq)
{
	struct mqtx_pkt *pkt = mqtx_pkt_alloc(pool);
	uint8_t *f;

	if (!pkt)
		return NULL;
	f = mqtx_pkt_put(pkt, 64);
	memset(f, 0, 64);
	f[12] = 0x08; /* IPv4 */
	f[14] = 0x45;
	f[16] = 0;
	f[17] = 50;
	f[22] = 64;
	f[23] = 17; /* UDP */
	uint32_t s = htonl(saddr), d = htonl(0x0a000001);
	memcpy(f + 26, &s, 4);
	memcpy(f + 30, &d, 4);
	f[34] = (uint8_t)(sport >> 8);
	f[35] = (uint8_t)sport;
	f[36] = (uint8_t)(dport >> 8);
	f[37] = (uint8_t)dport;
	f[39] = 30;
	pkt->user = seq;
	return pkt;
}

/* Sum of what left the stack for good, for the conservation law. */
static inline uint64_t test_drops(const struct mqtx_dev_stats *st)
{
	return mqtx_txq_stats_drops(&st->txq);
}

#endif
