// SPDX-License-Identifier: MIT
/* Dissector tests: every header kind, fragments, VLAN stacks, truncation and fuzzing. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include <mqtx/flow.h>

#include "frames.h"

static const uint8_t v4a[4] = { 192, 0, 2, 1 };
static const uint8_t v4b[4] = { 198, 51, 100, 7 };
static const uint8_t v6a[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
static const uint8_t v6b[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0xca, 0xfe, 0, 2 };

#define F_ALL                                                                         \
	(MQTX_FLOW_F_IPV4 | MQTX_FLOW_F_IPV6 | MQTX_FLOW_F_PORTS | MQTX_FLOW_F_FRAG | \
	 MQTX_FLOW_F_TRUNC)

/* Dissect from an exact-size heap copy, so the sanitizer sees any read past the end. */
static int dissect_exact(const uint8_t *b, size_t len, struct mqtx_flow_keys *k)
{
	uint8_t *copy = malloc(len ? len : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, b, len);
	ret = mqtx_flow_dissect(copy, len, k);
	free(copy);
	return ret;
}

static void check_v4_addrs(const struct mqtx_flow_keys *k)
{
	assert_memory_equal(&k->addrs.v4.src, v4a, 4);
	assert_memory_equal(&k->addrs.v4.dst, v4b, 4);
}

static void check_ports(const struct mqtx_flow_keys *k, uint16_t sport, uint16_t dport)
{
	assert_true(k->flags & MQTX_FLOW_F_PORTS);
	assert_int_equal(k->sport, htons(sport));
	assert_int_equal(k->dport, htons(dport));
}

static void test_ipv4_ports(void **state)
{
	static const struct {
		uint8_t proto;
		size_t hlen;
	} cases[] = {
		{ IPPROTO_TCP, 20 },  { IPPROTO_UDP, 8 },     { IPPROTO_SCTP, 12 },
		{ IPPROTO_DCCP, 12 }, { IPPROTO_UDPLITE, 8 },
	};
	struct mqtx_flow_keys k;
	struct frame f;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		fr_eth(&f, 0x0800);
		fr_ipv4(&f, cases[i].proto, v4a, v4b, 5, 0);
		fr_l4(&f, 1000 + (uint16_t)i, 80, cases[i].hlen);
		assert_int_equal(dissect_exact(f.b, f.len, &k), 0);
		assert_int_equal(k.n_proto, 0x0800);
		assert_int_equal(k.ip_proto, cases[i].proto);
		assert_int_equal(k.flags, MQTX_FLOW_F_IPV4 | MQTX_FLOW_F_PORTS);
		assert_int_equal(k.l3_off, 14);
		assert_int_equal(k.l4_off, 34);
		assert_int_equal(k.vlan_depth, 0);
		check_v4_addrs(&k);
		check_ports(&k, 1000 + (uint16_t)i, 80);

		/* One byte short of the protocol's fixed header: no ports, TRUNC. */
		assert_int_equal(dissect_exact(f.b, f.len - 1, &k), 0);
		assert_int_equal(k.flags, MQTX_FLOW_F_IPV4 | MQTX_FLOW_F_TRUNC);
		assert_int_equal(k.l4_off, 34);
		assert_int_equal(k.sport, 0);
	}
}

static void test_ipv4_no_ports(void **state)
{
	struct mqtx_flow_keys k;
	struct frame f;

	(void)state;
	fr_eth(&f, 0x0800);
	fr_ipv4(&f, IPPROTO_ICMP, v4a, v4b, 5, 0);
	fr_zero(&f, 8);
	assert_int_equal(dissect_exact(f.b, f.len, &k), 0);
	assert_int_equal(k.flags, MQTX_FLOW_F_IPV4);
	assert_int_equal(k.ip_proto, IPPROTO_ICMP);
	assert_int_equal(k.l4_off, 34);
	/* A bare IP header with no payload at all is still a complete IPv4 packet. */
	assert_int_equal(dissect_exact(f.b, 34, &k), 0);
	assert_int_equal(k.flags, MQTX_FLOW_F_IPV4);
	assert_int_equal(k.l4_off, 34);
}

