/* SPDX-License-Identifier: MIT */
/* Test helper: build Ethernet frames header by header, fields given in host order. */
#ifndef MQTX_TEST_FRAMES_H
#define MQTX_TEST_FRAMES_H

#include <assert.h>
#include <stdint.h>
#include <string.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

struct frame {
	uint8_t b[1024];
	size_t len;
};

static inline void fr_put(struct frame *f, const void *p, size_t n)
{
	assert(f->len + n <= sizeof(f->b));
	memcpy(f->b + f->len, p, n);
	f->len += n;
}

static inline void fr_u8(struct frame *f, uint8_t v)
{
	fr_put(f, &v, 1);
}

static inline void fr_be16(struct frame *f, uint16_t v)
{
	fr_u8(f, (uint8_t)(v >> 8));
	fr_u8(f, (uint8_t)v);
}

static inline void fr_zero(struct frame *f, size_t n)
{
	while (n--)
		fr_u8(f, 0);
}

/* Ethernet II header with fixed MACs; @type is the next ethertype (or a VLAN TPID). */
static inline void fr_eth(struct frame *f, uint16_t type)
{
	static const uint8_t macs[12] = { 0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2 };

	f->len = 0;
	fr_put(f, macs, sizeof(macs));
	fr_be16(f, type);
}

/* One VLAN tag: TCI (PCP/DEI/VID) then the next ethertype. */
static inline void fr_vlan(struct frame *f, uint16_t tci, uint16_t next)
{
	fr_be16(f, tci);
	fr_be16(f, next);
}

/* IPv4 header of @ihl words (options filled with NOPs); @frag is the flags/offset field. */
static inline void fr_ipv4(struct frame *f, uint8_t proto, const uint8_t src[4],
			   const uint8_t dst[4], unsigned int ihl, uint16_t frag)
{
	unsigned int i;

	fr_u8(f, (uint8_t)(0x40 | ihl));
	fr_u8(f, 0);
	fr_be16(f, 0); /* total length: the dissector does not use it */
	fr_be16(f, 0x1234);
	fr_be16(f, frag);
	fr_u8(f, 64);
	fr_u8(f, proto);
	fr_be16(f, 0);
	fr_put(f, src, 4);
	fr_put(f, dst, 4);
	for (i = 20; i < ihl * 4; i++)
		fr_u8(f, 1);
}

static inline void fr_ipv6(struct frame *f, uint8_t next, const uint8_t src[16],
			   const uint8_t dst[16])
{
	fr_be16(f, 0x6000);
	fr_be16(f, 0);
	fr_be16(f, 0);
	fr_u8(f, next);
	fr_u8(f, 64);
	fr_put(f, src, 16);
	fr_put(f, dst, 16);
}

/* Hop-by-hop, routing or destination options: (@hdrlen + 1) * 8 bytes. */
static inline void fr_ext6(struct frame *f, uint8_t next, uint8_t hdrlen)
{
	fr_u8(f, next);
	fr_u8(f, hdrlen);
	fr_zero(f, (size_t)(hdrlen + 1) * 8 - 2);
}

/* AH: (@plen + 2) * 4 bytes. */
static inline void fr_ah6(struct frame *f, uint8_t next, uint8_t plen)
{
	fr_u8(f, next);
	fr_u8(f, plen);
	fr_zero(f, (size_t)(plen + 2) * 4 - 2);
}

/* IPv6 fragment header: @offset in 8-byte units, @more the M flag. */
static inline void fr_frag6(struct frame *f, uint8_t next, uint16_t offset, int more)
{
	fr_u8(f, next);
	fr_u8(f, 0);
	fr_be16(f, (uint16_t)(offset << 3 | (more ? 1 : 0)));
	fr_be16(f, 0xabcd);
	fr_be16(f, 0x0001);
}

/* A transport header of @hlen bytes starting with the two ports. */
static inline void fr_l4(struct frame *f, uint16_t sport, uint16_t dport, size_t hlen)
{
	fr_be16(f, sport);
	fr_be16(f, dport);
	fr_zero(f, hlen - 4);
}

/* Deterministic PRNG for the tests (xorshift64*). */
static inline uint64_t test_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static inline void test_rand_fill(uint64_t *s, void *p, size_t n)
{
	uint8_t *b = p;

	while (n--)
		*b++ = (uint8_t)(test_rand(s) >> 32);
}

#endif
