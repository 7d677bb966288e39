/* SPDX-License-Identifier: MIT */
/* Test fixture for the editing actions: the shared block 5 (eth0's clsact egress), filters
 * added to it with tc's words, one frame at a time through it, and checksums verified by code
 * of the test's own (RFC 1071 and RFC 3309 read anew, none of the library's). */
#ifndef MQTX_TEST_ACT_FIXTURE_H
#define MQTX_TEST_ACT_FIXTURE_H

#include "cls_fixture.h"

struct at {
	struct cx c;
	struct mqtx_tcf_block *b; /* shared block 5 */
};

static inline void at_setup(struct at *t)
{
	cx_setup(&t->c);
	cx_ok(&t->c, "qdisc add dev eth0 egress_block 5 clsact");
	assert_int_equal(mqtx_tcf_block_get(5, &t->b), 0);
}

static inline void at_teardown(struct at *t)
{
	mqtx_tcf_block_put(t->b);
	cx_teardown(&t->c);
}

/* A packet holding @len bytes of @bytes. */
static inline struct mqtx_pkt *at_pkt(struct at *t, const uint8_t *bytes, uint32_t len)
{
	struct mqtx_pkt *p = mqtx_pkt_alloc(t->c.pool);

	assert_non_null(p);
	memcpy(mqtx_pkt_put(p, len), bytes, len);
	return p;
}

/* Classify @p through block 5: the verdict (MQTX_ACT_*), @p edited in place. */
static inline int at_run(struct at *t, struct mqtx_pkt *p)
{
	struct mqtx_tcf_result res;

	return mqtx_tcf_classify(t->b, t->c.dev, p, &res);
}

/* The frame of flow @f (the generator's: valid checksums), copied into @buf; its length. */
static inline uint32_t at_frame(struct at *t, const struct flow *f, uint8_t *buf, size_t cap)
{
	struct mqtx_pkt *p = cx_pkt(&t->c, f, 0);
	uint32_t n = p->len;

	assert_true(n <= cap);
	memcpy(buf, p->data, n);
	mqtx_pkt_free(p);
	return n;
}

/* The action's counters from "-s filter show block 5": sent packets and drops of action @n. */
static inline void at_counts(struct at *t, unsigned n, uint64_t *pkts, uint64_t *drops)
{
	const char *s;

	cx_ok(&t->c, "-s filter show block 5");
	s = t->c.out;
	for (unsigned i = 0; i < n; i++) {
		s = strstr(s, "\tSent ");
		assert_non_null(s);
		s++;
	}
	assert_int_equal(sscanf(s - 1, "\tSent %*u bytes %lu pkt (dropped %lu", pkts, drops), 2);
}

/* ---- checksums, the test's own ---- */

static inline uint32_t t_sum(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] * 256 + p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] * 256;
	return s;
}

/* Whether a ones' complement sum folds to all ones (the checksum it covers is right). */
static inline bool t_ok(uint32_t s)
{
	while (s > 0xFFFF)
		s = (s & 0xFFFF) + (s >> 16);
	return s == 0xFFFF;
}

/* The IPv4 header at @ip is right, and so is its TCP or UDP segment (through tot_len). */
static inline bool t_ipv4_ok(const uint8_t *ip)
{
	unsigned ihl = (ip[0] & 15u) * 4, tot = ip[2] * 256u + ip[3];
	uint32_t ps;

	if (!t_ok(t_sum(ip, ihl, 0)))
		return false;
	ps = t_sum(ip + 12, 8, 0) + ip[9] + (tot - ihl);
	if (ip[9] == 17 && !(ip[ihl + 6] | ip[ihl + 7]))
		return true; /* UDP without a checksum */
	return ip[9] != 6 && ip[9] != 17 ? true : t_ok(t_sum(ip + ihl, tot - ihl, ps));
}

/* The IPv6 packet at @ip (no extension headers): its TCP, UDP or ICMPv6 checksum is right. */
static inline bool t_ipv6_ok(const uint8_t *ip)
{
	unsigned pl = ip[4] * 256u + ip[5];

	return t_ok(t_sum(ip + 40, pl, t_sum(ip + 8, 32, 0) + ip[6] + pl));
}

/* CRC32c, bit by bit (RFC 3309's polynomial, reflected). */
static inline uint32_t t_crc32c(const uint8_t *p, size_t n)
{
	uint32_t c = 0xFFFFFFFFu;

	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
	}
	return ~c;
}

#endif
