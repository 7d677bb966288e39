// SPDX-License-Identifier: MIT
/* Bounds-checked dissector: Ethernet, VLAN tags, IPv4/IPv6 and the ports a flow hash needs. */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <mqtx/flow.h>

#include "base/internal.h"

#define ETH_HDR_LEN   14
#define VLAN_TAG_LEN  4
#define ETYPE_MIN     0x0600 /* smaller values are an 802.3 length, not an ethertype */
#define ETYPE_IPV4    0x0800
#define ETYPE_IPV6    0x86dd
#define ETYPE_8021Q   0x8100
#define ETYPE_8021AD  0x88a8
#define MAX_VLAN_TAGS 8 /* deeper stacks are not real traffic; treat them as non-IP */
#define MAX_IPV6_EXT  8 /* bounds the walk; l4_off stays well inside uint16_t */
#define IPV4_MIN_HLEN 20
#define IPV4_MF	      0x2000
#define IPV4_OFFSET   0x1fff
#define IPV6_HLEN     40
#define IPV6_FRAG_LEN 8

static inline uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Bytes of the fixed header each port-carrying protocol must have before its ports count. */
static size_t l4_min_len(uint8_t proto)
{
	switch (proto) {
	case IPPROTO_TCP:
		return 20;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
		return 8;
	case IPPROTO_SCTP:
	case IPPROTO_DCCP:
		return 12;
	default:
		return 0;
	}
}

/* Record the ports of a non-fragment whose transport header starts at k->l4_off. */
static void dissect_ports(const uint8_t *f, size_t len, struct mqtx_flow_keys *k)
{
	size_t need = l4_min_len(k->ip_proto);

	if (!need || (k->flags & MQTX_FLOW_F_FRAG))
		return;
	if (len - k->l4_off < need) {
		k->flags |= MQTX_FLOW_F_TRUNC;
		return;
	}
	/* Kept as on the wire: the hashes want the raw bytes. */
	memcpy(&k->sport, f + k->l4_off, 2);
	memcpy(&k->dport, f + k->l4_off + 2, 2);
	k->flags |= MQTX_FLOW_F_PORTS;
}

static int dissect_ipv4(const uint8_t *f, size_t len, size_t off, struct mqtx_flow_keys *k)
{
	const uint8_t *ip = f + off;
	size_t hlen;
	uint16_t frag;

	if (len - off < IPV4_MIN_HLEN || ip[0] >> 4 != 4 || (ip[0] & 0xf) < 5)
		goto bad;
	hlen = (size_t)(ip[0] & 0xf) * 4;
	if (len - off < hlen)
		goto bad;

	k->flags |= MQTX_FLOW_F_IPV4;
	k->ip_proto = ip[9];
	memcpy(&k->addrs.v4.src, ip + 12, 4);
	memcpy(&k->addrs.v4.dst, ip + 16, 4);
	frag = get_be16(ip + 6);
	if (frag & (IPV4_MF | IPV4_OFFSET)) {
		k->flags |= MQTX_FLOW_F_FRAG;
		/* A later fragment carries payload bytes, not a transport header. */
		if (frag & IPV4_OFFSET)
			return 0;
	}
	k->l4_off = (uint16_t)(off + hlen);
	dissect_ports(f, len, k);
	return 0;
bad:
	k->flags |= MQTX_FLOW_F_TRUNC;
	return -ENOENT;
}

/*
 * The length of the IPv6 extension header @nh at @p (@avail bytes left), 0 if @nh is not one
 * the walk skips, or -1 if the frame ends inside it.
 */