static void test_ipv4_options(void **state)
{
	struct mqtx_flow_keys k;
	struct frame f;
	unsigned int ihl;

	(void)state;
	for (ihl = 5; ihl <= 15; ihl++) {
		fr_eth(&f, 0x0800);
		fr_ipv4(&f, IPPROTO_TCP, v4a, v4b, ihl, 0x4000 /* DF: not a fragment */);
		fr_l4(&f, 443, 51000, 20);
		assert_int_equal(dissect_exact(f.b, f.len, &k), 0);
		assert_int_equal(k.flags, MQTX_FLOW_F_IPV4 | MQTX_FLOW_F_PORTS);
		assert_int_equal(k.l4_off, 14 + ihl * 4);
		check_v4_addrs(&k);
		check_ports(&k, 443, 51000);
		/* The options run past the end of the frame: no valid IPv4 header. */
		assert_int_equal(dissect_exact(f.b, 14 + ihl * 4 - 1, &k), -ENOENT);
		assert_int_equal(k.flags, MQTX_FLOW_F_TRUNC);
		assert_int_equal(k.n_proto, 0x0800);
		assert_int_equal(k.l4_off, 0);
	}
}

static void test_ipv4_malformed(void **state)
{
	struct mqtx_flow_keys k;
	struct frame f;
	unsigned int ihl;

	(void)state;
	for (ihl = 0; ihl < 5; ihl++) {
		fr_eth(&f, 0x0800);
		fr_ipv4(&f, IPPROTO_TCP, v4a, v4b, 5, 0);
		fr_l4(&f, 1, 2, 20);
		f.b[14] = (uint8_t)(0x40 | ihl);
		assert_int_equal(dissect_exact(f.b, f.len, &k), -ENOENT);
		assert_int_equal(k.flags, MQTX_FLOW_F_TRUNC);
		assert_int_equal(k.ip_proto, 0);
	}
	/* IPv6 (or anything else) behind the IPv4 ethertype. */
	f.b[14] = 0x65;
	assert_int_equal(dissect_exact(f.b, f.len, &k), -ENOENT);
	assert_int_equal(k.flags, MQTX_FLOW_F_TRUNC);
}

static void test_ipv4_fragments(void **state)
{
	static const struct {
		uint16_t frag;
		bool is_frag, has_l4;
	} cases[] = {
		{ 0x2000, true, true }, /* first fragment: MF, offset 0 */
		{ 0x2000 | 185, true, false },
		{ 185, true, false }, /* last fragment */
		{ 0x6000 | 1, true, false },
		{ 0x4000, false, true }, /* DF alone is not a fragment */
		{ 0x8000, false, true }, /* the reserved bit neither */
	};
	struct mqtx_flow_keys k;
	struct frame f;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		fr_eth(&f, 0x0800);
		fr_ipv4(&f, IPPROTO_UDP, v4a, v4b, 6, cases[i].frag);
		fr_l4(&f, 5353, 53, 8);
		assert_int_equal(dissect_exact(f.b, f.len, &k), 0);
		check_v4_addrs(&k);
		assert_int_equal(k.ip_proto, IPPROTO_UDP);
		assert_int_equal(k.l4_off, cases[i].has_l4 ? 38 : 0);
		if (cases[i].is_frag) {
			assert_int_equal(k.flags, MQTX_FLOW_F_IPV4 | MQTX_FLOW_F_FRAG);
			assert_int_equal(k.sport, 0);
			assert_int_equal(k.dport, 0);
		} else {
			assert_int_equal(k.flags, MQTX_FLOW_F_IPV4 | MQTX_FLOW_F_PORTS);
			check_ports(&k, 5353, 53);
		}
	}
}

static void test_ipv6_plain(void **state)
{
	struct mqtx_flow_keys k;
	struct frame f;

	(void)state;
	fr_eth(&f, 0x86dd);
	fr_ipv6(&f, IPPROTO_UDP, v6a, v6b);
	fr_l4(&f, 4789, 4790, 8);
	assert_int_equal(dissect_exact(f.b, f.len, &k), 0);
	assert_int_equal(k.n_proto, 0x86dd);
	assert_int_equal(k.flags, MQTX_FLOW_F_IPV6 | MQTX_FLOW_F_PORTS);
	assert_int_equal(k.ip_proto, IPPROTO_UDP);
	assert_int_equal(k.l3_off, 14);
	assert_int_equal(k.l4_off, 54);
	assert_memory_equal(k.addrs.v6.src, v6a, 16);
	assert_memory_equal(k.addrs.v6.dst, v6b, 16);
	check_ports(&k, 4789, 4790);

	/* Version 4 behind the IPv6 ethertype. */
	f.b[14] = 0x45;
	assert_int_equal(dissect_exact(f.b, f.len, &k), -ENOENT);
	assert_int_equal(k.flags, MQTX_FLOW_F_TRUNC);
}