static long ipv6_ext_len(uint8_t nh, const uint8_t *p, size_t avail)
{
	long elen;

	switch (nh) {
	case IPPROTO_HOPOPTS:
	case IPPROTO_ROUTING:
	case IPPROTO_DSTOPTS:
		if (avail < 2)
			return -1;
		elen = ((long)p[1] + 1) * 8;
		break;
	case IPPROTO_AH:
		if (avail < 2)
			return -1;
		elen = ((long)p[1] + 2) * 4;
		break;
	case IPPROTO_FRAGMENT:
		elen = IPV6_FRAG_LEN;
		break;
	default:
		return 0;
	}
	return (size_t)elen <= avail ? elen : -1;
}

static int dissect_ipv6(const uint8_t *f, size_t len, size_t off, struct mqtx_flow_keys *k)
{
	const uint8_t *ip = f + off;
	uint16_t frag;
	uint8_t nh;
	long elen;
	int n;

	if (len - off < IPV6_HLEN || ip[0] >> 4 != 6) {
		k->flags |= MQTX_FLOW_F_TRUNC;
		return -ENOENT;
	}
	k->flags |= MQTX_FLOW_F_IPV6;
	memcpy(k->addrs.v6.src, ip + 8, 16);
	memcpy(k->addrs.v6.dst, ip + 24, 16);

	nh = ip[6];
	off += IPV6_HLEN;
	for (n = 0;; n++) {
		elen = ipv6_ext_len(nh, f + off, len - off);
		if (!elen)
			break;
		if (elen < 0 || n == MAX_IPV6_EXT) {
			/* The L4 protocol stays unknown: leave ip_proto and l4_off at 0. */
			k->flags |= MQTX_FLOW_F_TRUNC;
			return 0;
		}
		if (nh == IPPROTO_FRAGMENT) {
			frag = get_be16(f + off + 2);
			/* Offset (upper 13 bits) or M flag: a real fragment; else an atomic one. */
			if (frag & 0xfff9)
				k->flags |= MQTX_FLOW_F_FRAG;
			if (frag >> 3) {
				k->ip_proto = f[off];
				return 0;
			}
		}
		nh = f[off];
		off += (size_t)elen;
	}
	k->ip_proto = nh;
	k->l4_off = (uint16_t)off;
	dissect_ports(f, len, k);
	return 0;
}

/* Walk the Ethernet header and any VLAN tags; on success k->n_proto and k->l3_off are set. */
static int dissect_l2(const uint8_t *f, size_t len, struct mqtx_flow_keys *k)
{
	size_t off = ETH_HDR_LEN;
	uint16_t type;

	if (len < ETH_HDR_LEN) {
		k->flags |= MQTX_FLOW_F_TRUNC;
		return -ENOENT;
	}
	type = get_be16(f + 12);
	while (type == ETYPE_8021Q || type == ETYPE_8021AD) {
		if (k->vlan_depth == MAX_VLAN_TAGS)
			return -ENOENT;
		if (len - off < VLAN_TAG_LEN) {
			k->flags |= MQTX_FLOW_F_TRUNC;
			return -ENOENT;
		}
		if (k->vlan_depth < ARRAY_SIZE(k->vlan_id))
			k->vlan_id[k->vlan_depth] = get_be16(f + off) & 0x0fff;
		k->vlan_depth++;
		type = get_be16(f + off + 2);
		off += VLAN_TAG_LEN;
	}
	if (type < ETYPE_MIN)
		return -ENOENT;
	k->n_proto = type;
	k->l3_off = (uint16_t)off;
	return 0;
}

int mqtx_flow_dissect(const void *frame, size_t len, struct mqtx_flow_keys *keys)
{
	const uint8_t *f = frame;
	int ret;

	if (!frame || !keys)
		return -EINVAL;
	memset(keys, 0, sizeof(*keys));
	ret = dissect_l2(f, len, keys);
	if (ret)
		return ret;
	switch (keys->n_proto) {
	case ETYPE_IPV4:
		return dissect_ipv4(f, len, keys->l3_off, keys);
	case ETYPE_IPV6:
		return dissect_ipv6(f, len, keys->l3_off, keys);
	default:
		return -ENOENT;
	}
}