static void test_ipv6_ext_chain(void **state)
{
	struct mqtx_flow_keys k;
	struct frame f;

	(void)state;
	fr_eth(&f, 0x86dd);
	fr_ipv6(&f, IPPROTO_HOPOPTS, v6a, v6b);
	fr_ext6(&f, IPPROTO_ROUTING, 0); /* 8 bytes */
	fr_ext6(&f, IPPROTO_DSTOPTS, 2); /* 24 bytes */
	fr_ext6(&f, IPPROTO_AH, 1);	 /* 16 bytes */
	fr_ah6(&f, IPPROTO_TCP, 4);	 /* 24 bytes */
	fr_l4(&f, 22, 60022, 20);
	assert_int_equal(dissect_exact(f.b, f.len, &k), 0);
	assert_int_equal(k.flags, MQTX_FLOW_F_IPV6 | MQTX_FLOW_F_PORTS);
	assert_int_equal(k.ip_proto, IPPROTO_TCP);
	assert_int_equal(k.l4_off, 54 + 8 + 24 + 16 + 24);
	check_ports(&k, 22, 60022);

	/* Cut inside the destination options: IPv6 found, the L4 protocol is not. */
	assert_int_equal(dissect_exact(f.b, 54 + 8 + 20, &k), 0);
	assert_int_equal(k.flags, MQTX_FLOW_F_IPV6 | MQTX_FLOW_F_TRUNC);
	assert_int_equal(k.ip_proto, 0);
	assert_int_equal(k.l4_off, 0);
	assert_memory_equal(k.addrs.v6.dst, v6b, 16);
}

static void test_ipv6_ext_limit(void **state)
{
	struct mqtx_flow_keys k;
	struct frame f;
	int n, i;

	(void)state;
	for (n = 7; n <= 9; n++) {
		fr_eth(&f, 0x86dd);
		fr_ipv6(&f, IPPROTO_DSTOPTS, v6a, v6b);
		for (i = 0; i < n; i++)
			fr_ext6(&f, i == n - 1 ? IPPROTO_UDP : IPPROTO_DSTOPTS, 0);
		fr_l4(&f, 1, 2, 8);
		assert_int_equal(dissect_exact(f.b, f.len, &k), 0);
		if (n <= 8) {
			assert_int_equal(k.flags, MQTX_FLOW_F_IPV6 | MQTX_FLOW_F_PORTS);
			assert_int_equal(k.l4_off, 54 + 8 * n);
		} else {
			assert_int_equal(k.flags, MQTX_FLOW_F_IPV6 | MQTX_FLOW_F_TRUNC);
			assert_int_equal(k.ip_proto, 0);
		}
	}
}

static void test_ipv6_fragments(void **state)
{
	struct mqtx_flow_keys k;
	struct frame f;

	(void)state;
	/* First fragment: FRAG, the transport header is there but its ports are not used. */
	fr_eth(&f, 0x86dd);
	fr_ipv6(&f, IPPROTO_HOPOPTS, v6a, v6b);
	fr_ext6(&f, IPPROTO_FRAGMENT, 0);
	fr_frag6(&f, IPPROTO_UDP, 0, 1);
	fr_l4(&f, 1234, 5678, 8);
	assert_int_equal(dissect_exact(f.b, f.len, &k), 0);
	assert_int_equal(k.flags, MQTX_FLOW_F_IPV6 | MQTX_FLOW_F_FRAG);
	assert_int_equal(k.ip_proto, IPPROTO_UDP);
	assert_int_equal(k.l4_off, 54 + 8 + 8);
	assert_int_equal(k.sport, 0);

	/* A later fragment: no transport header. */
	fr_eth(&f, 0x86dd);
	fr_ipv6(&f, IPPROTO_FRAGMENT, v6a, v6b);
	fr_frag6(&f, IPPROTO_TCP, 185, 1);
	fr_l4(&f, 1234, 5678, 20);
	assert_int_equal(dissect_exact(f.b, f.len, &k), 0);
	assert_int_equal(k.flags, MQTX_FLOW_F_IPV6 | MQTX_FLOW_F_FRAG);
	assert_int_equal(k.ip_proto, IPPROTO_TCP);
	assert_int_equal(k.l4_off, 0);

	/* The last fragment (M clear, offset set). */
	f.b[54 + 2] = 0x05;
	f.b[54 + 3] = 0xc8;
	assert_int_equal(dissect_exact(f.b, f.len, &k), 0);
	assert_int_equal(k.flags, MQTX_FLOW_F_IPV6 | MQTX_FLOW_F_FRAG);

	/* An atomic fragment (offset 0, M clear) is a whole packet. */
	fr_eth(&f, 0x86dd);
	fr_ipv6(&f, IPPROTO_FRAGMENT, v6a, v6b);
	fr_frag6(&f, IPPROTO_TCP, 0, 0);
	fr_l4(&f, 1234, 5678, 20);
	assert_int_equal(dissect_exact(f.b, f.len, &k), 0);
	assert_int_equal(k.flags, MQTX_FLOW_F_IPV6 | MQTX_FLOW_F_PORTS);
	assert_int_equal(k.l4_off, 62);
	check_ports(&k, 1234, 5678);
}

static void test_vlan(void **state)
{
	struct mqtx_flow_keys k;
	struct frame f;

	(void)state;
	fr_eth(&f, 0x8100);
	fr_vlan(&f, 0xe064 /* PCP 7, VID 100 */, 0x0800);
	fr_ipv4(&f, IPPROTO_TCP, v4a, v4b, 5, 0);
	fr_l4(&f, 10, 20, 20);
	assert_int_equal(dissect_exact(f.b, f.len, &k), 0);
	assert_int_equal(k.vlan_depth, 1);
	assert_int_equal(k.vlan_id[0], 100);
	assert_int_equal(k.vlan_id[1], 0);
	assert_int_equal(k.n_proto, 0x0800);
	assert_int_equal(k.l3_off, 18);
	assert_int_equal(k.l4_off, 38);
	check_ports(&k, 10, 20);

	/* QinQ: 802.1ad outer, 802.1Q inner. */
	fr_eth(&f, 0x88a8);
	fr_vlan(&f, 0x0fff, 0x8100);
	fr_vlan(&f, 0x1002, 0x86dd);
	fr_ipv6(&f, IPPROTO_UDP, v6a, v6b);
	fr_l4(&f, 10, 20, 8);
	assert_int_equal(dissect_exact(f.b, f.len, &k), 0);
	assert_int_equal(k.vlan_depth, 2);
	assert_int_equal(k.vlan_id[0], 4095);
	assert_int_equal(k.vlan_id[1], 2);
	assert_int_equal(k.l3_off, 22);
	assert_int_equal(k.flags, MQTX_FLOW_F_IPV6 | MQTX_FLOW_F_PORTS);
	check_ports(&k, 10, 20);

	/* Cut inside the second tag. */
	assert_int_equal(dissect_exact(f.b, 20, &k), -ENOENT);
	assert_int_equal(k.vlan_depth, 1);
	assert_int_equal(k.n_proto, 0);
	assert_int_equal(k.flags, MQTX_FLOW_F_TRUNC);
}

static void test_vlan_depth(void **state)
{
	struct mqtx_flow_keys k;
	struct frame f;
	int n, i;

	(void)state;
	for (n = 3; n <= 9; n++) {
		fr_eth(&f, 0x88a8);
		for (i = 0; i < n; i++)
			fr_vlan(&f, (uint16_t)(i + 1), i == n - 1 ? 0x0800 : 0x8100);
		fr_ipv4(&f, IPPROTO_UDP, v4a, v4b, 5, 0);
		fr_l4(&f, 7, 9, 8);
		if (n <= 8) {
			assert_int_equal(dissect_exact(f.b, f.len, &k), 0);
			assert_int_equal(k.vlan_depth, n);
			assert_int_equal(k.l3_off, 14 + 4 * n);
			check_ports(&k, 7, 9);
		} else {
			assert_int_equal(dissect_exact(f.b, f.len, &k), -ENOENT);
			assert_int_equal(k.vlan_depth, 8);
			assert_int_equal(k.n_proto, 0);
			assert_int_equal(k.flags, 0);
		}
		/* Only the two outermost IDs are kept. */
		assert_int_equal(k.vlan_id[0], 1);
		assert_int_equal(k.vlan_id[1], 2);
	}
}

static void test_non_ip(void **state)
{
	struct mqtx_flow_keys k;
	struct frame f;

	(void)state;
	fr_eth(&f, 0x0806);
	fr_zero(&f, 28);
	assert_int_equal(dissect_exact(f.b, f.len, &k), -ENOENT);
	assert_int_equal(k.n_proto, 0x0806);
	assert_int_equal(k.l3_off, 14);
	assert_int_equal(k.flags, 0);

	/* An 802.3 length field is not an ethertype. */
	fr_eth(&f, 46);
	fr_zero(&f, 46);
	assert_int_equal(dissect_exact(f.b, f.len, &k), -ENOENT);
	assert_int_equal(k.n_proto, 0);
	assert_int_equal(k.l3_off, 0);

	assert_int_equal(mqtx_flow_dissect(NULL, 64, &k), -EINVAL);
	assert_int_equal(mqtx_flow_dissect(f.b, f.len, NULL), -EINVAL);
	assert_int_equal(dissect_exact(f.b, 13, &k), -ENOENT);
	assert_int_equal(k.flags, MQTX_FLOW_F_TRUNC);
	assert_int_equal(dissect_exact(f.b, 0, &k), -ENOENT);
}

/* Frames for the truncation walk, with where their IP header and their ports become complete. */
struct trunc_case {
	struct frame f;
	size_t ip_end, ports_end;
};

static void build_trunc_cases(struct trunc_case *c)
{
	fr_eth(&c[0].f, 0x8100);
	fr_vlan(&c[0].f, 42, 0x0800);
	fr_ipv4(&c[0].f, IPPROTO_TCP, v4a, v4b, 8, 0);
	fr_l4(&c[0].f, 80, 8080, 20);
	fr_zero(&c[0].f, 10);
	c[0].ip_end = 18 + 32;
	c[0].ports_end = c[0].ip_end + 20;

	fr_eth(&c[1].f, 0x86dd);
	fr_ipv6(&c[1].f, IPPROTO_HOPOPTS, v6a, v6b);
	fr_ext6(&c[1].f, IPPROTO_ROUTING, 1);
	fr_ext6(&c[1].f, IPPROTO_DSTOPTS, 0);
	fr_ext6(&c[1].f, IPPROTO_UDP, 0);
	fr_l4(&c[1].f, 53, 5353, 8);
	c[1].ip_end = 54;
	c[1].ports_end = 54 + 16 + 8 + 8 + 8;

	fr_eth(&c[2].f, 0x88a8);
	fr_vlan(&c[2].f, 1, 0x8100);
	fr_vlan(&c[2].f, 2, 0x86dd);
	fr_ipv6(&c[2].f, IPPROTO_FRAGMENT, v6a, v6b);
	fr_frag6(&c[2].f, IPPROTO_SCTP, 0, 1);
	fr_l4(&c[2].f, 9, 9, 12);
	c[2].ip_end = 22 + 40;
	c[2].ports_end = 0; /* a fragment never has ports */

	fr_eth(&c[3].f, 0x0800);
	fr_ipv4(&c[3].f, IPPROTO_SCTP, v4a, v4b, 5, 0);
	fr_l4(&c[3].f, 3868, 3868, 12);
	c[3].ip_end = 34;
	c[3].ports_end = 46;
}

static void test_truncation(void **state)
{
	struct trunc_case c[4];
	struct mqtx_flow_keys full, k;
	size_t i, len;
	int ret;

	(void)state;
	build_trunc_cases(c);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		assert_int_equal(dissect_exact(c[i].f.b, c[i].f.len, &full), 0);
		assert_false(full.flags & MQTX_FLOW_F_TRUNC);
		for (len = 0; len <= c[i].f.len; len++) {
			ret = dissect_exact(c[i].f.b, len, &k);
			assert_true(k.l3_off <= len && k.l4_off <= len);
			assert_int_equal(ret, len >= c[i].ip_end ? 0 : -ENOENT);
			if (ret) {
				assert_false(k.flags & ~MQTX_FLOW_F_TRUNC);
				assert_int_equal(k.l4_off, 0);
				continue;
			}
			assert_int_equal(k.flags & (MQTX_FLOW_F_IPV4 | MQTX_FLOW_F_IPV6),
					 full.flags & (MQTX_FLOW_F_IPV4 | MQTX_FLOW_F_IPV6));
			assert_memory_equal(&k.addrs, &full.addrs, sizeof(k.addrs));
			assert_int_equal(k.vlan_depth, full.vlan_depth);
			if (c[i].ports_end) {
				/* Ports exactly once the transport header is complete. */
				assert_int_equal(!!(k.flags & MQTX_FLOW_F_PORTS),
						 len >= c[i].ports_end);
				assert_int_equal(!!(k.flags & MQTX_FLOW_F_TRUNC),
						 len < c[i].ports_end);
			}
			if (!(k.flags & MQTX_FLOW_F_TRUNC))
				assert_memory_equal(&k, &full, sizeof(k));
			if (k.ip_proto)
				assert_int_equal(k.ip_proto, full.ip_proto);
		}
	}
}

/* What every dissection must satisfy, whatever the input. */
static void check_invariants(const uint8_t *b, size_t len)
{
	struct mqtx_flow_keys k;
	int ret = dissect_exact(b, len, &k);
	unsigned int ip = k.flags & (MQTX_FLOW_F_IPV4 | MQTX_FLOW_F_IPV6);

	assert_true(ret == 0 || ret == -ENOENT);
	assert_false(k.flags & ~F_ALL);
	assert_true(k.l3_off <= len && k.l4_off <= len);
	assert_true(k.vlan_depth <= 8);
	if (ret == 0) {
		assert_true(ip == MQTX_FLOW_F_IPV4 || ip == MQTX_FLOW_F_IPV6);
		assert_true(k.n_proto == (ip == MQTX_FLOW_F_IPV4 ? 0x0800 : 0x86dd));
		assert_true(k.l3_off >= 14);
	} else {
		assert_int_equal(ip, 0);
		assert_false(k.flags & (MQTX_FLOW_F_PORTS | MQTX_FLOW_F_FRAG));
		assert_int_equal(k.l4_off, 0);
		assert_int_equal(k.ip_proto, 0);
	}
	if (!k.n_proto)
		assert_int_equal(k.l3_off, 0);
	if (k.flags & MQTX_FLOW_F_PORTS) {
		assert_false(k.flags & MQTX_FLOW_F_FRAG);
		assert_true(k.l4_off > k.l3_off && k.l4_off + 8u <= len);
		assert_memory_equal(&k.sport, b + k.l4_off, 2);
		assert_memory_equal(&k.dport, b + k.l4_off + 2, 2);
	} else {
		assert_int_equal(k.sport, 0);
		assert_int_equal(k.dport, 0);
	}
	if (k.l4_off)
		assert_true(k.l4_off >= k.l3_off + 20);
}

static void test_fuzz_random(void **state)
{
	static const uint16_t types[] = { 0x0800, 0x86dd, 0x8100, 0x88a8, 0x0806 };
	uint64_t seed = 0x6d71747866757a7aull;
	uint8_t buf[160];
	size_t len;
	int i;

	(void)state;
	for (i = 0; i < 100000; i++) {
		len = test_rand(&seed) % sizeof(buf);
		test_rand_fill(&seed, buf, len);
		/* Steer most frames past the Ethernet header, else nearly all stop there. */
		if (len >= 15 && test_rand(&seed) % 4) {
			uint16_t t = types[test_rand(&seed) % ARRAY_SIZE(types)];

			buf[12] = (uint8_t)(t >> 8);
			buf[13] = (uint8_t)t;
			if (t == 0x0800)
				buf[14] = (uint8_t)(0x40 | (buf[14] & 0x0f));
			else if (t == 0x86dd)
				buf[14] = (uint8_t)(0x60 | (buf[14] & 0x0f));
		}
		check_invariants(buf, len);
	}
}

static void test_fuzz_mutate(void **state)
{
	uint64_t seed = 0x0123456789abcdefull;
	struct trunc_case c[4];
	uint8_t buf[sizeof(c[0].f.b)];
	size_t len, flips, j;
	int i;

	(void)state;
	build_trunc_cases(c);
	for (i = 0; i < 100000; i++) {
		const struct frame *f = &c[i % ARRAY_SIZE(c)].f;

		memcpy(buf, f->b, f->len);
		flips = 1 + test_rand(&seed) % 4;
		for (j = 0; j < flips; j++)
			buf[test_rand(&seed) % f->len] = (uint8_t)test_rand(&seed);
		len = test_rand(&seed) % 3 ? f->len : test_rand(&seed) % (f->len + 1);
		check_invariants(buf, len);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_ports),     cmocka_unit_test(test_ipv4_no_ports),
		cmocka_unit_test(test_ipv4_options),   cmocka_unit_test(test_ipv4_malformed),
		cmocka_unit_test(test_ipv4_fragments), cmocka_unit_test(test_ipv6_plain),
		cmocka_unit_test(test_ipv6_ext_chain), cmocka_unit_test(test_ipv6_ext_limit),
		cmocka_unit_test(test_ipv6_fragments), cmocka_unit_test(test_vlan),
		cmocka_unit_test(test_vlan_depth),     cmocka_unit_test(test_non_ip),
		cmocka_unit_test(test_truncation),     cmocka_unit_test(test_fuzz_random),
		cmocka_unit_test(test_fuzz_mutate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
